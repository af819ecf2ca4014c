package serve

import (
	"container/heap"
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// A pacer releases the writes of every stream a Server is answering at
// their due times (issue 22). Go's timers fire up to a millisecond late on
// Linux (the runtime waits for them in epoll_wait, whose timeout is in
// milliseconds); a replay server later than its clients cannot measure
// them. So one goroutine keeps the next due time of every stream in a
// min-heap, sleeps until the earliest with a precise sleeper (on Linux a
// thread of its own, waiting on a futex with an absolute CLOCK_MONOTONIC
// deadline and no timer slack, see sleep_linux.go), releases what is due
// and sleeps again. A stream's goroutine still does its own writes: it
// waits for the pacer to release each one, so a slow client holds up
// its own stream only.
//
// The pacer goroutine runs while some stream has a write to come, and
// ends when none has.
type pacer struct {
	sl sleeper

	mu       sync.Mutex
	h        paceHeap
	running  bool          // the pacer goroutine runs
	sleeping bool          // it sleeps until target
	target   time.Duration // on sl's clock
}

// A sleeper is the pacer's clock.
type sleeper interface {
	// now is the time on the sleeper's clock, which counts from the
	// sleeper's base (a time.Time: see pacer.since).
	now() time.Duration
	// enter and leave are called by the pacer goroutine when it starts
	// and before it ends.
	enter()
	leave()
	// token is read with the pacer's lock held before sleep, which
	// returns at until at the latest, or once wake was called after
	// token (it may return early, too). wake is called with the lock
	// held.
	token() uint32
	sleep(until time.Duration, token uint32)
	wake()
	base() time.Time
}

func newPacer(sl sleeper) *pacer { return &pacer{sl: sl} }

// since is t on the pacer's clock.
func (p *pacer) since(t time.Time) time.Duration { return t.Sub(p.sl.base()) }

// A pace is one stream's schedule: its due times, on the pacer's clock,
// in the order the stream writes (a due time earlier than the one before
// it is released right after it).
type pace struct {
	dues     []time.Duration
	next     int // the next due time to release (the pacer's, under its lock)
	idx      int // in the pacer's heap, or -1
	released atomic.Int64
	ch       chan struct{} // a release happened
}

// start schedules a stream's due times.
func (p *pacer) start(dues []time.Duration) *pace {
	t := &pace{dues: dues, idx: -1, ch: make(chan struct{}, 1)}
	if len(dues) == 0 {
		return t
	}
	p.mu.Lock()
	heap.Push(&p.h, t)
	switch {
	case !p.running:
		p.running = true
		go p.run()
	case p.sleeping && dues[0] < p.target:
		p.sl.wake()
	}
	p.mu.Unlock()
	return t
}

// stop drops what is left of a stream's schedule.
func (p *pacer) stop(t *pace) {
	p.mu.Lock()
	if t.idx >= 0 {
		heap.Remove(&p.h, t.idx)
	}
	p.mu.Unlock()
}

// wait waits until the k-th due time of t is released, and reports
// whether ctx is still live then.
func (t *pace) wait(ctx context.Context, k int) bool {
	for t.released.Load() <= int64(k) {
		select {
		case <-t.ch:
		case <-ctx.Done():
			return false
		}
	}
	return ctx.Err() == nil
}

// step releases every due time up to now, and returns the earliest due
// time left (false when none is). The pacer's lock is held.
func (p *pacer) step(now time.Duration) (time.Duration, bool) {
	for len(p.h) > 0 {
		t := p.h[0]
		if t.dues[t.next] > now {
			return t.dues[t.next], true
		}
		t.next++
		t.released.Store(int64(t.next))
		select {
		case t.ch <- struct{}{}:
		default:
		}
		if t.next < len(t.dues) {
			heap.Fix(&p.h, 0)
		} else {
			heap.Pop(&p.h)
		}
	}
	return 0, false
}

func (p *pacer) run() {
	p.sl.enter()
	defer p.sl.leave()
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		next, ok := p.step(p.sl.now())
		if !ok {
			p.running = false
			return
		}
		p.sleeping, p.target = true, next
		tok := p.sl.token()
		p.mu.Unlock()
		p.sl.sleep(next, tok)
		p.mu.Lock()
		p.sleeping = false
	}
}

// paceHeap orders streams by their next due time.
type paceHeap []*pace

func (h paceHeap) Len() int { return len(h) }
func (h paceHeap) Less(i, j int) bool {
	return h[i].dues[h[i].next] < h[j].dues[h[j].next]
}
func (h paceHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *paceHeap) Push(x any) {
	t := x.(*pace)
	t.idx = len(*h)
	*h = append(*h, t)
}
func (h *paceHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.idx = -1
	return t
}

// timerSleeper sleeps with Go's timers: the portable sleeper, and the
// fallback of the precise one.
type timerSleeper struct {
	t0   time.Time
	kick chan struct{}
}

func newTimerSleeper() *timerSleeper {
	return &timerSleeper{t0: time.Now(), kick: make(chan struct{}, 1)}
}

func (s *timerSleeper) now() time.Duration { return time.Since(s.t0) }
func (s *timerSleeper) base() time.Time    { return s.t0 }
func (s *timerSleeper) enter()             {}
func (s *timerSleeper) leave()             {}
func (s *timerSleeper) token() uint32      { return 0 }

func (s *timerSleeper) sleep(until time.Duration, _ uint32) {
	d := until - s.now()
	if d <= 0 {
		return
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-s.kick:
	}
}

func (s *timerSleeper) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

package serve

import (
	"container/heap"
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A pacer releases the writes of every stream a Server is answering at
// their due times (issue 22). Go's timers fire up to a millisecond late on
// Linux (the runtime waits for them in epoll_wait, whose timeout is in
// milliseconds); a replay server later than its clients cannot measure
// them. So one goroutine keeps the next due time of every stream in a
// min-heap, sets one precise alarm for the earliest (on Linux a timerfd
// set to an absolute CLOCK_MONOTONIC time, see alarm_linux.go), releases
// what is due when it goes off, and sets it again. A stream's goroutine
// does its own writes: a slow client holds up its own stream only.
//
// The pacer waits for its alarm without holding a thread: the runtime's
// network poller wakes it as the timerfd becomes readable (an event, not
// epoll_wait's timeout), and the streams it releases write at once on the
// same thread. A locked thread of its own sleeping on a futex until an
// absolute CLOCK_MONOTONIC deadline (issue 22's suggestion) was measured
// first: on the wire it was later (a median of 475 µs against 277 µs at
// 64 streams) and cost more (64% of a core against 40%), since every
// release goes from that thread to a stream's goroutine on another
// (docs/performance.md).
//
// The pacer goroutine runs while some stream has a write to come, and
// ends when none has.
type pacer struct {
	al alarm

	mu      sync.Mutex
	h       paceHeap
	running bool          // the pacer goroutine runs
	waiting bool          // it waits for the alarm, set for target
	target  time.Duration // on al's clock
}

// An alarm is the pacer's clock. Only the pacer goroutine calls open,
// close, set and wait; advance is called by others. Every method but wait
// is called with the pacer's lock held.
type alarm interface {
	// now is the time on the alarm's clock, which counts from base.
	now() time.Duration
	base() time.Time
	// open and close are called as the pacer goroutine starts and ends.
	open()
	close()
	// set sets the alarm for at; wait waits until it goes off (it may
	// return early).
	set(at time.Duration)
	wait()
	// advance sets the alarm for at, earlier than it is set for, while
	// the pacer waits.
	advance(at time.Duration)
}

func newPacer(al alarm) *pacer { return &pacer{al: al} }

// since is t on the pacer's clock.
func (p *pacer) since(t time.Time) time.Duration { return t.Sub(p.al.base()) }

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
	case p.waiting && dues[0] < p.target:
		p.target = dues[0]
		p.al.advance(dues[0])
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
// time left (false when none is) and how many it released. The pacer's
// lock is held.
func (p *pacer) step(now time.Duration) (next time.Duration, ok bool, released int) {
	for len(p.h) > 0 {
		t := p.h[0]
		if t.dues[t.next] > now {
			return t.dues[t.next], true, released
		}
		released++
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
	return 0, false, released
}

func (p *pacer) run() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.al.open()
	defer p.al.close()
	for {
		next, ok, released := p.step(p.al.now())
		if released > 0 {
			// The released streams write first, on this thread, before
			// the alarm is set again (two system calls): then the
			// streams due meanwhile are released too.
			p.mu.Unlock()
			runtime.Gosched()
			p.mu.Lock()
			continue
		}
		if !ok {
			p.running = false
			return
		}
		// An alarm goes off once: it is set for every wait.
		p.al.set(next)
		p.waiting, p.target = true, next
		p.mu.Unlock()
		p.al.wait()
		p.mu.Lock()
		p.waiting = false
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

// timerAlarm is an alarm of Go's timers: the portable one, and the
// fallback of the precise one.
type timerAlarm struct {
	t0   time.Time
	at   atomic.Int64
	kick chan struct{} // advance happened
}

func newTimerAlarm() *timerAlarm {
	return &timerAlarm{t0: time.Now(), kick: make(chan struct{}, 1)}
}

func (a *timerAlarm) now() time.Duration { return time.Since(a.t0) }
func (a *timerAlarm) base() time.Time    { return a.t0 }
func (a *timerAlarm) open()              {}
func (a *timerAlarm) close()             {}

func (a *timerAlarm) set(at time.Duration) {
	a.at.Store(int64(at))
	select {
	case <-a.kick: // an advance the pacer has seen
	default:
	}
}

func (a *timerAlarm) advance(at time.Duration) {
	a.at.Store(int64(at))
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

func (a *timerAlarm) wait() {
	d := time.Duration(a.at.Load()) - a.now()
	if d <= 0 {
		return
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-a.kick:
	}
}

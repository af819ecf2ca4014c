package serve

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fakeClock is a sleeper whose time moves only when the test says: each
// time the pacer goes to sleep, its target comes out of asleep; advance
// moves the clock and lets it go on.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Duration
	wakes  int
	asleep chan time.Duration
	resume chan struct{}
	left   chan struct{}
}

func newFakeClock() *fakeClock {
	return &fakeClock{asleep: make(chan time.Duration, 16), resume: make(chan struct{}, 1), left: make(chan struct{}, 16)}
}

func (f *fakeClock) now() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}
func (f *fakeClock) base() time.Time { return time.Unix(0, 0) }
func (f *fakeClock) enter()          {}
func (f *fakeClock) leave()          { f.left <- struct{}{} }
func (f *fakeClock) token() uint32   { return 0 }
func (f *fakeClock) sleep(until time.Duration, _ uint32) {
	f.asleep <- until
	<-f.resume
}
func (f *fakeClock) wake() {
	f.mu.Lock()
	f.wakes++
	f.mu.Unlock()
	select {
	case f.resume <- struct{}{}:
	default:
	}
}

// advance sets the clock to t and wakes the pacer.
func (f *fakeClock) advance(t time.Duration) {
	f.mu.Lock()
	f.t = t
	f.mu.Unlock()
	f.resume <- struct{}{}
}

// liveness bounds how long a test waits for the pacer to act at all (it
// is not a timing check: the pacer acts on the fake clock's time).
const liveness = 30 * time.Second

func (f *fakeClock) nextSleep(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-f.asleep:
		return d
	case <-f.left:
		t.Fatal("the pacer ended, want it asleep")
	case <-time.After(liveness):
		t.Fatal("the pacer never went to sleep")
	}
	return 0
}

func (f *fakeClock) ended(t *testing.T) {
	t.Helper()
	select {
	case d := <-f.asleep:
		t.Fatalf("the pacer sleeps until %v, want it ended", d)
	case <-f.left:
	case <-time.After(liveness):
		t.Fatal("the pacer never ended")
	}
}

// releasedBy is how many of dues are released by now: a due time is
// released once it and every one before it is past.
func releasedBy(dues []time.Duration, now time.Duration) int64 {
	for k, d := range dues {
		if d > now {
			return int64(k)
		}
	}
	return int64(len(dues))
}

// TestPacerReleasesInOrder: each stream's writes are released in their
// order, none before its due time, each as soon as the clock reaches it
// (a due time earlier than the one before it right after it); the pacer
// sleeps until the earliest due time left, and ends when none is left.
func TestPacerReleasesInOrder(t *testing.T) {
	f := newFakeClock()
	p := newPacer(f)
	// The earliest first: no stream wakes the pacer as they start.
	schedules := [][]time.Duration{{5}, {10, 30, 50}, {20, 20, 60}, {40, 25}}
	var paces []*pace
	for _, d := range schedules {
		paces = append(paces, p.start(d))
	}
	targets := []time.Duration{5, 10, 20, 30, 40, 50, 60}
	for i, want := range targets {
		got := f.nextSleep(t)
		if got != want {
			t.Fatalf("sleep %d: until %v, want %v", i, got, want)
		}
		check := func() {
			now := f.now()
			for j, pc := range paces {
				if r, w := pc.released.Load(), releasedBy(schedules[j], now); r != w {
					t.Errorf("at %v, stream %d: %d writes released, want %d", now, j, r, w)
				}
			}
		}
		check()
		// Woken a nanosecond early: nothing is released, the pacer
		// sleeps again until the same time.
		f.advance(want - 1)
		if got := f.nextSleep(t); got != want {
			t.Fatalf("sleep %d, woken at %v: until %v, want %v again", i, want-1, got, want)
		}
		check()
		f.advance(want)
	}
	f.ended(t)
	for j, pc := range paces {
		if !pc.wait(context.Background(), len(schedules[j])-1) {
			t.Errorf("stream %d: wait for its last write failed", j)
		}
	}
}

// TestPacerWakesForEarlierStream: a stream that starts with a write due
// before the pacer's wake-up wakes it; a later one does not.
func TestPacerWakesForEarlierStream(t *testing.T) {
	f := newFakeClock()
	p := newPacer(f)
	a := p.start([]time.Duration{100})
	if got := f.nextSleep(t); got != 100 {
		t.Fatalf("sleeps until %v, want 100", got)
	}
	b := p.start([]time.Duration{50})
	if got := f.nextSleep(t); got != 50 {
		t.Fatalf("after an earlier stream: sleeps until %v, want 50", got)
	}
	p.start([]time.Duration{70}) // after 50: no wake
	f.mu.Lock()
	wakes := f.wakes
	f.mu.Unlock()
	if wakes != 1 {
		t.Errorf("%d wakes, want 1 (for the stream due at 50 only)", wakes)
	}
	f.advance(50)
	if got := f.nextSleep(t); got != 70 {
		t.Fatalf("sleeps until %v, want 70", got)
	}
	if a.released.Load() != 0 || b.released.Load() != 1 {
		t.Errorf("at 50: released %d and %d, want 0 and 1", a.released.Load(), b.released.Load())
	}
	f.advance(100)
	f.ended(t)
}

// TestPacerStop: a stopped stream gets no further release, and the pacer
// ends when the streams left are done; a new stream starts it again.
func TestPacerStop(t *testing.T) {
	f := newFakeClock()
	p := newPacer(f)
	a := p.start([]time.Duration{10, 20, 30})
	b := p.start([]time.Duration{15})
	f.nextSleep(t)
	f.advance(10)
	if got := f.nextSleep(t); got != 15 {
		t.Fatalf("sleeps until %v, want 15", got)
	}
	p.stop(a)
	f.advance(25)
	f.ended(t)
	if a.released.Load() != 1 || b.released.Load() != 1 {
		t.Errorf("released %d and %d, want 1 (then stopped) and 1", a.released.Load(), b.released.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if a.wait(ctx, 1) {
		t.Errorf("wait for a write never released, with the context done: true")
	}
	if a.wait(ctx, 0) {
		t.Errorf("wait for a released write, with the context done: true, want false (as the context says)")
	}
	p.stop(a) // twice: nothing
	c := p.start([]time.Duration{40})
	if got := f.nextSleep(t); got != 40 {
		t.Fatalf("a new stream: sleeps until %v, want 40", got)
	}
	f.advance(40)
	f.ended(t)
	if !c.wait(context.Background(), 0) {
		t.Errorf("the new stream's write was not released")
	}
}

// TestSleeperWakes: the platform's sleeper (and its fallback on Go's
// timers) is woken by a stream due before the one it sleeps for, an hour
// away: otherwise the test would wait for an hour. No write is released
// before its due time on the sleeper's own clock.
func TestSleeperWakes(t *testing.T) {
	sleepers := map[string]sleeper{"platform": newSleeper(), "timers": newTimerSleeper()}
	for name, sl := range otherSleepers() {
		sleepers[name] = sl
	}
	for name, sl := range sleepers {
		t.Run(name, func(t *testing.T) {
			p := newPacer(sl)
			far := p.start([]time.Duration{sl.now() + time.Hour})
			defer p.stop(far)
			asleep(t, p, far.dues[0])
			var dues []time.Duration
			for k := range 20 {
				dues = append(dues, sl.now()+time.Duration(k)*100*time.Microsecond+time.Millisecond)
			}
			near := p.start(dues)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for k, d := range dues {
					near.wait(context.Background(), k)
					if now := sl.now(); now < d {
						t.Errorf("write %d released at %v, before its due time %v", k, now, d)
					}
				}
			}()
			select {
			case <-done:
			case <-time.After(liveness):
				t.Fatal("the sleeper was not woken for a stream due before the one it sleeps for")
			}
			if far.released.Load() != 0 {
				t.Errorf("the stream due in an hour was released")
			}
		})
	}
}

// asleep waits until the pacer sleeps until target.
func asleep(t *testing.T, p *pacer, target time.Duration) {
	t.Helper()
	for start := time.Now(); time.Since(start) < liveness; time.Sleep(time.Millisecond) {
		p.mu.Lock()
		ok := p.sleeping && p.target == target
		p.mu.Unlock()
		if ok {
			return
		}
	}
	t.Fatalf("the pacer never slept until %v", target)
}

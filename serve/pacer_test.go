package serve

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fakeClock is an alarm whose time moves only when the test says: each
// time the pacer waits for it, the time it is set for comes out of
// asleep; advance moves the clock and lets the pacer go on.
type fakeClock struct {
	mu       sync.Mutex
	t        time.Duration
	at       time.Duration
	advances int
	isOpen   bool
	asleep   chan time.Duration
	resume   chan struct{}
}

func newFakeClock() *fakeClock {
	return &fakeClock{asleep: make(chan time.Duration, 16), resume: make(chan struct{}, 1)}
}

func (f *fakeClock) now() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}
func (f *fakeClock) base() time.Time { return time.Unix(0, 0) }
func (f *fakeClock) open()           { f.setOpen(true) }
func (f *fakeClock) close()          { f.setOpen(false) }
func (f *fakeClock) setOpen(o bool) {
	f.mu.Lock()
	f.isOpen = o
	f.mu.Unlock()
}
func (f *fakeClock) set(at time.Duration) {
	f.mu.Lock()
	f.at = at
	f.mu.Unlock()
}
func (f *fakeClock) wait() {
	f.mu.Lock()
	at := f.at
	f.mu.Unlock()
	f.asleep <- at
	<-f.resume
}
func (f *fakeClock) advance(at time.Duration) {
	f.mu.Lock()
	f.at = at
	f.advances++
	f.mu.Unlock()
	select {
	case f.resume <- struct{}{}:
	default:
	}
}

// tick sets the clock to t and wakes the pacer.
func (f *fakeClock) tick(t time.Duration) {
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
	case <-time.After(liveness):
		t.Fatal("the pacer never went to sleep")
	}
	return 0
}

// ended waits for the pacer goroutine to end, and checks that it did not
// sleep again first.
func (f *fakeClock) ended(t *testing.T, p *pacer) {
	t.Helper()
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		select {
		case d := <-f.asleep:
			t.Fatalf("the pacer sleeps until %v, want it ended", d)
		default:
		}
		p.mu.Lock()
		running := p.running
		p.mu.Unlock()
		f.mu.Lock()
		open := f.isOpen
		f.mu.Unlock()
		if !running {
			if open {
				t.Fatal("the pacer ended with its alarm open")
			}
			return
		}
		if time.Since(start) > liveness {
			t.Fatal("the pacer never ended")
		}
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
		f.tick(want - 1)
		if got := f.nextSleep(t); got != want {
			t.Fatalf("sleep %d, woken at %v: until %v, want %v again", i, want-1, got, want)
		}
		check()
		f.tick(want)
	}
	f.ended(t, p)
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
	advances := f.advances
	f.mu.Unlock()
	if advances != 1 {
		t.Errorf("the alarm advanced %d times, want 1 (for the stream due at 50 only)", advances)
	}
	f.tick(50)
	if got := f.nextSleep(t); got != 70 {
		t.Fatalf("sleeps until %v, want 70", got)
	}
	if a.released.Load() != 0 || b.released.Load() != 1 {
		t.Errorf("at 50: released %d and %d, want 0 and 1", a.released.Load(), b.released.Load())
	}
	f.tick(100)
	f.ended(t, p)
}

// TestPacerStop: a stopped stream gets no further release, and the pacer
// ends when the streams left are done; a new stream starts it again.
func TestPacerStop(t *testing.T) {
	f := newFakeClock()
	p := newPacer(f)
	a := p.start([]time.Duration{10, 20, 30})
	b := p.start([]time.Duration{15})
	f.nextSleep(t)
	f.tick(10)
	if got := f.nextSleep(t); got != 15 {
		t.Fatalf("sleeps until %v, want 15", got)
	}
	p.stop(a)
	f.tick(25)
	f.ended(t, p)
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
	f.tick(40)
	f.ended(t, p)
	if !c.wait(context.Background(), 0) {
		t.Errorf("the new stream's write was not released")
	}
}

// TestAlarmWakes: the platform's alarm (and its fallback on Go's timers)
// goes off for a stream due before the one it is set for, an hour away:
// otherwise the test would wait for an hour. No write is released before
// its due time on the alarm's own clock.
func TestAlarmWakes(t *testing.T) {
	alarms := map[string]alarm{"platform": newAlarm(), "timers": newTimerAlarm()}
	for name, al := range otherAlarms() {
		alarms[name] = al
	}
	for name, al := range alarms {
		t.Run(name, func(t *testing.T) {
			p := newPacer(al)
			far := p.start([]time.Duration{al.now() + time.Hour})
			defer p.stop(far)
			asleep(t, p, far.dues[0])
			var dues []time.Duration
			for k := range 20 {
				dues = append(dues, al.now()+time.Duration(k)*100*time.Microsecond+time.Millisecond)
			}
			near := p.start(dues)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for k, d := range dues {
					near.wait(context.Background(), k)
					if now := al.now(); now < d {
						t.Errorf("write %d released at %v, before its due time %v", k, now, d)
					}
				}
			}()
			select {
			case <-done:
			case <-time.After(liveness):
				t.Fatal("the alarm did not go off for a stream due before the one it is set for")
			}
			if far.released.Load() != 0 {
				t.Errorf("the stream due in an hour was released")
			}
		})
	}
}

// asleep waits until the pacer waits for its alarm, set for target.
func asleep(t *testing.T, p *pacer, target time.Duration) {
	t.Helper()
	for start := time.Now(); time.Since(start) < liveness; time.Sleep(time.Millisecond) {
		p.mu.Lock()
		ok := p.waiting && p.target == target
		p.mu.Unlock()
		if ok {
			return
		}
	}
	t.Fatalf("the pacer never slept until %v", target)
}

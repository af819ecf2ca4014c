package serve

import (
	"context"
	"slices"
	"testing"
	"time"
)

// otherAlarms are the alarms of this platform besides newAlarm's: the
// timerfd alarm fallen back on Go's timers, and one that always arms the
// timerfd as early as it may and spins the rest of the way (where a write
// released before its time would show).
func otherAlarms() map[string]alarm {
	a := newAlarm().(*timerfdAlarm)
	a.failed.Store(true)
	e := newAlarm().(*timerfdAlarm)
	for range 64 { // the margin stays at maxEarly for the next 57 wakes
		e.early.woke(maxEarly)
	}
	return map[string]alarm{"timerfd failed": a, "armed early": e}
}

// TestEarlyMargin: the alarm is armed early by the 90th percentile of the
// last 64 wakes' lateness, capped, and forgets wakes older than that.
func TestEarlyMargin(t *testing.T) {
	var e early
	if e.by() != 0 {
		t.Fatalf("margin before any wake = %v, want 0", e.by())
	}
	for i := range 100 { // 1..100 µs, in a shuffled order
		e.woke(time.Duration((i*37)%100+1) * time.Microsecond)
	}
	// The ring holds the last 64: i = 36..99.
	var last []time.Duration
	for i := 36; i < 100; i++ {
		last = append(last, time.Duration((i*37)%100+1)*time.Microsecond)
	}
	slices.Sort(last)
	if want := last[64*9/10]; e.by() != want {
		t.Errorf("margin = %v, want the 90th percentile of the last 64 wakes, %v", e.by(), want)
	}
	for range 64 {
		e.woke(time.Second)
	}
	if e.by() != maxEarly {
		t.Errorf("margin after late wakes = %v, want the cap %v", e.by(), maxEarly)
	}
	for range 64 {
		e.woke(-time.Microsecond) // a wake before the timerfd's time counts as on time
	}
	if e.by() != 0 {
		t.Errorf("margin after wakes on time = %v, want 0", e.by())
	}
}

// TestTimerfdFailsWhileWaiting: should the timerfd refuse to be set while
// the pacer waits on it, a stream due sooner is still released, on Go's
// timers, rather than when the timerfd was set for (an hour away).
func TestTimerfdFailsWhileWaiting(t *testing.T) {
	a := newAlarm().(*timerfdAlarm)
	p := newPacer(a)
	far := p.start([]time.Duration{a.now() + time.Hour})
	defer p.stop(far)
	asleep(t, p, far.dues[0])
	p.mu.Lock()
	a.fd = -1 // timerfd_settime fails from now on (EBADF)
	p.mu.Unlock()
	near := p.start([]time.Duration{a.now() + time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), liveness)
	defer cancel()
	if !near.wait(ctx, 0) {
		t.Fatal("the stream due sooner was not released")
	}
	if !a.failed.Load() {
		t.Error("the alarm did not fall back on Go's timers")
	}
}

// TestEarlyMarginAfterAdvance: an advance to a time already past sets the
// timerfd off at once; the wake's lateness counts from then, so the margin
// stays about what the wakes really take, instead of feeding on itself up
// to its cap.
func TestEarlyMarginAfterAdvance(t *testing.T) {
	a := newAlarm().(*timerfdAlarm)
	a.open()
	defer a.close()
	if a.failed.Load() {
		t.Skip("no timerfd")
	}
	var worst time.Duration
	for range 200 {
		a.set(a.now() + time.Second)
		advanced := make(chan time.Duration, 1)
		go func() {
			time.Sleep(200 * time.Microsecond)
			now := a.now()
			a.advance(now)
			advanced <- now
		}()
		a.wait()
		worst = max(worst, a.now()-<-advanced)
	}
	if m := a.early.by(); m > worst {
		t.Errorf("margin %v, more than the latest any wake was (%v)", m, worst)
	}
}

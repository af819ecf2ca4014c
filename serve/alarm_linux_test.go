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
	for i := range 64 { // the margin stays at maxEarly for the next 57 wakes (a second apart, in the past)
		e.early.woke(maxEarly, time.Duration(i-64)*time.Second)
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
	var now time.Duration
	woke := func(late time.Duration) { // wakes a second apart: the spin budget never binds
		now += time.Second
		e.woke(late, now)
	}
	for i := range 100 { // 1..100 µs, in a shuffled order
		woke(time.Duration((i*37)%100+1) * time.Microsecond)
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
		woke(time.Second)
	}
	if e.by() != maxEarly {
		t.Errorf("margin after late wakes = %v, want the cap %v", e.by(), maxEarly)
	}
	for range 64 {
		woke(-time.Microsecond) // a wake before the timerfd's time counts as on time
	}
	if e.by() != 0 {
		t.Errorf("margin after wakes on time = %v, want 0", e.by())
	}
}

// TestEarlySpinBudget: the margin is at most a tenth of the mean time
// between the last wakes, so that spinning costs at most a tenth of a core
// however often the pacer wakes; wakes far apart keep the percentile.
func TestEarlySpinBudget(t *testing.T) {
	cases := []struct {
		name       string
		every      time.Duration // between wakes
		late, want time.Duration
	}{
		{"64 streams: 3,200 wakes a second", 312500 * time.Nanosecond, 200 * time.Microsecond, 31250 * time.Nanosecond},
		{"16 streams", 1250 * time.Microsecond, 200 * time.Microsecond, 125 * time.Microsecond},
		{"1 stream", 20 * time.Millisecond, 200 * time.Microsecond, 200 * time.Microsecond},
		{"1 stream, a stalling machine", 20 * time.Millisecond, 5 * time.Millisecond, maxEarly},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e early
			for i := range 100 {
				e.woke(c.late, time.Duration(i)*c.every)
			}
			if e.by() != c.want {
				t.Errorf("margin = %v, want %v", e.by(), c.want)
			}
		})
	}
	// The first wakes, fewer than the ring holds, count from the first.
	var e early
	e.woke(200*time.Microsecond, 0)
	if e.by() != 200*time.Microsecond {
		t.Errorf("margin after one wake = %v, want its lateness (no spacing known yet)", e.by())
	}
	e.woke(200*time.Microsecond, time.Millisecond)
	if want := 100 * time.Microsecond; e.by() != want {
		t.Errorf("margin after two wakes 1 ms apart = %v, want %v", e.by(), want)
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

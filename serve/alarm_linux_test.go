package serve

import (
	"context"
	"testing"
	"time"
)

// otherAlarms are the alarms of this platform besides newAlarm's: the
// timerfd alarm fallen back on Go's timers.
func otherAlarms() map[string]alarm {
	a := newAlarm().(*timerfdAlarm)
	a.failed.Store(true)
	return map[string]alarm{"timerfd failed": a}
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

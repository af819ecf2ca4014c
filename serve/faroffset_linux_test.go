package serve

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestFarReadKeepsTimerfd: serving a trace whose read lies ~292
// years after t0 (the span the trace checker allows, 2^63-1 ns; here
// 2^63-2^40) must not switch the server's pacer off its timerfd for good.
func TestFarReadKeepsTimerfd(t *testing.T) {
	const far = 1<<63 - 1<<40
	line := fmt.Sprintf(`{"request_id": "r", "t0_ns": 0, "end_ns": %d, "http_status": 200, "chunks": [{"t_ns": 0, "data": "a"}, {"t_ns": %d, "data": "b"}]}`, int64(far), int64(far))
	s, ts := rawServer(t, Options{}, line)
	a := s.pacer.al.(*timerfdAlarm)
	if a.failed.Load() {
		t.Skip("no CLOCK_MONOTONIC")
	}
	got := rawPost(t, ts.Listener.Addr().String(), time.Second)
	if string(got.Body) != "a" {
		t.Errorf("body %q, want %q", got.Body, "a")
	}
	if a.failed.Load() {
		t.Error("the pacer's timerfd alarm fell back on Go's timers, for every stream from now on")
	}
}

// TestFarDueKeepsTimerfd: a stream due far ahead (a read near the
// 2^63-1 ns span a trace may hold, or a tiny --speed) must not turn the
// precise alarm off: the timerfd's absolute time is CLOCK_MONOTONIC at the
// base plus the due time, which overflows int64; timerfd_settime refuses
// the negative time and the alarm falls back on Go's timers for good, for
// every stream the server answers afterwards.
func TestFarDueKeepsTimerfd(t *testing.T) {
	a := newAlarm().(*timerfdAlarm)
	if a.failed.Load() {
		t.Skip("no CLOCK_MONOTONIC")
	}
	p := newPacer(a)
	far := p.start([]time.Duration{a.now() + (1<<63 - 1 - a.now()) - time.Hour})
	asleep(t, p, far.dues[0])
	p.stop(far)
	if a.failed.Load() {
		t.Fatal("a stream due far ahead made the timerfd alarm fall back on Go's timers")
	}
	// Afterwards, another stream is still paced by the timerfd.
	near := p.start([]time.Duration{a.now() + time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), liveness)
	defer cancel()
	if !near.wait(ctx, 0) {
		t.Fatal("not released")
	}
	if a.failed.Load() {
		t.Fatal("the timerfd alarm fell back on Go's timers")
	}
}

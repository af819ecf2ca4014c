package serve

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"
)

func openFDs(t *testing.T) int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	return len(es)
}

func TestPacerCyclesNoLeak(t *testing.T) {
	for _, mk := range []func() alarm{newAlarm, func() alarm { return otherAlarms()["armed early"] }} {
		al := mk()
		p := newPacer(al)
		fd0, g0 := openFDs(t), runtime.NumGoroutine()
		for i := range 500 {
			pc := p.start([]time.Duration{al.now() + time.Duration(i%3)*100*time.Microsecond})
			if i%5 == 0 {
				p.stop(pc)
				continue
			}
			pc.wait(context.Background(), 0)
			p.stop(pc)
		}
		time.Sleep(100 * time.Millisecond)
		fd1, g1 := openFDs(t), runtime.NumGoroutine()
		if fd1 > fd0+2 || g1 > g0+2 {
			t.Errorf("after 500 cycles: fds %d -> %d, goroutines %d -> %d", fd0, fd1, g0, g1)
		}
		if a, ok := al.(*timerfdAlarm); ok && a.failed.Load() {
			t.Errorf("timerfd failed")
		}
	}
}

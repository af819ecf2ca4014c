// Package stallprobe tells timing tests whether the machine kept time. It
// measures how late a goroutine's 1 ms sleeps wake up while the test runs: on
// a loaded shared machine a goroutine can be held up for hundreds of
// milliseconds, and timing assertions are only fair when the probe saw no
// such stall.
package stallprobe

import (
	"sync"
	"time"
)

// Probe watches for scheduler stalls until Stop.
type Probe struct {
	stop  chan struct{}
	wg    sync.WaitGroup
	worst time.Duration
}

// Start starts a probe.
func Start() *Probe {
	p := &Probe{stop: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			select {
			case <-p.stop:
				return
			default:
			}
			t := time.Now()
			time.Sleep(time.Millisecond)
			p.worst = max(p.worst, time.Since(t)-time.Millisecond)
		}
	}()
	return p
}

// Stop ends the probe and returns the worst oversleep it saw.
func (p *Probe) Stop() time.Duration {
	close(p.stop)
	p.wg.Wait()
	return p.worst
}

package capture_test

import (
	"sync"
	"time"
)

// stallProbe measures how late a goroutine's 1ms sleeps wake up while a
// timing test runs. On a loaded shared machine (other tests, other users)
// a goroutine can be held up for hundreds of milliseconds; timing
// assertions are only fair when the probe saw no such stall.
type stallProbe struct {
	stop  chan struct{}
	wg    sync.WaitGroup
	worst time.Duration
}

func startProbe() *stallProbe {
	p := &stallProbe{stop: make(chan struct{})}
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
func (p *stallProbe) Stop() time.Duration {
	close(p.stop)
	p.wg.Wait()
	return p.worst
}

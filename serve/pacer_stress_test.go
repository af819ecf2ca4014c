package serve

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPacerStress: many short streams start and stop while others
// run, with due times in the past, identical ones, out of order; every
// write is released no earlier than its due time, and every stream not
// stopped gets all of its writes within a generous bound.
func TestPacerStress(t *testing.T) {
	alarms := map[string]func() alarm{"platform": newAlarm, "timers": func() alarm { return newTimerAlarm() }}
	for name := range otherAlarms() {
		name := name
		alarms[name] = func() alarm { return otherAlarms()[name] }
	}
	for name, mk := range alarms {
		t.Run(name, func(t *testing.T) {
			al := mk()
			p := newPacer(al)
			var wg sync.WaitGroup
			var early, stalled atomic.Int64
			for g := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(g), 7))
					for range 60 {
						n := 1 + rng.IntN(6)
						base := al.now()
						dues := make([]time.Duration, n)
						for k := range dues {
							switch rng.IntN(4) {
							case 0:
								dues[k] = base - time.Duration(rng.IntN(5))*time.Millisecond // past
							case 1:
								dues[k] = base + 2*time.Millisecond // identical
							default:
								dues[k] = base + time.Duration(rng.IntN(3000))*time.Microsecond
							}
						}
						pc := p.start(dues)
						stopAt := n
						if rng.IntN(3) == 0 {
							stopAt = rng.IntN(n)
						}
						ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
						for k := 0; k < stopAt; k++ {
							if !pc.wait(ctx, k) {
								stalled.Add(1)
								break
							}
							// released k: every due time up to k is past.
							now := al.now()
							for j := 0; j <= k; j++ {
								if dues[j] > now {
									early.Add(1)
								}
							}
						}
						cancel()
						p.stop(pc)
					}
				}()
			}
			wg.Wait()
			if e := early.Load(); e != 0 {
				t.Errorf("%d writes released before their due time", e)
			}
			if s := stalled.Load(); s != 0 {
				t.Errorf("%d streams stalled (not released within 20s)", s)
			}
			p.mu.Lock()
			left := len(p.h)
			p.mu.Unlock()
			if left != 0 {
				t.Errorf("%d streams left in the heap after all stopped", left)
			}
		})
	}
}

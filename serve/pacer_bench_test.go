package serve

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkPacer measures how late the pacer hands each write to its
// stream: C streams of 50 writes each, 20 ms apart with some jitter (a
// chat stream's ITL), staggered; a stream's goroutine reads the clock as
// soon as its write is released. It reports the lateness's median, P99 and
// maximum in µs, for the platform's alarm and for Go's timers alone
// (what serve used before issue 22). The wire's own figures come from
// bench/serve-timing.sh.
func BenchmarkPacer(b *testing.B) {
	for _, sl := range []struct {
		name string
		new  func() alarm
	}{{"alarm", newAlarm}, {"timers", func() alarm { return newTimerAlarm() }}} {
		for _, c := range []int{1, 16, 64} {
			b.Run(fmt.Sprintf("%s/C=%d", sl.name, c), func(b *testing.B) {
				var late []time.Duration
				for b.Loop() {
					late = append(late, pacerRound(newPacer(sl.new()), c, 50, 20*time.Millisecond)...)
				}
				slices.Sort(late)
				q := func(f float64) float64 { return float64(late[int(f*float64(len(late)-1))]) / 1e3 }
				b.ReportMetric(q(0.5), "p50-µs")
				b.ReportMetric(q(0.99), "p99-µs")
				b.ReportMetric(q(1), "max-µs")
			})
		}
	}
}

// pacerRound runs c streams of n writes about gap apart and returns how
// late each write was released.
func pacerRound(p *pacer, c, n int, gap time.Duration) []time.Duration {
	rng := rand.New(rand.NewPCG(1, 2))
	start := p.al.now() + 5*time.Millisecond
	var mu sync.Mutex
	var late []time.Duration
	var wg sync.WaitGroup
	for i := range c {
		dues := make([]time.Duration, n)
		at := start + time.Duration(i)*gap/time.Duration(c)
		for k := range dues {
			dues[k] = at
			at += gap/2 + time.Duration(rng.Int64N(int64(gap)))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := p.start(dues)
			mine := make([]time.Duration, 0, n)
			for k := range dues {
				t.wait(context.Background(), k)
				mine = append(mine, p.al.now()-dues[k])
			}
			mu.Lock()
			late = append(late, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return late
}

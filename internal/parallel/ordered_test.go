package parallel

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestOrdered: every job is consumed once, in the order made, after its
// work; each worker makes its work function once; consume's error stops
// produce (its send returns false, with at most InFlight jobs made past
// the last consumed) and is returned, and otherwise produce's error is; no
// goroutine is left running.
func TestOrdered(t *testing.T) {
	errProduce, errConsume := errors.New("produce"), errors.New("consume")
	for _, workers := range []int{1, 2, 5} {
		for _, stopAt := range []int{-1, 0, 17, 999} {
			for _, produceFails := range []bool{false, true} {
				t.Run(fmt.Sprint(workers, stopAt, produceFails), func(t *testing.T) {
					before := runtime.NumGoroutine()
					type job struct{ n, sq int }
					var made, works atomic.Int64
					sentAfterStop := 0
					produce := func(send func(*job) bool) error {
						for n := range 1000 {
							made.Add(1)
							if !send(&job{n: n}) {
								sentAfterStop++
								return nil
							}
						}
						if produceFails {
							return errProduce
						}
						return nil
					}
					newWork := func() func(*job) {
						works.Add(1)
						return func(j *job) {
							if j.n%7 == 0 {
								time.Sleep(time.Microsecond) // out of order finishing
							}
							j.sq = j.n * j.n
						}
					}
					next := 0
					err := Ordered(workers, produce, newWork, func(j *job) error {
						if j.n != next || j.sq != j.n*j.n {
							return fmt.Errorf("job %d (sq %d), want %d", j.n, j.sq, next)
						}
						if j.n == stopAt {
							return errConsume
						}
						next++
						return nil
					})
					switch {
					case stopAt >= 0:
						if !errors.Is(err, errConsume) || next != stopAt {
							t.Fatalf("err %v after %d jobs, want consume's after %d", err, next, stopAt)
						}
						// At most InFlight jobs past the one consumed last: then a
						// send returns false.
						if m := made.Load(); stopAt < 900 && (sentAfterStop != 1 || m > int64(stopAt+1+InFlight(workers))) {
							t.Errorf("produce made %d jobs (stopped %d times), want at most %d and a stop", m, sentAfterStop, stopAt+1+InFlight(workers))
						}
					case produceFails:
						if !errors.Is(err, errProduce) || next != 1000 {
							t.Fatalf("err %v after %d jobs, want produce's after 1000", err, next)
						}
					default:
						if err != nil || next != 1000 {
							t.Fatalf("err %v after %d jobs", err, next)
						}
					}
					if w := works.Load(); w != int64(workers) {
						t.Errorf("newWork called %d times for %d workers", w, workers)
					}
					for range 100 {
						if runtime.NumGoroutine() <= before {
							return
						}
						time.Sleep(time.Millisecond)
					}
					t.Errorf("%d goroutines left, %d before", runtime.NumGoroutine(), before)
				})
			}
		}
	}
}

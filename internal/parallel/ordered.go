package parallel

import "sync"

// Ordered runs a pipeline on workers goroutines: produce makes jobs one
// after the other and hands each to send; each worker (its work function
// made once by newWork, so that it may keep state of its own) runs on the
// jobs as they come; consume takes them in the order they were made, each
// once its work is done. The first error of consume stops the pipeline:
// produce's next send returns false and produce should return; Ordered
// returns that error once every goroutine is done, else produce's. A job is
// usually a pointer, its work's results written into it.
func Ordered[J any](workers int, produce func(send func(J) bool) error, newWork func() func(J), consume func(J) error) error {
	type slot struct {
		job  J
		done chan struct{}
	}
	jobs := make(chan *slot, 2*workers)  // to the workers
	order := make(chan *slot, 4*workers) // to consume, in the order made
	stop := make(chan struct{})
	var produceErr error // read once order is closed
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(jobs)
		defer close(order)
		produceErr = produce(func(j J) bool {
			// Stopped first: once consume drains order, a select between the
			// two would find both ready and pick at random, and keep making
			// jobs past the stop (TestOrdered saw 30 for a bound of 29).
			select {
			case <-stop:
				return false
			default:
			}
			s := &slot{job: j, done: make(chan struct{})}
			select {
			case order <- s:
			case <-stop:
				return false
			}
			jobs <- s
			return true
		})
	})
	for range workers {
		wg.Go(func() {
			work := newWork()
			for s := range jobs {
				work(s.job)
				close(s.done)
			}
		})
	}
	var err error
	for s := range order {
		<-s.done
		if err = consume(s.job); err != nil {
			close(stop)
			for range order { // let produce finish its send and stop
			}
			break
		}
	}
	wg.Wait()
	if err != nil {
		return err
	}
	return produceErr
}

// InFlight bounds the jobs of Ordered made and not yet consumed with this
// many workers (queued, being worked on, and one being sent): a pool of
// reusable job memory that large never runs dry.
func InFlight(workers int) int { return 4*workers + workers + 1 }

// Package parallel runs a computation's independent tasks at once.
package parallel

import (
	"runtime"
	"sync"
)

// Do runs the tasks at once, on goroutines of their own (in order on the
// calling one with GOMAXPROCS 1), and returns when all are done. Each task
// must write only results of its own, so that they come out the same
// whatever the order the tasks run in.
func Do(tasks ...func()) {
	if runtime.GOMAXPROCS(0) == 1 {
		for _, task := range tasks {
			task()
		}
		return
	}
	var wg sync.WaitGroup
	for _, task := range tasks[1:] {
		wg.Go(task)
	}
	tasks[0]()
	wg.Wait()
}

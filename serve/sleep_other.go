//go:build !linux

package serve

// newSleeper is Go's timers where no precise sleeper is written: they
// fire as precisely as the platform's runtime lets them.
func newSleeper() sleeper { return newTimerSleeper() }

package serve

// otherSleepers are the sleepers of this platform besides newSleeper's:
// the futex sleeper fallen back on Go's timers.
func otherSleepers() map[string]sleeper {
	s := newSleeper().(*futexSleeper)
	s.failed.Store(true)
	return map[string]sleeper{"futex failed": s}
}

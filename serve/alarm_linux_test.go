package serve

// otherAlarms are the alarms of this platform besides newAlarm's: the
// timerfd alarm fallen back on Go's timers.
func otherAlarms() map[string]alarm {
	a := newAlarm().(*timerfdAlarm)
	a.failed.Store(true)
	return map[string]alarm{"timerfd failed": a}
}

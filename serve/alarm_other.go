//go:build !linux

package serve

// newAlarm is Go's timers where no precise alarm is written: they fire as
// precisely as the platform's runtime lets them.
func newAlarm() alarm { return newTimerAlarm() }

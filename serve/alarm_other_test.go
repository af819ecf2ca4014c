//go:build !linux

package serve

// otherAlarms are the alarms of this platform besides newAlarm's: none.
func otherAlarms() map[string]alarm { return nil }

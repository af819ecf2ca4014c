package tap

import "golang.org/x/sys/unix"

// monotonicNs is CLOCK_MONOTONIC in ns.
func monotonicNs() (int64, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0, false
	}
	return ts.Nano(), true
}

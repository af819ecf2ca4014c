//go:build !linux

package tap

// monotonicNs is not known off Linux: clients there time on other clocks.
func monotonicNs() (int64, bool) { return 0, false }

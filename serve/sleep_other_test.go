//go:build !linux

package serve

// otherSleepers are the sleepers of this platform besides newSleeper's:
// none.
func otherSleepers() map[string]sleeper { return nil }

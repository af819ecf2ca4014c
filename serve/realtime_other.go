//go:build !linux

package serve

import (
	"errors"
	"fmt"
)

// SetRealtime is Linux's only.
func SetRealtime(prio int) error {
	if prio < 1 || prio > 99 {
		return fmt.Errorf("real-time priority %d: want 1 to 99", prio)
	}
	return errors.New("real-time priority: only on Linux")
}

// Realtime reports no real-time policy elsewhere than Linux.
func Realtime() (policy string, prio int, ok bool) { return "", 0, false }

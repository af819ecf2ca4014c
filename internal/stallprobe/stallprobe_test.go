package stallprobe

import (
	"testing"
	"time"
)

// Stop returns, and the worst oversleep lies between 0 and the time the
// probe ran. (Forcing a real stall is not portable, so the test keeps to
// the contract.)
func TestProbeStops(t *testing.T) {
	p := Start()
	start := time.Now()
	time.Sleep(20 * time.Millisecond)
	worst := p.Stop()
	if worst < 0 || worst > time.Since(start) {
		t.Errorf("worst oversleep %v outside [0, %v]", worst, time.Since(start))
	}
}

package serve

import (
	"context"
	"testing"
	"time"
)

// TestArrivalWithoutStamps: a connection that knows no receive time (not
// ArrivalListener's, or not on Linux) has its requests arrive as the
// handler starts, as before issue 22.
func TestArrivalWithoutStamps(t *testing.T) {
	now := time.Now()
	if got := arrivalOf(context.Background(), now); !got.Equal(now) {
		t.Errorf("arrival %v, want now", got)
	}
	forgetArrival(context.Background()) // nothing to forget: no panic
}

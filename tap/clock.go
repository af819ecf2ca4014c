package tap

import (
	"strconv"
	"time"

	"github.com/sseaudit/sseaudit/trace"
)

// Clock is the tap's clock: nanoseconds since it started, monotonic.
type Clock struct {
	base time.Time
	// mono is CLOCK_MONOTONIC at base, in ns (Linux); ok when known.
	mono   int64
	monoOK bool
}

// NewClock starts a clock now.
func NewClock() Clock {
	before, ok := monotonicNs()
	base := time.Now()
	after, _ := monotonicNs()
	return Clock{base: base, mono: before + (after-before)/2, monoOK: ok}
}

// Now is the time on the clock.
func (c Clock) Now() int64 { return int64(time.Since(c.base)) }

// Meta keys of the clock.
const (
	// KeyClockMonotonic is CLOCK_MONOTONIC (ns) at the clock's zero, on
	// Linux: a client on the same host timing with it (Python's
	// time.perf_counter and time.monotonic do) shares the tap's clock up
	// to this offset.
	KeyClockMonotonic = trace.KeyRunPrefix + "clock_monotonic_ns"
	// KeyStartedUnix is the wall clock (Unix ns) at the clock's zero.
	KeyStartedUnix = trace.KeyRunPrefix + "started_unix_ns"
)

func (c Clock) meta(m *trace.Meta) {
	m.Set(trace.KeyRunPrefix+"clock", "monotonic, ns since the tap started")
	m.Set(KeyStartedUnix, strconv.FormatInt(c.base.UnixNano(), 10))
	if c.monoOK {
		m.Set(KeyClockMonotonic, strconv.FormatInt(c.mono, 10))
	}
}

package tools

import (
	"fmt"

	"github.com/sseaudit/sseaudit/trace"
)

// bytesOnly hands on a trace's requests, stopping with an error at one that
// holds time points instead of bytes (imported from another tool's records):
// a tool's client reads bytes, and fed none it would report zeros.
type bytesOnly struct {
	trace.Reader
	n   int
	err error
}

func (r *bytesOnly) Scan() bool {
	if r.err != nil || !r.Reader.Scan() {
		return false
	}
	if q := r.Reader.Request(); q.TimePointsOnly() {
		r.err = fmt.Errorf("%s: request %q (trace index %d) holds time points, not the bytes a tool's client reads (a trace imported from another tool's records): audit tools needs a recorded trace (audit capture, audit tap); audit report reads this one",
			r.Info().Path, q.RequestID, r.n)
		return false
	}
	r.n++
	return true
}

func (r *bytesOnly) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.Reader.Err()
}

// openBytes is open with every reader a bytesOnly.
func openBytes(open Opener) Opener {
	return func() (trace.Reader, error) {
		r, err := open()
		if err != nil {
			return nil, err
		}
		return &bytesOnly{Reader: r}, nil
	}
}

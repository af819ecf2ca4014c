package record

import (
	"fmt"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
)

// EachReplay is Each with the replay's options given whole (a framer of
// Messages, replay.Options.Messages): every request replayed with ropts, in
// parallel, and handed to fn in trace order with its replay.Result kept
// (Replayed.Replay) and its record. It is how another tool's calculator
// reads a trace (audit tools): its request function runs on what the
// framer handed on.
func EachReplay(r trace.Reader, ropts replay.Options, fn func(*Replayed) error) error {
	return EachReplayWith(r, ropts, func() func(*Replayed) struct{} {
		return func(*Replayed) struct{} { return struct{}{} }
	}, func(rr *Replayed, _ struct{}) error { return fn(rr) })
}

// EachReplayWith is EachReplay with prepare run on every request in the
// worker that replayed it, in parallel (newPrepare makes one prepare a
// worker), its result handed to fn with the request, in trace order.
func EachReplayWith[T any](r trace.Reader, ropts replay.Options, newPrepare func() func(*Replayed) T,
	fn func(*Replayed, T) error) error {
	path := r.Info().Path
	type prepared struct {
		rr *Replayed
		v  T
	}
	return mapOrdered(r, func() func(*trace.Request) (prepared, error) {
		var rp replay.Replayer
		prepare := newPrepare()
		return func(req *trace.Request) (prepared, error) {
			res, err := rp.Replay(req, ropts)
			if err != nil {
				return prepared{}, fmt.Errorf("%s: %w", path, err) // replay names the request
			}
			rr := &Replayed{RequestID: req.RequestID, T0Ns: req.T0Ns, BodyBytes: req.BodyBytes(), Replay: res, Record: FromReplay(res)}
			return prepared{rr, prepare(rr)}, nil
		}
	}, func(p prepared) error { return fn(p.rr, p.v) })
}

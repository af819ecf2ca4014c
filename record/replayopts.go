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
	path := r.Info().Path
	return mapOrdered(r, func() func(*trace.Request) (*Replayed, error) {
		var rp replay.Replayer
		return func(req *trace.Request) (*Replayed, error) {
			res, err := rp.Replay(req, ropts)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err) // replay names the request
			}
			return &Replayed{RequestID: req.RequestID, T0Ns: req.T0Ns, BodyBytes: req.BodyBytes(), Replay: res, Record: FromReplay(res)}, nil
		}
	}, fn)
}

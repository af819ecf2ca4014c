package record

import (
	"fmt"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
)

// Options say how Each replays a trace's requests.
type Options struct {
	// Framer cuts the body into events: replay.AISBench (what AISBench's
	// client recorded) or replay.SSE.
	Framer        replay.Framer
	MaxEventBytes int64 // the largest event payload replay parses; 0: replay's default
	// Spec, with the aisbench framer, fills each record's SpecView: what the
	// sse framer makes of the same bytes, and the framing constructs
	// AISBench's client mishandles (audit report's findings need it).
	Spec bool
	// KeepReplay hands each request's replay.Result on (Replayed.Replay);
	// without it the replays' memory is reused from request to request.
	KeepReplay bool
}

// Replayed is one request recorded.
type Replayed struct {
	RequestID string
	T0Ns      int64
	BodyBytes int64          // the request's body size
	Replay    *replay.Result // with Options.KeepReplay, else nil
	Record    Request
}

// Each replays every request of r with opts, in parallel (a worker per
// GOMAXPROCS, each with its own replayers), and hands each to fn in trace
// order: the same records whatever the number of workers. The first error
// in trace order stops the run: a request whose bytes do not replay (named
// with the trace's path and the request), fn's own, then r.Err(). Neither
// fn nor anything it keeps may hold on to the *Replayed past its call.
func Each(r trace.Reader, opts Options, fn func(*Replayed) error) error {
	_, inMemory := r.(trace.MemoryReader)
	return mapOrdered(r, newWork(r.Info().Path, opts, inMemory), fn)
}

// Records is Each gathered: every request's record, in trace order.
func Records(r trace.Reader, opts Options) ([]Request, error) {
	var out []Request
	if m, ok := r.(trace.MemoryReader); ok {
		out = make([]Request, 0, m.Len())
	}
	err := Each(r, opts, func(rr *Replayed) error {
		out = append(out, rr.Record)
		return nil
	})
	return out, err
}

// newWork returns the work function of one worker: a request replayed with
// opts' framer and, for the aisbench framer with Spec, with the sse framer
// too (sharing one memo, so that each payload both framers cut alike is
// parsed once) unless the body holds nothing the two framers cut
// differently.
func newWork(path string, opts Options, inMemory bool) func() func(*trace.Request) (*Replayed, error) {
	return func() func(*trace.Request) (*Replayed, error) {
		var rp, spec replay.Replayer
		var memo replay.VerdictMemo
		ropts := replay.Options{Framer: opts.Framer, MaxEventBytes: opts.MaxEventBytes, ShareTimePoints: inMemory}
		sopts := replay.Options{Framer: replay.SSE, MaxEventBytes: opts.MaxEventBytes}
		withSpec := opts.Spec && opts.Framer != replay.SSE
		if withSpec {
			ropts.Memo, sopts.Memo = &memo, &memo
		}
		return func(req *trace.Request) (*Replayed, error) {
			memo.Reset()
			res, err := rp.Replay(req, ropts)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err) // replay names the request
			}
			out := &Replayed{RequestID: req.RequestID, T0Ns: req.T0Ns, BodyBytes: req.BodyBytes()}
			// The record keeps none of a replay's events or nanosecond time
			// points: without KeepReplay, the replays are recycled.
			if opts.KeepReplay {
				out.Replay = res
			} else {
				defer rp.Recycle(res)
			}
			if !withSpec {
				out.Record = FromReplay(res)
				return out, nil
			}
			if rec, ok := WithoutSpecReplay(res); ok {
				out.Record = rec
				return out, nil
			}
			sres, err := spec.Replay(req, sopts)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			out.Record = FromReplays(req, res, sres)
			spec.Recycle(sres)
			return out, nil
		}
	}
}

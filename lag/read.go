package lag

import (
	"encoding/json"
	"math"
	"strconv"
	"sync"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/trace"
)

// PromptColumn is the extra column prompts are read from (audit tap,
// capture and gen write it).
const PromptColumn = "prompt"

// Read reads a trace's requests as one side: each request replayed with
// opts (the time points a client with no lag would have recorded of
// bytes, AISBench's client by default); a trace of time_points_s gives
// its own points.
func Read(r trace.Reader, opts record.Options) ([]Request, error) {
	pr := &promptReader{Reader: r, col: -1, prompts: map[string]string{}}
	for i, x := range r.Info().Extra {
		if x.Name == PromptColumn && (x.Kind == trace.ExtraString || x.Kind == trace.ExtraJSON) {
			pr.col, pr.json = i, x.Kind == trace.ExtraJSON
		}
	}
	var out []Request
	err := record.Each(pr, opts, func(rr *record.Replayed) error {
		q := Request{ID: rr.RequestID, T0Ns: rr.T0Ns, OutputTokens: -1}
		rec := &rr.Record
		q.Success = rec.Success && len(rec.TimePoints) > 1
		if rec.OutputTokens != nil {
			q.OutputTokens = *rec.OutputTokens
		}
		if rec.Events != nil {
			for _, e := range rec.Events {
				q.Points = append(q.Points, e.TNs)
			}
		} else if len(rec.TimePoints) > 0 {
			q.T0Ns = nanos(rec.TimePoints[0])
			for _, s := range rec.TimePoints[1:] {
				q.Points = append(q.Points, nanos(s))
			}
		}
		q.EndNs = q.T0Ns
		if len(q.Points) > 0 {
			q.EndNs = q.Points[len(q.Points)-1]
		}
		out = append(out, q)
		return nil
	})
	if err != nil {
		return nil, err
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	for i := range out {
		out[i].Prompt = pr.prompts[out[i].ID]
	}
	return out, nil
}

// FromTimePoints is a side from requests of time_points_s (an imported
// AISBench run), without replaying anything.
func FromTimePoints(reqs []trace.Request) []Request {
	out := make([]Request, len(reqs))
	for i := range reqs {
		r := &reqs[i]
		q := Request{ID: r.RequestID, T0Ns: r.T0Ns, EndNs: r.T0Ns, OutputTokens: -1,
			Success: !r.Failed() && len(r.TimePointsS) > 1}
		if r.OutputTokens != nil {
			q.OutputTokens = *r.OutputTokens
		}
		if len(r.TimePointsS) > 0 {
			q.T0Ns = nanos(r.TimePointsS[0])
			for _, s := range r.TimePointsS[1:] {
				q.Points = append(q.Points, nanos(s))
			}
		}
		if len(q.Points) > 0 {
			q.EndNs = q.Points[len(q.Points)-1]
		}
		out[i] = q
	}
	return out
}

// nanos is seconds in ns, saturating.
func nanos(s float64) int64 {
	ns := math.Round(s * 1e9)
	switch {
	case ns >= math.MaxInt64 || ns != ns:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return int64(ns)
}

// promptReader keeps each request's prompt as the requests are read.
type promptReader struct {
	trace.Reader
	col     int
	json    bool
	mu      sync.Mutex
	prompts map[string]string
}

func (p *promptReader) Request() *trace.Request {
	r := p.Reader.Request()
	if p.col >= 0 && r != nil && p.col < len(r.Extra) && !r.Extra[p.col].Null {
		s := r.Extra[p.col].Str
		if p.json {
			var v string
			if json.Unmarshal([]byte(s), &v) == nil {
				s = v
			}
		}
		p.mu.Lock()
		p.prompts[r.RequestID] = s
		p.mu.Unlock()
	}
	return r
}

// KnownOffsets are the clock offsets a tap's metadata gives: a client
// timing with CLOCK_MONOTONIC (Python's time.perf_counter on Linux) or
// with the wall clock in ns.
func KnownOffsets(m trace.Meta) []Known {
	var out []Known
	for _, k := range []string{trace.KeyRunPrefix + "clock_monotonic_ns", trace.KeyRunPrefix + "started_unix_ns"} {
		if v, ok := m.Get(k); ok {
			if ns, err := strconv.ParseInt(v, 10, 64); err == nil {
				out = append(out, Known{Name: k[len(trace.KeyRunPrefix):], Ns: ns})
			}
		}
	}
	return out
}

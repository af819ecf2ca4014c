package check

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/sseaudit/sseaudit/record"
)

// Mismatch is a request on which two sources of the same run disagree: the
// raw trace (time points from the bytes) and AISBench's details.
type Mismatch struct {
	Index     int    // position in both sources
	TraceID   string // the trace's request_id
	DetailsID string // the details record's id
	Field     string // "success", "time points", "TTFT", "E2EL", "input_tokens", "output_tokens", "requests"
	Trace     string
	Details   string
}

// DefaultTolerance is how far (seconds) a trace's TTFT or E2EL may be from
// the details' before it is a mismatch: two clocks read around the same
// events never agree to the bit.
const DefaultTolerance = 0.001

// CompareSources matches the trace's requests with the details' by
// position (both are in the client's order) and lists where they disagree.
// offset is the median difference of t0 (trace minus details): the two
// clocks' origins.
func CompareSources(tr, details []record.Request, tol float64) (ms []Mismatch, offset float64) {
	return ComparePaired(tr, details, nil, tol)
}

// ComparePaired is CompareSources with the trace's request of each details
// request given: pairs[i] indexes tr, or is -1 when no request of the trace
// matches details request i (a mismatch of its own); nil pairs by position.
func ComparePaired(tr, details []record.Request, pairs []int, tol float64) (ms []Mismatch, offset float64) {
	if pairs == nil && len(tr) != len(details) {
		ms = append(ms, Mismatch{Index: -1, Field: "requests", Trace: strconv.Itoa(len(tr)), Details: strconv.Itoa(len(details))})
	}
	n := min(len(tr), len(details))
	if pairs != nil {
		n = len(details)
	}
	var offs []float64
	for i := 0; i < n; i++ {
		j := i
		if pairs != nil {
			if j = pairs[i]; j < 0 {
				ms = append(ms, Mismatch{Index: i, DetailsID: details[i].ID, Field: "request", Trace: "(none matches it)", Details: details[i].ID})
				continue
			}
		}
		a, b := tr[j], details[i]
		add := func(field, x, y string) {
			ms = append(ms, Mismatch{Index: i, TraceID: a.ID, DetailsID: b.ID, Field: field, Trace: x, Details: y})
		}
		okA := a.Success && len(a.TimePoints) >= 2
		okB := b.Success && len(b.TimePoints) >= 2
		if okA != okB {
			add("success", strconv.FormatBool(okA), strconv.FormatBool(okB))
			continue
		}
		if !okA {
			continue
		}
		if len(a.TimePoints) != len(b.TimePoints) {
			add("time points", strconv.Itoa(len(a.TimePoints)), strconv.Itoa(len(b.TimePoints)))
		}
		offs = append(offs, a.TimePoints[0]-b.TimePoints[0])
		ttA, ttB := a.TimePoints[1]-a.TimePoints[0], b.TimePoints[1]-b.TimePoints[0]
		if math.Abs(ttA-ttB) > tol {
			add("TTFT", secs(ttA), secs(ttB))
		}
		eA, eB := a.TimePoints[len(a.TimePoints)-1]-a.TimePoints[0], b.TimePoints[len(b.TimePoints)-1]-b.TimePoints[0]
		if math.Abs(eA-eB) > tol {
			add("E2EL", secs(eA), secs(eB))
		}
		if s, t := count(a.InputTokens), count(b.InputTokens); s != t {
			add("input_tokens", s, t)
		}
		if s, t := count(a.OutputTokens), count(b.OutputTokens); s != t {
			add("output_tokens", s, t)
		}
	}
	if pairs != nil {
		paired := make([]bool, len(tr))
		for _, j := range pairs {
			if j >= 0 {
				paired[j] = true
			}
		}
		for j, ok := range paired {
			if !ok {
				ms = append(ms, Mismatch{Index: -1, TraceID: tr[j].ID, Field: "request", Trace: tr[j].ID, Details: "(none matches it)"})
			}
		}
	}
	if len(offs) > 0 {
		sort.Float64s(offs)
		offset = offs[len(offs)/2]
	}
	return ms, offset
}

func secs(x float64) string { return strconv.FormatFloat(x*1000, 'f', 4, 64) + " ms" }

func count(p *int64) string {
	if p == nil {
		return "unknown"
	}
	return strconv.FormatInt(*p, 10)
}

func (m Mismatch) String() string {
	if m.Index < 0 {
		return fmt.Sprintf("%s: trace %s, details %s", m.Field, m.Trace, m.Details)
	}
	return fmt.Sprintf("request #%d (trace %q, details %q): %s: trace %s, details %s", m.Index, m.TraceID, m.DetailsID, m.Field, m.Trace, m.Details)
}

package audit_test

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/figures"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/render"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/samples"
)

// mixedGapRecords are requests of three kinds in turn: every event content
// (the content gaps are the intervals), a role event first and a usage-only
// tail (the gaps a piece of the intervals), and content events between
// role-only ones (gaps of their own). Some intervals are 0.
func mixedGapRecords(n int) []record.Request {
	recs := make([]record.Request, n)
	for i := range recs {
		t0 := float64(i) * 0.25
		tp := []float64{t0}
		var evs []record.Event
		for k := range 40 {
			class, content := replay.ClassContent, 3
			switch {
			case i%3 == 1 && k == 0:
				class, content = replay.ClassRole, 0
			case i%3 == 1 && k == 39:
				class, content = replay.ClassUsageOnly, 0
			case i%3 == 2 && k%5 == 2:
				class, content = replay.ClassRole, 0
			}
			t := tp[len(tp)-1] + 0.001*float64((i*7+k*13)%29)
			if k == 0 {
				t += 0.05
			}
			tp = append(tp, t)
			evs = append(evs, record.Event{Class: class, Tokens: -1, ContentBytes: content})
		}
		out := int64(40)
		recs[i] = record.Request{ID: fmt.Sprintf("r%d", i), Success: true, TimePoints: tp, Events: evs,
			InputTokens: &out, OutputTokens: &out}
	}
	return recs
}

// The content gaps' statistics and distribution, taken from ITL's where the
// content gaps are the intervals and from the intervals' counts where they
// are a piece of them, are those of the content gaps themselves, whichever
// kind of request holds them; the ITL accounting's pooled mean is np.mean of
// the intervals.
func TestContentGapsFromIntervals(t *testing.T) {
	for name, c := range map[string]struct {
		recs           []record.Request
		maxConcurrency int
	}{"content only": {benchRecords(300, 8, 40), 8}, "mixed": {mixedGapRecords(300), 3}} {
		b := audit.NewBuilder(audit.Config{MaxConcurrency: c.maxConcurrency, Stats: []string{"Average", "Min", "P50", "P99.9", "Max"}})
		for _, r := range c.recs {
			b.Add(r)
		}
		rep, err := b.Finalize()
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Figures.Distributions) != 2 {
			t.Fatalf("%s: %d distributions, want both stages'", name, len(rep.Figures.Distributions))
		}
		for _, d := range rep.Figures.Distributions {
			st := rep.Stage(d.Stage)
			var itl, content []float64
			for _, idx := range st.Requests {
				r := c.recs[idx]
				itl = append(itl, pynum.NumpyDiff(r.TimePoints[1:])...)
				var ts []float64
				for i, e := range r.Events {
					if e.HasContent() {
						ts = append(ts, r.TimePoints[i+1])
					}
				}
				content = append(content, pynum.NumpyDiff(ts)...)
			}
			for _, c := range []struct {
				dist   *figures.Distribution
				values []float64
			}{{d.ITL, itl}, {d.Content, content}} {
				want, zero := binByHand(d.Edges, c.values)
				if !slices.Equal(c.dist.Counts, want) || c.dist.Zero != zero || c.dist.Samples != len(c.values) {
					t.Errorf("%s %s %s: counts %v zero %d samples %d, want %v zero %d samples %d", name, d.Stage, c.dist.Metric,
						c.dist.Counts, c.dist.Zero, c.dist.Samples, want, zero, len(c.values))
				}
			}
			m := rep.SSE.Stage(d.Stage).Metric(metric.ContentUpdateInterval)
			if want := samples.Statistics(rep.AllStats, samples.PoolOf(content)); !slices.Equal(m.Stats, want) {
				t.Errorf("%s %s: content statistics %v, want %v", name, d.Stage, m.Stats, want)
			}
			if d.Content.PooledMeanSeconds != pynum.NumpyMean(content) || d.Content.N != m.N {
				t.Errorf("%s %s: content pooled mean %v N %d, want %v N %d", name, d.Stage, d.Content.PooledMeanSeconds, d.Content.N, pynum.NumpyMean(content), m.N)
			}
			if acc := rep.SSE.Stage(d.Stage).ITL; acc.PooledMeanSeconds != pynum.NumpyMean(itl) {
				t.Errorf("%s %s: ITL pooled mean %v, want %v", name, d.Stage, acc.PooledMeanSeconds, pynum.NumpyMean(itl))
			}
		}
	}
}

// Finalize computes parts at once: the report is the same with GOMAXPROCS
// 1, 2 and 4, on requests whose content gaps are the intervals (statistics
// shared with ITL) and on requests of mixed kinds.
func TestFinalizeParallelSameReport(t *testing.T) {
	for name, recs := range map[string][]record.Request{"bench": benchRecords(600, 16, 64), "mixed": mixedGapRecords(600)} {
		var want []byte
		for _, procs := range []int{1, 2, 4} {
			prev := runtime.GOMAXPROCS(procs)
			b := audit.NewBuilder(audit.Config{MaxConcurrency: 3, Stats: []string{"Average", "P50", "P99.9", "Max"}})
			for _, r := range recs {
				b.Add(r)
			}
			rep, err := b.Finalize()
			runtime.GOMAXPROCS(prev)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := render.JSON(&out, rep); err != nil {
				t.Fatal(err)
			}
			if err := render.Text(&out, rep); err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = out.Bytes()
			} else if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%s: GOMAXPROCS %d: the report differs from GOMAXPROCS 1's", name, procs)
			}
		}
	}
}

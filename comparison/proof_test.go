package comparison

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/tracegen"
)

// sliceReader is a trace.Reader over requests held in memory.
type sliceReader struct {
	info trace.Info
	reqs []*trace.Request
	i    int
}

func (r *sliceReader) Scan() bool              { r.i++; return r.i <= len(r.reqs) }
func (r *sliceReader) Request() *trace.Request { return r.reqs[r.i-1] }
func (r *sliceReader) Err() error              { return nil }
func (r *sliceReader) Info() trace.Info        { return r.info }
func (r *sliceReader) Close() error            { return nil }

// collect is a tracegen.Writer keeping the requests, edited by edit when set.
type collect struct {
	reqs []*trace.Request
	edit func(*trace.Request)
}

func (c *collect) Write(req *trace.Request) error {
	r := req.Clone()
	if c.edit != nil {
		c.edit(r)
	}
	c.reqs = append(c.reqs, r)
	return nil
}

// dropUsageTail removes the reads holding a usage-only event (each event
// of the chat profile is a read of its own) and keeps their token counts
// in the trace's columns.
func dropUsageTail(r *trace.Request) {
	var kept []trace.Chunk
	for _, c := range r.Chunks {
		if bytes.Contains(c.Data, []byte(`"choices":[]`)) {
			in, out := int64(128), int64(0)
			s := string(c.Data)
			if i := strings.Index(s, `"completion_tokens":`); i >= 0 {
				for _, ch := range s[i+len(`"completion_tokens":`):] {
					if ch < '0' || ch > '9' {
						break
					}
					out = out*10 + int64(ch-'0')
				}
			}
			r.InputTokens, r.OutputTokens = &in, &out
			continue
		}
		kept = append(kept, c)
	}
	r.Chunks = kept
}

// genSide generates a run and reads it as audit diff does.
func genSide(t testing.TB, o tracegen.Options, edit func(*trace.Request)) *Side {
	t.Helper()
	c := &collect{edit: edit}
	if _, err := tracegen.Generate(o, c); err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(Config{Name: "gen", MaxConcurrency: o.Concurrency})
	r := &sliceReader{info: trace.Info{Path: "gen", Extra: tracegen.Extra()}, reqs: c.reqs}
	if err := b.AddTrace(r, record.Options{Framer: replay.AISBench, Spec: true}); err != nil {
		t.Fatal(err)
	}
	s, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// small is a small run of the chat profile: 40 requests of 24 tokens, 4 at
// a time.
func small(seed uint64, itl time.Duration) tracegen.Options {
	return tracegen.Options{Profile: "chat", Requests: 40, Concurrency: 4, Seed: seed, OutputTokens: 24, ITL: itl}
}

// TestSeedPairs: the same profile with 100 pairs of different seeds, each
// pair's 8 per-request metrics tested in both stages (1600 tests). At
// alpha 0.05 a calibrated test is significant in 5% of them: over the 1600
// tests at most 5%, and for each metric at most 10 of its 100 pairs (the
// count is Binomial(100, 0.05): 11 is its 99th percentile; a test that
// took pooled intervals as independent samples is significant in most
// pairs). The log gives every count.
func TestSeedPairs(t *testing.T) {
	if testing.Short() {
		t.Skip("100 seed pairs")
	}
	const pairs = 100
	counts := map[aisbench.Stage]map[metric.Metric]int{}
	tests := map[aisbench.Stage]map[metric.Metric]int{}
	anyTotal := 0
	for k := range pairs {
		a := genSide(t, small(uint64(1000+2*k), 20*time.Millisecond), nil)
		b := genSide(t, small(uint64(1001+2*k), 20*time.Millisecond), nil)
		c, err := Compare(a, b, Options{Resamples: 100})
		if err != nil {
			t.Fatal(err)
		}
		if c.Pairing.By != "" {
			t.Fatalf("pair %d: paired by %s: runs of other seeds hold other prompts", k, c.Pairing.By)
		}
		sig := false
		for _, sc := range c.Stages {
			if counts[sc.Stage] == nil {
				counts[sc.Stage], tests[sc.Stage] = map[metric.Metric]int{}, map[metric.Metric]int{}
			}
			for _, m := range sc.Metrics {
				if m.Test == "" {
					continue
				}
				tests[sc.Stage][m.Name]++
				if m.Significant {
					counts[sc.Stage][m.Name]++
					sig = sig || sc.Stage == aisbench.StageTotal
				}
			}
		}
		if sig {
			anyTotal++
		}
	}
	all, allTests := 0, 0
	for _, st := range aisbench.Stages {
		for _, d := range Metrics {
			if !d.PerRequest {
				continue
			}
			n, of := counts[st][d.Name], tests[st][d.Name]
			t.Logf("%-6s %-22s significant in %2d of %d seed pairs", st, d.Name, n, of)
			if of != pairs {
				t.Errorf("%s %s: tested in %d of %d pairs", st, d.Name, of, pairs)
			}
			if n > 10 {
				t.Errorf("%s %s: significant in %d of %d pairs of one profile, want at most 10", st, d.Name, n, pairs)
			}
			all += n
			allTests += of
		}
	}
	t.Logf("significant in %d of %d tests (%.1f%%)", all, allTests, 100*float64(all)/float64(allTests))
	if all*100 > allTests*5 {
		t.Errorf("significant in %d of %d tests of one profile, want at most 5%%", all, allTests)
	}
	t.Logf("total stage: some metric significant in %d of %d pairs (8 correlated tests each)", anyTotal, pairs)
}

// TestITL20Against23: --itl 20ms against 23ms is a +15% change of ITL
// (and of TPOT, ContentUpdateInterval), found significant with the right
// sign: paired (the same seed: the same requests) and unpaired.
func TestITL20Against23(t *testing.T) {
	for _, tc := range []struct {
		name         string
		seedA, seedB uint64
		by           string
		loPct, hiPct float64
	}{
		{"paired", 7, 7, "request_id", 14.9, 15.1},
		{"unpaired", 7, 8, "", 10, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := genSide(t, small(tc.seedA, 20*time.Millisecond), nil)
			b := genSide(t, small(tc.seedB, 23*time.Millisecond), nil)
			c, err := Compare(a, b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.Pairing.By != tc.by {
				t.Fatalf("paired by %q, want %q", c.Pairing.By, tc.by)
			}
			for _, sc := range c.Stages {
				for _, name := range []metric.Metric{metric.ITL, metric.TPOT, metric.ContentUpdateInterval} {
					m := sc.Metric(name)
					t.Logf("%s %s: %+.3f%% [%+.3f%%, %+.3f%%] %s p=%.3g", sc.Stage, name, m.DeltaPct, m.CI95[0], m.CI95[1], m.Test, m.PValue)
					if !m.Significant || m.DeltaPct < tc.loPct || m.DeltaPct > tc.hiPct {
						t.Errorf("%s %s: %+.3f%% (significant %v), want a significant change in [%v%%, %v%%]", sc.Stage, name, m.DeltaPct, m.Significant, tc.loPct, tc.hiPct)
					}
					if !(m.CI95[0] <= 15.0001 && 14.9999 <= m.CI95[1]) {
						t.Errorf("%s %s: interval [%v, %v] misses +15%%", sc.Stage, name, m.CI95[0], m.CI95[1])
					}
				}
			}
		})
	}
}

// TestAgainstItself: a run against itself: every change 0, nothing
// significant, nothing attributed, no --fail-on violated.
func TestAgainstItself(t *testing.T) {
	a := genSide(t, small(3, 20*time.Millisecond), nil)
	b := genSide(t, small(3, 20*time.Millisecond), nil)
	f, err := ParseFailOn("ITL.Average>+0%")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(a, b, Options{FailOn: []FailOn{f}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Pairing.By != "request_id" || len(c.Pairing.Pairs) != 40 {
		t.Errorf("pairing %q with %d pairs, want request_id with 40", c.Pairing.By, len(c.Pairing.Pairs))
	}
	for _, sc := range c.Stages {
		for _, m := range sc.Metrics {
			if m.DeltaPct != 0 || m.Significant || (m.PerRequest && (m.CI95[0] != 0 || m.CI95[1] != 0 || m.PValue != 1)) {
				t.Errorf("%s %s: %v%% [%v, %v] p=%v significant %v, want 0 [0, 0] p=1", sc.Stage, m.Name, m.DeltaPct, m.CI95[0], m.CI95[1], m.PValue, m.Significant)
			}
		}
	}
	if len(c.Attribution) != 0 {
		t.Errorf("attribution %+v, want none", c.Attribution)
	}
	if c.Failed() {
		t.Errorf("--fail-on violated against itself: %+v", c.FailOn)
	}
}

// TestUsageTailAttributed: the same run without its usage-only tails (the
// token counts in the trace's columns): E2EL and TPOT drop, and the
// attribution names the cause — no usage_only event, one ITL interval less
// a request, E2EL ending at the finish event, the token source.
func TestUsageTailAttributed(t *testing.T) {
	a := genSide(t, small(5, 20*time.Millisecond), nil)
	b := genSide(t, small(5, 20*time.Millisecond), dropUsageTail)
	c, err := Compare(a, b, Options{Stages: []aisbench.Stage{aisbench.StageTotal}})
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, at := range c.Attribution {
		codes = append(codes, at.Code+":"+at.Subject)
		t.Log(at.Text)
	}
	want := []string{"events:usage_only", "last-event:last-event", "token-source:token-source"}
	if strings.Join(codes, " ") != strings.Join(want, " ") {
		t.Errorf("attribution %v, want %v", codes, want)
	}
	u := c.Attribution[0]
	if u.A != 1 || u.B != 0 || !strings.Contains(u.Text, "B has no usage_only event") || !strings.Contains(u.Text, "-1 ITL interval a request") {
		t.Errorf("usage-only attribution %+v", u)
	}
	e2el := c.Stages[0].Metric(metric.E2EL)
	if !e2el.Significant || e2el.DeltaPct >= 0 {
		t.Errorf("E2EL %+v%% (significant %v), want a significant drop", e2el.DeltaPct, e2el.Significant)
	}
	if ttft := c.Stages[0].Metric(metric.TTFT); ttft.Significant || ttft.DeltaPct != 0 {
		t.Errorf("TTFT %+v%% (significant %v), want no change", ttft.DeltaPct, ttft.Significant)
	}
	if math.IsNaN(c.Stages[0].Metric(metric.TPOT).DeltaPct) {
		t.Errorf("TPOT not compared: the trace's token columns should give it")
	}
}

// TestPairByPrompt: the same requests under other request_ids (and in
// another order) pair by prompt; --pair none and request_id refuse to.
func TestPairByPrompt(t *testing.T) {
	a := genSide(t, small(9, 20*time.Millisecond), nil)
	b := genSide(t, small(9, 20*time.Millisecond), func(r *trace.Request) { r.RequestID = "other-" + r.RequestID })
	c, err := Compare(a, b, Options{Stages: []aisbench.Stage{aisbench.StageTotal}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Pairing.By != "prompt" || len(c.Pairing.Pairs) != 40 {
		t.Fatalf("paired by %q with %d pairs, want prompt with 40", c.Pairing.By, len(c.Pairing.Pairs))
	}
	if m := c.Stages[0].Metric(metric.E2EL); m.Test != Wilcoxon || m.PValue != 1 || m.DeltaPct != 0 {
		t.Errorf("E2EL %+v, want Wilcoxon with p 1 and no change", m)
	}
	if c, err := Compare(a, b, Options{Pair: PairNone}); err != nil || c.Pairing.By != "" {
		t.Errorf("--pair none: %+v, %v", c.Pairing, err)
	}
	if _, err := Compare(a, b, Options{Pair: PairRequestID}); err == nil {
		t.Errorf("--pair request_id with no request_id in common: no error")
	}
}

package tracegen

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
)

type collect struct{ reqs []*trace.Request }

func (c *collect) Write(r *trace.Request) error {
	cp := *r
	c.reqs = append(c.reqs, &cp)
	return nil
}

func generate(t *testing.T, o Options) []*trace.Request {
	t.Helper()
	var c collect
	st, err := Generate(o, &c)
	if err != nil {
		t.Fatal(err)
	}
	if st.Requests != o.Requests || len(c.reqs) != o.Requests {
		t.Fatalf("%d requests (stats %d), want %d", len(c.reqs), st.Requests, o.Requests)
	}
	return c.reqs
}

// jsonl is the requests as the JSONL interchange.
func jsonl(t *testing.T, o Options) []byte {
	t.Helper()
	var b bytes.Buffer
	meta, err := Meta(o)
	if err != nil {
		t.Fatal(err)
	}
	w, err := trace.Create("-", "", &b, trace.WriteOptions{Meta: meta, Extra: Extra()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(o, w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDeterministic(t *testing.T) {
	for _, p := range Profiles() {
		o := Options{Profile: p.Name, Requests: 20, Concurrency: 3, Seed: 42, OutputTokens: 8, InputTokens: 5}
		a, b := jsonl(t, o), jsonl(t, o)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two runs with seed 42 differ", p.Name)
		}
		o.Seed = 43
		if bytes.Equal(a, jsonl(t, o)) {
			t.Errorf("%s: seeds 42 and 43 give the same trace", p.Name)
		}
	}
}

// TestClosedLoop checks the time model: t0 never goes back, at most
// Concurrency requests overlap at any t0, chunk times are on or after t0,
// gaps between reads at least MinGap, and every trace passes the schema's
// checks.
func TestClosedLoop(t *testing.T) {
	o := Options{Profile: "mixed", Requests: 200, Concurrency: 5, Seed: 9, OutputTokens: 12, InputTokens: 3, MinGap: 2 * time.Millisecond}
	reqs := generate(t, o)
	chk := trace.NewChecker("gen", trace.DefaultLimits)
	var prev int64
	peak := 0
	for i, r := range reqs {
		if err := chk.Check(r, trace.Error{Row: int64(i), RowGroup: -1}); err != nil {
			t.Fatal(err)
		}
		if r.T0Ns < prev {
			t.Fatalf("request %d: t0 %d before the previous %d", i, r.T0Ns, prev)
		}
		prev = r.T0Ns
		overlap := 0
		for _, q := range reqs[:i+1] {
			if q.T0Ns <= r.T0Ns && *q.EndNs > r.T0Ns {
				overlap++
			}
		}
		peak = max(peak, overlap)
		for k := 1; k < len(r.Chunks); k++ {
			if g := r.Chunks[k].TNs - r.Chunks[k-1].TNs; g < int64(o.MinGap) {
				t.Errorf("request %d: reads %d and %d %dns apart, under the minimum gap", i, k-1, k, g)
			}
		}
	}
	if peak != o.Concurrency {
		t.Errorf("at most %d requests in flight, want exactly %d", peak, o.Concurrency)
	}
}

// TestProfiles checks that each profile makes what it says, through the
// replay package's framers.
func TestProfiles(t *testing.T) {
	count := func(reqs []*trace.Request, f replay.Framer, pred func(*trace.Request, *replay.Result) bool) int {
		n := 0
		for _, r := range reqs {
			res, err := replay.Replay(r, replay.Options{Framer: f})
			if err != nil {
				t.Fatal(err)
			}
			if pred(r, res) {
				n++
			}
		}
		return n
	}
	o := Options{Requests: 40, Concurrency: 2, Seed: 5, OutputTokens: 10, InputTokens: 3}
	all := func(reqs []*trace.Request, f replay.Framer, what string, pred func(*trace.Request, *replay.Result) bool) {
		t.Helper()
		if n := count(reqs, f, pred); n != len(reqs) {
			t.Errorf("%s: %d of %d requests", what, n, len(reqs))
		}
	}
	some := func(reqs []*trace.Request, f replay.Framer, what string, pred func(*trace.Request, *replay.Result) bool) {
		t.Helper()
		if n := count(reqs, f, pred); n == 0 {
			t.Errorf("%s: no request", what)
		}
	}
	gen1 := func(p string) []*trace.Request { o := o; o.Profile = p; return generate(t, o) }

	chat := gen1("chat")
	all(chat, replay.AISBench, "chat: AISBench succeeds with usage tokens", func(r *trace.Request, res *replay.Result) bool {
		return res.Success && res.TokenSource == "usage" && res.Counts[replay.ClassRole] == 1 && res.Counts[replay.ClassUsageOnly] == 1 &&
			res.Counts[replay.ClassFinish] == 1 && res.Counts[replay.ClassDone] == 1 && int64(res.Counts[replay.ClassContent]) == *res.OutputTokens
	})
	reasoning := gen1("reasoning")
	all(reasoning, replay.AISBench, "reasoning: reasoning events before content", func(r *trace.Request, res *replay.Result) bool {
		last := -1
		for i, e := range res.Events {
			if e.Class == replay.ClassReasoning {
				last = i
			}
		}
		first := -1
		for i, e := range res.Events {
			if e.Class == replay.ClassContent {
				first = i
				break
			}
		}
		return res.Success && last >= 0 && (first < 0 || last < first)
	})
	spec := gen1("speculative")
	all(spec, replay.AISBench, "speculative: usage on every content event", func(r *trace.Request, res *replay.Result) bool {
		for _, e := range res.Events {
			if e.Class == replay.ClassContent && e.Usage == nil {
				return false
			}
		}
		return res.Success
	})
	some(spec, replay.AISBench, "speculative: fewer content events than tokens", func(r *trace.Request, res *replay.Result) bool {
		return int64(res.Counts[replay.ClassContent]) < *res.OutputTokens
	})
	net := gen1("network")
	some(net, replay.SSE, "network: several events in one read", func(r *trace.Request, res *replay.Result) bool {
		for _, c := range r.Chunks {
			if bytes.Count(c.Data, []byte("data: ")) > 1 {
				return true
			}
		}
		return false
	})
	some(net, replay.SSE, "network: an event split over reads", func(r *trace.Request, res *replay.Result) bool {
		for _, c := range r.Chunks {
			if !bytes.HasSuffix(c.Data, []byte("\n\n")) {
				return true
			}
		}
		return false
	})
	some(net, replay.AISBench, "network: keep-alive comments", func(r *trace.Request, res *replay.Result) bool {
		return res.Counts[replay.ClassComment] > 0
	})
	all(net, replay.AISBench, "network: AISBench still succeeds", func(r *trace.Request, res *replay.Result) bool { return res.Success })
	crlf := gen1("crlf")
	all(crlf, replay.AISBench, "crlf: CRLF framing that AISBench reads", func(r *trace.Request, res *replay.Result) bool {
		return res.Success && bytes.Contains(r.Chunks[0].Data, []byte("\r\n\r\n")) && len(res.TimePointsNs) > 3
	})
	cr := gen1("cr")
	all(cr, replay.AISBench, "cr: CR-only framing, every AISBench time point at the end of the body", func(r *trace.Request, res *replay.Result) bool {
		last := r.Chunks[len(r.Chunks)-1].TNs
		for _, tp := range res.TimePointsNs[1:] {
			if tp != last {
				return false
			}
		}
		return !bytes.Contains(r.Chunks[0].Data, []byte("\n"))
	})
	fail := gen1("failures")
	some(fail, replay.AISBench, "failures: HTTP 500", func(r *trace.Request, res *replay.Result) bool {
		return r.HTTPStatus != nil && *r.HTTPStatus == 500 && !res.Success
	})
	some(fail, replay.AISBench, "failures: cut mid-stream", func(r *trace.Request, res *replay.Result) bool {
		return r.HTTPStatus != nil && *r.HTTPStatus == 200 && r.Error != nil && !res.Success &&
			!bytes.HasSuffix(r.Chunks[len(r.Chunks)-1].Data, []byte("[DONE]\n\n"))
	})
	some(fail, replay.AISBench, "failures: no response", func(r *trace.Request, res *replay.Result) bool {
		return r.HTTPStatus == nil && r.Error != nil && r.Chunks == nil
	})
	some(fail, replay.AISBench, "failures: some succeed", func(r *trace.Request, res *replay.Result) bool { return res.Success })
	brk := gen1("aisbench-breakers")
	some(brk, replay.AISBench, "breakers: an event: line fails AISBench", func(r *trace.Request, res *replay.Result) bool {
		return !res.Success && bytes.Contains(joined(r), []byte("event: message\ndata: "))
	})
	some(brk, replay.AISBench, "breakers: a comment inside a block loses its data", func(r *trace.Request, res *replay.Result) bool {
		return res.Success && strings.Contains(string(joined(r)), ": ping\ndata: ") && res.Counts[replay.ClassComment] == 1
	})
	some(brk, replay.SSE, "breakers: multi-line data", func(r *trace.Request, res *replay.Result) bool {
		b := joined(r)
		return bytes.Count(b, []byte("data: ")) > bytes.Count(b, []byte("\n\n"))
	})
	comp := Options{Profile: "chat", API: "completions", Requests: 5, Seed: 1, OutputTokens: 4}
	for _, r := range generate(t, comp) {
		// AISBench's chat client wants choices[].delta (a KeyError on
		// text_completion chunks); the sse framer reads them.
		res, _ := replay.Replay(r, replay.Options{Framer: replay.SSE})
		if !res.Success || res.Counts[replay.ClassContent] == 0 || !bytes.Contains(r.Chunks[0].Data, []byte(`"text_completion"`)) {
			t.Errorf("completions: %s: success %v counts %v", r.RequestID, res.Success, res.Counts)
		}
	}
}

func joined(r *trace.Request) []byte {
	var b []byte
	for _, c := range r.Chunks {
		b = append(b, c.Data...)
	}
	return b
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Profile: "nope", Requests: 1},
		{API: "embeddings", Requests: 1},
		{Requests: -1},
		{Requests: 1, Concurrency: -2},
		{Requests: 1, TTFT: -time.Second},
	} {
		if _, err := Generate(o, &collect{}); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// BenchmarkGenerate measures generation into a discarding writer; with
// -benchtime it makes traces of any size (b.N requests).
func BenchmarkGenerate(b *testing.B) {
	var n int64
	w := writerFunc(func(r *trace.Request) error { n += r.BodyBytes(); return nil })
	o := Options{Profile: "mixed", Requests: b.N, Concurrency: 64, Seed: 1, OutputTokens: 256}
	b.ResetTimer()
	if _, err := Generate(o, w); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(n / int64(b.N))
}

type writerFunc func(*trace.Request) error

func (f writerFunc) Write(r *trace.Request) error { return f(r) }

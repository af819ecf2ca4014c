package capture_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/internal/stallprobe"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/serve"
	"github.com/sseaudit/sseaudit/trace"
	_ "github.com/sseaudit/sseaudit/trace/arrowfile"
	"github.com/sseaudit/sseaudit/tracegen"
)

// collect keeps deep copies of what it is given.
type collect struct{ reqs []*trace.Request }

func (c *collect) Write(r *trace.Request) error {
	cp := *r
	cp.Chunks = nil
	for _, ch := range r.Chunks {
		cp.Chunks = append(cp.Chunks, trace.Chunk{TNs: ch.TNs, Data: append([]byte{}, ch.Data...)})
	}
	cp.Extra = append([]trace.Value(nil), r.Extra...)
	c.reqs = append(c.reqs, &cp)
	return nil
}

// genTrace generates a trace and writes it as JSONL in dir; it returns the
// requests and the path.
func genTrace(t testing.TB, dir string, o tracegen.Options) ([]*trace.Request, string) {
	t.Helper()
	var c collect
	if _, err := tracegen.Generate(o, &c); err != nil {
		t.Fatal(err)
	}
	meta, _ := tracegen.Meta(o)
	path := filepath.Join(dir, "gen.jsonl")
	w, err := trace.Create(path, "", nil, trace.WriteOptions{Meta: meta, Extra: tracegen.Extra()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.reqs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return c.reqs, path
}

func startServe(t testing.TB, path string, opts serve.Options) *serve.Server {
	t.Helper()
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	s, err := serve.New(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The trace's reads are at least 10ms apart (MinGap): a read boundary
// survives loopback unless a goroutine on either side is held up longer
// than that.
//
// gapTolerance is how far apart the gap between two reads may be, served
// (from the trace) and captured (on loopback). Loopback adds well under a
// millisecond; the rest is room for the scheduler of a loaded, shared
// 2-core test machine (timer slack, goroutine wake-ups on both sides).
const gapTolerance = 15 * time.Millisecond

// maxStall is the largest oversleep of the probe under which timing is
// held against the code.
const maxStall = 10 * time.Millisecond

func joined(r *trace.Request) []byte {
	var b []byte
	for _, c := range r.Chunks {
		b = append(b, c.Data...)
	}
	return b
}

// TestGenServeCapture is the loop: a generated trace with every
// profile, served on loopback, captured at concurrency 4, gives back for
// every request the same status, the same body, the same events with the
// same classes under both framers, and — when the machine kept time (see
// stallprobe) — the same reads byte for byte (so the same read boundaries)
// and the same gaps between reads within gapTolerance.
func TestGenServeCapture(t *testing.T) {
	o := tracegen.Options{Profile: "mixed", Requests: 32, Concurrency: 4, Seed: 7,
		OutputTokens: 10, InputTokens: 8, TTFT: 20 * time.Millisecond, ITL: 12 * time.Millisecond, MinGap: 10 * time.Millisecond}
	want, path := genTrace(t, t.TempDir(), o)
	s := startServe(t, path, serve.Options{Match: true})
	ts := httptest.NewServer(s)
	defer ts.Close()

	var prompts []string
	for _, r := range want {
		prompts = append(prompts, r.Extra[0].Str)
	}
	var got collect
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	probe := stallprobe.Start()
	sum, err := capture.Run(ctx, capture.Options{URL: ts.URL, Requests: len(want), Concurrency: 4, Prompts: prompts, MaxTokens: 16, Model: "m"}, &got)
	if err != nil {
		t.Fatal(err)
	}
	stall := probe.Stop()
	if sum.Written != len(want) || len(got.reqs) != len(want) {
		t.Fatalf("captured %d requests (summary %+v), want %d", len(got.reqs), sum, len(want))
	}
	// Read boundaries and gaps depend on both sides keeping time: they are
	// errors when the probe saw no stall beyond maxStall, and only logged
	// otherwise (the bytes, statuses, events and classes are always
	// checked).
	var timing []string
	timingf := func(format string, args ...any) { timing = append(timing, fmt.Sprintf(format, args...)) }
	kinds := map[string]int{}
	var worstGap time.Duration
	for i, w := range want {
		g := got.reqs[i]
		name := fmt.Sprintf("request %d (%s ← %s)", i, g.RequestID, w.RequestID)
		if g.Extra[0].Str != w.Extra[0].Str {
			t.Fatalf("%s: prompt %q, want %q", name, g.Extra[0].Str, w.Extra[0].Str)
		}
		switch {
		case w.HTTPStatus == nil:
			kinds["no response"]++
			if g.HTTPStatus != nil || g.Error == nil {
				t.Errorf("%s: status %v error %v: want no response and an error", name, g.HTTPStatus, g.Error)
			}
			continue
		case g.HTTPStatus == nil || *g.HTTPStatus != *w.HTTPStatus:
			t.Errorf("%s: status %v, want %d (error %v)", name, g.HTTPStatus, *w.HTTPStatus, g.Error)
			continue
		case w.Error != nil:
			kinds["cut"]++
			if g.Error == nil {
				t.Errorf("%s: no error, want the stream cut (%s)", name, *w.Error)
			}
		case *w.HTTPStatus != 200:
			kinds["status"]++
			if g.Error == nil {
				t.Errorf("%s: status %d without the body in error", name, *g.HTTPStatus)
			}
		default:
			kinds["ok"]++
			if g.Error != nil {
				t.Errorf("%s: error %q", name, *g.Error)
			}
		}
		if gb, wb := joined(g), joined(w); !bytes.Equal(gb, wb) {
			t.Errorf("%s: body\n got %q\nwant %q", name, gb, wb)
			continue
		}
		if len(g.Chunks) != len(w.Chunks) {
			timingf("%s: %d reads, want %d (smallest gap between reads in the trace: %v)", name, len(g.Chunks), len(w.Chunks), minGap(w))
		}
		for k := range w.Chunks {
			if len(g.Chunks) != len(w.Chunks) {
				break
			}
			if !bytes.Equal(g.Chunks[k].Data, w.Chunks[k].Data) {
				timingf("%s: read %d:\n got %q\nwant %q", name, k, g.Chunks[k].Data, w.Chunks[k].Data)
			}
			var gg, wg time.Duration
			if k == 0 {
				gg, wg = time.Duration(g.Chunks[0].TNs-g.T0Ns), time.Duration(w.Chunks[0].TNs-w.T0Ns)
			} else {
				gg, wg = time.Duration(g.Chunks[k].TNs-g.Chunks[k-1].TNs), time.Duration(w.Chunks[k].TNs-w.Chunks[k-1].TNs)
			}
			d := (gg - wg).Abs()
			worstGap = max(worstGap, d)
			if d > gapTolerance || (k == 0 && gg < wg) {
				timingf("%s: read %d came %v after the one before (or t0), want %v ± %v", name, k, gg, wg, gapTolerance)
			}
		}
		for _, f := range []replay.Framer{replay.AISBench, replay.SSE} {
			rg, err1 := replay.Replay(g, replay.Options{Framer: f})
			rw, err2 := replay.Replay(w, replay.Options{Framer: f})
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if rg.Success != rw.Success || rg.Counts != rw.Counts || rg.Bytes != rw.Bytes || len(rg.Events) != len(rw.Events) {
				t.Errorf("%s: %s replay: success %v counts %v bytes %v, want %v %v %v", name, f, rg.Success, rg.Counts, rg.Bytes, rw.Success, rw.Counts, rw.Bytes)
				continue
			}
			for k := range rw.Events {
				eg, ew := rg.Events[k], rw.Events[k]
				if eg.Class != ew.Class || eg.Start != ew.Start || eg.End != ew.End || eg.Recorded != ew.Recorded {
					t.Errorf("%s: %s event %d: %v [%d,%d) recorded %v, want %v [%d,%d) %v", name, f, k, eg.Class, eg.Start, eg.End, eg.Recorded, ew.Class, ew.Start, ew.End, ew.Recorded)
				}
			}
		}
	}
	// The seed gives every kind of outcome; check it did, so the test
	// cannot pass on plain streams alone.
	for _, k := range []string{"ok", "cut", "status", "no response"} {
		if kinds[k] == 0 {
			t.Errorf("no request of kind %q in the generated trace (kinds %v): pick another seed", k, kinds)
		}
	}
	switch {
	case stall <= maxStall:
		for _, m := range timing {
			t.Error(m)
		}
	case len(timing) > 0:
		t.Logf("the machine stalled a goroutine for %v (more than %v) during the capture: %d read-boundary or gap differences not held against the code, e.g. %s", stall, maxStall, len(timing), timing[0])
	}
	t.Logf("kinds %v; worst gap difference %v; worst stall %v; summary %+v", kinds, worstGap, stall, sum)
}

func minGap(r *trace.Request) time.Duration {
	m := time.Duration(1<<63 - 1)
	for k := 1; k < len(r.Chunks); k++ {
		m = min(m, time.Duration(r.Chunks[k].TNs-r.Chunks[k-1].TNs))
	}
	return m
}

// TestCaptureFile checks that a finished capture file reads back whole.
func TestCaptureFile(t *testing.T) {
	o := tracegen.Options{Profile: "chat", Requests: 20, Concurrency: 2, Seed: 1, OutputTokens: 3, InputTokens: 4,
		TTFT: 2 * time.Millisecond, ITL: 2 * time.Millisecond, MinGap: time.Millisecond}
	_, path := genTrace(t, t.TempDir(), o)
	s := startServe(t, path, serve.Options{})
	ts := httptest.NewServer(s)
	defer ts.Close()
	opts := capture.Options{URL: ts.URL + "/v1", Requests: 20, Concurrency: 3}
	meta, err := capture.Meta(opts)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "cap.arrows")
	f, err := capture.CreateFile(out, trace.WriteOptions{Meta: meta, Extra: capture.Extra()}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := capture.Run(context.Background(), opts, f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := capture.CreateFile(out, trace.WriteOptions{}, 0); err == nil {
		t.Errorf("CreateFile over an existing file: no error")
	}
	r, err := trace.Open(out, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for r.Scan() {
		req := r.Request()
		if want := fmt.Sprintf("cap-%06d", n); req.RequestID != want {
			t.Errorf("row %d: request %s, want %s (send order)", n, req.RequestID, want)
		}
		if req.Failed() || len(req.Chunks) == 0 {
			t.Errorf("row %d: failed or empty: %+v", n, req)
		}
		n++
	}
	if err := r.Err(); err != nil || n != 20 {
		t.Fatalf("read %d requests, err %v: want 20", n, err)
	}
	if v, _ := r.Info().Meta.Get(trace.KeyMaxConcurrency); v != "3" {
		t.Errorf("max_concurrency %q, want 3", v)
	}
}

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperCapture())
	}
	os.Exit(m.Run())
}

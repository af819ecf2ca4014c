//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/tap"
	"github.com/sseaudit/sseaudit/trace"
)

const (
	tapServed = "testdata/traces/basic.arrows"
	tapKey    = "sk-tap-cli-NOT-A-REAL-KEY-1234"
)

// tapRig is audit serve of a bundled trace and audit tap in front of it,
// each a child process.
type tapRig struct {
	serve, tap *childProcess
	addr       string // the tap's
	out        string // the tap's trace
}

func startTapRig(t *testing.T, tapArgs ...string) *tapRig {
	t.Helper()
	serveAddr := freePort(t)
	r := &tapRig{serve: startChild(t, "serve", "--listen", serveAddr, tapServed)}
	waitListening(t, serveAddr, r.serve)
	r.addr, r.out = freePort(t), filepath.Join(t.TempDir(), "run.arrows")
	r.tap = startChild(t, append([]string{"tap", "--upstream", "http://" + serveAddr, "--listen", r.addr, "-o", r.out}, tapArgs...)...)
	waitListening(t, r.addr, r.tap)
	return r
}

// stop ends the tap with SIGINT (exit 0 wanted), then the server.
func (r *tapRig) stop(t *testing.T) {
	t.Helper()
	if code, _ := r.tap.stop(t); code != 0 {
		t.Fatalf("tap: exit %d: %s", code, r.tap.stderr.String())
	}
	r.serve.stop(t)
	raw, err := os.ReadFile(r.out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(tapKey)) {
		t.Fatalf("%s holds the API key", r.out)
	}
}

func readTapTrace(t *testing.T, path string) []*trace.Request {
	t.Helper()
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []*trace.Request
	for r.Scan() {
		out = append(out, r.Request().Clone())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitRecorded waits, at most 20 s, until the trace being written at path
// holds at least n requests.
func waitRecorded(t *testing.T, path string, n int) {
	t.Helper()
	count := func() int {
		r, err := trace.Open(path, trace.OpenOptions{})
		if err != nil {
			return 0
		}
		defer r.Close()
		k := 0
		for r.Scan() {
			k++
		}
		return k
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if count() >= n {
			return
		}
	}
	t.Fatalf("%s holds fewer than %d requests after 20 s", path, n)
}

func body(r *trace.Request) []byte {
	var b []byte
	for _, c := range r.Chunks {
		b = append(b, c.Data...)
	}
	return b
}

// classes is each request's event classes as AISBench's client frames
// them, and whether it succeeded.
func classes(t *testing.T, path string) []string {
	t.Helper()
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	err = record.Each(r, record.Options{Framer: replay.AISBench}, func(rr *record.Replayed) error {
		var cs []string
		for _, e := range rr.Record.Events {
			cs = append(cs, string(e.Class))
		}
		out = append(out, fmt.Sprintf("success=%v %s", rr.Record.Success, strings.Join(cs, ",")))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkTapReplaysServed: the tap's trace holds the served streams in the
// order asked (request i got stream i), the same status, body bytes and
// event classes.
func checkTapReplaysServed(t *testing.T, out string) {
	t.Helper()
	served, got := readTapTrace(t, tapServed), readTapTrace(t, out)
	slices.SortFunc(got, func(a, b *trace.Request) int { return strings.Compare(a.RequestID, b.RequestID) })
	if len(got) != len(served) {
		t.Fatalf("the tap recorded %d exchanges, %d were served", len(got), len(served))
	}
	for i, s := range served {
		g := got[i]
		if (s.HTTPStatus == nil) != (g.HTTPStatus == nil) || (s.HTTPStatus != nil && *s.HTTPStatus != *g.HTTPStatus) || s.Failed() != g.Failed() {
			t.Errorf("%s (served %s): status %v failed %v, served %v %v", g.RequestID, s.RequestID, g.HTTPStatus, g.Failed(), s.HTTPStatus, s.Failed())
		}
		if !bytes.Equal(body(s), body(g)) {
			t.Errorf("%s (served %s): body differs:\n%q\n%q", g.RequestID, s.RequestID, body(g), body(s))
		}
	}
	sorted := filepath.Join(t.TempDir(), "sorted.jsonl")
	w, err := trace.Create(sorted, "", nil, trace.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range got {
		g.Extra = nil
		w.Write(g)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if a, b := classes(t, tapServed), classes(t, sorted); !slices.Equal(a, b) {
		t.Errorf("event classes differ:\nserved %q\ntapped %q", a, b)
	}
}

// servedContent is the delta.content each served stream carries, joined.
func servedContent(t *testing.T) []string {
	var out []string
	for _, r := range readTapTrace(t, tapServed) {
		var b strings.Builder
		for _, line := range strings.Split(string(body(r)), "\n") {
			data, ok := strings.CutPrefix(line, "data: ")
			var ev struct {
				Choices []struct {
					Delta struct {
						Content string `json:"content"`
					} `json:"delta"`
				} `json:"choices"`
			}
			if ok && json.Unmarshal([]byte(data), &ev) == nil {
				for _, c := range ev.Choices {
					b.WriteString(c.Delta.Content)
				}
			}
		}
		out = append(out, b.String())
	}
	return out
}

// The OpenAI SDK for Node through audit tap to audit serve: it receives
// exactly the served content, and the tap's trace replays to the served
// bytes and event classes.
func TestTapOpenAISDK(t *testing.T) {
	modules := os.Getenv("SSEAUDIT_NODE_MODULES")
	node, err := exec.LookPath("node")
	if modules == "" || err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI needs node and SSEAUDIT_NODE_MODULES (with openai) for the SDK test: .ci/run installs them")
		}
		t.Skip("needs node and SSEAUDIT_NODE_MODULES naming a node_modules with openai (.ci/run installs it)")
	}
	if _, err := os.Stat(filepath.Join(modules, "openai")); err != nil {
		t.Fatalf("%s has no openai: %v", modules, err)
	}
	r := startTapRig(t)
	served := readTapTrace(t, tapServed)
	script, _ := filepath.Abs("cmd/audit/testdata/openai-stream.mjs")
	cmd := exec.Command(node, script)
	cmd.Env = append(os.Environ(), "SSEAUDIT_NODE_MODULES="+modules, "BASE_URL=http://"+r.addr+"/v1", "API_KEY="+tapKey, fmt.Sprintf("N=%d", len(served)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("openai-stream.mjs: %v\n%s", err, stderr.String())
	}
	r.stop(t)
	want := servedContent(t)
	sc := bufio.NewScanner(bytes.NewReader(out))
	i := 0
	for ; sc.Scan(); i++ {
		var got struct {
			Content string          `json:"content"`
			Usage   json.RawMessage `json:"usage"`
			Error   *string         `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		failed := served[i].Failed()
		if failed != (got.Error != nil) {
			t.Errorf("request %d (served %s, failed %v): SDK error %v", i, served[i].RequestID, failed, got.Error)
		}
		if !failed && got.Content != want[i] {
			t.Errorf("request %d: the SDK received %q, the stream carried %q", i, got.Content, want[i])
		}
		t.Logf("request %d: %s", i, sc.Text())
	}
	if i != len(served) {
		t.Fatalf("%d results from the SDK, want %d", i, len(served))
	}
	checkTapReplaysServed(t, r.out)
}

// curl -N through the tap receives each served body byte for byte.
func TestTapCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl")
	}
	r := startTapRig(t)
	served := readTapTrace(t, tapServed)
	for i, s := range served {
		cmd := exec.Command(curl, "-sN", "-H", "Authorization: Bearer "+tapKey, "http://"+r.addr+"/v1/chat/completions",
			"-d", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
		got, _ := cmd.Output() // curl exits 18 or 52 on a cut stream
		if !bytes.Equal(got, body(s)) && s.HTTPStatus != nil {
			t.Errorf("request %d: curl got %q, served %q", i, got, body(s))
		}
	}
	r.stop(t)
	checkTapReplaysServed(t, r.out)
}

// hangingUpstream answers /done with a short stream and /hang with one
// event, then holds the stream open.
func hangingUpstream() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
		w.(http.Flusher).Flush()
		if r.URL.Path == "/hang" {
			<-r.Context().Done()
			return
		}
		time.Sleep(20 * time.Millisecond)
		io.WriteString(w, "data: [DONE]\n\n")
	})
}

// kill -9 of the tap mid-run: the file holds every exchange that ended,
// each whole; the client in flight sees its connection end, not a hang.
func TestTapKilled(t *testing.T) {
	up := httptest.NewServer(hangingUpstream())
	defer up.Close()
	addr, out := freePort(t), filepath.Join(t.TempDir(), "run.arrows")
	child := startChild(t, "tap", "--upstream", up.URL, "--listen", addr, "--flush-every", "1", "-o", out)
	waitListening(t, addr, child)
	const done = 5
	for range done {
		resp, err := http.Post("http://"+addr+"/done", "application/json", strings.NewReader(`{"stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	// An exchange is written when it ends, a moment after its client has
	// the last byte: wait for the five on disk (a loaded machine delays the
	// writer), then kill.
	waitRecorded(t, out, done)
	resp, err := http.Post("http://"+addr+"/hang", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 10)
	if _, err := io.ReadFull(resp.Body, first); err != nil {
		t.Fatal(err)
	}
	child.cmd.Process.Signal(syscall.SIGKILL)
	ended := make(chan error, 1)
	go func() { _, err := io.ReadAll(resp.Body); ended <- err }()
	select {
	case err := <-ended:
		if err == nil {
			t.Errorf("the client read a clean end of a stream cut by kill -9")
		}
		t.Logf("the client saw: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the client hangs after kill -9 of the tap")
	}
	child.cmd.Wait()
	reqs := readTapTrace(t, out)
	if len(reqs) != done {
		t.Fatalf("%s holds %d exchanges, want the %d that ended", out, len(reqs), done)
	}
	for _, q := range reqs {
		if q.Failed() || !strings.HasSuffix(string(body(q)), "data: [DONE]\n\n") {
			t.Errorf("%s: failed %v, body %q", q.RequestID, q.Failed(), body(q))
		}
	}
}

// SIGINT lets the exchange in flight finish, then closes the file with the
// run's peak in flight; exit 0.
func TestTapInterruptDrains(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 5 {
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":\"%d\"}}]}\n\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond)
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer up.Close()
	addr, out := freePort(t), filepath.Join(t.TempDir(), "run.arrows")
	child := startChild(t, "tap", "--upstream", up.URL, "--listen", addr, "--max-concurrency", "4", "-o", out)
	waitListening(t, addr, child)
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	child.cmd.Process.Signal(syscall.SIGINT)
	rest, err := io.ReadAll(resp.Body)
	if err != nil || !strings.HasSuffix(string(rest), "data: [DONE]\n\n") {
		t.Fatalf("the stream in flight was cut by the first SIGINT: %v %q", err, rest)
	}
	if code, _ := child.wait(t); code != 0 {
		t.Fatalf("exit %d: %s", code, child.stderr.String())
	}
	r, err := trace.Open(out, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m := r.Info().Meta
	for k, want := range map[string]string{tap.KeyPeakInFlight: "1", tap.KeyExchanges: "1", trace.KeyMaxConcurrency: "4", trace.KeySource: "tap"} {
		if v, _ := m.Get(k); v != want {
			t.Errorf("metadata %s = %q, want %q", k, v, want)
		}
	}
	if !r.Scan() || r.Request().Failed() {
		t.Fatalf("the drained exchange: %v", r.Err())
	}
}

// audit lag on AISBench's own client's runs (testdata/tap/aisbench): the
// clocks' offset is CLOCK_MONOTONIC's, every event aligned; the client
// made slow on purpose lags by far more, and is reported.
func TestLagAISBenchRuns(t *testing.T) {
	type report struct {
		Requests map[string]int `json:"requests"`
		Offset   struct {
			Source     string `json:"source"`
			Consistent bool   `json:"consistent"`
		} `json:"clock_offset"`
		Events   map[string]any `json:"events"`
		Lag      struct{ P50Ns, P99Ns float64 }
		Findings []struct{ Code string } `json:"findings"`
	}
	var got [2]report
	for i, run := range []string{"fast", "slow"} {
		dir := "testdata/tap/aisbench/" + run
		stdout, stderr, code := runCLI(t, "", "lag", "--format", "json", "--wire", dir+"/wire.arrows", "--client", dir+"/work_dir")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", run, code, stderr)
		}
		var raw struct {
			report
			Lag struct {
				P50 float64 `json:"p50_ns"`
				P99 float64 `json:"p99_ns"`
			} `json:"lag"`
		}
		if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
			t.Fatal(err)
		}
		got[i] = raw.report
		got[i].Lag.P50Ns, got[i].Lag.P99Ns = raw.Lag.P50, raw.Lag.P99
		r := got[i]
		if r.Requests["matched"] != 48 || r.Requests["compared"] != 48 || r.Offset.Source != "clock_monotonic_ns" || !r.Offset.Consistent {
			t.Errorf("%s: %+v", run, r)
		}
		if r.Events["merged"].(float64) != 0 || r.Events["client_only"].(float64) != 0 {
			t.Errorf("%s: events %v", run, r.Events)
		}
		text, _, _ := runCLI(t, "", "lag", "--wire", dir+"/wire.arrows", "--client", dir+"/work_dir")
		again, _, _ := runCLI(t, "", "lag", "--wire", dir+"/wire.arrows", "--client", dir+"/work_dir")
		if text != again || !strings.Contains(text, "lag per event") {
			t.Errorf("%s: text output not deterministic or incomplete:\n%s", run, text)
		}
		// The HTML page says what the text says: its lines, table cells and findings.
		page, _, code := runCLI(t, "", "lag", "--format", "html", "--wire", dir+"/wire.arrows", "--client", dir+"/work_dir")
		if code != 0 || !strings.HasPrefix(page, "<!DOCTYPE html>") {
			t.Fatalf("%s: html exit %d: %.200s", run, code, page)
		}
		plain := html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(page, ""))
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line == "findings" {
				continue
			}
			if strings.Contains(line, "  ") { // a table row: each cell
				for _, cell := range strings.Fields(line) {
					if !strings.Contains(plain, cell) {
						t.Errorf("%s: html lacks the cell %q of %q", run, cell, line)
					}
				}
			} else if !strings.Contains(plain, line) {
				t.Errorf("%s: html lacks %q", run, line)
			}
		}
		// audit report's page of the wire holds the same section, linked.
		report, stderr, code := runCLI(t, "", "report", "--format", "html", "--lag-client", dir+"/work_dir", dir+"/wire.arrows")
		if code != 0 {
			t.Fatalf("%s: report --lag-client exit %d: %s", run, code, stderr)
		}
		section := func(page string) string {
			i := strings.Index(page, `<section id="client-lag">`)
			if i < 0 {
				return ""
			}
			return page[i : i+strings.Index(page[i:], "</section>")]
		}
		if sec := section(report); sec == "" || sec != section(page) || !strings.Contains(report, `href="#client-lag"`) {
			t.Errorf("%s: audit report's client-lag section is not audit lag's, or not linked:\n%s", run, sec)
		}
	}
	fast, slow := got[0], got[1]
	if len(fast.Findings) != 0 || len(slow.Findings) != 1 || slow.Findings[0].Code != "client-lag" {
		t.Errorf("findings: fast %v, slow %v", fast.Findings, slow.Findings)
	}
	if !(slow.Lag.P50Ns > 4*fast.Lag.P50Ns && slow.Lag.P99Ns > 4*fast.Lag.P99Ns) {
		t.Errorf("slow client's lag P50 %v, P99 %v ns; fast client's %v, %v", slow.Lag.P50Ns, slow.Lag.P99Ns, fast.Lag.P50Ns, fast.Lag.P99Ns)
	}
}

// Usage errors exit 2, bad input 1, each naming what is wrong.
func TestLagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"lag", "--wire", "x.arrows"}, 2, "want --wire"},
		{[]string{"lag", "--wire", "testdata/tap/aisbench/fast/wire.arrows", "--client", "testdata/tap/aisbench/fast/work_dir", "--threshold", "0"}, 2, "--threshold"},
		{[]string{"lag", "--wire", "nope.arrows", "--client", "testdata/tap/aisbench/fast/work_dir"}, 1, "nope.arrows"},
		{[]string{"lag", "--wire", "testdata/tap/aisbench/fast/wire.arrows", "--client", "testdata/traces/basic.jsonl"}, 1, "no request"},
		{[]string{"report", "--lag-client", "testdata/tap/aisbench/fast/work_dir", "testdata/tap/aisbench/fast/wire.arrows"}, 2, "--lag-client goes with --format html"},
		{[]string{"report", "--format", "html", "--lag-client", "testdata/tap/aisbench/fast/work_dir", "-"}, 2, "not -"},
		{[]string{"report", "--format", "html", "--lag-client", "testdata/traces/basic.jsonl", "testdata/tap/aisbench/fast/wire.arrows"}, 1, "no request"},
		{[]string{"tap", "--upstream", "ftp://x", "-o", "x.arrows"}, 2, "upstream"},
		{[]string{"tap", "--upstream", "http://127.0.0.1:1"}, 2, "missing -o"},
	} {
		_, stderr, code := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d naming %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

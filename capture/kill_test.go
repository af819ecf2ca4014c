package capture_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/serve"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/tracegen"
)

const helperEnv = "SSEAUDIT_CAPTURE_HELPER"

// killOpts is the generated trace the kill test serves: long enough that
// the capture is still running when it is killed.
var killOpts = tracegen.Options{Profile: "chat", Requests: 400, Concurrency: 3, Seed: 3, OutputTokens: 6, InputTokens: 4,
	TTFT: 3 * time.Millisecond, ITL: 3 * time.Millisecond, MinGap: time.Millisecond}

// helperCapture is the child process of TestCaptureKilled: it captures
// from the URL in its environment into the file named there, flushing
// every 2 requests, until it is killed.
func helperCapture() int {
	url, out := os.Getenv(helperEnv), os.Getenv(helperEnv+"_OUT")
	var prompts []string
	for i := range killOpts.Requests {
		prompts = append(prompts, tracegen.Prompt(killOpts.Seed, i, killOpts.InputTokens))
	}
	opts := capture.Options{URL: url, Requests: killOpts.Requests, Concurrency: 3, Prompts: prompts}
	meta, err := capture.Meta(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	f, err := capture.CreateFile(out, trace.WriteOptions{Meta: meta, Extra: capture.Extra()}, 2)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := capture.Run(ctx, opts, f); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// readAll reads a trace, returning its requests (copied) and the error
// that ended the read.
func readAll(path string) ([]*trace.Request, error) {
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var c collect
	for r.Scan() {
		c.Write(r.Request())
	}
	return c.reqs, r.Err()
}

// TestCaptureKilled kills a capture with SIGKILL mid-run and checks that
// its file still opens with no error, holding a prefix of the requests in
// send order, each one whole (status 200, the served body byte for byte,
// ending in [DONE]), and that a conversion finishes it.
func TestCaptureKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	want, path := genTrace(t, dir, killOpts)
	byPrompt := map[string]*trace.Request{}
	for _, r := range want {
		byPrompt[r.Extra[0].Str] = r
	}
	s := startServe(t, path, serve.Options{Match: true})
	ts := httptest.NewServer(s)
	defer ts.Close()

	out := filepath.Join(dir, "killed.arrows")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+ts.URL, helperEnv+"_OUT="+out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until a few batches are on disk, then kill.
	deadline := time.Now().Add(15 * time.Second)
	for {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the capture wrote nothing readable in 15s; stderr: %s", stderr.String())
		}
		if reqs, err := readAll(out); err == nil && len(reqs) >= 10 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the capture ended by itself (%v) before it was killed: make the trace longer; stderr: %s", err, stderr.String())
	}
	got, err := readAll(out)
	if err != nil {
		t.Fatalf("the killed capture does not read back whole: %v", err)
	}
	if len(got) < 10 || len(got) >= killOpts.Requests {
		t.Fatalf("the killed capture holds %d requests: want at least 10 and fewer than %d", len(got), killOpts.Requests)
	}
	for i, g := range got {
		if g.RequestID != "cap-"+fmt.Sprintf("%06d", i) {
			t.Fatalf("row %d is %s: want the requests in send order, none missing", i, g.RequestID)
		}
		w := byPrompt[g.Extra[0].Str]
		if w == nil {
			t.Fatalf("row %d: prompt %q not in the served trace", i, g.Extra[0].Str)
		}
		var gb, wb []byte
		for _, c := range g.Chunks {
			gb = append(gb, c.Data...)
		}
		for _, c := range w.Chunks {
			wb = append(wb, c.Data...)
		}
		if g.Failed() || g.EndNs == nil || !bytes.Equal(gb, wb) || !bytes.HasSuffix(gb, []byte("data: [DONE]\n\n")) {
			t.Errorf("row %d (%s): not whole: status %v error %v, %d body bytes, want %d", i, g.RequestID, g.HTTPStatus, g.Error, len(gb), len(wb))
		}
	}
	// What audit convert does finishes the file.
	fin := filepath.Join(dir, "finished.arrow")
	r, err := trace.Open(out, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := trace.Create(fin, "", nil, trace.WriteOptions{Meta: r.Info().Meta, Extra: r.Info().Extra})
	if err != nil {
		t.Fatal(err)
	}
	n, err := trace.Copy(w, r)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if back, err := readAll(fin); err != nil || len(back) != len(got) || int(n) != len(got) {
		t.Fatalf("converted: %d requests (%v), want %d", len(back), err, len(got))
	}
	// A file cut inside a record batch (not what kill -9 leaves, but what
	// a full disk can) is salvaged up to its last complete batch.
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.arrows")
	if err := os.WriteFile(cut, raw[:len(raw)-7], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readAll(cut); err == nil {
		t.Fatalf("a stream cut inside a batch reads without an error: the salvage test proves nothing")
	}
	saved := filepath.Join(dir, "saved.arrows")
	n2, dropped, err := capture.Salvage(cut, saved)
	if err != nil {
		t.Fatal(err)
	}
	back, err := readAll(saved)
	if err != nil || int64(len(back)) != n2 || n2 >= int64(len(got)) || n2 < int64(len(got))-2 || dropped <= 7 {
		t.Fatalf("salvaged %d requests (%v), dropped %d bytes: want the %d requests less the last batch of 2", len(back), err, dropped, len(got))
	}
	for i, r := range back {
		if r.RequestID != got[i].RequestID || !bytes.Equal(joined(r), joined(got[i])) {
			t.Errorf("salvaged row %d: %s differs from %s", i, r.RequestID, got[i].RequestID)
		}
	}
	t.Logf("killed after %d of %d requests; all %d on disk whole; a cut inside the last batch salvaged to %d", len(got), killOpts.Requests, len(got), n2)
}

//go:build linux

package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sseHandler answers every request with a short stream.
func sseHandler(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n")
}

// TestIssue20CaptureNoServer: a capture that never reached its server left
// a 1-request file that blocked the retry ("already exists"), with a
// summary of "2102.44 req/s". It leaves nothing, and says so.
func TestIssue20CaptureNoServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens there now
	out := filepath.Join(t.TempDir(), "run.arrows")
	for try := range 2 {
		_, stderr, code := runCLI(t, "", "capture", "--url", "http://"+addr, "--requests", "5", "--progress", "never", "-o", out)
		if code != 1 || !strings.Contains(stderr, "cannot connect") || !strings.Contains(stderr, "nothing captured, "+out+" not kept") {
			t.Fatalf("try %d: exit %d, stderr %q", try, code, stderr)
		}
		if strings.Contains(stderr, "req/s") || strings.Contains(stderr, "already exists") {
			t.Errorf("try %d: stderr %q", try, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("try %d: %s left behind (%v)", try, out, err)
		}
	}
}

// TestIssue21CaptureInterrupted: an interrupted capture exited 0. It exits
// 1, saying how many requests the file holds.
func TestIssue21CaptureInterrupted(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("X-Slow"), "yes") {
			select {
			case arrived <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		sseHandler(w, r)
	}))
	defer ts.Close()
	defer close(release)
	out := filepath.Join(t.TempDir(), "run.arrows")
	child := startChild(t, "capture", "--url", ts.URL, "--requests", "100", "--header", "X-Slow: yes", "--progress", "never", "-o", out)
	select { // the first request is in flight (a loaded machine starts the child slowly)
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("no request reached the server in 30 s")
	}
	code, _ := child.stop(t)
	stderr := child.stderr.String()
	if code != 1 || !strings.Contains(stderr, "capture: interrupted: 1 of 100 requests sent; "+out+" holds the 0 written") {
		t.Fatalf("exit %d, stderr %q: want 1 and the interruption said", code, stderr)
	}
	if reqs, _, err := readTrace(out); err != nil || reqs != 0 {
		t.Errorf("the interrupted capture: %d requests, %v", reqs, err)
	}
}

// readTrace is the request count audit inspect gives path.
func readTrace(path string) (int, string, error) {
	var out, errb strings.Builder
	if code := runEnv(env{stdout: &out, stderr: &errb, stdin: strings.NewReader("")}, []string{"audit", "inspect", path}); code != 0 {
		return 0, out.String(), &exitErr{errb.String()}
	}
	stdout := out.String()
	m := regexp.MustCompile(`(?m)^requests\s+(\d+)$`).FindStringSubmatch(stdout)
	if m == nil {
		return 0, stdout, &exitErr{"no request count in " + stdout}
	}
	n, _ := strconv.Atoi(m[1])
	return n, stdout, nil
}

type exitErr struct{ msg string }

func (e *exitErr) Error() string { return e.msg }

// TestIssue21CaptureFullDisk: on a full disk the summary said "391 written"
// where 384 could be salvaged. It says what is on disk, and salvage keeps
// exactly that. The disk is full at 40 KB (RLIMIT_FSIZE in the child).
func TestIssue21CaptureFullDisk(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(sseHandler))
	defer ts.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "run.arrows")
	child := startChildEnv(t, []string{hostileFileSizeEnv + "=40000"}, "capture", "--url", ts.URL, "--requests", "2000", "--concurrency", "2",
		"--flush-every", "4", "--progress", "never", "-o", out)
	code, _ := child.wait(t)
	stderr := child.stderr.String()
	m := regexp.MustCompile(`\d+ sent, (\d+) written to `).FindStringSubmatch(stderr)
	lost := regexp.MustCompile(`(\d+) more requests were captured but did not reach the disk`).FindStringSubmatch(stderr)
	if code != 1 || m == nil || !strings.Contains(stderr, "file too large") {
		t.Fatalf("exit %d, stderr %q: want 1, the write error and the summary", code, stderr)
	}
	onDisk := m[1]
	if lost == nil {
		t.Errorf("stderr %q: the requests of the failed batch are not said to be lost", stderr)
	}
	// The file is readable as it is or after salvage: either way it holds
	// what the summary said.
	n, _, err := readTrace(out)
	if err != nil {
		if !strings.Contains(stderr, "ends inside a record batch: audit capture --salvage") {
			t.Errorf("the file does not read (%v) and the summary does not say to salvage it", err)
		}
		saved := filepath.Join(dir, "saved.arrows")
		if _, serr, code := runCLI(t, "", "capture", "--salvage", out, "-o", saved); code != 0 {
			t.Fatalf("salvage: %s", serr)
		}
		n, _, err = readTrace(saved)
	}
	if err != nil || strconv.Itoa(n) != onDisk {
		t.Errorf("%d requests readable (%v); the summary said %s on disk", n, err, onDisk)
	}
	t.Logf("%s written, %s captured but not written, %d readable", onDisk, lost[1], n)
}

// TestIssue21CaptureEndlessBody: a 1 GB body without a newline made the
// capture run out of memory and left a 0-byte file. The body is cut at
// --max-body-bytes, the memory stays bounded and the file reads.
func TestIssue21CaptureEndlessBody(t *testing.T) {
	if testing.Short() {
		t.Skip("sends a gigabyte over loopback")
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		block := []byte(strings.Repeat("x", 1<<20))
		for range 1024 {
			if _, err := w.Write(block); err != nil {
				return
			}
		}
	}))
	defer ts.Close()
	out := filepath.Join(t.TempDir(), "run.arrows")
	child := startChild(t, "capture", "--url", ts.URL, "--requests", "1", "--progress", "never", "-o", out)
	code, peakMB := child.wait(t)
	stderr := child.stderr.String()
	t.Logf("peak resident memory %d MB; stderr %q", peakMB, stderr)
	if code != 0 || !strings.Contains(stderr, "limit --max-body-bytes") {
		t.Errorf("exit %d: want 0 and the cut said", code)
	}
	if peakMB > 400 {
		t.Errorf("peak resident memory %d MB, want at most 400 MB", peakMB)
	}
	if n, _, err := readTrace(out); err != nil || n != 1 {
		t.Errorf("the capture: %d requests, %v", n, err)
	}
}

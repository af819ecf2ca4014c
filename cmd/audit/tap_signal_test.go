//go:build linux

package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/tap"
)

// BUG 7: exchanges the tap itself cuts (a second SIGINT) are recorded as
// client_canceled, though every client was still reading.
func TestTapSecondSignalNotClientCanceled(t *testing.T) {
	up := httptest.NewServer(hangingUpstream())
	defer up.Close()
	addr, out := freePort(t), filepath.Join(t.TempDir(), "run.arrows")
	child := startChild(t, "tap", "--upstream", up.URL, "--listen", addr, "-o", out)
	waitListening(t, addr, child)
	const n = 4
	for range n {
		resp, err := http.Post("http://"+addr+"/hang", "application/json", strings.NewReader(`{"stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(resp.Body, make([]byte, 10)); err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close() // the clients stay until the tap cuts them
	}
	child.cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(300 * time.Millisecond)
	child.cmd.Process.Signal(syscall.SIGINT)
	if code, _ := child.wait(t); code != 0 {
		t.Fatalf("exit %d: %s", code, child.stderr.String())
	}
	reqs := readTapTrace(t, out)
	if len(reqs) != n {
		t.Fatalf("%d recorded, want %d", len(reqs), n)
	}
	for _, q := range reqs {
		if q.Error == nil || strings.HasPrefix(*q.Error, tap.ClientCanceled) {
			t.Errorf("%s, cut by the tap's second signal, recorded with error %q", q.RequestID, errText(q.Error))
		}
	}
}

func errText(e *string) string {
	if e == nil {
		return "<none>"
	}
	return *e
}

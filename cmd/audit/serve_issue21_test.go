//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// childProcess is `audit args...` running in a child process as
// TestHostile runs its cases (an address-space limit, its peak resident
// memory written at the end), for commands that run until stopped.
type childProcess struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	rssFile        string
}

func startChild(t *testing.T, args ...string) *childProcess {
	t.Helper()
	return startChildEnv(t, nil, args...)
}

// startChildEnv is startChild with more environment variables.
func startChildEnv(t *testing.T, env []string, args ...string) *childProcess {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	c := &childProcess{rssFile: filepath.Join(t.TempDir(), "rss")}
	c.cmd = exec.Command(os.Args[0], "-test.run=^TestHostileChild$")
	c.cmd.Env = append(append(os.Environ(), hostileArgsEnv+"="+string(raw), hostileRSSEnv+"="+c.rssFile), env...)
	c.cmd.Dir = filepath.Join("cmd", "audit")
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.cmd.Process.Kill() })
	return c
}

// stop sends SIGINT and returns the exit code and the peak memory in MB.
func (c *childProcess) stop(t *testing.T) (int, int64) {
	t.Helper()
	c.cmd.Process.Signal(syscall.SIGINT)
	return c.wait(t)
}

// wait waits for the child to end and returns the exit code and the peak
// memory in MB.
func (c *childProcess) wait(t *testing.T) (int, int64) {
	t.Helper()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the child did not stop: %s", c.stderr.String())
	}
	raw, err := os.ReadFile(c.rssFile)
	if err != nil {
		t.Fatalf("no peak memory (exit %d): %s", c.cmd.ProcessState.ExitCode(), c.stderr.String())
	}
	kb, _ := strconv.ParseInt(string(raw), 10, 64)
	return c.cmd.ProcessState.ExitCode(), kb >> 10
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitListening(t *testing.T, addr string, c *childProcess) {
	t.Helper()
	for range 200 {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the server never listened on %s: %s", addr, c.stderr.String())
}

// TestIssue21ServeBodyMemory: a 60 MB request body killed audit serve (out
// of memory): each connection held its body, as many as connect. Without
// --match bodies are now read and dropped; with it they are held within
// --max-body-memory, all clients together (a body beyond it gets 503).
func TestIssue21ServeBodyMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends a gigabyte over loopback")
	}
	trace := filepath.Join(t.TempDir(), "gen.jsonl")
	if _, stderr, code := runCLI(t, "", "gen", "--requests", "64", "--output-tokens", "2", "--input-tokens", "2", "--ttft", "1ms", "--itl", "1ms", "-o", trace); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		bodyMB int
		maxMB  int64
	}{
		{"drop", nil, 60, 150},
		{"match", []string{"--match", "--max-body-memory", "134217728"}, 20, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := freePort(t)
			child := startChild(t, append(append([]string{"serve", "--listen", addr}, tc.args...), trace)...)
			waitListening(t, addr, child)
			body := []byte(`{"messages":[{"role":"user","content":"` + strings.Repeat("x", tc.bodyMB<<20) + `"}]}`)
			var wg sync.WaitGroup
			var mu sync.Mutex
			codes := map[int]int{}
			for range 16 {
				wg.Go(func() {
					resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", bytes.NewReader(body))
					code := -1
					if err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						code = resp.StatusCode
					}
					mu.Lock()
					codes[code]++
					mu.Unlock()
				})
			}
			wg.Wait()
			code, peakMB := child.stop(t)
			t.Logf("%d bodies of %d MB: answers %v; peak resident memory %d MB", 16, tc.bodyMB, codes, peakMB)
			if code != 0 {
				t.Errorf("exit %d: %s", code, child.stderr.String())
			}
			if codes[-1] > 0 {
				t.Errorf("%d requests failed: %s", codes[-1], child.stderr.String())
			}
			if peakMB > tc.maxMB {
				t.Errorf("peak resident memory %d MB, want at most %d MB", peakMB, tc.maxMB)
			}
			fmt.Fprint(io.Discard, child.stdout.String())
		})
	}
}

package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestGenServeCaptureCLI runs the three commands as a user would: gen a
// trace, serve it on a free loopback port with --match --once, capture it,
// and inspect both: the same requests, failures and body bytes.
func TestGenServeCaptureCLI(t *testing.T) {
	dir := t.TempDir()
	gen := filepath.Join(dir, "gen.arrows")
	if _, stderr, code := runCLI(t, "", "gen", "--profile", "mixed", "--requests", "12", "--concurrency", "3", "--seed", "2",
		"--output-tokens", "6", "--input-tokens", "4", "--ttft", "10ms", "--itl", "12ms", "--min-gap", "10ms", "-o", gen); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	// serve writes its address on stderr; read it from a pipe.
	pr, pw := io.Pipe()
	served := make(chan int, 1)
	var out strings.Builder
	go func() {
		code := runEnv(env{stdout: &out, stderr: pw, stdin: strings.NewReader("")},
			[]string{"audit", "serve", "--listen", "127.0.0.1:0", "--match", "--once", gen})
		pw.Close()
		served <- code
	}()
	br := bufio.NewReader(pr)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("serve: %v (%q)", err, line)
	}
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(line)
	if addr == "" {
		t.Fatalf("serve printed %q: want its address", line)
	}
	rest := make(chan string, 1)
	go func() { b, _ := io.ReadAll(br); rest <- string(b) }()

	// The prompts gen wrote, in order, for capture to send.
	prompts := filepath.Join(dir, "prompts.jsonl")
	if _, stderr, code := runCLI(t, "", "convert", gen, "-o", filepath.Join(dir, "gen.jsonl")); code != 0 {
		t.Fatal(stderr)
	}
	writePrompts(t, filepath.Join(dir, "gen.jsonl"), prompts)

	capt := filepath.Join(dir, "cap.arrows")
	_, stderr, code := runCLI(t, "", "capture", "--url", addr, "--requests", "12", "--concurrency", "3", "--prompts", prompts, "-o", capt)
	if code != 0 {
		t.Fatalf("capture: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "12 sent, 12 written") {
		t.Errorf("capture summary: %s", stderr)
	}
	select {
	case code := <-served:
		if code != 0 {
			t.Errorf("serve --once: exit %d: %s", code, <-rest)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve --once did not exit after every stream was served")
	}
	if s := <-rest; !strings.Contains(s, "served 12 streams") {
		t.Errorf("serve: %s", s)
	}
	field := func(path, name string) string {
		stdout, stderr, code := runCLI(t, "", "inspect", path)
		if code != 0 {
			t.Fatalf("inspect %s: %s", path, stderr)
		}
		m := regexp.MustCompile(`(?m)^` + name + `\s+(.*)$`).FindStringSubmatch(stdout)
		if m == nil {
			t.Fatalf("inspect %s: no %s in\n%s", path, name, stdout)
		}
		return m[1]
	}
	// Read boundaries (the chunk count) depend on the machine keeping time:
	// capture/loopback_test.go checks them; here the counts and bytes.
	for _, f := range []string{"requests", "failed requests", "body bytes"} {
		if g, w := field(capt, f), field(gen, f); g != w {
			t.Errorf("%s: captured %q, generated %q", f, g, w)
		}
	}
}

// writePrompts writes the prompt column of a JSONL trace as a prompts file.
func writePrompts(t *testing.T, trace, out string) {
	t.Helper()
	stdout, stderr, code := runCLI(t, "", "convert", trace, "-o", "-")
	if code != 0 {
		t.Fatal(stderr)
	}
	var b strings.Builder
	re := regexp.MustCompile(`"prompt": ("(?:[^"\\]|\\.)*")`)
	for _, l := range strings.Split(stdout, "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			b.WriteString("{\"prompt\": " + m[1] + "}\n")
		}
	}
	if err := writeFile(out, b.String()); err != nil {
		t.Fatal(err)
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

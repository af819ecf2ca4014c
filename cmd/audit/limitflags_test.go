package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The limits a reader refuses past are flags: the error names the flag,
// and the flag raises the limit (issue 21).
func TestLimitFlagsRaiseTheLimits(t *testing.T) {
	dir := t.TempDir()
	longID := strings.Repeat("x", 5000)
	ids := filepath.Join(dir, "long-id.jsonl")
	line := `{"request_id": %q, "t0_ns": 0, "end_ns": 10, "http_status": 200, "chunks": [{"t_ns": 5, "data": "data: [DONE]\n\n"}]%s}` + "\n"
	if err := os.WriteFile(ids, fmt.Appendf(nil, line, longID, ""), 0o644); err != nil {
		t.Fatal(err)
	}
	var extra strings.Builder
	for i := range 1100 {
		fmt.Fprintf(&extra, `, "k%d": %d`, i, i)
	}
	cols := filepath.Join(dir, "many-columns.jsonl")
	if err := os.WriteFile(cols, fmt.Appendf(nil, line, "r0", extra.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, flag, raised string }{
		{ids, "--max-id-bytes", "8192"},
		{cols, "--max-extra-columns", "2048"},
	} {
		_, stderr, code := runCLI(t, "", "inspect", c.path)
		if code != 1 || !strings.Contains(stderr, "limit "+c.flag) {
			t.Errorf("inspect %s: exit %d, stderr %q; want the limit named", filepath.Base(c.path), code, stderr)
		}
		if _, stderr, code := runCLI(t, "", "inspect", c.flag, c.raised, c.path); code != 0 {
			t.Errorf("inspect %s %s: exit %d, %s", c.flag, c.raised, code, stderr)
		}
	}
}

package capture_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/trace"
)

// TestIssue21EmptyCapture: a capture killed before its first batch left a
// 0-byte file that neither inspect nor --salvage took. The file appears
// holding its schema: a valid trace of no request, salvaged as such.
func TestIssue21EmptyCapture(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cap.arrows")
	if _, err := capture.CreateFile(out, trace.WriteOptions{Extra: capture.Extra()}, 2); err != nil {
		t.Fatal(err)
	}
	// Not closed: what kill -9 leaves.
	reqs, err := readAll(out)
	if err != nil || len(reqs) != 0 {
		t.Fatalf("a capture with no request: %d requests, %v: want a valid empty trace", len(reqs), err)
	}
	n, _, err := capture.Salvage(out, filepath.Join(dir, "saved.arrows"))
	if err != nil || n != 0 {
		t.Fatalf("salvage: %d requests, %v", n, err)
	}
	if _, err := capture.CreateFile(out, trace.WriteOptions{}, 2); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("CreateFile over it: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*tmp*")); len(m) != 0 {
		t.Errorf("left behind: %v", m)
	}
}

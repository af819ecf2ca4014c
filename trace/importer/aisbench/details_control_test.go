package aisbench

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestDetailsControlByteBeforeEscape: fastjson's validator checks a string
// for raw control bytes only after its last escape; these lines, which
// encoding/json (and Python's json.loads) reject, are refused too.
func TestDetailsControlByteBeforeEscape(t *testing.T) {
	for _, s := range []string{
		"{\"\x10\\b\":null}",
		"{\"id\": \"a\tb\\n\", \"success\": true}",
		"{\"prompt\": \"line1\x01\\nline2\", \"success\": true, \"db_name\": \"x.db\"}",
		"{\"error_info\": \"\x1f\\\"\", \"success\": false}",
	} {
		var m map[string]json.RawMessage
		wantErr := json.Unmarshal([]byte(s), &m)
		_, gotErr := decodeDetails([]byte(s))
		if (gotErr != nil) != (wantErr != nil) {
			t.Errorf("%q: decodeDetails error %v, encoding/json's %v", s, gotErr, wantErr)
		}
	}
}

// TestLoadControlByteBeforeEscape: a details line with a raw tab before an
// escape in its prompt is "not a JSON record", as it is for Python's
// json.loads (the fast path accepted it once).
func TestLoadControlByteBeforeEscape(t *testing.T) {
	wd := copyDir(t, filepath.Join(workdirs, "basic"))
	details := filepath.Join(wd, "performances", "model", "ds_details.jsonl")
	editLine(t, details, 3, func(s string) string { return strings.Replace(s, `"input": ""`, "\"input\": \"a\tb\\n\"", 1) })
	if _, err := Load(wd, Options{}); err == nil || !strings.Contains(err.Error(), "not a JSON record") {
		t.Errorf("Load: %v, want line 3 \"not a JSON record\"", err)
	}
}

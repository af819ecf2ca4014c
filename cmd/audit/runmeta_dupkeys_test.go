package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunMetaDuplicateKeys: a --run-meta file giving a key twice
// ({"sseaudit.max_concurrency": "2", "sseaudit.max_concurrency": "7"}, or
// the same inside inspect's "metadata" object) took the last value without a
// word: the report's stable stage then used C = 7. The JSONL run line refuses
// a repeated key ("a repeated key is an error, not a silent choice"); the
// sidecar, which exists to give a trace back its max concurrency, must too.
func TestRunMetaDuplicateKeys(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"top level": `{"sseaudit.max_concurrency": "2", "sseaudit.max_concurrency": "7"}`,
		"metadata":  `{"metadata": {"sseaudit.max_concurrency": "2", "sseaudit.source": "x", "sseaudit.max_concurrency": 7}}`,
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		meta, err := readRunMeta(path)
		if err == nil {
			v, _ := meta.Get("sseaudit.max_concurrency")
			t.Errorf("%s: read sseaudit.max_concurrency = %q from a file giving it twice: want an error naming the key", name, v)
			continue
		}
		if !strings.Contains(err.Error(), "sseaudit.max_concurrency") {
			t.Errorf("%s: error %q does not name the key", name, err)
		}
	}
}

// TestRunMetaNullValue: a null value is refused naming the sidecar and the
// key; it was read as "", and the error then blamed the trace's metadata.
func TestRunMetaNullValue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meta.json")
	if err := os.WriteFile(path, []byte(`{"sseaudit.max_concurrency": null, "sseaudit.source": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	meta, err := readRunMeta(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "sseaudit.max_concurrency") {
		t.Errorf("meta %v, error %v: want an error naming %s and the key", meta, err, path)
	}
}

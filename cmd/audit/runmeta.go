package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace"
)

// runMetaFlag gives a trace the run's metadata its file lost: a copy
// through DuckDB, pandas or Spark drops Parquet's key/value metadata.
func runMetaFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "run-meta", Usage: "the run's metadata from this JSON file, for a trace that lost its own " +
		"(a copy through DuckDB or pandas): {\"sseaudit.max_concurrency\": \"16\", ...}, or what 'audit inspect --format json' printed of the original"}
}

// maxRunMetaBytes bounds the sidecar: metadata, not data.
const maxRunMetaBytes = 1 << 20

// readRunMeta reads a --run-meta file: a JSON object of sseaudit.* keys to
// string (or number) values, or 'audit inspect --format json' output,
// whose "metadata" object is taken. The keys are the run's (trace.IsRunKey)
// and sseaudit.schema_version, which addRunMeta checks against the file's;
// any other, a misspelt one above all, is refused, not carried unread.
func readRunMeta(path string) (trace.Meta, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--run-meta: %w", err)
	}
	defer f.Close()
	raw, err := readAtMost(f, maxRunMetaBytes)
	if err != nil {
		return nil, fmt.Errorf("--run-meta %s: %w", path, err)
	}
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("--run-meta %s: want a JSON object of sseaudit.* keys: %v", path, err)
	}
	if err := uniqueKeys(raw); err != nil {
		return nil, fmt.Errorf("--run-meta %s: %v", path, err)
	}
	if m, ok := top["metadata"]; ok {
		if err := uniqueKeys(m); err != nil {
			return nil, fmt.Errorf("--run-meta %s: \"metadata\": %v", path, err)
		}
		top = nil
		if err := json.Unmarshal(m, &top); err != nil {
			return nil, fmt.Errorf("--run-meta %s: \"metadata\": want an object: %v", path, err)
		}
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var meta trace.Meta
	for _, k := range keys {
		if !strings.HasPrefix(k, trace.MetaPrefix) {
			return nil, fmt.Errorf("--run-meta %s: key %q: want sseaudit.* keys only (the trace's run metadata)", path, k)
		}
		if k != trace.KeySchemaVersion && !trace.IsRunKey(k) {
			return nil, fmt.Errorf("--run-meta %s: key %q: %s: want %s or %s* (free-form)", path, k, notRunKey(k),
				strings.Join(trace.RunKeys(), ", "), trace.KeyRunPrefix)
		}
		var s string
		if string(bytes.TrimSpace(top[k])) == "null" { // Unmarshal would leave "" without a word
			return nil, fmt.Errorf("--run-meta %s: key %q: want a string or a number, got null", path, k)
		}
		if err := json.Unmarshal(top[k], &s); err != nil {
			var n json.Number
			if err := json.Unmarshal(top[k], &n); err != nil {
				return nil, fmt.Errorf("--run-meta %s: key %q: want a string or a number, got %s", path, k, top[k])
			}
			s = n.String()
		}
		meta.Set(k, s)
	}
	if len(meta) == 0 {
		return nil, fmt.Errorf("--run-meta %s: no sseaudit.* key", path)
	}
	return meta, nil
}

// notRunKey says why key, an sseaudit.* key, is not the run's metadata.
func notRunKey(key string) string {
	if strings.HasPrefix(key, trace.KeyExtraKindPrefix) {
		return "it says how the file stores an extra column, not how the run went: a sidecar cannot give it"
	}
	return "not a key of a trace's run metadata (misspelt?)"
}

// uniqueKeys refuses a JSON object that gives a key twice (encoding/json
// keeps the last value without a word). Other errors are Decode's to report.
func uniqueKeys(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		k, _ := tok.(string)
		if seen[k] {
			return fmt.Errorf("the key %q appears twice: want each key once", k)
		}
		seen[k] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
	}
	return nil
}

// readAtMost reads f whole, refusing one larger than limit bytes.
func readAtMost(f *os.File, limit int64) ([]byte, error) {
	var b bytes.Buffer
	n, err := b.ReadFrom(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("larger than %d bytes: not a metadata file", limit)
	}
	return b.Bytes(), nil
}

// withRunMeta is a trace whose metadata is its own and the sidecar's.
type withRunMeta struct {
	trace.Reader
	added trace.Meta // the sidecar's keys the file lacks
	note  string
}

// Info is the file's, read anew (a reader's notes grow as it reads), with
// the added keys.
func (r *withRunMeta) Info() trace.Info {
	info := r.Reader.Info()
	info.Meta = append(slices.Clone(info.Meta), r.added...)
	info.Notes = append(slices.Clone(info.Notes), r.note)
	return info
}

// addRunMeta gives r the metadata of the --run-meta file, if one is
// named. A key the file holds with another value is an error: the file's
// own metadata is never overridden. sseaudit.schema_version is never
// added: it must equal the file's own, or the version a file without one
// is read as.
func addRunMeta(cmd *cli.Command, r trace.Reader) (trace.Reader, error) {
	path := cmd.String("run-meta")
	if path == "" {
		return r, nil
	}
	extra, err := readRunMeta(path)
	if err != nil {
		return nil, err
	}
	info := r.Info()
	w := &withRunMeta{Reader: r}
	var names []string
	for _, kv := range extra {
		if kv.Key == trace.KeySchemaVersion {
			// How the file was written, not how the run went: the
			// original's inspect JSON holds it, so it is checked against
			// the version the file is read as, and never added.
			if own, ok := info.Meta.Get(kv.Key); !ok && kv.Value != trace.SchemaVersion {
				return nil, fmt.Errorf("--run-meta %s: %s is %q, but %s has none and is read as version %q: the schema version says how the file was written, and a sidecar cannot give it",
					path, kv.Key, kv.Value, info.Path, trace.SchemaVersion)
			} else if ok && own != kv.Value {
				return nil, fmt.Errorf("--run-meta %s: %s is %q, but %s holds %q: the file's own metadata is not overridden", path, kv.Key, kv.Value, info.Path, own)
			}
			continue
		}
		if own, ok := info.Meta.Get(kv.Key); ok {
			if own != kv.Value {
				return nil, fmt.Errorf("--run-meta %s: %s is %q, but %s holds %q: the file's own metadata is not overridden", path, kv.Key, kv.Value, info.Path, own)
			}
			continue
		}
		w.added = append(w.added, kv)
		names = append(names, kv.Key)
	}
	if len(names) == 0 {
		w.note = fmt.Sprintf("--run-meta %s: the file holds every key already", path)
	} else {
		w.note = fmt.Sprintf("metadata from --run-meta %s: %s", path, strings.Join(names, ", "))
	}
	return w, nil
}

// lostRunMeta is inspect's note for a trace with no run metadata: no
// sseaudit.* key beyond the schema version (which every writer of ours
// sets).
func lostRunMeta(m trace.Meta) string {
	for _, kv := range m {
		if strings.HasPrefix(kv.Key, trace.MetaPrefix) && kv.Key != trace.KeySchemaVersion {
			return ""
		}
	}
	return "no sseaudit.* metadata: the run's max concurrency, API, source and clocks are unknown. A copy through DuckDB, pandas or Spark drops it; " +
		"give it back with --run-meta FILE ('audit inspect --format json' of the original writes one) or flags (--max-concurrency C); it is never guessed"
}

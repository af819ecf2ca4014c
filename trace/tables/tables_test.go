package tables_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/record/partial"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	_ "github.com/sseaudit/sseaudit/trace/parquetfile"
	"github.com/sseaudit/sseaudit/trace/tables"
	"github.com/sseaudit/sseaudit/tracegen"
)

// replayedRequest is one request replayed as audit replay --format parquet
// replays it: the trace's t0, the aisbench framer's result and the record.
type replayedRequest struct {
	t0Ns   int64
	result *replay.Result
	record record.Request
}

// replayed replays every request of the trace at path as audit report does.
func replayed(t testing.TB, path string) []replayedRequest {
	t.Helper()
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []replayedRequest
	for r.Scan() {
		req := r.Request()
		res, err := replay.Replay(req, replay.Options{Framer: replay.AISBench})
		if err != nil {
			t.Fatal(err)
		}
		sres, err := replay.Replay(req, replay.Options{Framer: replay.SSE})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, replayedRequest{t0Ns: req.T0Ns, result: res, record: record.FromReplays(req, res, sres)})
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// generated writes a trace of every profile's streams (failures, reasoning,
// comments, breakers) and returns its path.
func generated(t testing.TB, requests int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mixed.parquet")
	o := tracegen.Options{Profile: "mixed", Requests: requests, Concurrency: 4, Seed: 5, OutputTokens: 12}
	meta, err := tracegen.Meta(o)
	if err != nil {
		t.Fatal(err)
	}
	w, err := trace.Create(path, "", nil, trace.WriteOptions{Meta: meta, Extra: tracegen.Extra()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tracegen.Generate(o, w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

var testMeta = tables.Meta{Framer: tables.FramerAISBench, MaxConcurrency: 4, SourceTrace: "mixed.parquet", Writer: "sseaudit test"}

// writeTables writes rs into a new directory with small row groups, so that
// reading crosses row group boundaries.
func writeTables(t testing.TB, rs []replayedRequest, meta tables.Meta) string {
	t.Helper()
	dir := t.TempDir()
	w, err := tables.CreateWithRowGroups(dir, meta, 7, 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if err := w.Write(partial.Rows(nil, r.t0Ns, r.result, r.record)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readRecords(dir string) ([]record.Request, tables.Meta, error) {
	r, err := tables.Open(dir)
	if err != nil {
		return nil, tables.Meta{}, err
	}
	defer r.Close()
	var recs []record.Request
	for r.Scan() {
		recs = append(recs, partial.Record(r.Request(), r.Events()))
	}
	return recs, r.Meta(), r.Err()
}

// TestRoundTrip: the records read back are the records written, float bits
// and all, with the metadata.
func TestRoundTrip(t *testing.T) {
	for _, path := range []string{"../../testdata/traces/basic.parquet", generated(t, 120)} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			rs := replayed(t, path)
			dir := writeTables(t, rs, testMeta)
			got, meta, err := readRecords(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(rs) {
				t.Fatalf("read %d records: want %d", len(got), len(rs))
			}
			withEvents, withSpec := 0, 0
			for i, r := range rs {
				if !reflect.DeepEqual(got[i], r.record) {
					t.Fatalf("record %d:\n got %+v\nwant %+v", i, got[i], r.record)
				}
				for j, tp := range r.record.TimePoints {
					if math.Float64bits(got[i].TimePoints[j]) != math.Float64bits(tp) {
						t.Fatalf("record %d time point %d: bits differ", i, j)
					}
				}
				if r.record.Events != nil {
					withEvents++
				}
				if r.record.Spec != nil {
					withSpec++
				}
			}
			if withEvents == 0 || withSpec == 0 {
				t.Errorf("%d records with events, %d with a spec view: want both kinds tested", withEvents, withSpec)
			}
			want := testMeta
			want.Requests = int64(len(rs))
			for _, r := range rs {
				want.Events += int64(len(r.result.Events))
			}
			if meta != want {
				t.Errorf("meta %+v: want %+v", meta, want)
			}
		})
	}
}

// TestAtomic: only the two tables are left in the directory, and Abort
// leaves the tables already there untouched.
func TestAtomic(t *testing.T) {
	rs := replayed(t, "../../testdata/traces/basic.parquet")
	dir := writeTables(t, rs, testMeta)
	before, _ := os.ReadFile(filepath.Join(dir, tables.RequestsFile))
	w, err := tables.Create(dir, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(partial.Rows(nil, rs[0].t0Ns, rs[0].result, rs[0].record)); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{tables.EventsFile, tables.RequestsFile}) {
		t.Errorf("directory holds %v: want only the two tables", names)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, tables.RequestsFile)); !bytes.Equal(before, after) {
		t.Error("Abort changed the tables already in place")
	}
}

// TestDeterministic: the same replay gives the same bytes.
func TestDeterministic(t *testing.T) {
	rs := replayed(t, generated(t, 60))
	a, b := writeTables(t, rs, testMeta), writeTables(t, rs, testMeta)
	for _, name := range []string{tables.RequestsFile, tables.EventsFile} {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s: two writes of the same replay differ (%d and %d bytes)", name, len(x), len(y))
		}
	}
}

// rewrite writes dir's table name again with edit applied to its rows and
// metadata, as a damaged or foreign writer would.
func rewrite[T any](t *testing.T, dir, name string, editRows func([]T) []T, editMeta func(map[string]string)) {
	t.Helper()
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	kv := map[string]string{}
	for _, e := range pf.Metadata().KeyValueMetadata {
		kv[e.Key] = e.Value
	}
	rows, err := parquet.Read[T](bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if editRows != nil {
		rows = editRows(rows)
	}
	if editMeta != nil {
		editMeta(kv)
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf)
	for k, v := range kv {
		w.SetKeyValueMetadata(k, v)
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBadTables: each damage is a *trace.Error naming the file, the row
// when there is one, and what was expected.
func TestBadTables(t *testing.T) {
	rs := replayed(t, "../../testdata/traces/basic.parquet")
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   string
	}{
		{"missing events", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, tables.EventsFile)) },
			"events.parquet: cannot open the table"},
		{"truncated requests", func(t *testing.T, dir string) {
			p := filepath.Join(dir, tables.RequestsFile)
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)-100], 0o644)
		}, "requests.parquet: ends with \"\\x00\\x00\\x1c\\x00\": want the Parquet magic bytes \"PAR1\" at the end (truncated file?)"},
		{"not parquet", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, tables.EventsFile), []byte("request_id,seq\nr0,0\n"), 0o644)
		}, "events.parquet: starts with \"requ\""},
		{"unknown version", func(t *testing.T, dir string) {
			rewrite[tables.RequestRow](t, dir, tables.RequestsFile, nil, func(kv map[string]string) { kv[tables.KeySchemaVersion] = "2" })
		}, `requests.parquet: sseaudit.tables.schema_version is "2": this reader reads version "1"`},
		{"no version", func(t *testing.T, dir string) {
			rewrite[tables.RequestRow](t, dir, tables.RequestsFile, nil, func(kv map[string]string) { delete(kv, tables.KeySchemaVersion) })
		}, "requests.parquet: no sseaudit.tables.schema_version in the file's metadata"},
		{"swapped files", func(t *testing.T, dir string) {
			a, b := filepath.Join(dir, tables.RequestsFile), filepath.Join(dir, tables.EventsFile)
			os.Rename(a, a+".x")
			os.Rename(b, a)
			os.Rename(a+".x", b)
		}, `requests.parquet: sseaudit.tables.table is "events": want "requests"`},
		{"other replay's events", func(t *testing.T, dir string) {
			rewrite[tables.EventRow](t, dir, tables.EventsFile, nil, func(kv map[string]string) { kv[tables.KeyFramer] = "sse" })
		}, "events.parquet: metadata"},
		{"foreign schema", func(t *testing.T, dir string) {
			type short struct {
				RequestID string `parquet:"request_id"`
			}
			rows := []short{{"r0"}}
			var buf bytes.Buffer
			w := parquet.NewGenericWriter[short](&buf)
			for _, kv := range testMeta.KeyValues("requests") {
				w.SetKeyValueMetadata(kv[0], kv[1])
			}
			w.Write(rows)
			w.Close()
			os.WriteFile(filepath.Join(dir, tables.RequestsFile), buf.Bytes(), 0o644)
		}, "requests.parquet: no column seq"},
		{"event of another request", func(t *testing.T, dir string) {
			rewrite(t, dir, tables.EventsFile, func(rows []tables.EventRow) []tables.EventRow { rows[3].RequestID = "elsewhere"; return rows }, nil)
		}, `events.parquet: row 3, request "elsewhere", column request_seq: request_seq 0, request_id "elsewhere", seq 3: want request_seq 0, request_id "req-00", seq 3`},
		{"event missing", func(t *testing.T, dir string) {
			oneLess := func(kv map[string]string) { kv[tables.KeyEvents] = "106" }
			rewrite(t, dir, tables.EventsFile, func(rows []tables.EventRow) []tables.EventRow { return append(rows[:2], rows[3:]...) }, oneLess)
			rewrite[tables.RequestRow](t, dir, tables.RequestsFile, nil, oneLess)
		}, "seq 3: want request_seq 0, request_id \"req-00\", seq 2"},
		{"unknown class", func(t *testing.T, dir string) {
			rewrite(t, dir, tables.EventsFile, func(rows []tables.EventRow) []tables.EventRow { rows[0].Class = "delta"; return rows }, nil)
		}, `events.parquet: row 0, request "req-00", column class: class "delta"`},
		{"wrong seq", func(t *testing.T, dir string) {
			rewrite(t, dir, tables.RequestsFile, func(rows []tables.RequestRow) []tables.RequestRow { rows[1], rows[2] = rows[2], rows[1]; return rows }, nil)
		}, "requests.parquet: row 1, request \"req-02\", column seq: seq 2: want 1"},
		{"time point differs", func(t *testing.T, dir string) {
			rewrite(t, dir, tables.EventsFile, func(rows []tables.EventRow) []tables.EventRow {
				for i := range rows {
					if rows[i].TimeS != nil {
						*rows[i].TimeS = math.Nextafter(*rows[i].TimeS, 0)
						break
					}
				}
				return rows
			}, nil)
		}, "column time_s: time_s"},
		{"class count differs", func(t *testing.T, dir string) {
			rewrite(t, dir, tables.RequestsFile, func(rows []tables.RequestRow) []tables.RequestRow { rows[0].EventsContent++; return rows }, nil)
		}, "requests.parquet: row 0, request \"req-00\", column events_content"},
		{"half a spec view", func(t *testing.T, dir string) {
			rewrite(t, dir, tables.RequestsFile, func(rows []tables.RequestRow) []tables.RequestRow { rows[0].FieldLines = nil; return rows }, nil)
		}, "some spec_* columns are null and some are not"},
		{"row count differs from metadata", func(t *testing.T, dir string) {
			rewrite(t, dir, tables.RequestsFile, func(rows []tables.RequestRow) []tables.RequestRow { return rows[:5] }, nil)
		}, "requests.parquet: 5 rows: the metadata's sseaudit.tables.requests says 10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTables(t, rs, tables.Meta{Framer: tables.FramerAISBench, MaxConcurrency: 2, SourceTrace: "basic.parquet", Writer: "test"})
			tc.damage(t, dir)
			_, _, err := readRecords(dir)
			if err == nil {
				t.Fatal("read the damaged tables without an error")
			}
			var te *trace.Error
			if !errors.As(err, &te) {
				t.Errorf("error %T: want a *trace.Error", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q: want it to contain %q", err, tc.want)
			}
		})
	}
}

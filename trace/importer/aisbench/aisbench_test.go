package aisbench

import (
	"bytes"
	"database/sql"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio"
)

// The work_dirs in ../../../testdata/aisbench were written by AISBench's own
// code (make.py there); the byte-for-byte results are tested in cmd/audit.
var workdirs = filepath.Join("..", "..", "..", "testdata", "aisbench")

func TestLoadWorkdirs(t *testing.T) {
	cases := []struct {
		name             string
		records, failed  int
		fromTmp          bool
		maxConcurrency   int
		note             string // a note that must be there
		csv, failedFile  bool
		firstID, firstDB string
	}{
		{name: "basic", records: 12, maxConcurrency: 2, csv: true, firstID: "ds/0"},
		{name: "failures", records: 40, failed: 6, maxConcurrency: 4, csv: true, failedFile: true, firstID: "ds/0"},
		{name: "no-stable", records: 8, maxConcurrency: 4, csv: true, firstID: "ds/0"},
		{name: "from-trace", records: 10, failed: 1, maxConcurrency: 2, csv: true, firstID: "ds/0"},
		{name: "cut-short", records: 14, failed: 3, fromTmp: true, note: "3 successful records whose time points never reached the database", firstID: "ds/0"},
		{name: "killed", records: 14, failed: 3, fromTmp: true, note: "tmp_0123abcd.db has a pending -journal (the run was killed mid-transaction): read from a copy that SQLite rolled back", firstID: "ds/0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Both the work_dir and its performances/<model> folder.
			for _, dir := range []string{filepath.Join(workdirs, c.name), filepath.Join(workdirs, c.name, "performances", "model")} {
				run, err := Load(dir, Options{})
				if err != nil {
					t.Fatal(err)
				}
				seq, err := loadSequential(dir, Options{})
				if err == nil {
					seq.prefetchedDBs = run.prefetchedDBs
				}
				if err != nil || !reflect.DeepEqual(seq, run) {
					t.Errorf("the database read while the details are read and after them differ (%v)", err)
				}
				oneProc, err := func() (*Run, error) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
					return Load(dir, Options{})
				}()
				if err == nil {
					oneProc.prefetchedDBs = run.prefetchedDBs
				}
				if err != nil || !reflect.DeepEqual(oneProc, run) {
					t.Errorf("the details parsed in parallel and one line at a time differ (%v)", err)
				}
				if len(run.Records) != c.records {
					t.Errorf("%d records, want %d", len(run.Records), c.records)
				}
				failed := 0
				for i := range run.Records {
					if run.Records[i].Failed() {
						failed++
					}
				}
				if failed != c.failed {
					t.Errorf("%d failed, want %d", failed, c.failed)
				}
				if run.FromTmp != c.fromTmp || run.MaxConcurrency != c.maxConcurrency || (run.CSV != "") != c.csv || (run.FailedFile != "") != c.failedFile {
					t.Errorf("FromTmp %v, C %d, CSV %q, failed %q", run.FromTmp, run.MaxConcurrency, run.CSV, run.FailedFile)
				}
				if run.Model != "model" || run.Dataset != "ds" || run.Records[0].RequestID != c.firstID {
					t.Errorf("model %q dataset %q first %q", run.Model, run.Dataset, run.Records[0].RequestID)
				}
				if c.note != "" && !strings.Contains(strings.Join(run.Notes, "\n"), c.note) {
					t.Errorf("notes %q lack %q", run.Notes, c.note)
				}
				reqs := run.TraceRequests()
				for i, q := range reqs {
					r := run.Records[i]
					if (q.Error != nil) != r.Failed() || (q.HTTPStatus != nil) == r.Failed() {
						t.Errorf("request %s: error %v, status %v, failed %v", q.RequestID, q.Error, q.HTTPStatus, r.Failed())
					}
					if len(r.TimePoints) > 0 && q.T0Ns != nanos(r.TimePoints[0]) {
						t.Errorf("request %s: t0_ns %d", q.RequestID, q.T0Ns)
					}
					if q.T0Ns == 0 {
						t.Errorf("request %s: no t0 placeholder", q.RequestID)
					}
				}
			}
		})
	}
}

// TestHotJournalUntouched: a database left with a hot journal is read as
// SQLite rolls it back (the same arrays as the cut-short run it was copied
// from) and neither file is written.
// loadSequential is Load with the first database read after the details,
// never while they are read.
func loadSequential(dir string, opts Options) (*Run, error) {
	defer func(b int64) { prefetchBudget = b }(prefetchBudget)
	prefetchBudget = -1
	return Load(dir, opts)
}

func TestHotJournalUntouched(t *testing.T) {
	tmp := filepath.Join(workdirs, "killed", "performances", "model", "tmp")
	before := map[string][]byte{}
	for _, f := range []string{"tmp_0123abcd.db", "tmp_0123abcd.db-journal"} {
		b, err := os.ReadFile(filepath.Join(tmp, f))
		if err != nil {
			t.Fatal(err)
		}
		before[f] = b
	}
	killed, err := Load(filepath.Join(workdirs, "killed"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cut, err := Load(filepath.Join(workdirs, "cut-short"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range cut.Records {
		a, b := killed.Records[i].TimePoints, cut.Records[i].TimePoints
		if len(a) != len(b) {
			t.Fatalf("record %d: %d time points, want %d", i, len(a), len(b))
		}
		for k := range a {
			if a[k] != b[k] {
				t.Fatalf("record %d point %d: %v, want %v", i, k, a[k], b[k])
			}
		}
	}
	for f, b := range before {
		after, err := os.ReadFile(filepath.Join(tmp, f))
		if err != nil || !bytes.Equal(after, b) {
			t.Errorf("%s was changed (%v)", f, err)
		}
	}
}

// TestSeveralDatabases: records are grouped by database in the order the
// databases first appear, file order within each, as AISBench groups them.
func TestSeveralDatabases(t *testing.T) {
	wd := copyDir(t, filepath.Join(workdirs, "basic"))
	m := filepath.Join(wd, "performances", "model")
	b, err := os.ReadFile(filepath.Join(m, "db_data", "0123abcd.db"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(m, "db_data", "feedbeef.db"), b, 0o644)
	for _, line := range []int{3, 4, 5} {
		editLine(t, filepath.Join(m, "ds_details.jsonl"), line, func(s string) string {
			return strings.Replace(s, `"db_name": "0123abcd.db"`, `"db_name": "feedbeef.db"`, 1)
		})
	}
	run, err := Load(wd, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range run.Records {
		got = append(got, r.RequestID)
	}
	want := "ds/0 ds/1 ds/5 ds/6 ds/7 ds/8 ds/9 ds/10 ds/11 ds/2 ds/3 ds/4"
	if strings.Join(got, " ") != want {
		t.Errorf("order %s, want %s", strings.Join(got, " "), want)
	}
	if len(run.Databases) != 2 || !strings.Contains(strings.Join(run.Notes, "\n"), "2 databases") {
		t.Errorf("databases %v, notes %q", run.Databases, run.Notes)
	}
	// Both databases were read while the details were, to what reading
	// them afterwards gives.
	if run.prefetchedDBs != 2 {
		t.Errorf("%d databases read while the details were, want 2", run.prefetchedDBs)
	}
	seq, err := loadSequential(wd, Options{})
	if err != nil {
		t.Fatal(err)
	}
	seq.prefetchedDBs = run.prefetchedDBs
	if !reflect.DeepEqual(seq, run) {
		t.Error("the databases read while the details are and after them differ")
	}
	// A bad array in the second database: the same error either way.
	execDB(t, filepath.Join(m, "db_data", "feedbeef.db"), "UPDATE numpy_store SET arr_blob = ? WHERE id = 4", []byte("not npy"))
	_, err = Load(wd, Options{})
	_, seqErr := loadSequential(wd, Options{})
	if err == nil || seqErr == nil || err.Error() != seqErr.Error() || !strings.Contains(err.Error(), "feedbeef.db") {
		t.Errorf("read while the details are: %v\nread after them: %v", err, seqErr)
	}
}

// copyDir copies a test work_dir so that a test can break it.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func execDB(t *testing.T, path, query string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
}

func npyBlob(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := npyio.Write(&b, v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func editLine(t *testing.T, path string, line int, edit func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[line-1] = edit(lines[line-1])
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoadErrors: every way a work_dir can be broken is an *Error naming
// the file, the line or row, and the record.
func TestLoadErrors(t *testing.T) {
	model := func(wd string) string { return filepath.Join(wd, "performances", "model") }
	db := func(wd string) string { return filepath.Join(model(wd), "db_data", "0123abcd.db") }
	details := func(wd string) string { return filepath.Join(model(wd), "ds_details.jsonl") }
	cases := []struct {
		name    string
		from    string
		opts    Options
		breakIt func(t *testing.T, wd string)
		want    []string // substrings of the message
	}{
		{"dangling ref", "basic", Options{}, func(t *testing.T, wd string) { execDB(t, db(wd), "DELETE FROM numpy_store WHERE id = 5") },
			[]string{"ds_details.jsonl: line 5", `record "ds/4"`, "__db_ref__ 5 names no row", "--allow-dangling"}},
		{"missing database", "basic", Options{}, func(t *testing.T, wd string) { os.Remove(db(wd)) },
			[]string{"ds_details.jsonl: line 1", `record "ds/0"`, "database 0123abcd.db is missing"}},
		{"int64 array", "basic", Options{}, func(t *testing.T, wd string) {
			execDB(t, db(wd), "UPDATE numpy_store SET arr_blob = ? WHERE id = 3", npyBlob(t, []int64{1, 2, 3}))
		}, []string{"0123abcd.db", `record "ds/2"`, "numpy_store row 3 (record at ds_details.jsonl line 3)", "not a float64 array", "dtype"}},
		{"not npy", "basic", Options{}, func(t *testing.T, wd string) {
			execDB(t, db(wd), "UPDATE numpy_store SET arr_blob = ? WHERE id = 2", []byte("PK\x03\x04 a zip"))
		}, []string{`record "ds/1"`, "numpy_store row 2", "not an .npy array"}},
		{"truncated npy", "basic", Options{}, func(t *testing.T, wd string) {
			b := npyBlob(t, []float64{1, 2, 3})
			execDB(t, db(wd), "UPDATE numpy_store SET arr_blob = ? WHERE id = 2", b[:len(b)-4])
		}, []string{`record "ds/1"`, "needs 24 data bytes, the blob has 20"}},
		{"2-D array", "basic", Options{}, func(t *testing.T, wd string) {
			b := npyBlob(t, []float64{1, 2, 3, 4})
			b = bytes.Replace(b, []byte("(4,), }"), []byte("(2,2),}"), 1)
			execDB(t, db(wd), "UPDATE numpy_store SET arr_blob = ? WHERE id = 2", b)
		}, []string{`record "ds/1"`, "want a 1-D array"}},
		{"time going back", "basic", Options{}, func(t *testing.T, wd string) {
			execDB(t, db(wd), "UPDATE numpy_store SET arr_blob = ? WHERE id = 4", npyBlob(t, []float64{10, 11, 10.5}))
		}, []string{`record "ds/3"`, "goes back"}},
		{"NaN time point", "basic", Options{}, func(t *testing.T, wd string) {
			execDB(t, db(wd), "UPDATE numpy_store SET arr_blob = ? WHERE id = 4", npyBlob(t, []float64{10, math.NaN(), 12}))
		}, []string{`record "ds/3"`, "numpy_store row 4", "time point 1 is NaN"}},
		{"one time point", "basic", Options{}, func(t *testing.T, wd string) {
			execDB(t, db(wd), "UPDATE numpy_store SET arr_blob = ? WHERE id = 4", npyBlob(t, []float64{10}))
		}, []string{`record "ds/3"`, "successful record with 1 time points", "disagree"}},
		{"shared array", "basic", Options{}, func(t *testing.T, wd string) {
			editLine(t, details(wd), 2, func(s string) string { return strings.Replace(s, `"__db_ref__": 2`, `"__db_ref__": 1`, 1) })
		}, []string{"line 2", `record "ds/1"`, `also the time points of record "ds/0" (line 1)`}},
		{"string ref", "basic", Options{}, func(t *testing.T, wd string) {
			editLine(t, details(wd), 3, func(s string) string { return strings.Replace(s, `"__db_ref__": 3`, `"__db_ref__": "3"`, 1) })
		}, []string{"line 3", `record "ds/2"`, "want an integer row id"}},
		{"bad json", "basic", Options{}, func(t *testing.T, wd string) {
			editLine(t, details(wd), 7, func(s string) string { return s[:20] + "\n" })
		}, []string{"ds_details.jsonl: line 7", "not a JSON record"}},
		{"no success", "basic", Options{}, func(t *testing.T, wd string) {
			editLine(t, details(wd), 4, func(s string) string { return strings.Replace(s, `"success": true, `, "", 1) })
		}, []string{"line 4", `no "success"`}},
		{"float tokens", "basic", Options{}, func(t *testing.T, wd string) {
			editLine(t, details(wd), 4, func(s string) string {
				return strings.Replace(s, `"output_tokens": `, `"output_tokens": 1.5, "x": `, 1)
			})
		}, []string{"line 4", "output_tokens 1.5: want a non-negative integer"}},
		{"no numpy_store", "basic", Options{}, func(t *testing.T, wd string) { execDB(t, db(wd), "DROP TABLE numpy_store") },
			[]string{"0123abcd.db", "no table numpy_store"}},
		{"not sqlite", "basic", Options{}, func(t *testing.T, wd string) {
			os.WriteFile(db(wd), []byte("not a database at all, really not"), 0o644)
		},
			[]string{"0123abcd.db"}},
		{"failed.jsonl extra", "failures", Options{}, func(t *testing.T, wd string) {
			f := filepath.Join(model(wd), "ds_failed.jsonl")
			b, _ := os.ReadFile(f)
			os.WriteFile(f, append(b, []byte(`{"data_abbr": "ds", "id": 5, "input": "", "error_info": "timeout"}`+"\n")...), 0o644)
		}, []string{"ds_failed.jsonl: line 7", `record "ds/5"`, "does not hold as failed"}},
		{"failed.jsonl missing a line", "failures", Options{}, func(t *testing.T, wd string) {
			editLine(t, filepath.Join(model(wd), "ds_failed.jsonl"), 2, func(string) string { return "" })
		}, []string{"ds_details.jsonl: line 10", `record "ds/9"`, "missing from ds_failed.jsonl"}},
		{"two models", "basic", Options{}, func(t *testing.T, wd string) { os.MkdirAll(filepath.Join(wd, "performances", "other"), 0o755) },
			[]string{"2 model folders (model, other): name one with --model"}},
		{"unknown model", "basic", Options{Model: "nope"}, func(t *testing.T, wd string) {}, []string{`no model "nope": want one of model`}},
		{"two datasets", "basic", Options{}, func(t *testing.T, wd string) {
			b, _ := os.ReadFile(details(wd))
			os.WriteFile(filepath.Join(model(wd), "other_details.jsonl"), b, 0o644)
		}, []string{"2 datasets (ds, other): name one with --dataset"}},
		{"not a run", "basic", Options{}, func(t *testing.T, wd string) { os.RemoveAll(model(wd)); os.MkdirAll(model(wd), 0o755) },
			[]string{"not an AISBench performance folder"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wd := copyDir(t, filepath.Join(workdirs, c.from))
			c.breakIt(t, wd)
			_, err := Load(wd, c.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if _, seqErr := loadSequential(wd, c.opts); seqErr == nil || seqErr.Error() != err.Error() {
				t.Errorf("read while the details are read: %v\nread after them: %v", err, seqErr)
			}
			oneProc := func() error {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
				_, err := Load(wd, c.opts)
				return err
			}()
			if oneProc == nil || oneProc.Error() != err.Error() {
				t.Errorf("details parsed in parallel: %v\none line at a time: %v", err, oneProc)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%T, want *Error: %v", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestAllowDangling: AISBench's summarizer makes the request a failure.
func TestAllowDangling(t *testing.T) {
	wd := copyDir(t, filepath.Join(workdirs, "basic"))
	execDB(t, filepath.Join(wd, "performances", "model", "db_data", "0123abcd.db"), "DELETE FROM numpy_store WHERE id = 5")
	run, err := Load(wd, Options{AllowDangling: true})
	if err != nil {
		t.Fatal(err)
	}
	r := run.Records[4]
	if !r.Dangling || !r.Failed() || r.TimePoints != nil {
		t.Errorf("record 4: dangling %v failed %v", r.Dangling, r.Failed())
	}
	q := run.TraceRequests()[4]
	if q.Error == nil || !strings.Contains(*q.Error, "__db_ref__ 5") {
		t.Errorf("trace error %v", q.Error)
	}
	if !strings.Contains(strings.Join(run.Notes, "\n"), "1 successful records whose time points never reached the database") {
		t.Errorf("notes %q", run.Notes)
	}
}

// TestDecodeTimePoints: npyio's float64 arrays round-trip; broken headers are errors.
func TestDecodeTimePoints(t *testing.T) {
	// (np.save's empty arrays are in the failures work_dir.)
	for _, v := range [][]float64{{1.5}, {51234.5678901, 51234.744945647486, 1e300}} {
		got, err := decodeTimePoints(npyBlob(t, v))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(v) {
			t.Fatalf("%v: got %v", v, got)
		}
		for i := range v {
			if got[i] != v[i] {
				t.Errorf("%v: got %v", v, got)
			}
		}
	}
	for _, bad := range [][]byte{nil, []byte("\x93NUMPY"), []byte("\x93NUMPY\x09\x00\x10\x00"), []byte("\x93NUMPY\x01\x00\xff\xff{}")} {
		if _, err := decodeTimePoints(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzDecodeTimePoints(f *testing.F) {
	var b bytes.Buffer
	npyio.Write(&b, []float64{1, 2, 3})
	f.Add(b.Bytes())
	b.Reset()
	npyio.Write(&b, []int32{1})
	f.Add(b.Bytes())
	f.Add([]byte("\x93NUMPY\x01\x00\x20\x00{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }\n12345678"))
	f.Add([]byte("\x93NUMPY\x01\x00\x10\x00{'shape': (1,)}\n"))
	// A big-endian array, as np.save writes one of dtype '>f8'.
	hdr := "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }"
	hdr += strings.Repeat(" ", 63-(10+len(hdr))%64) + "\n"
	be := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), byte(len(hdr)>>8))
	be = append(append(be, hdr...), 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 1)
	if tp, err := decodeTimePoints(be); err != nil || len(tp) != 2 || tp[0] != 1 {
		f.Fatalf("big-endian seed: %v, %v", tp, err)
	}
	f.Add(be)
	f.Fuzz(func(t *testing.T, blob []byte) {
		tp, err := decodeTimePoints(blob)
		// Read in place from a blob of its own: the same values, or the
		// same refusal.
		own, ownErr := decodeOwnedTimePoints(bytes.Clone(blob))
		if (ownErr != nil) != (err != nil) || len(own) != len(tp) {
			t.Fatalf("in place: %d values, %v; copied: %d values, %v", len(own), ownErr, len(tp), err)
		}
		for i := range tp {
			if math.Float64bits(tp[i]) != math.Float64bits(own[i]) {
				t.Fatalf("value %d: %v in place, %v copied", i, own[i], tp[i])
			}
		}
		if err != nil {
			return
		}
		if len(blob) < 8*len(tp) {
			t.Errorf("%d values from %d bytes", len(tp), len(blob))
		}
		// The data decoded here is what npyio's own reader makes of it.
		r, err := npyio.NewReader(bytes.NewReader(blob))
		if err != nil {
			t.Fatalf("decoded, but npyio refuses the header: %v", err)
		}
		var ref []float64
		// A header is a Python literal: numpy takes a descr in double
		// quotes, and so does the decoder; npyio's Read does not.
		err = r.Read(&ref)
		if err != nil && strings.Contains(err.Error(), "invalid string literal") {
			return
		}
		if err != nil && len(tp) > 0 {
			t.Fatalf("decoded %d values, npyio reads none: %v", len(tp), err)
		}
		if len(ref) != len(tp) {
			t.Fatalf("%d values, npyio reads %d", len(tp), len(ref))
		}
		for i := range tp {
			if math.Float64bits(tp[i]) != math.Float64bits(ref[i]) {
				t.Fatalf("value %d: %v, npyio reads %v", i, tp[i], ref[i])
			}
		}
	})
}

// FuzzDetails: any details file ends in records or an *Error, never a panic.
func FuzzDetails(f *testing.F) {
	src, err := os.ReadFile(filepath.Join(workdirs, "failures", "performances", "model", "ds_details.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	f.Add([]byte(lines[0] + lines[3]))
	f.Add([]byte(`{"success": true, "time_points": {"__db_ref__": 1}, "db_name": "0123abcd.db", "output_tokens": null}`))
	f.Add([]byte(`{"success": false, "time_points": null, "db_name": "../x.db"}`))
	f.Add([]byte("{}\n\n"))
	base := filepath.Join(workdirs, "failures")
	f.Fuzz(func(t *testing.T, details []byte) {
		wd := t.TempDir()
		m := filepath.Join(wd, "performances", "model")
		os.MkdirAll(filepath.Join(m, "db_data"), 0o755)
		db, err := os.ReadFile(filepath.Join(base, "performances", "model", "db_data", "0123abcd.db"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(m, "db_data", "0123abcd.db"), db, 0o644)
		os.WriteFile(filepath.Join(m, "ds_details.jsonl"), details, 0o644)
		run, err := Load(wd, Options{AllowDangling: true})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%T: %v", err, err)
			}
			return
		}
		for _, q := range run.TraceRequests() {
			if q.RequestID == "" {
				t.Error("empty request id")
			}
		}
	})
}

// FuzzSideFiles: any <ds>_failed.jsonl and <ds>.json end in a run or an
// *Error, never a panic.
func FuzzSideFiles(f *testing.F) {
	m := filepath.Join(workdirs, "failures", "performances", "model")
	failed, _ := os.ReadFile(filepath.Join(m, "ds_failed.jsonl"))
	report, _ := os.ReadFile(filepath.Join(m, "ds.json"))
	f.Add(failed, report)
	f.Add([]byte(`{"id": 3, "error_info": 7}`), []byte(`{"Max Concurrency": {"total": 4, "stable": 5}}`))
	f.Add([]byte("\n"), []byte(`{"Max Concurrency": {"total": "4"}}`))
	wd := copyDir(f, filepath.Join(workdirs, "failures"))
	dst := filepath.Join(wd, "performances", "model")
	f.Fuzz(func(t *testing.T, failed, report []byte) {
		os.WriteFile(filepath.Join(dst, "ds_failed.jsonl"), failed, 0o644)
		os.WriteFile(filepath.Join(dst, "ds.json"), report, 0o644)
		run, err := Load(wd, Options{})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%T: %v", err, err)
			}
			return
		}
		if run.MaxConcurrency < 0 {
			t.Errorf("max concurrency %d", run.MaxConcurrency)
		}
	})
}

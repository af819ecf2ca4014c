// Package aisbench reads what an AISBench performance run leaves on disk — a
// work_dir's performances/<model>/ folder — into the requests AISBench's own
// summarizer would see, in its order, and turns them into trace requests
// (time_points_s, token counts, success or error) with the run's metadata.
//
// The pipeline follows DefaultPerfSummarizer._load_details_perf_data and
// _calc_perf_data (ais_bench/benchmark/summarizers/default_perf.py):
//
//  1. <ds>_details.jsonl, one record a request; when it is missing (a run cut
//     short), the tmp/*.jsonl records of that dataset instead;
//  2. records grouped by db_name, groups in the order they first appear;
//  3. each record's {"__db_ref__": id} looked up in the SQLite table
//     numpy_store of db_data/<db_name> (else tmp/tmp_<db_name>), each blob an
//     np.save float64 array: the request's time points;
//  4. <ds>_failed.jsonl cross-checked against the failed records.
//
// AISBench treats a successful record whose time points are not in the
// database as failed (the database was not committed when the run was
// killed). Load does the same for a run read from tmp/, and says so in
// Run.Notes; in a finished run it is an error unless Options.AllowDangling.
// Everything else that does not fit — a missing database, a blob that is not
// a float64 .npy array, two records sharing one array, time points that go
// back, details and failed.jsonl that disagree — is an *Error naming the file,
// line and record.
package aisbench

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/sourcefile"
)

// Source is the sseaudit.source of an imported trace.
const Source = "import aisbench"

// Options tune Load.
type Options struct {
	// Model and Dataset pick the model folder and dataset abbreviation when the
	// directory holds several; empty means the only one.
	Model, Dataset string
	// AllowDangling makes a finished run's successful record whose time points
	// are missing from its database a failed request, as AISBench's summarizer
	// does, instead of an error.
	AllowDangling bool
	// MaxLineBytes bounds one details line; 0 means 1 GiB.
	MaxLineBytes int
}

// Error is bad input in a work_dir: the file, the line and record, and what
// was expected.
type Error struct {
	File   string
	Line   int    // 1-based; 0 when the error is about the whole file
	Record string // the record's request id, when known
	Msg    string
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(": line " + strconv.Itoa(e.Line))
	}
	if e.Record != "" {
		b.WriteString(": record " + strconv.Quote(e.Record))
	}
	b.WriteString(": " + e.Msg)
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Record is one details record, as AISBench's summarizer reads it.
type Record struct {
	RequestID string // data_abbr/id, made unique with /2, /3... for repeats
	File      string // the details (or tmp) file it came from
	Line      int    // 1-based line in File
	DataAbbr  string
	ID        string // the record's "id", as JSON text
	UUID      string
	Success   bool   // the record's own success flag
	ErrorInfo string // error_info
	DBName    string
	// DBRef is the record's __db_ref__; HasRef is false when time_points is
	// null (AISBench could not save the array).
	DBRef  int64
	HasRef bool
	// TimePoints are the array behind DBRef (t0 first, seconds); nil when
	// there is none.
	TimePoints []float64
	// Dangling: the reference names no row of the database.
	Dangling bool
	// InputTokens and OutputTokens are the record's counts; nil when null or
	// absent. A count of 0 is kept: AISBench's loader treats it as missing.
	InputTokens, OutputTokens *int64
}

// Failed reports whether AISBench's summarizer counts the record as failed:
// its own flag, or time points it cannot load.
func (r *Record) Failed() bool { return !r.Success || r.TimePoints == nil }

// Run is one model and dataset of a work_dir, loaded.
type Run struct {
	Dir     string // the performances/<model> folder
	Model   string
	Dataset string
	// Details is the details file read; empty when the records came from tmp/.
	Details string
	// FromTmp: the run was cut short and its records came from TmpFiles.
	FromTmp  bool
	TmpFiles []string
	// Databases are the database files read, in AISBench's group order.
	Databases []string
	// FailedFile is <ds>_failed.jsonl when present.
	FailedFile string
	// CSV and JSON are the run's own <ds>.csv and <ds>.json when present.
	CSV, JSON string
	// MaxConcurrency is the "Max Concurrency" of the run's <ds>.json; 0 when
	// unknown.
	MaxConcurrency int
	Records        []Record
	// Notes say what the reader did that a reader of the numbers should know.
	Notes []string

	prefetcher    *prefetcher // the databases, read while the details are
	prefetchedDBs int         // how many of them were used
}

// Load finds and reads the run in dir: a performances/<model> folder, or a
// work_dir (with opts.Model when it holds several models).
func Load(dir string, opts Options) (*Run, error) {
	run, err := locate(dir, opts)
	if err != nil {
		return nil, err
	}
	defer run.stopPrefetch()
	if err := run.readRecords(opts); err != nil {
		return nil, err
	}
	if err := run.readDatabases(opts); err != nil {
		return nil, err
	}
	if err := run.checkFailed(); err != nil {
		return nil, err
	}
	if run.JSON != "" {
		c, err := reportedMaxConcurrency(run.JSON)
		if err != nil {
			return nil, err
		}
		run.MaxConcurrency = c
	}
	return run, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// locate finds the model folder, the dataset and its files.
func locate(dir string, opts Options) (*Run, error) {
	if !isDir(dir) {
		return nil, &Error{File: dir, Msg: "not a directory: want a work_dir or its performances/<model> folder"}
	}
	modelDir := dir
	if perf := filepath.Join(dir, "performances"); isDir(perf) {
		models, err := subdirs(perf)
		if err != nil {
			return nil, &Error{File: perf, Msg: "cannot list models", Err: err}
		}
		switch {
		case opts.Model != "":
			if !isDir(filepath.Join(perf, opts.Model)) {
				return nil, &Error{File: perf, Msg: fmt.Sprintf("no model %q: want one of %s", opts.Model, strings.Join(models, ", "))}
			}
			modelDir = filepath.Join(perf, opts.Model)
		case len(models) == 1:
			modelDir = filepath.Join(perf, models[0])
		case len(models) == 0:
			return nil, &Error{File: perf, Msg: "no model folder"}
		default:
			return nil, &Error{File: perf, Msg: fmt.Sprintf("%d model folders (%s): name one with --model", len(models), strings.Join(models, ", "))}
		}
	} else if filepath.Base(filepath.Dir(filepath.Clean(dir))) == "performances" && opts.Model != "" && opts.Model != filepath.Base(dir) {
		return nil, &Error{File: dir, Msg: fmt.Sprintf("this is model %q's folder, not %q's", filepath.Base(dir), opts.Model)}
	}
	run := &Run{Dir: modelDir, Model: filepath.Base(filepath.Clean(modelDir))}

	datasets, err := datasetsIn(modelDir)
	if err != nil {
		return nil, err
	}
	switch {
	case opts.Dataset != "":
		run.Dataset = opts.Dataset
	case len(datasets) == 1:
		run.Dataset = datasets[0]
	case len(datasets) == 0:
		return nil, &Error{File: modelDir, Msg: "no <ds>_details.jsonl and no tmp/*.jsonl records: not an AISBench performance folder (want work_dir/performances/<model>)"}
	default:
		return nil, &Error{File: modelDir, Msg: fmt.Sprintf("%d datasets (%s): name one with --dataset", len(datasets), strings.Join(datasets, ", "))}
	}
	if p := filepath.Join(modelDir, run.Dataset+"_details.jsonl"); exists(p) {
		run.Details = p
	} else {
		run.FromTmp = true
	}
	for _, f := range []struct {
		dst  *string
		name string
	}{{&run.FailedFile, "_failed.jsonl"}, {&run.CSV, ".csv"}, {&run.JSON, ".json"}} {
		if p := filepath.Join(modelDir, run.Dataset+f.name); exists(p) {
			*f.dst = p
		}
	}
	return run, nil
}

func subdirs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// datasetsIn lists the datasets of a model folder: the <ds>_details.jsonl
// files, else the data_abbr values of tmp/*.jsonl.
func datasetsIn(modelDir string) ([]string, error) {
	ents, err := os.ReadDir(modelDir)
	if err != nil {
		return nil, &Error{File: modelDir, Msg: "cannot list", Err: err}
	}
	var ds []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), "_details.jsonl"); ok && !e.IsDir() {
			ds = append(ds, n)
		}
	}
	if len(ds) > 0 {
		return ds, nil
	}
	files, err := tmpFiles(modelDir)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, f := range files {
		err := eachLine(f, 0, func(line int, b []byte) error {
			var r struct {
				DataAbbr *string `json:"data_abbr"`
			}
			if json.Unmarshal(b, &r) == nil && r.DataAbbr != nil && !seen[*r.DataAbbr] {
				seen[*r.DataAbbr] = true
				ds = append(ds, *r.DataAbbr)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(ds)
	return ds, nil
}

// tmpFiles are tmp/*.jsonl, sorted by name (AISBench takes os.listdir's
// order, which the file system decides).
func tmpFiles(modelDir string) ([]string, error) {
	tmp := filepath.Join(modelDir, "tmp")
	ents, err := os.ReadDir(tmp)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{File: tmp, Msg: "cannot list", Err: err}
	}
	var files []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".jsonl") && !e.IsDir() {
			files = append(files, filepath.Join(tmp, e.Name()))
		}
	}
	return files, nil
}

// eachLine calls fn with every line of path (1-based line numbers), as
// Python's readline does: the last line may lack its newline.
func eachLine(path string, maxLine int, fn func(line int, b []byte) error) error {
	f, err := sourcefile.Open(path)
	if err != nil {
		return &Error{File: path, Msg: "cannot open", Err: err}
	}
	defer f.Close()
	sc := sourcefile.NewLineScanner(f, path, sourcefile.Limits{MaxValueBytes: maxLine})
	for sc.Scan() {
		if err := fn(sc.Line(), sc.Bytes()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		var te *trace.Error
		if errors.As(err, &te) {
			e := &Error{File: path, Line: te.Line, Msg: te.Msg}
			if errors.Is(err, trace.ErrLimit) {
				e.Err = trace.ErrLimit
			}
			return e
		}
		return &Error{File: path, Msg: "read error", Err: err}
	}
	return nil
}

var null = []byte("null")

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || bytes.Equal(raw, null) }

// jsonString decodes an optional string field; null or absent is "".
func jsonString(raw json.RawMessage) (string, bool) {
	if isNull(raw) {
		return "", true
	}
	if plainString(raw) {
		return string(raw[1 : len(raw)-1]), true // most are: no decoding needed
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// plainString reports whether raw is a JSON string with no escape, control
// byte or non-ASCII byte: its text is its value.
func plainString(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// tokenCount decodes input_tokens/output_tokens: an integer, or null.
func tokenCount(raw json.RawMessage) (*int64, error) {
	if isNull(raw) {
		return nil, nil
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || v < 0 {
		return nil, fmt.Errorf("%s: want a non-negative integer or null", raw)
	}
	return &v, nil
}

// readRecords reads the details file, or tmp/ when it is missing.
func (run *Run) readRecords(opts Options) error {
	files := []string{run.Details}
	if run.FromTmp {
		var err error
		if files, err = tmpFiles(run.Dir); err != nil {
			return err
		}
		run.TmpFiles = files
		if len(files) == 0 {
			return &Error{File: run.Dir, Msg: fmt.Sprintf("no %s_details.jsonl and no tmp/*.jsonl", run.Dataset)}
		}
		run.Notes = append(run.Notes, fmt.Sprintf("no %s_details.jsonl: the run was cut short; records read from tmp/ as AISBench's summarizer does (%d files, in name order)", run.Dataset, len(files)))
	}
	// Group by db_name in first-appearance order, file order within a group.
	groups := map[string]int{}
	// Each group's records in blocks, gathered once at the end: growing
	// one slice of 100,000 records copies and touches several times their
	// 20 MB, and fresh memory is what costs here.
	var byGroup [][][]Record
	noDB, total := 0, 0
	var fileBytes, readBytes int64 // of the details file (not tmp/'s)
	if !run.FromTmp {
		fileBytes = storedBytes(run.Details) // a sparse file's holes hold no records
	}
	for _, file := range files {
		// The lines are parsed in parallel (parseRecord reads only the
		// run's dataset and where it reads from); the rest, in order.
		parse := func(line int, b []byte) parsedRecord {
			rec, keep, err := run.parseRecord(file, line, b)
			return parsedRecord{rec, keep, err}
		}
		err := eachParsed(file, opts.MaxLineBytes, parse, func(line, n int, p parsedRecord) error {
			readBytes += int64(n) + 1
			rec, keep, err := p.rec, p.keep, p.err
			switch {
			case err != nil:
				return err
			case !keep:
				return nil
			case rec.DBName == "":
				noDB++ // AISBench skips records without db_name
				return nil
			}
			run.startPrefetch(rec.DBName)
			g, ok := groups[rec.DBName]
			if !ok {
				g = len(byGroup)
				groups[rec.DBName] = g
				byGroup = append(byGroup, nil)
			}
			blocks := byGroup[g]
			switch last := len(blocks) - 1; {
			case last < 0:
				blocks = append(blocks, make([]Record, 0, 16)) // many groups may each hold a few
			case len(blocks[last]) < cap(blocks[last]):
			case g == 0 && last == 0 && len(byGroup) == 1:
				// The first group's first block is full and it is the
				// only group so far: most runs have one database. It
				// grows to the records the rest of the file holds at the
				// lines' length so far, so that no gathering copy is
				// needed at the end (see below).
				n := cap(blocks[0]) + estimateRecords(fileBytes-readBytes, readBytes, line)
				blocks[0] = append(make([]Record, 0, max(n, 2*cap(blocks[0]))), blocks[0]...)
			default:
				blocks = append(blocks, make([]Record, 0, min(2*cap(blocks[last]), recordBlock)))
			}
			blocks[len(blocks)-1] = append(blocks[len(blocks)-1], rec)
			byGroup[g] = blocks
			total++
			return nil
		})
		if err != nil {
			return err
		}
	}
	if b := byGroup; len(b) == 1 && len(b[0]) == 1 && cap(b[0][0]) <= len(b[0][0])+len(b[0][0])/8+16 {
		// One block, about as long as its records: copying 100,000
		// records, while the collector marks (it does by then), cost
		// 0.13-0.3 s in write barriers. An estimate far over is copied
		// out, so that the rest is let go.
		run.Records = slices.Clip(b[0][0])
	} else {
		run.Records = make([]Record, 0, total)
		for _, g := range byGroup {
			for _, b := range g {
				run.Records = append(run.Records, b...)
			}
		}
	}
	if noDB > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("%d records without db_name skipped, as AISBench's summarizer skips them", noDB))
	}
	if len(run.Records) == 0 {
		where := run.Details
		if run.FromTmp {
			where = filepath.Join(run.Dir, "tmp")
		}
		return &Error{File: where, Msg: fmt.Sprintf("no records of dataset %q with a db_name: AISBench would find no perf data", run.Dataset)}
	}
	if len(byGroup) > 1 {
		run.Notes = append(run.Notes, fmt.Sprintf("%d databases: AISBench's summarizer reads them in parallel processes, so its request order (and with it the last digits of means and the stable stage's failure quirk) depends on which finishes first; sseaudit uses the order they first appear in", len(byGroup)))
	}
	// Request ids: data_abbr/id, repeats numbered.
	seen := map[string]int{}
	for i := range run.Records {
		r := &run.Records[i]
		base := r.DataAbbr + "/" + r.ID
		if r.ID == "" {
			base = r.DataAbbr + "/line" + strconv.Itoa(r.Line)
		}
		seen[base]++
		r.RequestID = base
		if k := seen[base]; k > 1 {
			r.RequestID = base + "/" + strconv.Itoa(k)
		}
	}
	return nil
}

// parsedRecord is parseRecord's result.
type parsedRecord struct {
	rec  Record
	keep bool
	err  error
}

// recordBlock is how many records a block of readRecords holds at most (a
// group's blocks double up to it from 16), but the first group's first
// (see estimateRecords).
const recordBlock = 4096

// estimateRecords is about how many records the rest of a details file,
// left bytes, holds: as many as lines read so far in read bytes, and a
// tenth more; at most one per minRecordLine bytes, so that short first
// lines never make a file cost more than about its size (a record takes
// about 200 bytes), and at most maxEstimate (more records are read into
// blocks after it).
func estimateRecords(left, read int64, lines int) int {
	if left <= 0 || read <= 0 || lines <= 0 {
		return 0
	}
	n := 1.1 * float64(left) * float64(lines) / float64(read) // an estimate: floats do
	return int(min(n, float64(left/minRecordLine), maxEstimate))
}

const (
	// minRecordLine is about the shortest line AISBench writes for a
	// record: 290 bytes with an empty prompt and prediction. A shorter
	// file's records are gathered from blocks, as several groups' are.
	minRecordLine = 256
	maxEstimate   = 1 << 20 // 200 MB of records
)

// parseRecord reads one line of a details or tmp file: the record, and
// whether AISBench keeps it (a cut-short run's tmp files hold other
// datasets' records too).
func (run *Run) parseRecord(file string, line int, b []byte) (Record, bool, error) {
	rec := Record{File: file, Line: line}
	if len(bytes.TrimSpace(b)) == 0 {
		return rec, false, &Error{File: file, Line: line, Msg: "empty line: want one JSON record a line"}
	}
	d, err := decodeDetails(b)
	if err != nil {
		return rec, false, &Error{File: file, Line: line, Msg: "not a JSON record", Err: err}
	}
	abbr, ok := jsonString(d.DataAbbr)
	if !ok {
		return rec, false, &Error{File: file, Line: line, Msg: fmt.Sprintf("data_abbr %.80s: want a string", d.DataAbbr)}
	}
	rec.DataAbbr = abbr
	if run.FromTmp && rec.DataAbbr != run.Dataset {
		return rec, false, nil // AISBench keeps the dataset's records only
	}
	rec.ID = string(d.ID)
	if isNull(d.ID) {
		rec.ID = ""
	}
	rec.UUID, _ = jsonString(d.UUID)
	bad := func(format string, args ...any) (Record, bool, error) {
		return rec, false, &Error{File: file, Line: line, Record: rec.DataAbbr + "/" + rec.ID, Msg: fmt.Sprintf(format, args...)}
	}
	dbName, ok := jsonString(d.DBName)
	if !ok {
		return bad("db_name %s: want a string", d.DBName)
	}
	if dbName == "" {
		return rec, true, nil
	}
	if strings.ContainsAny(dbName, `/\`) || dbName == "." || dbName == ".." {
		return bad("db_name %q: want a file name in db_data/", dbName)
	}
	rec.DBName = dbName
	switch string(d.Success) {
	case "true", "false":
		rec.Success = string(d.Success) == "true"
	case "", "null":
		return bad("no \"success\": want true or false")
	default:
		return bad("success %.80s: want true or false", d.Success)
	}
	if s, ok := jsonString(d.ErrorInfo); ok {
		rec.ErrorInfo = s
	} else {
		rec.ErrorInfo = string(d.ErrorInfo)
	}
	if rec.InputTokens, err = tokenCount(d.InputTokens); err != nil {
		return bad("input_tokens %v", err)
	}
	if rec.OutputTokens, err = tokenCount(d.OutputTokens); err != nil {
		return bad("output_tokens %v", err)
	}
	if !isNull(d.TimePoints) {
		ref, ok := dbRef(d.TimePoints)
		if !ok {
			return bad("time_points %.80s: want {\"__db_ref__\": ROW} or null", d.TimePoints)
		}
		v, err := strconv.ParseInt(string(ref), 10, 64)
		if err != nil {
			return bad("time_points.__db_ref__ %s: want an integer row id", ref)
		}
		rec.DBRef, rec.HasRef = v, true
	}
	return rec, true, nil
}

// dbPath is where AISBench looks for a database: db_data/, then tmp/tmp_.
func (run *Run) dbPath(name string) string {
	p := filepath.Join(run.Dir, "db_data", name)
	if exists(p) {
		return p
	}
	if q := filepath.Join(run.Dir, "tmp", "tmp_"+name); exists(q) {
		return q
	}
	return p
}

// readDatabases loads every referenced array, one database at a time.
func (run *Run) readDatabases(opts Options) error {
	type ref struct {
		rec  int // index in run.Records
		used bool
	}
	var order []string
	refs := map[string]map[int64]*ref{}
	for i := range run.Records {
		r := &run.Records[i]
		m, ok := refs[r.DBName]
		if !ok {
			m = map[int64]*ref{}
			refs[r.DBName] = m
			order = append(order, r.DBName)
		}
		if !r.HasRef {
			continue
		}
		if prev, dup := m[r.DBRef]; dup {
			p := run.Records[prev.rec]
			return &Error{File: r.File, Line: r.Line, Record: r.RequestID,
				Msg: fmt.Sprintf("__db_ref__ %d of %s is also the time points of record %q (line %d): details and database disagree", r.DBRef, r.DBName, p.RequestID, p.Line)}
		}
		m[r.DBRef] = &ref{rec: i}
	}
	var dangling []string
	unreferenced := 0
	for _, name := range order {
		path := run.dbPath(name)
		run.Databases = append(run.Databases, path)
		if !exists(path) {
			first := run.Records[run.firstOf(name)]
			return &Error{File: first.File, Line: first.Line, Record: first.RequestID,
				Msg: fmt.Sprintf("database %s is missing (looked in db_data/ and tmp/)", name), Err: os.ErrNotExist}
		}
		m := refs[name]
		// place puts row id's time points in its record; err is their
		// decoding's error, bad trace.CheckTimePoints' (a prefetch checks
		// its rows while the details are read).
		place := func(id int64, tp []float64, err, bad error) error {
			rf, ok := m[id]
			if !ok {
				unreferenced++
				return nil
			}
			r := &run.Records[rf.rec]
			rf.used = true
			if err != nil {
				return &Error{File: path, Record: r.RequestID, Msg: fmt.Sprintf("numpy_store row %d (record at %s line %d): not a float64 array as np.save writes it", id, filepath.Base(r.File), r.Line), Err: err}
			}
			if bad != nil {
				return &Error{File: path, Record: r.RequestID, Msg: fmt.Sprintf("numpy_store row %d (record at %s line %d): %v", id, filepath.Base(r.File), r.Line, bad)}
			}
			if r.Success && len(tp) < 2 {
				return &Error{File: path, Record: r.RequestID, Msg: fmt.Sprintf("numpy_store row %d (record at %s line %d): a successful record with %d time points (AISBench's client marks such a request failed, \"chunk size is less than 2\"): details and database disagree", id, filepath.Base(r.File), r.Line, len(tp))}
			}
			r.TimePoints = tp
			return nil
		}
		var note string
		var err error
		if pf := run.prefetched(name, path); pf != nil {
			note = pf.note
			for row := range pf.rows.all() {
				if err = place(row.id, row.tp, row.err, row.bad); err != nil {
					break
				}
			}
			if err == nil {
				err = pf.err
			}
		} else {
			note, err = run.eachBlob(path, func(id int64, blob []byte) error {
				if _, ok := m[id]; !ok {
					unreferenced++ // not decoded: no record needs it
					return nil
				}
				tp, err := decodeOwnedTimePoints(blob)
				return place(id, tp, err, trace.CheckTimePoints(tp))
			})
		}
		if note != "" {
			run.Notes = append(run.Notes, note)
		}
		if err != nil {
			return err
		}
		for _, k := range sortedKeys(m) {
			if m[k].used {
				continue
			}
			r := &run.Records[m[k].rec]
			r.Dangling = true
			if !r.Success {
				continue // AISBench never loads a failed record's array
			}
			if !run.FromTmp && !opts.AllowDangling {
				return &Error{File: r.File, Line: r.Line, Record: r.RequestID,
					Msg: fmt.Sprintf("__db_ref__ %d names no row of %s: details and database disagree (AISBench's summarizer would count the request as failed; --allow-dangling does the same)", k, path)}
			}
			dangling = append(dangling, r.RequestID)
		}
	}
	if len(dangling) > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("%d successful records whose time points never reached the database (uncommitted when the run stopped), counted as failed as AISBench's summarizer does: %s", len(dangling), abbreviate(dangling, 5)))
	}
	nullTP := 0
	for _, r := range run.Records {
		if r.Success && !r.HasRef {
			nullTP++
		}
	}
	if nullTP > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("%d successful records with time_points null (AISBench could not save them), counted as failed as AISBench's summarizer does", nullTP))
	}
	if unreferenced > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("%d arrays in the databases belong to no record (a record AISBench dropped while writing)", unreferenced))
	}
	return nil
}

// firstOf is the index of the first record of database name.
func (run *Run) firstOf(name string) int {
	for i, r := range run.Records {
		if r.DBName == name {
			return i
		}
	}
	return 0
}

func sortedKeys[V any](m map[int64]V) []int64 {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

func abbreviate(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:n], ", ") + fmt.Sprintf(" and %d more", len(ids)-n)
}

// pendingJournal returns the rollback journal or write-ahead log left beside
// a database by a process that died mid-transaction, or "".
func pendingJournal(path string) string {
	for _, suffix := range []string{"-journal", "-wal"} {
		if fi, err := os.Stat(path + suffix); err == nil && fi.Size() > 0 {
			return path + suffix
		}
	}
	return ""
}

// eachBlob reads every row of numpy_store, read-only. A database with a
// pending journal (the run was killed mid-transaction) is read from a copy
// that SQLite rolls back, as it would for AISBench's summarizer (which opens
// it read-write); the files in the work_dir are never written.
func (run *Run) eachBlob(path string, fn func(id int64, blob []byte) error) (note string, err error) {
	open := path
	mode := "mode=ro"
	if j := pendingJournal(path); j != "" {
		tmp, err := os.MkdirTemp("", "sseaudit-aisbench-db-*")
		if err != nil {
			return "", &Error{File: path, Msg: "copying a database with a pending journal", Err: err}
		}
		defer os.RemoveAll(tmp)
		open = filepath.Join(tmp, filepath.Base(path))
		for _, pair := range [][2]string{{path, open}, {j, open + strings.TrimPrefix(j, path)}} {
			if err := copySparse(pair[1], pair[0]); err != nil {
				return "", &Error{File: pair[0], Msg: "copying a database with a pending journal", Err: err}
			}
		}
		mode = "mode=rw"
		note = fmt.Sprintf("%s has a pending %s (the run was killed mid-transaction): read from a copy that SQLite rolled back, as AISBench's summarizer would; the work_dir is untouched", filepath.Base(path), strings.TrimPrefix(j, path))
	}
	return note, eachBlobAt(path, open, mode, fn)
}

func eachBlobAt(path, open, mode string, fn func(id int64, blob []byte) error) error {
	db, err := openStore(path, open, mode)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query(blobQuery())
	if err != nil {
		return &Error{File: path, Msg: "cannot read numpy_store(id, arr_blob)", Err: err}
	}
	defer rows.Close()
	for rows.Next() {
		var id, size sql.NullInt64
		var blob sql.RawBytes
		if err := rows.Scan(&id, &blob, &size); err != nil {
			return &Error{File: path, Msg: "bad numpy_store row", Err: err}
		}
		if !id.Valid {
			return &Error{File: path, Msg: "numpy_store row with a null id"}
		}
		if size.Int64 > maxArrayBlob {
			return &Error{File: path, Msg: fmt.Sprintf("numpy_store row %d: a blob of %d bytes, more than %d (%d time points): not what AISBench writes", id.Int64, size.Int64, maxArrayBlob, maxArrayBlob/8)}
		}
		// The driver (modernc.org/sqlite) copies each blob into a slice of
		// its own a row, which fn may keep (TestBlobsOwned checks it).
		if err := fn(id.Int64, blob); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return &Error{File: path, Msg: "reading numpy_store", Err: err}
	}
	return nil
}

// blobQuery reads numpy_store's rows, for the driver and for rawScan: the
// id, the blob (null when over maxArrayBlob: length() does not read it) and
// its length.
func blobQuery() string {
	return `SELECT id, CASE WHEN length(arr_blob) <= ` + strconv.FormatInt(maxArrayBlob, 10) + ` THEN arr_blob END, length(arr_blob) FROM numpy_store`
}

// maxArrayBlob bounds one numpy_store blob: 32 Mi time points, far more
// than any request's tokens.
var maxArrayBlob int64 = 256 << 20

// checkStoreTable refuses a numpy_store whose rows are computed as they
// are read (a virtual table, a generated column): a 12 KB database with
// arr_blob GENERATED ALWAYS AS (zeroblob(1e9)) expands to gigabytes.
// AISBench's table stores its arrays; what is stored is bounded by the
// file.
func checkStoreTable(db *sql.DB) error {
	var ddl string
	if err := db.QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'numpy_store'`).Scan(&ddl); err != nil {
		return err
	}
	if strings.HasPrefix(strings.ToUpper(strings.Join(strings.Fields(ddl), " ")), "CREATE VIRTUAL TABLE") {
		return errors.New("a virtual table: want a table of stored arrays, as AISBench writes it")
	}
	rows, err := db.Query(`SELECT name, hidden FROM pragma_table_xinfo('numpy_store')`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var hidden int
		if err := rows.Scan(&name, &hidden); err != nil {
			return err
		}
		// hidden: 2 a virtual generated column, 3 a stored one.
		if hidden == 2 || hidden == 3 {
			return fmt.Errorf("column %s is generated (an expression, not stored data): want the arrays stored, as AISBench writes them", name)
		}
	}
	return rows.Err()
}

// copySparse copies the file src to dst (new), a block of data at a time:
// the holes of a sparse file (a database of 3 GB on paper and a few KB on
// disk) stay holes, and the copy never holds the file in memory.
func copySparse(dst, src string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	size := st.Size()
	for off := int64(0); off < size; {
		data, hole := dataExtent(in, off, size)
		if data >= size {
			break
		}
		if _, err := io.Copy(io.NewOffsetWriter(out, data), io.NewSectionReader(in, data, hole-data)); err != nil {
			return err
		}
		off = hole
	}
	return out.Truncate(size)
}

// failedRecord is one line of <ds>_failed.jsonl.
type failedRecord struct {
	DataAbbr  *string         `json:"data_abbr"`
	ID        json.RawMessage `json:"id"`
	ErrorInfo json.RawMessage `json:"error_info"`
}

// checkFailed: every line of <ds>_failed.jsonl is a failed details record
// (same id and error_info), and every failed details record has its line.
func (run *Run) checkFailed() error {
	if run.FailedFile == "" || run.FromTmp {
		return nil
	}
	type key struct{ id, info string }
	want := map[key][]int{} // failed details records by key
	for i, r := range run.Records {
		if !r.Success {
			k := key{r.ID, r.ErrorInfo}
			want[k] = append(want[k], i)
		}
	}
	err := eachLine(run.FailedFile, 0, func(line int, b []byte) error {
		var f failedRecord
		if err := json.Unmarshal(b, &f); err != nil {
			return &Error{File: run.FailedFile, Line: line, Msg: "not a JSON record", Err: err}
		}
		info, ok := jsonString(f.ErrorInfo)
		if !ok {
			info = string(f.ErrorInfo)
		}
		k := key{string(f.ID), info}
		if len(want[k]) == 0 {
			return &Error{File: run.FailedFile, Line: line, Record: run.Dataset + "/" + string(f.ID),
				Msg: fmt.Sprintf("failed request (error_info %q) that %s does not hold as failed: details and failed.jsonl disagree", info, filepath.Base(run.Details))}
		}
		want[k] = want[k][1:]
		return nil
	})
	if err != nil {
		return err
	}
	var left []int
	for _, idx := range want {
		left = append(left, idx...)
	}
	if len(left) > 0 {
		sort.Ints(left)
		r := run.Records[left[0]]
		return &Error{File: r.File, Line: r.Line, Record: r.RequestID,
			Msg: fmt.Sprintf("failed record (error_info %q) missing from %s (%d such records): details and failed.jsonl disagree", r.ErrorInfo, filepath.Base(run.FailedFile), len(left))}
	}
	return nil
}

// reportedMaxConcurrency reads "Max Concurrency" from the run's <ds>.json.
func reportedMaxConcurrency(path string) (int, error) {
	f, err := sourcefile.Open(path)
	if err != nil {
		return 0, &Error{File: path, Msg: "cannot read", Err: err}
	}
	defer f.Close()
	vals, _, err := sourcefile.ReadAll(f, path, sourcefile.Limits{MaxBytes: 64 << 20})
	if err != nil {
		return 0, &Error{File: path, Msg: "not AISBench's <ds>.json (a JSON object of metrics)", Err: err}
	}
	if len(vals) != 1 {
		return 0, &Error{File: path, Msg: fmt.Sprintf("%d JSON values: want AISBench's <ds>.json, one JSON object of metrics", len(vals))}
	}
	raw := vals[0].Data
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return 0, &Error{File: path, Msg: "not AISBench's <ds>.json (a JSON object of metrics)", Err: err}
	}
	mc, ok := doc["Max Concurrency"]
	if !ok {
		return 0, nil
	}
	var stages map[string]json.RawMessage
	if err := json.Unmarshal(mc, &stages); err != nil {
		return 0, &Error{File: path, Msg: "\"Max Concurrency\": want {stage: integer}", Err: err}
	}
	c := 0
	for _, st := range sortedStrings(stages) {
		v, err := strconv.Atoi(string(stages[st]))
		if err != nil || v < 1 {
			return 0, &Error{File: path, Msg: fmt.Sprintf("\"Max Concurrency\".%s = %s: want a positive integer", st, stages[st])}
		}
		if c != 0 && v != c {
			return 0, &Error{File: path, Msg: fmt.Sprintf("\"Max Concurrency\" differs between stages (%d and %d)", c, v)}
		}
		c = v
	}
	return c, nil
}

func sortedStrings[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Extra columns an imported trace carries, to find each request in the run.
var ExtraColumns = []trace.ExtraColumn{
	{Name: "aisbench_file", Kind: trace.ExtraString},
	{Name: "aisbench_line", Kind: trace.ExtraInt64},
	{Name: "aisbench_uuid", Kind: trace.ExtraString},
	{Name: "aisbench_db", Kind: trace.ExtraString},
	{Name: "aisbench_db_ref", Kind: trace.ExtraInt64},
}

// Meta is the run metadata of an imported trace. maxConcurrency overrides the
// run's own report when positive.
func (run *Run) Meta(maxConcurrency int) trace.Meta {
	var m trace.Meta
	m.Set(trace.KeySource, Source)
	m.Set(trace.KeySchemaVersion, trace.SchemaVersion)
	switch {
	case maxConcurrency > 0:
		m.Set(trace.KeyMaxConcurrency, strconv.Itoa(maxConcurrency))
		m.Set(trace.KeyRunPrefix+"aisbench_max_concurrency_from", "flag")
	case run.MaxConcurrency > 0:
		m.Set(trace.KeyMaxConcurrency, strconv.Itoa(run.MaxConcurrency))
		m.Set(trace.KeyRunPrefix+"aisbench_max_concurrency_from", filepath.Base(run.JSON))
	}
	m.Set(trace.KeyRunPrefix+"aisbench_model", run.Model)
	m.Set(trace.KeyRunPrefix+"aisbench_dataset", run.Dataset)
	if run.FromTmp {
		m.Set(trace.KeyRunPrefix+"aisbench_cut_short", "true")
	}
	if len(run.Notes) > 0 {
		m.Set(trace.KeyRunPrefix+"aisbench_notes", strings.Join(run.Notes, "\n"))
	}
	return m
}

// TraceRequests turns the records into trace requests in AISBench's order:
// time_points_s as loaded, token counts as recorded, http_status 200 for a
// success and error = error_info (or why AISBench fails it) for a failure.
// t0_ns is time point 0 in nanoseconds and end_ns the last (AISBench's end
// time); a request without time points gets
// the t0 of the request before it (or after it, for leading ones), as a
// placeholder for ordering tools.
func (run *Run) TraceRequests() []trace.Request { return run.traceRequests(true) }

// TimedRequests is TraceRequests without the extra columns that place each
// record in the work_dir: what a replay of the run reads.
func (run *Run) TimedRequests() []trace.Request { return run.traceRequests(false) }

func (run *Run) traceRequests(extra bool) []trace.Request {
	out := make([]trace.Request, len(run.Records))
	// The requests' end times and statuses, in two arrays rather than an
	// allocation each.
	ends, statuses := make([]int64, len(run.Records)), make([]int32, len(run.Records))
	for i := range run.Records {
		r := &run.Records[i]
		q := trace.Request{RequestID: r.RequestID, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens}
		if r.TimePoints != nil {
			q.TimePointsS = r.TimePoints
			if len(r.TimePoints) > 0 {
				q.T0Ns = nanos(r.TimePoints[0])
				ends[i] = max(nanos(r.TimePoints[len(r.TimePoints)-1]), q.T0Ns)
				q.EndNs = &ends[i]
			}
		} else {
			q.TimePointsS = []float64{}
		}
		switch {
		case !r.Success:
			msg := r.ErrorInfo
			if msg == "" {
				msg = "failed (no error_info)"
			}
			q.Error = &msg
		case r.TimePoints == nil && r.Dangling:
			msg := fmt.Sprintf("time points missing from %s (__db_ref__ %d): AISBench counts the request as failed", r.DBName, r.DBRef)
			q.Error = &msg
		case r.TimePoints == nil:
			msg := "time_points null in the details (AISBench could not save them): AISBench counts the request as failed"
			q.Error = &msg
		default:
			statuses[i] = 200
			q.HTTPStatus = &statuses[i]
		}
		if extra {
			ref := trace.Value{Int: r.DBRef, Null: !r.HasRef}
			q.Extra = []trace.Value{
				{Str: filepath.Base(r.File)}, {Int: int64(r.Line)}, {Str: r.UUID, Null: r.UUID == ""}, {Str: r.DBName}, ref,
			}
		}
		out[i] = q
	}
	// Placeholders for requests without time points.
	last, have := int64(0), false
	for i := range out {
		if len(run.Records[i].TimePoints) > 0 {
			last, have = out[i].T0Ns, true
		} else if have {
			out[i].T0Ns = last
		}
	}
	for i := len(out) - 1; i >= 0; i-- {
		if len(run.Records[i].TimePoints) > 0 {
			last, have = out[i].T0Ns, true
		} else if have && out[i].T0Ns == 0 {
			out[i].T0Ns = last
		}
	}
	return out
}

// nanos is seconds to integer nanoseconds, saturating.
func nanos(s float64) int64 {
	ns := math.Round(s * 1e9)
	switch {
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return int64(ns)
}

// WriteTrace writes the run as a trace to w in the given format's writer.
func (run *Run) WriteTrace(w trace.RequestWriter) error {
	reqs := run.TraceRequests()
	for i := range reqs {
		if err := w.Write(&reqs[i]); err != nil {
			return err
		}
	}
	return nil
}

// openStore opens the database at open (path is its name in errors) and
// checks that it holds a numpy_store table of stored rows.
func openStore(path, open, mode string) (*sql.DB, error) {
	abs, err := filepath.Abs(open)
	if err != nil {
		return nil, &Error{File: path, Msg: "bad path", Err: err}
	}
	u := url.URL{Scheme: "file", Path: abs, RawQuery: mode}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot open the database", Err: err}
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'numpy_store'`).Scan(&n); err != nil {
		db.Close()
		return nil, &Error{File: path, Msg: "cannot read the database (not SQLite?)", Err: err}
	}
	if n == 0 {
		db.Close()
		return nil, &Error{File: path, Msg: "no table numpy_store: not an AISBench time-point database"}
	}
	if err := checkStoreTable(db); err != nil {
		db.Close()
		return nil, &Error{File: path, Msg: "numpy_store", Err: err}
	}
	return db, nil
}

// storeReadable reports whether the database at path opens read-only and
// holds a numpy_store table of stored rows.
func storeReadable(path string) bool {
	db, err := openStore(path, path, "mode=ro")
	if err != nil {
		return false
	}
	return db.Close() == nil
}

//go:build linux

package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/trace"
)

// The hostile corpus (testdata/hostile/CASES.tsv): every input is read by
// the audit command in a child process — so that a crash, a stack overflow
// or a runaway allocation fails one case instead of the test binary — and
// the child's exit code, stderr, stdout and peak resident memory are
// checked. The child runs under an address-space limit, so that a case that
// would eat the machine dies of "out of memory" instead.

const (
	hostileArgsEnv = "SSEAUDIT_HOSTILE_ARGS"
	hostileRSSEnv  = "SSEAUDIT_HOSTILE_RSS_FILE"
	// hostileFileSizeEnv, when set, is the RLIMIT_FSIZE of the child.
	hostileFileSizeEnv = "SSEAUDIT_HOSTILE_FILE_SIZE"
	hostileDefaultRSS  = 400 // MB
	hostileAddrSpace   = 6 << 30
)

// TestHostileChild is the child: it runs the command line in its
// environment and exits with the command's code.
func TestHostileChild(t *testing.T) {
	raw := os.Getenv(hostileArgsEnv)
	if raw == "" {
		t.Skip("the child process of TestHostile")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(100)
	}
	lim := syscall.Rlimit{Cur: hostileAddrSpace, Max: hostileAddrSpace}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(100)
	}
	// A full disk, for the commands that write: files stop growing here.
	if v := os.Getenv(hostileFileSizeEnv); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err == nil {
			err = syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(100)
		}
	}
	code := runEnv(env{stdout: os.Stdout, stderr: os.Stderr, stdin: strings.NewReader("")}, append([]string{"audit"}, args...))
	// The peak resident memory of this process since its exec (VmHWM):
	// getrusage's ru_maxrss would count the parent's peak at the fork.
	status, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				err = os.WriteFile(os.Getenv(hostileRSSEnv), []byte(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))), 0o644)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(100)
	}
	os.Exit(code)
}

type hostileCase struct {
	name, input    string
	exit           int
	stderr, stdout string
	rssMB          int64
	args           []string
}

func readHostileCases(t *testing.T) []hostileCase {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "hostile", "CASES.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []hostileCase
	seen := map[string]bool{}
	for i, line := range strings.Split(string(raw), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			t.Fatalf("CASES.tsv line %d: %d fields, want 7", i+1, len(f))
		}
		c := hostileCase{name: f[0], input: f[1], stderr: f[3], stdout: f[4], rssMB: hostileDefaultRSS, args: strings.Fields(f[6])}
		if c.exit, err = strconv.Atoi(f[2]); err != nil {
			t.Fatalf("CASES.tsv line %d: exit %q", i+1, f[2])
		}
		if f[5] != "-" {
			if c.rssMB, err = strconv.ParseInt(f[5], 10, 64); err != nil {
				t.Fatalf("CASES.tsv line %d: rss_mb %q", i+1, f[5])
			}
		}
		if seen[c.name] {
			t.Fatalf("CASES.tsv line %d: case %s twice", i+1, c.name)
		}
		seen[c.name] = true
		cases = append(cases, c)
	}
	return cases
}

// TestHostileCorpusSize holds the corpus to the bar: at least 30
// inputs, each a committed file or a generator that is used.
func TestHostileCorpusSize(t *testing.T) {
	inputs := map[string]bool{}
	for _, c := range readHostileCases(t) {
		inputs[c.input] = true
		if name, ok := strings.CutPrefix(c.input, "gen:"); ok {
			if hostileGenerators[name] == nil {
				t.Errorf("case %s: no generator %q", c.name, name)
			}
			continue
		}
		if _, err := os.Stat(filepath.Join("testdata", "hostile", c.input)); err != nil {
			t.Errorf("case %s: %v", c.name, err)
		}
	}
	t.Logf("%d cases, %d inputs", len(readHostileCases(t)), len(inputs))
	if len(inputs) < 30 {
		t.Errorf("%d hostile inputs, want at least 30", len(inputs))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "hostile", "*.*"))
	for _, f := range files {
		base := filepath.Base(f)
		if base != "CASES.tsv" && !inputs[base] {
			t.Errorf("%s has no case in CASES.tsv", base)
		}
	}
}

func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("the hostile corpus runs a process a case")
	}
	cases := readHostileCases(t)
	gen := &hostileInputs{dir: t.TempDir(), done: map[string]string{}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // a child process a case: as many at once as -parallel (GOMAXPROCS)
			path, err := filepath.Abs(filepath.Join("testdata", "hostile", c.input))
			if err != nil {
				t.Fatal(err)
			}
			if name, ok := strings.CutPrefix(c.input, "gen:"); ok {
				path = gen.get(t, name)
			}
			var args []string
			for _, a := range c.args {
				args = append(args, strings.ReplaceAll(a, "{}", path))
			}
			stdout, stderr, code, rssKB := runHostileChild(t, args)
			if code != c.exit {
				t.Errorf("exit %d, want %d\nstderr: %s", code, c.exit, clip(stderr))
			}
			switch {
			case c.stderr == "-" && stderr != "":
				t.Errorf("stderr %q, want none", clip(stderr))
			case c.stderr != "-" && !strings.Contains(stderr, c.stderr):
				t.Errorf("stderr %q, want it to hold %q", clip(stderr), c.stderr)
			}
			if c.exit == exitFailure && strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr has %d lines, want the one line of an error: %q", strings.Count(stderr, "\n"), clip(stderr))
			}
			if c.stdout != "-" && !strings.Contains(stdout, c.stdout) {
				t.Errorf("stdout %q, want it to hold %q", clip(stdout), c.stdout)
			}
			if rssKB > c.rssMB<<10 {
				t.Errorf("peak resident memory %d MB, want at most %d MB", rssKB>>10, c.rssMB)
			}
			size := int64(-1)
			if st, err := os.Stat(path); err == nil {
				size = st.Size()
			}
			t.Logf("%s: peak resident memory %d MB (input of %d bytes)", c.name, rssKB>>10, size)
		})
	}
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

// runHostileChild runs `audit args...` in a child process and returns its
// output, exit code and peak resident memory in KB.
func runHostileChild(t *testing.T, args []string) (stdout, stderr string, code int, rssKB int64) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	// A guard against a hang, not a time limit on the reader.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHostileChild$")
	rssFile := filepath.Join(t.TempDir(), "rss")
	cmd.Env = append(os.Environ(), hostileArgsEnv+"="+string(raw), hostileRSSEnv+"="+rssFile)
	// TestMain moves from the package's directory to the repository's.
	cmd.Dir = filepath.Join("cmd", "audit")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("running the child: %v", err)
	}
	code = cmd.ProcessState.ExitCode()
	if code == 100 {
		t.Fatalf("the child could not start: %s", errb.String())
	}
	if raw, err := os.ReadFile(rssFile); err == nil {
		rssKB, err = strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			t.Fatalf("peak memory of the child: %v", err)
		}
	} else if code == 0 || code == 1 {
		t.Fatalf("the child did not report its peak memory: %v", err)
	}
	return out.String(), errb.String(), code, rssKB
}

// hostileInputs builds the generated inputs once each, on first use.
type hostileInputs struct {
	dir  string
	mu   sync.Mutex
	done map[string]string
}

func (g *hostileInputs) get(t *testing.T, name string) string {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	if p, ok := g.done[name]; ok {
		return p
	}
	build := hostileGenerators[name]
	if build == nil {
		t.Fatalf("no generator for %q", name)
	}
	path := filepath.Join(g.dir, name)
	if err := build(path); err != nil {
		t.Fatalf("generating %s: %v", name, err)
	}
	debug.FreeOSMemory() // the inputs are large: give their memory back

	g.done[name] = path
	return path
}

// Generators of the inputs that are large once read.
var hostileGenerators = map[string]func(path string) error{
	// JSON nested a million deep in an extra column.
	"deep-1m.jsonl": func(path string) error {
		return writeJSONLLines(path, `{"request_id": "r0", "t0_ns": 1000, "x": `+strings.Repeat("[", 1_000_000)+strings.Repeat("]", 1_000_000)+"}")
	},
	// An event of 16 million '[': fastjson's validator recursed once a
	// level and overflowed the stack (a fatal error, not a panic).
	"deep-event-16m.jsonl": func(path string) error {
		return writeJSONLLines(path, `{"request_id": "r0", "t0_ns": 1000, "end_ns": 1300, "http_status": 200, "chunks": [{"t_ns": 1100, "data": "data: `+
			strings.Repeat("[", 16_000_000)+`\n\n"}, {"t_ns": 1200, "data": "data: [DONE]\n\n"}]}`)
	},
	// /dev/zero under a JSONL name: it grew to 4.5 GB before the line
	// limit said no (issue 21).
	"dev-zero.jsonl": func(path string) error { return os.Symlink("/dev/zero", path) },
	// A line with 200,000 extra keys, then 20,000 lines: every line cost
	// a value for every column, minutes in all (issue 21).
	"extra-keys-200k.jsonl": func(path string) error {
		var b strings.Builder
		b.WriteString(`{"request_id": "r0", "t0_ns": 1000`)
		for i := range 200_000 {
			fmt.Fprintf(&b, `, "k%d": 1`, i)
		}
		lines := []string{b.String() + "}"}
		for i := 1; i <= 20_000; i++ {
			lines = append(lines, fmt.Sprintf(`{"request_id": "r%d", "t0_ns": %d}`, i, 1000+i))
		}
		return writeJSONLLines(path, lines...)
	},
	// One line of 2 MB.
	"long-line.jsonl": func(path string) error {
		return writeJSONLLines(path, `{"request_id": "r0", "t0_ns": 1000, "chunks": [{"t_ns": 1100, "data": "`+strings.Repeat("x", 2<<20)+`"}]}`)
	},
	"chunk-100mb.parquet": func(path string) error { return writeHostileTrace(path, bigEventRequest()) },
	"bomb.arrow":          func(path string) error { return writeHostileTrace(path, bigEventRequest()) },
	"bomb.arrows":         func(path string) error { return writeHostileTrace(path, bigEventRequest()) },
	// 32 MiB of blank lines: room for 16 million events was made up front.
	"blank-lines-32mb.parquet": func(path string) error {
		return writeHostileTrace(path, oneChunkRequest(bytes.Repeat([]byte("\n"), 32<<20)))
	},
	// A decompression bomb: 32 requests of one 32 MiB chunk each, 1 GiB
	// once read, from a file of a few hundred KB.
	"bomb-1gib.parquet": func(path string) error {
		data := append([]byte("data: "), bytes.Repeat([]byte("a"), 32<<20)...)
		status := int32(200)
		return writeHostileTraceFunc(path, 32, func(i int, r *trace.Request) {
			*r = trace.Request{RequestID: "r" + strconv.Itoa(i), T0Ns: 1000, HTTPStatus: &status,
				Chunks: []trace.Chunk{{TNs: 2000, Data: data}}}
		})
	},
	// 150,000 requests whose ids are 4 KiB each (600 MB of ids, the most
	// --max-id-bytes allows) compressed to a few hundred KB: the duplicate
	// check held every id (issue 21).
	"id-bomb.parquet": writeIDBomb,
	"id-bomb.arrows":  writeIDBomb,
	"id-bomb-flat.arrow": func(path string) error {
		return writeIDBombLayout(path, trace.Flat)
	},
	// An AISBench work_dir whose numpy_store computes each array as it is
	// read: a 12 KB database of 50-million-point arrays (issue 21).
	"aisbench-generated.workdir": func(path string) error {
		if err := copyTree("testdata/aisbench/basic", path); err != nil {
			return err
		}
		hdr := "{'descr': '<f8', 'fortran_order': False, 'shape': (50000000,), }"
		hdr += strings.Repeat(" ", 63-(10+len(hdr))%64) + "\n"
		npy := fmt.Sprintf("x'934e554d50590100%02x%02x%x'", len(hdr)&0xff, len(hdr)>>8, hdr)
		return execSQL(filepath.Join(path, "performances", "model", "db_data", "0123abcd.db"),
			"ALTER TABLE numpy_store RENAME TO old",
			"CREATE TABLE numpy_store (id INTEGER PRIMARY KEY, n INTEGER, arr_blob BLOB GENERATED ALWAYS AS ("+npy+" || zeroblob(n)) VIRTUAL)",
			"INSERT INTO numpy_store (id, n) SELECT id, 400000000 FROM old",
			"DROP TABLE old", "VACUUM")
	},
	// An AISBench work_dir cut short with a pending journal, its database
	// 3.2 GB on paper (a sparse file): it was copied through memory.
	"aisbench-sparse-journal.workdir": func(path string) error {
		if err := copyTree("testdata/aisbench/killed", path); err != nil {
			return err
		}
		return os.Truncate(filepath.Join(path, "performances", "model", "tmp", "tmp_0123abcd.db"), 3200<<20)
	},
	// A million one-chunk requests.
	"million.parquet": func(path string) error {
		done := []byte("data: [DONE]\n\n")
		status := int32(200)
		return writeHostileTraceFunc(path, 1_000_000, func(i int, r *trace.Request) {
			t0 := int64(1_000_000_000 + i*1000)
			*r = trace.Request{RequestID: "r" + strconv.Itoa(i), T0Ns: t0, HTTPStatus: &status,
				Chunks: []trace.Chunk{{TNs: t0 + 500, Data: done}}}
		})
	},
}

// hostileEventPayload is the 100 MiB content the big-chunk inputs carry.
const hostileBigContent = 100 << 20

func bigEventRequest() trace.Request {
	var b bytes.Buffer
	b.WriteString(`data: {"choices":[{"delta":{"content":"`)
	b.Write(bytes.Repeat([]byte("a"), hostileBigContent))
	b.WriteString("\"}}]}\n\n")
	return oneChunkRequest(b.Bytes())
}

func oneChunkRequest(data []byte) trace.Request {
	status := int32(200)
	end := int64(3000)
	return trace.Request{RequestID: "r0", T0Ns: 1000, EndNs: &end, HTTPStatus: &status,
		Chunks: []trace.Chunk{{TNs: 1100, Data: data}, {TNs: 1200, Data: []byte("data: [DONE]\n\n")}}}
}

func writeJSONLLines(path string, lines ...string) error {
	var b strings.Builder
	b.WriteString(`{"run": {"max_concurrency": 1, "schema_version": "1"}}` + "\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// hostileIDBombRequests is how many 4 KiB ids the id bombs hold.
const hostileIDBombRequests = 150_000

func writeIDBomb(path string) error { return writeIDBombLayout(path, trace.Nested) }

func writeIDBombLayout(path string, layout trace.Layout) error {
	prefix := strings.Repeat("a", 4096-7)
	status := int32(200)
	done := []byte("data: [DONE]\n\n")
	meta := trace.Meta{}
	meta.Set(trace.KeyMaxConcurrency, "1")
	w, err := trace.Create(path, "", nil, trace.WriteOptions{Meta: meta, Layout: layout})
	if err != nil {
		return err
	}
	for i := range hostileIDBombRequests {
		t0 := int64(1_000_000_000 + i*1000)
		r := trace.Request{RequestID: fmt.Sprintf("%s%07d", prefix, i), T0Ns: t0, HTTPStatus: &status,
			Chunks: []trace.Chunk{{TNs: t0 + 500, Data: done}}}
		if err := w.Write(&r); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

// copyTree copies the directory src to dst (new).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
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
}

// execSQL runs statements on the SQLite database at path.
func execSQL(path string, statements ...string) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range statements {
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

func writeHostileTrace(path string, reqs ...trace.Request) error {
	return writeHostileTraceFunc(path, len(reqs), func(i int, r *trace.Request) { *r = reqs[i] })
}

// writeHostileTraceFunc writes n requests made by next, one at a time.
func writeHostileTraceFunc(path string, n int, next func(i int, r *trace.Request)) error {
	meta := trace.Meta{}
	meta.Set(trace.KeyMaxConcurrency, "1")
	w, err := trace.Create(path, "", nil, trace.WriteOptions{Meta: meta})
	if err != nil {
		return err
	}
	var r trace.Request
	for i := range n {
		next(i, &r)
		if err := w.Write(&r); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

// Package tooltest holds what the tools' calculators' tests share: the
// traces the goldens of testdata/tools were made from (every bundled trace,
// a trace of every tracegen profile for both APIs), the goldens themselves
// (each tool's own code at its pinned commit, run by
// testdata/tools/oracle.py), and the comparison of a float to a golden's.
package tooltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	_ "github.com/sseaudit/sseaudit/trace/arrowfile"
	_ "github.com/sseaudit/sseaudit/trace/parquetfile"
	"github.com/sseaudit/sseaudit/tracegen"
)

// Case is one trace a golden was made from.
type Case struct {
	Name string // the golden's name: basic, findings-X, external-X, gen-PROFILE-API
	API  string // chat or completions
	Path string // a trace file, or "" for a generated trace
	Gen  tracegen.Options
}

// GenOptions are the options regen.sh generates every profile's trace with
// (audit gen --requests 24 --concurrency 4 --output-tokens 24 --seed 1).
func GenOptions(profile, api string) tracegen.Options {
	return tracegen.Options{Profile: profile, API: api, Requests: 24, Concurrency: 4, OutputTokens: 24, Seed: 1}
}

// Cases are every bundled trace file under root/testdata/traces (each
// format of basic against basic's golden), the quirk traces of
// testdata/tools/quirks and a generated trace of every profile for both
// APIs.
func Cases(t testing.TB, root string) []Case {
	t.Helper()
	var cs []Case
	dir := filepath.Join(root, "testdata", "traces")
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ext := filepath.Ext(path)
		switch ext {
		case ".jsonl", ".parquet", ".arrow", ".arrows":
		default:
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		base := strings.TrimSuffix(filepath.Base(path), ext)
		name := base
		switch {
		case strings.HasPrefix(rel, "findings"+string(filepath.Separator)):
			name = "findings-" + base
		case strings.HasPrefix(rel, "external"+string(filepath.Separator)):
			name = "external-" + base
		case strings.HasPrefix(base, "basic"):
			name = "basic"
		}
		cs = append(cs, Case{Name: name, API: "chat", Path: path})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	quirks, err := filepath.Glob(filepath.Join(root, "testdata", "tools", "quirks", "*.jsonl"))
	if err != nil || len(quirks) == 0 {
		t.Fatalf("no quirk traces: %v", err)
	}
	for _, q := range quirks {
		cs = append(cs, Case{Name: "quirks-" + strings.TrimSuffix(filepath.Base(q), ".jsonl"), API: "chat", Path: q})
	}
	for _, api := range []string{"chat", "completions"} {
		for _, p := range tracegen.Profiles() {
			cs = append(cs, Case{Name: "gen-" + p.Name + "-" + api, API: api, Gen: GenOptions(p.Name, api)})
		}
	}
	return cs
}

// Open opens the case's trace; a generated one is written to a file in dir
// first.
func (c Case) Open(t testing.TB, dir string) trace.Reader {
	t.Helper()
	path := c.Path
	if path == "" {
		meta, err := tracegen.Meta(c.Gen)
		if err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(dir, c.Name+".jsonl")
		w, err := trace.Create(path, "", io.Discard, trace.WriteOptions{Meta: meta, Extra: tracegen.Extra()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tracegen.Generate(c.Gen, w); err != nil {
			w.Abort()
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Golden is what a tool's own code reported on a trace (oracle.py).
type Golden struct {
	Tool      string `json:"tool"`
	API       string `json:"api"`
	Requests  int    `json:"requests"`
	DurationS float64
	// Error is the exception the tool's calculate_metrics raised, "" for
	// none (then Result holds its keys).
	Error string `json:"error"`
	// Keys are the result keys in the tool's order, each with its JSON
	// value; null for a key that depends on what the bytes lack (Depends
	// says on what).
	Keys       []GoldenKey
	Depends    map[string]string `json:"depends"`
	PerRequest []PerRequest      `json:"per_request"`
	Source     struct {
		Repo   string   `json:"repo"`
		Commit string   `json:"commit"`
		Files  []string `json:"files"`
	} `json:"source"`
}

// GoldenKey is one result key with its raw JSON value.
type GoldenKey struct {
	Name  string
	Value json.RawMessage
}

// PerRequest is a request's RequestFuncOutput.
type PerRequest struct {
	Success      bool            `json:"success"`
	StartTime    float64         `json:"start_time"`
	TTFT         float64         `json:"ttft"`
	ITL          []float64       `json:"itl"`
	Latency      float64         `json:"latency"`
	OutputTokens json.RawMessage `json:"output_tokens"`
	PromptLen    json.RawMessage `json:"prompt_len"`
	Error        string          `json:"error"`
}

// LoadGolden reads root/testdata/tools/golden/NAME.TOOL.json.
func LoadGolden(t testing.TB, root, name, tool string) *Golden {
	t.Helper()
	path := filepath.Join(root, "testdata", "tools", "golden", name+"."+tool+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g Golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var raw struct {
		Result json.RawMessage `json:"result"`
		Dur    json.Number     `json:"duration_s"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	g.DurationS, _ = raw.Dur.Float64()
	if len(raw.Result) > 0 {
		if g.Keys, err = orderedKeys(raw.Result); err != nil {
			t.Fatalf("%s: result: %v", path, err)
		}
	}
	return &g
}

// orderedKeys reads a JSON object's members in order.
func orderedKeys(obj json.RawMessage) ([]GoldenKey, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("want an object")
	}
	var ks []GoldenKey
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		ks = append(ks, GoldenKey{Name: tok.(string), Value: v})
	}
	return ks, nil
}

// Number reads a golden's number: a JSON number, or Python's spelling of a
// non-finite one ("NaN", "Infinity", "-Infinity").
func Number(raw json.RawMessage) (float64, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "NaN":
			return math.NaN(), true
		case "Infinity":
			return math.Inf(1), true
		case "-Infinity":
			return math.Inf(-1), true
		}
		return 0, false
	}
	var x float64
	if err := json.Unmarshal(raw, &x); err != nil {
		return 0, false
	}
	return x, true
}

// Close reports whether got equals want within a relative 1e-9 (NaN equal
// to NaN, infinities to themselves).
func Close(got, want float64) bool {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		return math.IsNaN(want) && math.IsNaN(got)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return got == want
	case got == want:
		return true
	}
	return math.Abs(got-want) <= 1e-9*math.Max(math.Abs(got), math.Abs(want))
}

// Key is a calculator's result key, as it compares with a golden's.
type Key struct {
	Name        string
	Value       any // int64, float64 or nil
	NotComputed string
}

// CompareKeys checks a calculator's keys against the golden's: every golden
// key there, in the golden's order (the calculator may have more keys
// before or between them, not computed: the run's arguments), a key the
// golden holds as depending on what the bytes lack not computed, and every
// other equal to the tool's value (relative 1e-9; None as nil).
func CompareKeys(t testing.TB, got []Key, g *Golden) {
	t.Helper()
	at := map[string]int{}
	for i, k := range got {
		at[k.Name] = i
	}
	last := -1
	for _, gk := range g.Keys {
		i, ok := at[gk.Name]
		if !ok {
			t.Errorf("key %s: missing", gk.Name)
			continue
		}
		if i < last {
			t.Errorf("key %s: out of the tool's order", gk.Name)
		}
		last = i
		k := got[i]
		if why, dep := g.Depends[gk.Name]; dep {
			if k.NotComputed == "" {
				t.Errorf("key %s: computed (%v), but it depends on the %s", gk.Name, k.Value, why)
			}
			continue
		}
		if k.NotComputed != "" {
			t.Errorf("key %s: not computed (%s), the tool's value %s", gk.Name, k.NotComputed, gk.Value)
			continue
		}
		if string(gk.Value) == "null" {
			if k.Value != nil {
				t.Errorf("key %s: %v, the tool's None", gk.Name, k.Value)
			}
			continue
		}
		want, ok := Number(gk.Value)
		if !ok {
			t.Errorf("key %s: the golden's %s is not a number", gk.Name, gk.Value)
			continue
		}
		var x float64
		switch v := k.Value.(type) {
		case int64:
			x = float64(v)
			if bytes.ContainsAny(gk.Value, ".eE") {
				t.Errorf("key %s: an int, the tool's a float (%s)", gk.Name, gk.Value)
			}
		case float64:
			x = v
			if !bytes.ContainsAny(gk.Value, ".eEIN") {
				t.Errorf("key %s: a float, the tool's an int (%s)", gk.Name, gk.Value)
			}
		default:
			t.Errorf("key %s: %T %v, the tool's %s", gk.Name, k.Value, k.Value, gk.Value)
			continue
		}
		if !Close(x, want) {
			t.Errorf("key %s: %v, the tool's %v", gk.Name, x, want)
		}
	}
}

// Replayed is a fuzz test's request: a 200 whose body arrives step bytes a
// read, perTick reads to each microsecond, from t0 1 s to an end at 9 s,
// replayed with framer; the replay's own error fails the test.
func Replayed(t testing.TB, body []byte, step, perTick int, framer replay.Framer) (*trace.Request, *replay.Result) {
	t.Helper()
	status := int32(200)
	end := int64(9e9)
	req := &trace.Request{RequestID: "f", T0Ns: 1e9, EndNs: &end, HTTPStatus: &status}
	for i := 0; i < len(body); i += step {
		tick := int64(i/(step*perTick)) + 1
		req.Chunks = append(req.Chunks, trace.Chunk{TNs: 1e9 + tick*1000, Data: body[i:min(i+step, len(body))]})
	}
	res, err := replay.Replay(req, replay.Options{Framer: framer, MaxEventBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	return req, res
}

// EachGolden runs fn as a subtest on every case, with the tool's golden
// of it, after checking the golden was made at commit.
func EachGolden(t *testing.T, root, tool, commit string, fn func(t *testing.T, tc Case, g *Golden)) {
	t.Helper()
	for _, tc := range Cases(t, root) {
		t.Run(tc.Name+"/"+tc.Path, func(t *testing.T) {
			g := LoadGolden(t, root, tc.Name, tool)
			if g.Source.Commit != commit {
				t.Fatalf("golden made at %s, want %s", g.Source.Commit, commit)
			}
			fn(t, tc, g)
		})
	}
}

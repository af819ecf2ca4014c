package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readmeDuckDBQueries returns the statements of the README's recipe that
// start with a "-- DuckDB" comment, in order.
func readmeDuckDBQueries(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Aggregating many runs\n")
	if !ok {
		t.Fatal("README.md has no section \"Aggregating many runs\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var queries []string
	for _, block := range strings.Split(section, "```sql\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		for _, stmt := range strings.Split(block, ";") {
			if stmt = strings.TrimSpace(stmt); strings.HasPrefix(stmt, "-- DuckDB") {
				queries = append(queries, stmt)
			}
		}
	}
	return queries
}

// TestAggregateRunsRecipe runs the README's DuckDB recipe on the replay
// tables of 200 runs (two bundled, the rest generated) and checks it against audit report's JSON: the counts
// exactly, the averages equal after AISBench's rounding (what its table
// prints).
func TestAggregateRunsRecipe(t *testing.T) {
	modules := os.Getenv("SSEAUDIT_NODE_MODULES")
	if modules == "" {
		t.Skip("SSEAUDIT_NODE_MODULES is not set: set it to a node_modules directory holding @duckdb/node-api to run the README's DuckDB recipe")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed, and SSEAUDIT_NODE_MODULES asks for the DuckDB recipe to run")
	}
	queries := readmeDuckDBQueries(t)
	if len(queries) != 3 {
		t.Fatalf("found %d DuckDB queries in the README's recipe: want 3", len(queries))
	}
	tmp := t.TempDir()
	runs := map[string]string{"basic": "testdata/traces/basic.parquet", "mixed": mixedTrace(t, tmp)}
	// And 198 more, generated: the recipe is for many runs. (Not the
	// aisbench-breakers profile alone: a run of it can leave a success
	// without usage, and the report then refuses the whole stage.)
	profiles := []string{"chat", "reasoning", "speculative", "network", "crlf", "failures", "mixed"}
	for i := range 198 {
		name := fmt.Sprintf("gen-%03d", i)
		path := filepath.Join(tmp, name+".jsonl")
		if _, stderr, code := runCLI(t, "", "gen", "--profile", profiles[i%len(profiles)], "--requests", strconv.Itoa(12+i%9),
			"--concurrency", "4", "--output-tokens", "12", "--seed", strconv.Itoa(i+1), "-o", path); code != 0 {
			t.Fatalf("gen %s: exit %d\n%s", name, code, stderr)
		}
		runs[name] = path
	}
	for name, path := range runs {
		out := filepath.Join(tmp, "runs", name)
		if _, stderr, code := runCLI(t, "", "replay", "--format", "parquet", "--out-dir", out, path); code != 0 {
			t.Fatalf("replay %s: exit %d\n%s", path, code, stderr)
		}
	}
	script, err := filepath.Abs("cmd/audit/testdata/duckdb-sql.mjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, append([]string{script}, queries...)...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "SSEAUDIT_NODE_MODULES="+modules)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("duckdb-sql.mjs: %v", err)
	}
	var results [][]map[string]any
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("duckdb-sql.mjs output %q: %v", out, err)
	}
	figures, itl, classes := results[0], results[1], results[2]
	if len(figures) != len(runs) || len(itl) != len(runs) || len(classes) < 2*len(runs) {
		t.Fatalf("DuckDB gave %d, %d and %d rows: want one a run (%d) and several classes a run", len(figures), len(itl), len(classes), len(runs))
	}
	quirk, refused := 0, 0
	for i, row := range figures {
		run := row["run"].(string)
		stdout, stderr, code := runCLI(t, "", "report", "--format", "json", runs[run])
		if code != 0 {
			t.Fatalf("report %s: exit %d\n%s", runs[run], code, stderr)
		}
		var rep struct {
			Stages struct {
				Total struct {
					Error *struct{ Message string }
				}
			}
			Metrics map[string]map[string]struct {
				Average  float64
				N        int64
				Samples  int64
				AISBench map[string]string `json:"aisbench"`
			}
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if e := rep.Stages.Total.Error; e != nil {
			// The report refuses the whole stage (a success without usage:
			// AISBench would have used its tokenizer); the recipe cannot know.
			refused++
			t.Logf("%s: the report has no whole stage (%.80s...): not compared", run, e.Message)
			continue
		}
		total := func(metric string) (n, samples int64, printed float64) {
			m := rep.Metrics[metric]["total"]
			if metric == "ITL" && m.AISBench["Average"] == "" {
				// AISBench's quirk: the first request with intervals has only
				// zero ones, and its table leaves ITL out; the recipe does not.
				quirk++
				return m.N, -1, math.NaN()
			}
			v, err := strconv.ParseFloat(strings.TrimSuffix(m.AISBench["Average"], " ms"), 64)
			if err != nil {
				t.Fatalf("%s: %s average %q: %v", run, metric, m.AISBench["Average"], err)
			}
			return m.N, m.Samples, v
		}
		e2elN, _, e2el := total("E2EL")
		_, _, ttft := total("TTFT")
		_, _, tpot := total("TPOT")
		_, itlSamples, itlMean := total("ITL")
		checkInt(t, run, "succeeded", row["succeeded"], e2elN)
		if itlSamples >= 0 {
			checkInt(t, run, "itl_samples", row["itl_samples"], itlSamples)
			checkInt(t, run, "itl_samples (from the intervals)", itl[i]["itl_samples"], itlSamples)
		}
		if itl[i]["run"] != run {
			t.Fatalf("the two queries' rows are not in the same order: %v and %v", itl[i]["run"], run)
		}
		for _, c := range []struct {
			name string
			got  any
			want float64
		}{{"e2el_ms", row["e2el_ms"], e2el}, {"ttft_ms", row["ttft_ms"], ttft}, {"tpot_ms", row["tpot_ms"], tpot}, {"itl_ms", itl[i]["itl_ms"], itlMean}} {
			if math.IsNaN(c.want) {
				continue
			}
			if got, ok := c.got.(float64); !ok || math.Abs(got-c.want) > 1e-9 {
				t.Errorf("%s: %s is %v in DuckDB: want %v, AISBench's average as the report prints it", run, c.name, c.got, c.want)
			}
		}
		if !strings.HasPrefix(run, "gen-") {
			t.Logf("%s: %d succeeded, %d ITL samples, E2EL %v ms, TTFT %v ms, TPOT %v ms, ITL %v ms: as the report", run, e2elN, itlSamples, e2el, ttft, tpot, itlMean)
		}
	}
	if refused > len(runs)/10 {
		t.Errorf("%d of %d runs have no whole stage in the report: too few compared", refused, len(runs))
	}
	if quirk > len(runs)/10 {
		t.Errorf("%d of %d runs have no ITL average in the report: the ITL average was checked on too few", quirk, len(runs))
	}
	t.Logf("%d runs: the recipe's figures equal the report's in %d (the ITL average left out of %d by AISBench's zero-interval quirk); %d without a whole stage in the report", len(runs), len(runs)-refused, quirk, refused)
}

// checkInt compares a count DuckDB gave (BIGINT comes as text, HUGEINT sums
// too) with the report's.
func checkInt(t *testing.T, run, name string, got any, want int64) {
	t.Helper()
	var n int64
	var err error
	switch v := got.(type) {
	case string:
		n, err = strconv.ParseInt(v, 10, 64)
	case float64:
		n = int64(v)
	default:
		err = strconv.ErrSyntax
	}
	if err != nil || n != want {
		t.Errorf("%s: %s is %v in DuckDB: want %d, as the report", run, name, got, want)
	}
}

package parquetfile

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/trace"
)

const externalDir = "../../testdata/traces/external"

// duckdbRequests are the requests testdata/traces/external/make-duckdb.mjs
// writes.
func duckdbRequests() []trace.Request {
	return []trace.Request{
		{RequestID: "r0", T0Ns: 1_000_000_000, EndNs: ptr[int64](1_350_000_000), HTTPStatus: ptr[int32](200),
			Chunks: []trace.Chunk{
				{TNs: 1_200_000_000, Data: []byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n")},
				{TNs: 1_350_000_000, Data: []byte("\xff\xfedata: [DONE]\x00")},
			},
			TimePointsS: []float64{1.0, 1.2, 1.35}, InputTokens: ptr[int64](12), OutputTokens: ptr[int64](2),
			Extra: []trace.Value{{Str: "model-a"}, {Int: 1}}},
		{RequestID: "r1", T0Ns: 2_000_000_000, EndNs: ptr[int64](2_100_000_000), HTTPStatus: ptr[int32](200),
			Chunks: []trace.Chunk{}, Extra: []trace.Value{{Str: "model-a"}, {Int: 1}}},
		{RequestID: "r2", T0Ns: 3_000_000_000, Error: ptr("read tcp: connection reset by peer"),
			Extra: []trace.Value{{Null: true}, {Int: 2}}},
		{RequestID: "r3", T0Ns: 4_000_000_000, EndNs: ptr[int64](4_000_000_500), HTTPStatus: ptr[int32](500),
			Chunks:      []trace.Chunk{{TNs: 4_000_000_400, Data: []byte(`{"error":"overloaded"}`)}},
			TimePointsS: []float64{}, Extra: []trace.Value{{Str: "model-b"}, {Null: true}}},
	}
}

func TestDuckDBFixtures(t *testing.T) {
	for _, tc := range []struct {
		file   string
		layout trace.Layout
	}{{"duckdb-nested.parquet", trace.Nested}, {"duckdb-flat.parquet", trace.Flat}} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(externalDir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			info, got, err := readAll(t, tc.file, data)
			if err != nil {
				t.Fatal(err)
			}
			want := duckdbRequests()
			if tc.layout == trace.Flat {
				// The flat file has no time_points_s (and, as
				// flattenExpectation has it, cannot tell an empty chunks list
				// from a null one).
				for i := range want {
					want[i].TimePointsS = nil
				}
			}
			checkRequests(t, got, want, tc.layout)
			wantInfo := trace.Info{Path: tc.file, Format: "parquet", Layout: tc.layout,
				Meta: trace.Meta{{Key: "sseaudit.max_concurrency", Value: "2"}, {Key: "sseaudit.schema_version", Value: "1"},
					{Key: "sseaudit.source", Value: "duckdb " + tc.file}},
				Extra: []trace.ExtraColumn{{Name: "model", Kind: trace.ExtraString}, {Name: "attempt", Kind: trace.ExtraInt64}}}
			if !reflect.DeepEqual(info, wantInfo) {
				t.Errorf("info:\n got %#v\nwant %#v", info, wantInfo)
			}
		})
	}
}

// duckdbOutput is what testdata/duckdb-query.mjs prints.
type duckdbOutput struct {
	Types map[string]string `json:"types"`
	Rows  []map[string]any  `json:"rows"`
	Meta  map[string]string `json:"meta"`
}

// TestDuckDBReadsOurFiles writes traces with NewWriter and has DuckDB read
// them back (needs node and @duckdb/node-api: SSEAUDIT_NODE_MODULES names
// the node_modules directory).
func TestDuckDBReadsOurFiles(t *testing.T) {
	modules := os.Getenv("SSEAUDIT_NODE_MODULES")
	if modules == "" {
		t.Skip("SSEAUDIT_NODE_MODULES is not set: set it to a node_modules directory holding @duckdb/node-api to check that DuckDB reads our files")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: cannot check that DuckDB reads our files")
	}
	if _, err := os.Stat(filepath.Join(modules, "@duckdb", "node-api")); err != nil {
		t.Skipf("no @duckdb/node-api in %s: %v", modules, err)
	}
	reqs := sampleRequests()
	for _, layout := range []trace.Layout{trace.Nested, trace.Flat} {
		t.Run(string(layout), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ours.parquet")
			data := writeTrace(t, reqs, trace.WriteOptions{Meta: sampleMeta, Extra: allExtras, Layout: layout, RowGroupRequests: 2})
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(node, "testdata/duckdb-query.mjs", string(layout), path)
			cmd.Env = append(os.Environ(), "SSEAUDIT_NODE_MODULES="+modules)
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("duckdb-query.mjs: %v", err)
			}
			var got duckdbOutput
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("duckdb-query.mjs output %q: %v", out, err)
			}
			wantTypes := map[string]string{
				"request_id": "VARCHAR", "t0_ns": "BIGINT", "end_ns": "BIGINT", "http_status": "INTEGER", "error": "VARCHAR",
				"time_points_s": "DOUBLE[]", "input_tokens": "BIGINT", "output_tokens": "BIGINT",
			}
			duckdbType := map[trace.ExtraKind]string{
				trace.ExtraString: "VARCHAR", trace.ExtraInt64: "BIGINT", trace.ExtraFloat64: "DOUBLE",
				trace.ExtraBool: "BOOLEAN", trace.ExtraBinary: "BLOB", trace.ExtraJSON: "VARCHAR",
			}
			for _, x := range allExtras {
				wantTypes[x.Name] = duckdbType[x.Kind]
			}
			if layout == trace.Nested {
				wantTypes["chunks"] = `STRUCT(t_ns BIGINT, "data" BLOB)[]`
			} else {
				wantTypes["t_ns"], wantTypes["data"] = "BIGINT", "BLOB"
			}
			if !reflect.DeepEqual(got.Types, wantTypes) {
				t.Errorf("DuckDB types:\n got %v\nwant %v", got.Types, wantTypes)
			}
			wantMeta := map[string]string{trace.KeySchemaVersion: "1", "sseaudit.extra_kind.attrs": "json"}
			for _, kv := range sampleMeta {
				wantMeta[kv.Key] = kv.Value
			}
			if !reflect.DeepEqual(got.Meta, wantMeta) {
				t.Errorf("DuckDB metadata:\n got %v\nwant %v", got.Meta, wantMeta)
			}
			var wantRows []map[string]any
			if layout == trace.Nested {
				wantRows = duckdbNestedRows(reqs)
			} else {
				wantRows = duckdbFlatRows(reqs)
			}
			if !reflect.DeepEqual(got.Rows, wantRows) {
				t.Errorf("DuckDB rows:\n got %v\nwant %v", got.Rows, wantRows)
			}
		})
	}
}

// The expected rows of duckdb-query.mjs, as decoded from its JSON: every
// value is text or null, lists are lists of text.
func text[T int64 | int32](p *T) any {
	if p == nil {
		return nil
	}
	return strconv.FormatInt(int64(*p), 10)
}

func textPtr(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func duckdbNestedRows(reqs []trace.Request) []map[string]any {
	var rows []map[string]any
	for _, r := range reqs {
		row := map[string]any{
			"request_id": r.RequestID, "t0_ns": strconv.FormatInt(r.T0Ns, 10), "end_ns": text(r.EndNs),
			"http_status": text(r.HTTPStatus), "error": textPtr(r.Error), "input_tokens": text(r.InputTokens),
			"output_tokens": text(r.OutputTokens), "n_chunks": nil, "chunks": nil, "time_points_s": nil,
		}
		if r.Chunks != nil {
			row["n_chunks"] = strconv.Itoa(len(r.Chunks))
			chunks := []any{}
			for _, c := range r.Chunks {
				chunks = append(chunks, strconv.FormatInt(c.TNs, 10)+":"+hexUpper(c.Data))
			}
			row["chunks"] = chunks
		}
		if r.TimePointsS != nil {
			tps := []any{}
			for _, x := range r.TimePointsS {
				tps = append(tps, pynum.PyFloatRepr(x)) // DuckDB spells a DOUBLE as Python's repr does: 1.0, 1e-09
			}
			row["time_points_s"] = tps
		}
		rows = append(rows, row)
	}
	return rows
}

func duckdbFlatRows(reqs []trace.Request) []map[string]any {
	var rows []map[string]any
	for _, r := range reqs {
		_ = trace.FlattenRequest(&r, func(fr *trace.FlatRow) error {
			row := map[string]any{"request_id": r.RequestID, "t0_ns": strconv.FormatInt(r.T0Ns, 10),
				"http_status": text(r.HTTPStatus), "error": textPtr(r.Error), "t_ns": nil, "data": nil}
			if !fr.ChunkNull {
				row["t_ns"] = strconv.FormatInt(fr.Chunk.TNs, 10)
				row["data"] = hexUpper(fr.Chunk.Data)
			}
			rows = append(rows, row)
			return nil
		})
	}
	return rows
}

func hexUpper(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) }

package tools

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sseaudit/sseaudit/internal/tooltest"
	"github.com/sseaudit/sseaudit/trace"
)

// TestEveryDifferenceAttributed: on every bundled trace, quirk trace and
// generated trace, each tool with every rule switched to AISBench's equals
// AISBench on every row AISBench has (the attribution is complete), and
// every rule listed moves something.
func TestEveryDifferenceAttributed(t *testing.T) {
	dir := t.TempDir()
	for _, c := range tooltest.Cases(t, root) {
		if c.Path != "" && !strings.HasSuffix(c.Path, ".jsonl") {
			continue // the other formats of basic hold the same requests
		}
		t.Run(c.Name, func(t *testing.T) {
			r := c.Open(t, dir)
			path := r.Info().Path
			r.Close()
			rep := runTrace(t, path)
			for _, res := range rep.Residual {
				for _, d := range res.Deltas {
					if d.Own.Known {
						t.Errorf("%s with every rule switched: %s %s, AISBench's %s", res.Tool.Title, d.Quantity.Label(),
							spell(d.Quantity, d.Switched), spell(d.Quantity, d.Own))
					}
				}
			}
			for _, a := range rep.Why {
				if len(a.Deltas) == 0 {
					t.Errorf("%s's %s listed without a move", a.Tool.Title, a.Rule.Name)
				}
			}
		})
	}
}

// TestWriters: the text, markdown, HTML and JSON of a report are made
// from the same model: every tool's title in each, valid JSON whose
// results hold the calculators' keys.
func TestWriters(t *testing.T) {
	path := root + "/testdata/traces/basic.jsonl"
	list, _ := ParseList("aisbench,vllm,sglang,evalscope,aisbench@pr479")
	rep, err := Run(func() (trace.Reader, error) { return trace.Open(path, trace.OpenOptions{}) }, Options{Tools: list, Why: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return rep.WriteText(b) },
		"markdown": func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) },
		"html":     func(b *bytes.Buffer) error { return rep.WriteHTML(b) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		for _, tr := range rep.Tools {
			if !strings.Contains(b.String(), tr.Tool.Title) {
				t.Errorf("%s: no %s", name, tr.Tool.Title)
			}
		}
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tools map[string]struct {
			Result      map[string]any    `json:"result"`
			NotComputed map[string]string `json:"not_computed"`
			Summary     map[string]any    `json:"summary"`
		} `json:"tools"`
		Why []map[string]any `json:"why"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	for _, tr := range rep.Tools {
		got := doc.Tools[tr.Tool.Name]
		if len(got.Result)+len(got.NotComputed) != len(tr.Keys) {
			t.Errorf("%s: %d results and %d not computed, %d keys", tr.Tool.Name, len(got.Result), len(got.NotComputed), len(tr.Keys))
		}
		if len(got.Summary) != len(Quantities) {
			t.Errorf("%s: %d summary quantities", tr.Tool.Name, len(got.Summary))
		}
	}
	if len(doc.Why) != len(rep.Why) {
		t.Errorf("JSON why: %d, report %d", len(doc.Why), len(rep.Why))
	}
}

// TestHostileTextEscaped: a trace path holding markup comes out escaped
// in the HTML page.
func TestHostileTextEscaped(t *testing.T) {
	rep := &Report{Trace: `<script>alert(1)</script>.jsonl`, API: "chat", Tools: []*ToolResult{{Tool: Known[0], Notes: []string{"<b>x</b>"}}}}
	var b bytes.Buffer
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<script>") || strings.Contains(b.String(), "<b>x") {
		t.Errorf("markup not escaped:\n%s", b.String())
	}
}

// TestParseList: the default is every released tool; names in the order
// given, each once; an unknown name says which it knows.
func TestParseList(t *testing.T) {
	ts, err := ParseList("")
	if err != nil || len(ts) != 4 || ts[0].Name != "aisbench" || ts[1].Name != "vllm" || ts[2].Name != "sglang" || ts[3].Name != "evalscope" {
		t.Errorf("default: %v %v", ts, err)
	}
	if ts, err := ParseList("sglang, aisbench@pr481"); err != nil || len(ts) != 2 || ts[0].Name != "sglang" {
		t.Errorf("list: %v %v", ts, err)
	}
	for _, bad := range []string{"vllm,vllm", "genai-perf", "vllm,"} {
		if _, err := ParseList(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

// TestJSONSchema: the JSON of every bundled, quirk and generated trace's
// report, every tool named, validates against schemas/tools/v1.schema.json
// (a draft 2020-12 validator).
func TestJSONSchema(t *testing.T) {
	f, err := os.Open(root + "/schemas/tools/v1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("tools-v1.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("tools-v1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Join(Names(), ",")
	dir := t.TempDir()
	for _, tc := range tooltest.Cases(t, root) {
		if tc.Path != "" && !strings.HasSuffix(tc.Path, ".jsonl") {
			continue
		}
		r := tc.Open(t, dir)
		path := r.Info().Path
		r.Close()
		rep := runTools(t, path, names)
		var b bytes.Buffer
		if err := rep.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(&b)
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: %v", tc.Name, err)
		}
	}
}

package comparison

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/tracegen"
)

// TestJSONSchema: the JSON of comparisons of every shape — a run against
// itself, a change paired and unpaired, pairing by prompt, attributions,
// failures, no max concurrency, every kind of --fail-on — validates
// against schemas/diff/v1.schema.json (a draft 2020-12 validator), and the
// schema refuses a key it does not define.
func TestJSONSchema(t *testing.T) {
	f, err := os.Open("../schemas/diff/v1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("diff-v1.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("diff-v1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var rules []FailOn
	for _, s := range []string{"ITL.Average>+0%", "TPOT.P90>+2ms", "success<99.5%", "e2el.p99.9 >= 2s", "throughput<-5%"} {
		r, err := ParseFailOn(s)
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, r)
	}
	failures := tracegen.Options{Profile: "failures", Requests: 40, Concurrency: 4, Seed: 11, OutputTokens: 24}
	noC := small(12, 20*time.Millisecond)
	noC.Concurrency = 0
	base := genSide(t, small(3, 20*time.Millisecond), nil)
	for _, tc := range []struct {
		name string
		a, b *Side
		o    Options
	}{
		{"itself", base, genSide(t, small(3, 20*time.Millisecond), nil), Options{FailOn: rules}},
		{"itl +15% paired", base, genSide(t, small(3, 23*time.Millisecond), nil), Options{FailOn: rules}},
		{"unpaired", base, genSide(t, small(4, 23*time.Millisecond), nil), Options{FailOn: rules, Resamples: 200}},
		{"by prompt", base, genSide(t, small(3, 20*time.Millisecond), func(r *trace.Request) { r.RequestID = "x-" + r.RequestID }), Options{}},
		{"usage tail dropped", base, genSide(t, small(3, 20*time.Millisecond), dropUsageTail), Options{FailOn: rules}},
		{"failures", base, genSide(t, failures, nil), Options{FailOn: rules, Resamples: 200}},
		{"no max concurrency", genSide(t, noC, nil), genSide(t, noC, nil), Options{FailOn: rules}},
	} {
		cmp, err := Compare(tc.a, tc.b, tc.o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var b bytes.Buffer
		if err := cmp.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if tc.name == "itself" {
			extra := strings.Replace(b.String(), `"alpha":`, `"not_in_the_schema": 1, "alpha":`, 1)
			v, _ := jsonschema.UnmarshalJSON(strings.NewReader(extra))
			if sch.Validate(v) == nil {
				t.Error("the schema takes a key it does not define")
			}
		}
	}
}

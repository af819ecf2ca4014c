package audit_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/sseaudit/sseaudit/render"
)

// The report's JSON validates against schemas/report/v1.schema.json, checked
// by a full draft 2020-12 validator.
const reportSchemaPath = "../schemas/report/v1.schema.json"

type schemaValidator struct {
	schema *jsonschema.Schema
}

func loadReportSchema(t testing.TB) *schemaValidator {
	t.Helper()
	f, err := os.Open(reportSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if doc.(map[string]any)["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Fatalf("schema is not draft 2020-12")
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("report-v1.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("report-v1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return &schemaValidator{schema: sch}
}

// validate returns the violations of doc (decoded with UseNumber).
func (v *schemaValidator) validate(doc any) error {
	return v.schema.Validate(doc)
}

func decodeWithNumbers(t testing.TB, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestReportJSONValidatesAgainstSchema(t *testing.T) {
	v := loadReportSchema(t)
	checked := 0
	for _, name := range oracleCaseNames(t) {
		in, _ := loadOracleCase(t, name)
		rep := buildFromOracleInput(t, in)
		var buf bytes.Buffer
		if err := render.JSON(&buf, rep); err != nil {
			t.Fatal(err)
		}
		if err := v.validate(decodeWithNumbers(t, buf.Bytes())); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		checked++
	}
	for _, rep := range unusualReports(t) {
		var buf bytes.Buffer
		if err := render.JSON(&buf, rep); err != nil {
			t.Fatal(err)
		}
		if err := v.validate(decodeWithNumbers(t, buf.Bytes())); err != nil {
			t.Errorf("unusual report: %v", err)
		}
		checked++
	}
	t.Logf("%d reports validated", checked)
}

// The validator must be able to fail: break a valid report in several ways.
func TestSchemaValidatorRejectsBrokenReports(t *testing.T) {
	v := loadReportSchema(t)
	in, _ := loadOracleCase(t, "worked_example")
	var buf bytes.Buffer
	if err := render.JSON(&buf, buildFromOracleInput(t, in)); err != nil {
		t.Fatal(err)
	}
	for _, breakIt := range []struct {
		name string
		edit func(doc map[string]any)
	}{
		{"wrong version", func(d map[string]any) { d["schema_version"] = "2" }},
		{"missing stages", func(d map[string]any) { delete(d, "stages") }},
		{"extra key", func(d map[string]any) { d["extra"] = true }},
		{"N as string", func(d map[string]any) {
			d["metrics"].(map[string]any)["E2EL"].(map[string]any)["total"].(map[string]any)["N"] = "5"
		}},
		{"unknown metric", func(d map[string]any) { d["metrics"].(map[string]any)["Bogus"] = map[string]any{} }},
		{"window missing", func(d map[string]any) {
			delete(d["stages"].(map[string]any)["stable"].(map[string]any), "window")
		}},
		{"bad error kind", func(d map[string]any) {
			d["stages"].(map[string]any)["total"] = map[string]any{"error": map[string]any{"message": "x", "kind": "other", "code": nil}}
		}},
	} {
		doc := decodeWithNumbers(t, buf.Bytes()).(map[string]any)
		breakIt.edit(doc)
		if err := v.validate(doc); err == nil {
			t.Errorf("%s: broken report validated", breakIt.name)
		}
	}
}

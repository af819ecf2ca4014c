package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// There is no JSON Schema module in go.mod, so this is a small validator for
// the keywords schemas/report/v1.schema.json uses: $ref (local), type, const,
// enum, properties, required, additionalProperties, patternProperties, items,
// minItems, minimum, pattern, anyOf, oneOf. An unknown keyword fails the test,
// so the schema cannot silently outgrow it.
const reportSchemaPath = "../schemas/report/v1.schema.json"

type schemaValidator struct {
	root map[string]any
}

var knownSchemaKeywords = map[string]bool{
	"$schema": true, "$id": true, "title": true, "description": true, "$defs": true,
	"$ref": true, "type": true, "const": true, "enum": true, "properties": true, "required": true,
	"additionalProperties": true, "patternProperties": true, "items": true, "minItems": true,
	"minimum": true, "pattern": true, "anyOf": true, "oneOf": true,
}

func loadReportSchema(t *testing.T) *schemaValidator {
	t.Helper()
	data, err := os.ReadFile(reportSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	if root["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Fatalf("schema is not draft 2020-12: %v", root["$schema"])
	}
	return &schemaValidator{root: root}
}

// validate returns the first violation of doc (decoded with UseNumber) against s.
func (v *schemaValidator) validate(s map[string]any, doc any, path string) error {
	for k := range s {
		if !knownSchemaKeywords[k] {
			return fmt.Errorf("%s: schema keyword %q not supported by the test validator", path, k)
		}
	}
	if ref, ok := s["$ref"].(string); ok {
		name, found := strings.CutPrefix(ref, "#/$defs/")
		if !found {
			return fmt.Errorf("%s: unsupported $ref %q", path, ref)
		}
		def, ok := v.root["$defs"].(map[string]any)[name].(map[string]any)
		if !ok {
			return fmt.Errorf("%s: $ref %q not found", path, ref)
		}
		if err := v.validate(def, doc, path); err != nil {
			return err
		}
	}
	if t, ok := s["type"]; ok {
		var types []string
		switch t := t.(type) {
		case string:
			types = []string{t}
		case []any:
			for _, x := range t {
				types = append(types, x.(string))
			}
		}
		matched := false
		for _, ty := range types {
			if jsonType(doc, ty) {
				matched = true
			}
		}
		if !matched {
			return fmt.Errorf("%s: %v is not of type %v", path, doc, types)
		}
	}
	if c, ok := s["const"]; ok && !jsonEqual(c, doc) {
		return fmt.Errorf("%s: %v is not const %v", path, doc, c)
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			if jsonEqual(x, doc) {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("%s: %v not in enum %v", path, doc, e)
		}
	}
	if m, ok := s["minimum"].(float64); ok {
		if n, isNum := doc.(json.Number); isNum {
			if f, _ := n.Float64(); f < m {
				return fmt.Errorf("%s: %v below minimum %v", path, doc, m)
			}
		}
	}
	if p, ok := s["pattern"].(string); ok {
		if str, isStr := doc.(string); isStr && !regexp.MustCompile(p).MatchString(str) {
			return fmt.Errorf("%s: %q does not match %q", path, str, p)
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		alts, ok := s[key].([]any)
		if !ok {
			continue
		}
		matches := 0
		var errs []string
		for _, alt := range alts {
			if err := v.validate(alt.(map[string]any), doc, path); err != nil {
				errs = append(errs, err.Error())
			} else {
				matches++
			}
		}
		if matches == 0 || (key == "oneOf" && matches != 1) {
			return fmt.Errorf("%s: %s matched %d alternatives: %s", path, key, matches, strings.Join(errs, "; "))
		}
	}
	if arr, ok := doc.([]any); ok {
		if m, ok := s["minItems"].(float64); ok && float64(len(arr)) < m {
			return fmt.Errorf("%s: %d items, fewer than %v", path, len(arr), m)
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range arr {
				if err := v.validate(items, x, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	if req, ok := s["required"].([]any); ok {
		for _, k := range req {
			if _, present := obj[k.(string)]; !present {
				return fmt.Errorf("%s: missing required %q", path, k)
			}
		}
	}
	props, _ := s["properties"].(map[string]any)
	patterns, _ := s["patternProperties"].(map[string]any)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := obj[k]
		matched := false
		if ps, ok := props[k].(map[string]any); ok {
			matched = true
			if err := v.validate(ps, val, path+"."+k); err != nil {
				return err
			}
		}
		for pat, ps := range patterns {
			if regexp.MustCompile(pat).MatchString(k) {
				matched = true
				if err := v.validate(ps.(map[string]any), val, path+"."+k); err != nil {
					return err
				}
			}
		}
		if matched {
			continue
		}
		switch ap := s["additionalProperties"].(type) {
		case bool:
			if !ap {
				return fmt.Errorf("%s: unexpected property %q", path, k)
			}
		case map[string]any:
			if err := v.validate(ap, val, path+"."+k); err != nil {
				return err
			}
		}
	}
	return nil
}

func jsonType(doc any, ty string) bool {
	switch ty {
	case "null":
		return doc == nil
	case "boolean":
		_, ok := doc.(bool)
		return ok
	case "string":
		_, ok := doc.(string)
		return ok
	case "array":
		_, ok := doc.([]any)
		return ok
	case "object":
		_, ok := doc.(map[string]any)
		return ok
	case "number", "integer":
		n, ok := doc.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		if err != nil {
			return false
		}
		return ty == "number" || f == math.Trunc(f)
	}
	return false
}

func jsonEqual(schemaValue, doc any) bool {
	if n, ok := doc.(json.Number); ok {
		f, _ := n.Float64()
		sv, ok := schemaValue.(float64)
		return ok && sv == f
	}
	return fmt.Sprint(schemaValue) == fmt.Sprint(doc)
}

func decodeWithNumbers(t *testing.T, data []byte) any {
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
		if err := rep.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		if err := v.validate(v.root, decodeWithNumbers(t, buf.Bytes()), "$"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		checked++
	}
	for _, rep := range unusualReports(t) {
		var buf bytes.Buffer
		if err := rep.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		if err := v.validate(v.root, decodeWithNumbers(t, buf.Bytes()), "$"); err != nil {
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
	if err := buildFromOracleInput(t, in).WriteJSON(&buf); err != nil {
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
		if err := v.validate(v.root, doc, "$"); err == nil {
			t.Errorf("%s: broken report validated", breakIt.name)
		}
	}
}

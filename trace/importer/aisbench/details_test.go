package aisbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecodeDetails: the fast path reads every line as encoding/json does
// (exact keys, the last of repeated keys): the same members, byte for byte,
// and an error for the same lines.
func FuzzDecodeDetails(f *testing.F) {
	src, err := os.ReadFile(filepath.Join(workdirs, "failures", "performances", "model", "ds_details.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range strings.Split(string(src), "\n")[:4] {
		f.Add([]byte(l))
	}
	for _, s := range []string{
		`{"id": 1, "id": "a\"b", "success" : true , "db_name":"x.db","time_points":{"__db_ref__": 3}}`,
		`{"su\u0063cess": false, "Success": true, "input": "{[\\\"", "extra": [{"a": [1, "]"]}], "uuid": null}`,
		` {"id":-0.5e+3}`, `{}`, `null`, `[1]`, `"x"`, `{"id": 01}`, "{\"id\": \"\x01\"}", `{"id": 1,}`, `{"a":1}x`,
		strings.Repeat("[", 5000) + strings.Repeat("]", 5000),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotErr := decodeDetails(b)
		var m map[string]json.RawMessage
		wantErr := json.Unmarshal(b, &m)
		if wantErr == nil && m == nil {
			wantErr = errors.New("null") // no record: AISBench's .get fails on None
		}
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, encoding/json's %v", b, gotErr, wantErr)
		}
		if wantErr != nil {
			return
		}
		var want detailsRecord
		for k, v := range m {
			if p := want.member([]byte(k)); p != nil {
				*p = v
			}
		}
		for _, f := range []struct {
			name      string
			got, want json.RawMessage
		}{
			{"data_abbr", got.DataAbbr, want.DataAbbr}, {"id", got.ID, want.ID}, {"uuid", got.UUID, want.UUID},
			{"success", got.Success, want.Success}, {"error_info", got.ErrorInfo, want.ErrorInfo},
			{"time_points", got.TimePoints, want.TimePoints}, {"input_tokens", got.InputTokens, want.InputTokens},
			{"output_tokens", got.OutputTokens, want.OutputTokens}, {"db_name", got.DBName, want.DBName},
		} {
			if !bytes.Equal(f.got, f.want) || (f.got == nil) != (f.want == nil) {
				t.Errorf("%q: %s %q, encoding/json's %q", b, f.name, f.got, f.want)
			}
		}
	})
}

// TestDecodeDetailsLastKey: a repeated key's last value wins, and keys are
// matched exactly (Python's json.loads; encoding/json's struct decoding
// would take "Success" for "success").
func TestDecodeDetailsLastKey(t *testing.T) {
	d, err := decodeDetails([]byte(`{"success": false, "id": 1, "Success": true, "id": "two", "input": "\"id\": 3"}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(d.Success) != "false" || string(d.ID) != `"two"` {
		t.Errorf("success %s, id %s: want false and \"two\"", d.Success, d.ID)
	}
}

// FuzzDBRef: dbRef reads time_points as a map decoded by encoding/json
// does: one key, __db_ref__, its last value.
func FuzzDBRef(f *testing.F) {
	for _, s := range []string{`{"__db_ref__": 1}`, `{"__db_ref__": 1, "__db_ref__": "x"}`, `{"\u005f_db_ref__": 2}`,
		`{"__db_ref__": 1, "a": 2}`, `{}`, `[1]`, `null`, `{"__db_ref__": {"a": [1]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return // dbRef is only handed valid JSON values
		}
		got, ok := dbRef(b)
		want, wantOK := m["__db_ref__"], len(m) == 1 && m["__db_ref__"] != nil
		if ok != wantOK || (ok && !bytes.Equal(got, want)) {
			t.Errorf("%q: %q %v, encoding/json's %q %v", b, got, ok, want, wantOK)
		}
	})
}

// TestPlainString: a JSON string is taken as it is only when decoding
// would not change it.
func TestPlainString(t *testing.T) {
	for _, s := range []string{`"abc"`, `""`, `"a\"b"`, `"a\\b"`, `"\u00e9"`, `"é"`, "\"a\tb\"", `"x`} {
		var want string
		wantOK := json.Unmarshal([]byte(s), &want) == nil
		got, ok := jsonString([]byte(s))
		if ok != wantOK || got != want {
			t.Errorf("%s: %q %v, encoding/json's %q %v", s, got, ok, want, wantOK)
		}
	}
}

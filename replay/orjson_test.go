package replay

import "testing"

// FuzzORJSON: what ORJSONRejects lets through json.loads accepts too is
// accepted by orjson as far as the rules it checks go: no NaN or Infinity
// literal, no lone surrogate escape, no number beyond a double; and it
// never rejects a document json.loads accepts without any of them.
func FuzzORJSON(f *testing.F) {
	for _, s := range []string{`{"a":NaN}`, `[Infinity]`, `-Infinity`, `"\ud800"`, `"\udc00x"`, `"\ud83d\ude00"`,
		`1e400`, `-1e400`, `1.5e308`, `18446744073709551616`, `{"NaN":"Infinity"}`, `"\\ud800"`, `["\u0000"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rejects := ORJSONRejects(b)
		var p JSONParser
		if _, ok := p.Parse(b); !ok {
			return
		}
		lit := false
		for _, c := range b {
			lit = lit || c == 'N' || c == 'I' || c == '\\' || c == 'e' || c == 'E' || c >= '0' && c <= '9'
		}
		if rejects && !lit {
			t.Fatalf("%q rejected without a literal, an escape or a number", b)
		}
	})
}

// TestORJSON: orjson 3.8's verdicts (AIPerf's load_json_str), read off the
// image's orjson: NaN, Infinity, -Infinity, a lone surrogate escape
// ("\ud800", "\udc00x") and 1e400 are refused where json.loads accepts
// them; a surrogate pair, 1.5e308, 2**64 (a float), "NaN" inside a string
// and a quoted backslash before "ud800" are accepted.
func TestORJSON(t *testing.T) {
	for s, want := range map[string]bool{
		`NaN`: true, `[NaN]`: true, `Infinity`: true, `-Infinity`: true, `"\ud800"`: true, `"\udc00x"`: true,
		`1e400`: true, `-1e400`: true, `{"a":[1,"\ud800\u0041"]}`: true,
		`"\ud83d\ude00"`: false, `1.5e308`: false, `18446744073709551616`: false, `{"NaN":"Infinity"}`: false,
		`"\\ud800"`: false, `{"a":1,"a":2}`: false, `-0`: false, `1E5`: false,
	} {
		if got := ORJSONRejects([]byte(s)); got != want {
			t.Errorf("%s: rejected %v, orjson %v", s, got, want)
		}
	}
}

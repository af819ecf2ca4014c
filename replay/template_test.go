package replay

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"
)

// templateSeeds are payload pairs for the content template: the first is
// classified (and may become the template), the second is a text to splice
// into it or a payload of its own. Each names a way the template could be
// wrong.
var templateSeeds = [][2]string{
	{benchContent(0), " plain"},
	{benchContent(1), `had\n`},
	{benchContent(2), `\"\\\/\b\f\n\r\t`},
	{benchContent(3), `\u00e9`},          // \u: the full path
	{benchContent(4), `\ud800`},          // a lone surrogate Python takes
	{benchContent(5), "a\"b"},            // an unescaped quote
	{benchContent(6), "a\x01"},           // a control character
	{benchContent(7), "\xff"},            // not UTF-8
	{benchContent(8), `a\`},              // an escape cut off
	{benchContent(9), `\x`},              // no such escape
	{benchContent(10), ""},               // empty: the class may change
	{benchContent(11), `"},"x":{"y":"z`}, // quotes: new structure
	{pRole, "x"},                         // the template's text is empty
	{pContent, "x"},
	// The text is not the only content: other choices, text, a
	// duplicate key, or content under logprobs.
	{`{"choices":[{"text":"ab","delta":{"content":"cd"}}]}`, "xyz"},
	{`{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}`, "c"},
	{`{"choices":[{"delta":{"content":"a","\u0063ontent":""}}]}`, "b"},
	{`{"choices":[{"delta":{"\u0063ontent":"","content":"a"}}]}`, "b"},
	{`{"choices":[{"delta":{"content":"a"}}],"x":"\"content\""}`, "b"},
	{`{"choices":[{"delta":{"x":"a"},"logprobs":{"content":"y"}}]}`, "zz"},
	{`{"choices":[{"delta":{"content":"a"}}],"choices":[]}`, "b"},
	{`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":NaN}}`, "bc"},
	{`{"choices":[{"delta":{"content":"a"}}],"error":{"message":"x"}}`, "b"},
	{`{"choices":[{"delta":{"content":"a","tool_calls":[{}]},"finish_reason":"stop"}]}`, "b"},
	{`{"choices":[{"delta":{"content" : "a"}}]}`, "b"},
	{`{"choices":[{"delta":{"content":"a"}}]`, "b"}, // not JSON
}

// corpusPayloads are the events of the real streams beside the checkout,
// compacted as servers send them; none when the corpus is not there.
func corpusPayloads(t testing.TB) map[string][][]byte {
	out := map[string][][]byte{}
	for _, dir := range corpusDirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, path := range files {
			_, out[filepath.Base(path)] = corpusEvents(t, path)
		}
		if len(out) > 0 {
			break
		}
	}
	return out
}

// checkTemplate classifies payload with fast, which uses and learns its
// template, and on the full path with full, and fails unless they agree. It
// reports whether the template matched.
func checkTemplate(t *testing.T, fast, full *classifier, payload []byte) bool {
	t.Helper()
	_, matched := fast.template.match(payload)
	got, want := fast.classify(payload), full.classifyBytes(payload)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q (template %q, matched %v):\n got %+v usage %+v\nwant %+v usage %+v",
			payload, fast.template.raw, matched, got, got.usage, want, want.usage)
	}
	return matched
}

// TestContentTemplate: the template's verdicts are the full path's on the
// real streams and a generated one, and it serves most content events of
// vLLM's and the generated.
func TestContentTemplate(t *testing.T) {
	streams := corpusPayloads(t)
	var gen [][]byte
	for i := range 200 {
		gen = append(gen, []byte(benchContent(i)))
	}
	streams["generated"] = gen
	for name, payloads := range streams {
		var fast, full classifier
		matched := 0
		for _, p := range payloads {
			if checkTemplate(t, &fast, &full, p) {
				matched++
			}
		}
		t.Logf("%s: %d of %d payloads from the template", name, matched, len(payloads))
		if want := map[string]int{"generated": len(gen) - 1, "dynamo-vllm-qwen3-0.6B-2bd5b0c6.json": 110}[name]; matched < want {
			t.Errorf("%s: %d of %d payloads from the template, want %d or more", name, matched, len(payloads), want)
		}
	}
}

// FuzzContentTemplate: a classifier that learned its template from one
// payload classifies another payload, and the template's payload with its
// text replaced, as the full path does.
func FuzzContentTemplate(f *testing.F) {
	for _, s := range templateSeeds {
		f.Add([]byte(s[0]), []byte(s[1]))
		f.Add([]byte(s[0]), []byte(benchContent(len(s[1]))))
	}
	for _, payloads := range corpusPayloads(f) {
		for i := 1; i < len(payloads); i++ {
			f.Add(payloads[i-1], payloads[i])
			if k := bytes.Index(payloads[i], []byte(`"content":"`)); k >= 0 {
				start := k + len(`"content":"`)
				if end := stringEnd(payloads[i], start); end >= 0 {
					f.Add(payloads[i-1], payloads[i][start:end])
				}
			}
		}
	}
	var fast, full classifier
	f.Fuzz(func(t *testing.T, template, other []byte) {
		fast.template = contentTemplate{}
		checkTemplate(t, &fast, &full, template)
		if tp := &fast.template; tp.raw != nil {
			spliced := append(append(bytes.Clone(tp.raw[:tp.prefix]), other...), tp.raw[len(tp.raw)-tp.suffix:]...)
			checkTemplate(t, &fast, &full, spliced)
		}
		checkTemplate(t, &fast, &full, other)
	})
}

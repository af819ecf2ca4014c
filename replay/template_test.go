package replay

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sseaudit/sseaudit/internal/shared"
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
	// Usage integers that change (the template's holes), and the
	// payloads they must not take: not integers json.loads reads alike,
	// other keys, duplicates, usage not at the top.
	{usageContent("a", "128", "3", "131"), usageContent("bc", "128", "4", "132")},
	{usageContent("a", "128", "3", "131"), usageContent("bc", "9", "1234567", "0")},
	{usageContent("a", "128", "3", "131"), usageContent("bc", "128", "007", "135")},
	{usageContent("a", "128", "3", "131"), usageContent("bc", "128", "1234567890123456789", "1")},
	{usageContent("a", "128", "3", "131"), usageContent("bc", "128", "-4", "124")},
	{usageContent("a", "128", "3", "131"), usageContent("bc", "128", "4.0", "132")},
	{usageContent("a", "128", "3", "131"), usageContent("bc", "128", "4e0", "132")},
	{usageContent("a", "128", "3", "131"), usageContent("bc", "128", "NaN", "132")},
	{usageContent("a", "128", "3", "131"), usageContent("bc", "128", "", "132")},
	{usageContent("a", "128", "3", "131"), usageContent("bc", "128", `"4"`, "132")},
	{usageContent("a", "128", "3", "131"), usageContent("", "128", "4", "132")},
	{usageContent("a", "128", "0", "128"), usageContent("bc", "128", "0", "0")},
	{`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"prompt_tokens_details":{"cached_tokens":2},"completion_tokens":1}}`,
		`{"choices":[{"delta":{"content":"bc"}}],"usage":{"prompt_tokens":5,"prompt_tokens_details":{"cached_tokens":37},"completion_tokens":2}}`},
	{`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"prompt_tokens_details":{"cached_tokens":2},"completion_tokens":1}}`,
		`{"choices":[{"delta":{"content":"bc"}}],"usage":{"prompt_tokens":5,"prompt_tokens_details":{"cached_tokens":2.5},"completion_tokens":2}}`},
	{`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":1},"usage":{"prompt_tokens":6,"completion_tokens":1}}`,
		`{"choices":[{"delta":{"content":"b"}}],"usage":{"prompt_tokens":5,"completion_tokens":2},"usage":{"prompt_tokens":6,"completion_tokens":1}}`},
	{`{"choices":[{"delta":{"content":"a"},"usage":{"prompt_tokens":5,"completion_tokens":1}}],"usage":{"x":1}}`,
		`{"choices":[{"delta":{"content":"b"},"usage":{"prompt_tokens":5,"completion_tokens":9}}],"usage":{"x":1}}`},
	{`{"model":"usage","choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`,
		`{"model":"usage","choices":[{"delta":{"content":"b"}}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`},
	{`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":1,"extra":[1,{"completion_tokens":3}]}}`,
		`{"choices":[{"delta":{"content":"b"}}],"usage":{"prompt_tokens":5,"completion_tokens":2,"extra":[1,{"completion_tokens":4}]}}`},
}

// usageContent is a content chunk of a stream with continuous usage stats,
// its text and its usage members as written.
func usageContent(text, prompt, completion, total string) string {
	return `{"id":"chatcmpl-0","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":"` +
		text + `"},"finish_reason":null}],"usage":{"prompt_tokens":` + prompt + `,"completion_tokens":` + completion + `,"total_tokens":` + total + `}}`
}

// corpusPayloads are the events of the real streams beside the checkout,
// compacted as servers send them; none when the corpus is not there (and
// not under CI, where its absence fails).
func corpusPayloads(t testing.TB) map[string][][]byte {
	out := map[string][][]byte{}
	root := shared.Root()
	if root == "" {
		if shared.Required() {
			t.Fatalf("no shared/ folder beside the checkout: its corpus/real-streams seed this test")
		}
		return out
	}
	files, _ := filepath.Glob(filepath.Join(root, "corpus", "real-streams", "*.json"))
	for _, path := range files {
		_, out[filepath.Base(path)] = corpusEvents(t, path)
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
	var withUsage [][]byte
	for i := range 200 {
		withUsage = append(withUsage, []byte(usageContent(benchTokens[i%len(benchTokens)], "128", fmt.Sprint(i*3+1), fmt.Sprint(129+i*3))))
	}
	streams["generated with usage"] = withUsage
	for name, payloads := range streams {
		var fast, full classifier
		matched := 0
		for _, p := range payloads {
			if checkTemplate(t, &fast, &full, p) {
				matched++
			}
		}
		t.Logf("%s: %d of %d payloads from the template", name, matched, len(payloads))
		if want := map[string]int{"generated": len(gen) - 1, "generated with usage": len(withUsage) - 1, "dynamo-vllm-qwen3-0.6B-2bd5b0c6.json": 110}[name]; matched < want {
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
		// Each second payload is classified by a classifier that has just
		// learned its template from the first.
		fast.template = contentTemplate{}
		checkTemplate(t, &fast, &full, template)
		if tp := &fast.template; tp.raw != nil {
			spliced := append(append(bytes.Clone(tp.raw[:tp.prefix]), other...), tp.raw[len(tp.raw)-tp.suffix:]...)
			checkTemplate(t, &fast, &full, spliced)
			fast.template = contentTemplate{}
			checkTemplate(t, &fast, &full, template)
		}
		checkTemplate(t, &fast, &full, other)
	})
}

// TestUsageHoles: a template learned from a chunk with continuous usage
// serves chunks whose usage integers differ, with their values, and no
// payload whose integers json.loads would read otherwise, nor one whose
// usage is not the template's kind.
func TestUsageHoles(t *testing.T) {
	cached := func(text, n string) string {
		return `{"choices":[{"delta":{"content":"` + text + `"}}],"usage":{"prompt_tokens":5,"prompt_tokens_details":{"cached_tokens":` + n + `},"completion_tokens":1}}`
	}
	base := usageContent("a", "128", "3", "131")
	for _, c := range []struct {
		template, other string
		match           bool
	}{
		{base, usageContent("bc", "128", "4", "132"), true},
		{base, usageContent("bc", "9", "1234567", "0"), true},
		{base, usageContent("bc", "128", "999999999999999999", "1"), true},
		{base, usageContent("bc", "128", "0", "1"), true},
		{base, usageContent("bc", "128", "007", "135"), false},
		{base, usageContent("bc", "128", "1234567890123456789", "1"), false},
		{base, usageContent("bc", "128", "-4", "124"), false},
		{base, usageContent("bc", "128", "4.0", "132"), false},
		{base, usageContent("bc", "128", "4e0", "132"), false},
		{base, usageContent("bc", "128", "", "132"), false},
		{base, usageContent("", "128", "4", "132"), false},
		{base, usageContent(`b\"`, "128", "4", "132"), true},
		{base, usageContent(`b"`, "128", "4", "132"), false},
		{usageContent("a", "0.0", "3", "1.5"), usageContent("bc", "0.5", "4", "1.5"), false},
		{usageContent("a", "0.0", "3", "1.5"), usageContent("bc", "0.0", "4", "1.5"), true},
		{usageContent("a", "-0", "3", "-1"), usageContent("bc", "-1", "4", "-1"), false},
		{usageContent("a", "128", "3", "1e2"), usageContent("bc", "128", "4", "1e3"), false},
		{usageContent("a", "128", "3", "1e2"), usageContent("bc", "128", "4", "1e2"), true},
		{cached("a", "2"), cached("bc", "37"), true},
		{cached("a", "2"), cached("bc", "2.5"), false},
		{cached("a", "2"), cached("bc", "null"), false},
		// Keys written twice, usage inside a choice, "usage" as a value.
		{`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":1},"usage":{"prompt_tokens":6,"completion_tokens":1}}`,
			`{"choices":[{"delta":{"content":"b"}}],"usage":{"prompt_tokens":5,"completion_tokens":2},"usage":{"prompt_tokens":6,"completion_tokens":1}}`, false},
		{`{"choices":[{"delta":{"content":"a"},"usage":{"prompt_tokens":5,"completion_tokens":1}}],"usage":{"x":1}}`,
			`{"choices":[{"delta":{"content":"b"},"usage":{"prompt_tokens":5,"completion_tokens":9}}],"usage":{"x":1}}`, false},
		{`{"model":"usage","choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`,
			`{"model":"usage","choices":[{"delta":{"content":"b"}}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`, false},
		// An integer of another member of usage is not a hole.
		{`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":1,"extra":[1,{"completion":3}]}}`,
			`{"choices":[{"delta":{"content":"b"}}],"usage":{"prompt_tokens":5,"completion_tokens":2,"extra":[1,{"completion":4}]}}`, false},
		{`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":1,"extra":[1,{"completion":3}]}}`,
			`{"choices":[{"delta":{"content":"b"}}],"usage":{"prompt_tokens":6,"completion_tokens":2,"extra":[1,{"completion":3}]}}`, true},
	} {
		var fast, full classifier
		checkTemplate(t, &fast, &full, []byte(c.template))
		if c.match && len(fast.template.holes) == 0 {
			t.Errorf("%s: no holes", c.template)
		}
		if got := checkTemplate(t, &fast, &full, []byte(c.other)); got != c.match {
			t.Errorf("%s after %s: matched %v, want %v", c.other, c.template, got, c.match)
		}
	}
}

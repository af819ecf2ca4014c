package replay

import (
	"encoding/hex"
	"testing"
)

type classifyCase struct {
	payload string
	class   Class
	aisErr  bool // AISBench's parse_stream_response raises
	json    bool // Python's json.loads accepts it
}

var classifySeeds = []classifyCase{
	{`[DONE]`, ClassDone, false, false},
	{``, ClassMalformed, false, false},
	{`{"choices":[{"delta":{"content":"a"}}]`, ClassMalformed, false, false},
	{`[1,2]`, ClassMalformed, true, true},
	{`"text"`, ClassMalformed, true, true},
	{`{"choices":[{"delta":{"role":"assistant","content":""}}]}`, ClassRole, false, true},
	{`{"choices":[{"delta":{"role":"assistant","content":"a"}}]}`, ClassContent, false, true},
	{`{"choices":[{"delta":{"reasoning_content":"r","content":null}}]}`, ClassReasoning, false, true},
	{`{"choices":[{"delta":{"reasoning":"r"}}]}`, ClassReasoning, false, true},
	{`{"choices":[{"delta":{"reasoning_content":"r","content":"c"}}]}`, ClassContent, false, true},
	{`{"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}`, ClassToolCall, false, true},
	{`{"choices":[{"delta":{"tool_calls":[]},"finish_reason":"stop"}]}`, ClassFinish, false, true},
	{`{"choices":[{"delta":{"content":"x"},"finish_reason":"length"}]}`, ClassContent, false, true},
	{`{"choices":[{"delta":{},"finish_reason":""}]}`, ClassMetadataOnly, false, true},
	{`{"choices":[],"usage":{"prompt_tokens":1}}`, ClassUsageOnly, false, true},
	{`{"usage":{"prompt_tokens":1}}`, ClassUsageOnly, false, true},
	{`{"choices":null,"usage":{"prompt_tokens":1}}`, ClassUsageOnly, true, true},
	{`{"choices":[],"usage":{}}`, ClassMetadataOnly, false, true},
	{`{"choices":[],"usage":null}`, ClassMetadataOnly, false, true},
	{`{"choices":[],"prompt_filter_results":[]}`, ClassMetadataOnly, false, true},
	{`{"choices":[{"delta":{}}],"usage":{"completion_tokens":3}}`, ClassMetadataOnly, false, true},
	{`{"error":{"message":"overloaded"}}`, ClassError, false, true},
	{`{"error":"overloaded"}`, ClassError, false, true},
	{`{"error":""}`, ClassMetadataOnly, false, true},
	// TGI completions: text counts, but the chat client wants "delta".
	{`{"choices":[{"index":0,"text":"hi"},{"index":1,"text":""}]}`, ClassContent, true, true},
	{`{"choices":[{"index":1,"text":""},{"index":0,"delta":{"content":"b"}}]}`, ClassContent, true, true},
	{`{"choices":[{"delta":null}]}`, ClassMetadataOnly, true, true},
	{`{"choices":[{"delta":{"content":5}}]}`, ClassMetadataOnly, true, true},
	{`{"choices":[{"delta":{"content":0}}]}`, ClassMetadataOnly, false, true},
	{`{"choices":[{"delta":{"reasoning_content":"","reasoning":["x"]}}]}`, ClassMetadataOnly, true, true},
	{`{"choices":"x"}`, ClassMetadataOnly, true, true},
	{`{"choices":""}`, ClassMetadataOnly, false, true},
	{`{"choices":{}}`, ClassMetadataOnly, false, true},
	{`{"choices":1}`, ClassMetadataOnly, true, true},
	{`{"choices":[null]}`, ClassMetadataOnly, true, true},
	{`{"usage":5,"choices":[]}`, ClassUsageOnly, true, true},
	{`{"usage":0,"choices":[]}`, ClassMetadataOnly, false, true},
	{`{"usage":1e-400,"choices":[]}`, ClassMetadataOnly, false, true},
	{`{"usage":0.0e0,"choices":[]}`, ClassMetadataOnly, false, true},
	{`{"usage":-0,"choices":[]}`, ClassMetadataOnly, false, true},
	// Python's json accepts these; the last of duplicate keys wins.
	{`{"usage":NaN,"choices":[]}`, ClassUsageOnly, true, true},
	{`{"usage":{"prompt_tokens":-Infinity}}`, ClassUsageOnly, false, true},
	{`{"usage":-NaN}`, ClassMalformed, false, false},
	{`{"choices":[{"delta":{"content":"a"}}],"choices":[]}`, ClassMetadataOnly, false, true},
	{`{"choices":[{"delta":{"content":"a","content":""}}]}`, ClassMetadataOnly, false, true},
	{`{"choices":[{"delta":{"content":"a\u0000"}}]}`, ClassContent, false, true},
	{"{\"choices\":[{\"delta\":{\"content\":\"a\x01\"}}]}", ClassMalformed, false, false},
	{"{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}", ClassMalformed, false, false},
	{`{"choices":[{"delta":{"content":"\x"}}]}`, ClassMalformed, false, false},
	{"  {}  ", ClassMetadataOnly, false, true},
	{`{} {}`, ClassMalformed, false, false},
	{`{"a":01}`, ClassMalformed, false, false},
}

func TestClassify(t *testing.T) {
	var c classifier
	for _, tc := range classifySeeds {
		v := c.classify([]byte(tc.payload))
		if v.class != tc.class || (v.aisErr != "") != tc.aisErr || v.json != tc.json {
			t.Errorf("%q: class %s, aisErr %q, json %v; want %s, %v, %v", tc.payload, v.class, v.aisErr, v.json, tc.class, tc.aisErr, tc.json)
		}
	}
}

func TestClassifyCounts(t *testing.T) {
	var c classifier
	v := c.classify([]byte(`{"choices":[{"delta":{"content":"h\u00e9","reasoning_content":"abc"},"logprobs":{"content":[{},{}]}},` +
		`{"text":"xy","logprobs":{"tokens":["a","b","c"]}}],"usage":{"prompt_tokens":7,"completion_tokens":8.0,"prompt_tokens_details":{"cached_tokens":2}}}`))
	if v.class != ClassContent || v.contentBytes != 3+2 || v.reasoningBytes != 3 || v.logprobs != 5 {
		t.Errorf("%+v", v)
	}
	// completion_tokens 8.0 is not an integer: 0, which AISBench treats as missing.
	if v.usage == nil || v.usage.PromptTokens != 7 || v.usage.CompletionTokens != 0 || v.usage.CachedTokens == nil || *v.usage.CachedTokens != 2 {
		t.Errorf("usage %+v", v.usage)
	}
}

func TestPyStrip(t *testing.T) {
	s := []byte("\x1c\u3000 x y\u00a0\u2028")
	i, j := pyStrStrip(s)
	if string(s[i:j]) != "x y" {
		t.Errorf("str.strip: %q", s[i:j])
	}
	b := []byte("\x0b\x0c\x1c x \x00")
	i, j = pyBytesStrip(b)
	if string(b[i:j]) != "\x1c x \x00" {
		t.Errorf("bytes.strip: %q", b[i:j])
	}
}

// Messages from Python 3.11's bytes.decode("utf-8").
func TestPyUTF8Error(t *testing.T) {
	cases := []struct{ hex, msg string }{
		{"6162ff", "'utf-8' codec can't decode byte 0xff in position 2: invalid start byte"},
		{"c3", "'utf-8' codec can't decode byte 0xc3 in position 0: unexpected end of data"},
		{"78e282", "'utf-8' codec can't decode bytes in position 1-2: unexpected end of data"},
		{"e08080", "'utf-8' codec can't decode byte 0xe0 in position 0: invalid continuation byte"},
		{"eda080", "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte"},
		{"f09f98", "'utf-8' codec can't decode bytes in position 0-2: unexpected end of data"},
		{"f4908080", "'utf-8' codec can't decode byte 0xf4 in position 0: invalid continuation byte"},
		{"c328", "'utf-8' codec can't decode byte 0xc3 in position 0: invalid continuation byte"},
		{"e28228", "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte"},
		{"6f6bc3a9f09f9880c0af", "'utf-8' codec can't decode byte 0xc0 in position 8: invalid start byte"},
		{"f09f28", "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte"},
		{"3a2062616420fffe", "'utf-8' codec can't decode byte 0xff in position 6: invalid start byte"},
	}
	for _, c := range cases {
		b, err := hex.DecodeString(c.hex)
		if err != nil {
			t.Fatal(err)
		}
		if got := pyUTF8Error(b); got != c.msg {
			t.Errorf("%s: %q, Python says %q", c.hex, got, c.msg)
		}
	}
}

// Python's json.loads reads NaN, Infinity and -Infinity only as whole
// values: glued to a number ("1NaN", "Infinity0", "NaNe5") they are a
// JSONDecodeError, not a number.
func TestPythonLiteralsGluedToNumbers(t *testing.T) {
	var c classifier
	for _, p := range []string{
		`{"choices":[],"usage":{"prompt_tokens":1NaN}}`,
		`{"choices":[],"usage":{"prompt_tokens":Infinity1}}`,
		`{"choices":[],"usage":{"prompt_tokens":-Infinity0}}`,
		`{"choices":[],"usage":{"prompt_tokens":NaNe5}}`,
		`{"choices":[{"delta":{"content":"x"}}],"a":1Infinity}`,
	} {
		if v := c.classify([]byte(p)); v.class != ClassMalformed || v.json {
			t.Errorf("%s: class %s, json %v; json.loads raises JSONDecodeError: want malformed", p, v.class, v.json)
		}
	}
}

// AISBench's json.loads raises on such a payload, which fails the request.
func TestPythonLiteralsGluedToNumbersFailAISBench(t *testing.T) {
	res := mustReplay(t, mkReq("data: "+pContent+"\n\n", `data: {"choices":[],"usage":{"prompt_tokens":1NaN}}`+"\n\n", "data: [DONE]\n\n"), AISBench)
	if res.Success || res.Events[1].Class != ClassMalformed {
		t.Errorf("success %v, event 1 %s; want a failed request and a malformed event", res.Success, res.Events[1].Class)
	}
}

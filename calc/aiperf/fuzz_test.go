package aiperf

import (
	"math"
	"testing"

	"github.com/sseaudit/sseaudit/internal/tooltest"
	"github.com/sseaudit/sseaudit/replay"
)

// FuzzRequest: AIPerf's response extractor and metrics, on whatever the
// aiperf framer hands them and under every rule switched, never panic; a
// valid request's responses are some of its messages, in order; an
// extractor's exception fails the request unless KeepGoing; the keys come
// out finite whatever the bytes.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		"data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\ndata: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"completion_tokens\":1}}\n\ndata: [DONE]\n\n",
		"data: {\"object\":\"text_completion\",\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"object\":\"TEXT_COMPLETION\",\"choices\":[{\"text\":5}]}\n\n",
		"data: {\"object\":\"chat.completion.chunk\",\"choices\":\"x\"}\n\ndata: {\"object\":\"chat.completion\",\"choices\":{\"0\":1}}\n\ndata: [\"object\"]\n\ndata: \"rankings\"\n\n",
		"data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"reasoning\":\"r\",\"content\":0}}]}\n\ndata: NaN\n\ndata: {\"a\":1e400}\n\n",
		"data: {\"object\":\"list\",\"data\":[{\"object\":\"Embedding\",\"embedding\":[1,2.5]}]}\n\ndata: {\"rankings\":[{\"i\":1}]}\n\ndata: {\"object\":\"response\",\"output_text\":\"x\"}\n\n",
		"data: {\"object\":\"chat.completion.chun\u212a\",\"choices\":[{\"delta\":{\"content\":\"\\ud800\"}}]}\n\ndata: 5\n\ndata: null\n\n",
		": ping\n\nevent: x\ndata: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":null}]}\n\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(0x7f))
	}
	f.Fuzz(func(t *testing.T, body []byte, rules uint8) {
		req, res := tooltest.Replayed(t, body, 7, 2, replay.AIPerf)
		r := Rules{EveryMessage: rules&1 != 0, KeepGoing: rules&2 != 0, ZeroIntervals: rules&4 != 0, StopAtDone: rules&8 != 0,
			JSONLoads: rules&16 != 0, AnyUsage: rules&32 != 0, TPOTOfOne: rules&64 != 0}
		c := &Client{Rules: r}
		msgs := c.Read(res)
		o := c.Run(req.T0Ns, res.EndNs, res.Transport, msgs)
		raised := false
		for _, m := range msgs {
			// A message orjson refuses is skipped before the extractor.
			raised = raised || m.Err != "" && (m.Orjson || r.JSONLoads) || m.NotJSON && r.JSONLoads
			if m.Err != "" && (m.Response || m.Output || m.Reasoning) {
				t.Fatalf("a message that raises %q is a response", m.Err)
			}
		}
		if raised && !r.KeepGoing && !r.StopAtDone && o.Error == "" {
			t.Fatal("an exception, no error")
		}
		if o.Valid() {
			k := 0
			for _, ts := range o.Responses {
				for k < len(msgs) && msgs[k].TNs != ts {
					k++
				}
				if k == len(msgs) {
					t.Fatalf("responses %v are not among the messages' times", o.Responses)
				}
			}
		}
		calc := Calc{Rules: r}
		calc.Add(o)
		calc.Add(c.Run(2e9, 3e9, "HTTP 500 Internal Server Error", nil))
		out := calc.Result()
		if out.Valid+out.Errors != 2 || out.Errors < 1 {
			t.Fatalf("%d valid, %d errors of 2", out.Valid, out.Errors)
		}
		for _, k := range out.Keys() {
			if x, ok := k.Value.(float64); ok && (math.IsInf(x, 0) || math.IsNaN(x)) {
				t.Fatalf("%s: %v", k.Name, x)
			}
		}
	})
}

// TestIssue16AIPerfExtractor: OpenAIResponseExtractor on single messages,
// each verdict read off openai_parsers.py at the pinned commit: the
// usage-only chunk's empty choices raise IndexError (the request fails);
// the role-only chunk and a finish without content are no response; a
// chunk without "object" is skipped (_infer_object_type finds no
// rankings); an object type matches case-insensitively; reasoning makes a
// reasoning text, content beside it an output text; a non-string content
// fails pydantic's validation.
func TestIssue16AIPerfExtractor(t *testing.T) {
	chunk := func(delta string) string {
		return `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":` + delta + `}]}`
	}
	for _, tc := range []struct {
		text              string
		resp, out, reason bool
		err               string
	}{
		{`{"object":"chat.completion.chunk","choices":[],"usage":{"completion_tokens":3}}`, false, false, false, "IndexError"},
		{chunk(`{"role":"assistant","content":""}`), false, false, false, ""},
		{chunk(`{}`), false, false, false, ""},
		{`{"choices":[{"delta":{"content":"a"}}]}`, false, false, false, ""},
		{`{"object":"Chat.Completion.Chunk","choices":[{"delta":{"content":"a"}}]}`, true, true, false, ""},
		{chunk(`{"reasoning_content":"r"}`), true, false, true, ""},
		{chunk(`{"reasoning":"r","content":"c"}`), true, true, true, ""},
		{chunk(`{"content":5}`), false, false, false, "ValidationError"},
		{chunk(`null`), false, false, false, "AttributeError"},
		{`{"object":"text_completion","choices":[{"text":"a"}]}`, true, true, false, ""},
		{`{"object":"embedding"}`, false, false, false, ""},
		{`[1,"object"]`, false, false, false, "TypeError"},
		{`7`, false, false, false, "TypeError"},
		{`{"a":NaN}`, false, false, false, ""},
		{`[DONE]`, false, false, false, ""},
	} {
		var c Client
		m := c.read(replay.Message{TNs: 1, Text: []byte(tc.text)})
		if m.Response != tc.resp || m.Output != tc.out || m.Reasoning != tc.reason ||
			(m.Err == "") != (tc.err == "") || len(m.Err) < len(tc.err) || m.Err[:len(tc.err)] != tc.err {
			t.Errorf("%s: %+v, want response %v output %v reasoning %v error %q", tc.text, m, tc.resp, tc.out, tc.reason, tc.err)
		}
	}
}

package guidellm

import (
	"math"
	"testing"

	"github.com/sseaudit/sseaudit/internal/tooltest"
	"github.com/sseaudit/sseaudit/replay"
)

// FuzzRequest: guidellm's streaming client, on whatever the guidellm framer
// hands it, for both request formats, never panics; a success has its
// token iterations within its lines, a first token no later than its last
// and an end no earlier; the keys come out finite whatever the bytes.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		"data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[{\"text\":5}]}\n\ndata: null\n\n",
		"data: {\"choices\":\"x\"}\n\ndata: {\"choices\":{\"0\":1}}\n\ndata: [1]\n\ndata: {\"usage\":[1]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"reasoning\":\"r\",\"tool_calls\":[{\"index\":0,\"id\":1}]}}]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":[0]},{\"function\":null}]}}],\"usage\":{\"completion_tokens\":\"7\"}}\n\n",
		"data: {\"error\":{\"message\":\"x\"}}\n\ndata:[DONE]\n\n: ping\nevent: x\ndata: {\"choices\":[{\"delta\":null}]}\r\n",
		"data: {\"id\":5,\"choices\":[{\"delta\":{\"content\":\" \"}}],\"usage\":{\"completion_tokens_details\":{\"image_tokens\":2.5}}}\n\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, completions bool) {
		req, res := tooltest.Replayed(t, body, 7, 1, replay.GuideLLM)
		api := Chat
		if completions {
			api = Completions
		}
		c := &Client{API: api}
		o := c.Request(req.T0Ns, res)
		if o.Success {
			if o.TokenIterations > int64(len(res.Messages)) || o.RequestIterations > int64(len(res.Messages)) {
				t.Fatalf("%d token and %d request iterations from %d lines", o.TokenIterations, o.RequestIterations, len(res.Messages))
			}
			if o.HasFirst && (!o.HasLast || o.LastToken < o.FirstToken || o.End < o.LastToken) {
				t.Fatalf("first %v last %v end %v", o.FirstToken, o.LastToken, o.End)
			}
		}
		calc := Calc{}
		calc.Add(o)
		calc.Add(Run(2e9, 3e9, "HTTP 500 Internal Server Error", nil))
		out := calc.Result()
		if out.Totals.Successful > 1 || out.Totals.Successful+out.Totals.Errored != 2 {
			t.Fatalf("totals %+v", out.Totals)
		}
		for _, k := range out.Keys() {
			if x, ok := k.Value.(float64); ok && (math.IsInf(x, 0) || math.IsNaN(x)) {
				t.Fatalf("%s: %v", k.Name, x)
			}
		}
	})
}

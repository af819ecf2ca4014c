package vllm

import (
	"testing"

	"github.com/sseaudit/sseaudit/internal/tooltest"
	"github.com/sseaudit/sseaudit/replay"
)

// FuzzRequest: vLLM's request function, on whatever the vllm framer hands
// it, for both APIs and under every rule switched, never panics; a success
// has at most one ITL interval a message after the first, a latency no
// shorter than its TTFT when times go forward, and known counts only from
// the stream.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[{\"text\":5}]}\n\n",
		"data: {\"choices\":\"x\"}\n\ndata: {\"choices\":{\"0\":1}}\n\ndata: [1]\n\ndata: {\"usage\":[1]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":[1]}}]}\n\ndata: {\"usage\":{\"completion_tokens\":null,\"prompt_tokens\":\"x\"}}\n\n",
		": ping\n\ndata: {\"choices\":[{\"delta\":{}}]}\n\ndata: NaN\n\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(0x7f))
	}
	f.Fuzz(func(t *testing.T, body []byte, rules uint8) {
		req, res := tooltest.Replayed(t, body, 7, 1, replay.VLLM)
		r := Rules{EveryMessage: rules&1 != 0, StopAtDone: rules&2 != 0, NeedsEvent: rules&4 != 0, AnyUsage: rules&8 != 0,
			TPOTOfOne: rules&16 != 0, AISBenchDuration: rules&32 != 0}
		for _, api := range []API{Chat, Completions} {
			c := &Client{API: api, Rules: r}
			o := c.Request(req.T0Ns, res)
			if !o.Success {
				continue
			}
			if n := len(res.Messages); len(o.ITL) > max(n-1, 0) {
				t.Fatalf("%s: %d intervals from %d messages", api, len(o.ITL), n)
			}
			if o.Latency < o.TTFT {
				t.Fatalf("%s: latency %v before TTFT %v", api, o.Latency, o.TTFT)
			}
			var calc Calc
			calc.Rules = r
			calc.Add(o, req.T0Ns, *req.EndNs)
			calc.Result().Keys()
		}
	})
}

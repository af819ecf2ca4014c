package sglang

import (
	"testing"

	"github.com/sseaudit/sseaudit/internal/tooltest"
	"github.com/sseaudit/sseaudit/replay"
)

// FuzzRequest: SGLang's request function, on whatever the sglang framer
// hands it, for both APIs and under every rule switched, never panics; a
// success has at most one ITL interval a message after the first and a
// latency no shorter than its TTFT when times go forward.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"reasoning_content\":\"r\",\"content\":\"a\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"completion_tokens\":1}}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"text\":\"a\"}],\"usage\":{\"completion_tokens\":null}}\n\ndata: {\"choices\":[]}\n\n",
		"data: {\"choices\":\"x\"}\n\ndata: {\"choices\":{\"0\":1}}\n\ndata: [1]\n\ndata: {\"usage\":[1]}\n\n",
		": keep-alive\n\nevent: x\ndata: {\"choices\":[{\"delta\":[1]}]}\n\n",
		"\n\n\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(0x7f))
	}
	f.Fuzz(func(t *testing.T, body []byte, rules uint8) {
		req, res := tooltest.Replayed(t, body, 7, 1, replay.SGLang)
		r := Rules{EveryMessage: rules&1 != 0, LastEventLatency: rules&2 != 0, StopAtDone: rules&4 != 0, NeedsEvent: rules&8 != 0,
			AnyUsage: rules&16 != 0, TPOTOfOne: rules&32 != 0, AISBenchDuration: rules&64 != 0}
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

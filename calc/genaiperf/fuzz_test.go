package genaiperf

import (
	"math"
	"testing"

	"github.com/sseaudit/sseaudit/internal/tooltest"
	"github.com/sseaudit/sseaudit/replay"
)

// FuzzRequest: GenAI-Perf's response preprocessing and metrics, on
// whatever the genai-perf framer hands them, for both APIs and under every
// rule switched, never panic;
// the responses kept are among the reads' times, in order, and (but for
// the EveryMessage rule, which keeps events without content) carry a text
// when nothing raises; the keys come out finite.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		"data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\ndata: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[],\"usage\":{}}\n\ndata: [DONE]\n\n",
		"data: {\"object\":\"text_completion\",\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[{\"text\":5}]}\n\n",
		": ping\n\nevent: error\ndata: {}\n\ndata: {\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"content\":\"x\"}}]}\n\n",
		"\ndata: {\"choices\":[{\"text\":\"a\"}]}\n\n",
		"data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n",
	} {
		f.Add([]byte(s), uint8(7), false, uint8(0))
		f.Add([]byte(s), uint8(200), true, uint8(0xff))
	}
	f.Fuzz(func(t *testing.T, body []byte, size uint8, completions bool, rules uint8) {
		req, res := tooltest.Replayed(t, body, int(size)%64+1, 1, replay.GenAIPerf)
		api := Chat
		if completions {
			api = Completions
		}
		r := Rules{EveryMessage: rules&1 != 0, JSONLoads: rules&2 != 0, Failures: rules&4 != 0, AnyUsage: rules&8 != 0,
			TPOTOfOne: rules&16 != 0, NoRound: rules&32 != 0, Pooled: rules&64 != 0}
		c := &Client{API: api, Rules: r}
		o := c.Request(req.T0Ns, res)
		k := 0
		for _, ts := range o.Responses {
			for k < len(res.Messages) && res.Messages[k].TNs != ts {
				k++
			}
			if k == len(res.Messages) {
				t.Fatalf("responses %v are not among the reads' times", o.Responses)
			}
			k++
		}
		if o.Err == "" && !r.EveryMessage && len(o.Responses) > 0 && o.Text == "" {
			t.Fatalf("%d responses kept, no text", len(o.Responses))
		}
		calc := Calc{Rules: r}
		calc.Add(o)
		calc.Add(Output{StartNs: 2e9, Responses: []int64{3e9}, Text: "x"})
		res2 := calc.Result()
		for _, k := range res2.Keys() {
			if x, ok := k.Value.(float64); ok && (math.IsInf(x, 0) || math.IsNaN(x)) {
				t.Fatalf("%s: %v", k.Name, x)
			}
		}
	})
}

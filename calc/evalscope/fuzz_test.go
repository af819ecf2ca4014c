package evalscope

import (
	"math"
	"testing"

	"github.com/sseaudit/sseaudit/internal/tooltest"
	"github.com/sseaudit/sseaudit/replay"
)

// FuzzRequest: EvalScope's request function, on whatever the evalscope
// framer hands it and under every rule switched, never panics; a success
// has at most one ITL interval a message after the first and a latency no
// shorter than its TTFT when times go forward; the keys come out whatever
// the bytes.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n",
		"data: {\"object\":\"text_completion\",\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[{\"text\":5}]}\n\n",
		"data: {\"choices\":\"x\"}\n\ndata: {\"choices\":{\"0\":1}}\n\ndata: [1]\n\ndata: {\"usage\":[1]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":[1]}}]}\n\ndata: {\"usage\":{\"completion_tokens\":null,\"prompt_tokens\":\"x\"}}\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}},{\"message\":1},[2]],\"usage\":{\"prompt_tokens\":1}}\n\n",
		"data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":[0],\"delta\":\"content\"}]}\n\n",
		": ping\n\nevent: x\ndata: {\"choices\":[{\"delta\":{}}]}\n\ndata: NaN\n\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(0x7f))
	}
	f.Fuzz(func(t *testing.T, body []byte, rules uint8) {
		req, res := tooltest.Replayed(t, body, 7, 1, replay.EvalScope)
		r := Rules{EveryMessage: rules&1 != 0, StopAtDone: rules&2 != 0, NeedsEvent: rules&4 != 0, AnyUsage: rules&8 != 0,
			NumpyP99: rules&16 != 0, AISBenchDuration: rules&32 != 0}
		c := &Client{Rules: r}
		o := c.Request(req.T0Ns, res)
		if o.Success {
			if n := len(res.Messages); len(o.ITL) > max(n-1, 0) {
				t.Fatalf("%d intervals from %d messages", len(o.ITL), n)
			}
			if o.Latency < o.TTFT {
				t.Fatalf("latency %v before TTFT %v", o.Latency, o.TTFT)
			}
		}
		calc := Calc{Rules: r}
		calc.Add(o)
		calc.Add(c.Run(2e9, 3e9, "HTTP 500 Internal Server Error", nil))
		out := calc.Result()
		if out.Success > 1 || out.Total != 2 {
			t.Fatalf("%d successes of %d", out.Success, out.Total)
		}
		for _, k := range out.Keys() {
			if x, ok := k.Value.(float64); ok && math.IsInf(x, 0) {
				t.Fatalf("%s: %v", k.Name, x)
			}
		}
	})
}

// TestPySort: with a NaN, the order list.sort leaves (CPython 3.11,
// count_run and binary insertion for fewer than 64 values), worked by
// hand: [3, NaN, 1, 2]: count_run sees 3 then NaN (NaN < 3 false: an
// ascending run [3, NaN] of 2); 1 is inserted: l=0, r=2, p=1: 1 < NaN
// false, l=2: [3, NaN, 1]; 2: l=0, r=3, p=1: 2 < NaN false, l=2; p=2:
// 2 < 1 false, l=3: [3, NaN, 1, 2]. So calculate_percentiles' min is 3.
func TestPySort(t *testing.T) {
	nan := math.NaN()
	xs := []float64{3, nan, 1, 2}
	if !PySort(xs) || xs[0] != 3 || !math.IsNaN(xs[1]) || xs[2] != 1 || xs[3] != 2 {
		t.Errorf("got %v", xs)
	}
	// [2, 1, NaN, 0]: a descending run [2, 1] (NaN < 1 false ends it),
	// reversed to [1, 2]; NaN: p=1, NaN < 2 false, l=2: [1, 2, NaN];
	// 0: p=1: 0 < 2, r=1; p=0: 0 < 1, r=0: [0, 1, 2, NaN].
	ys := []float64{2, 1, nan, 0}
	if !PySort(ys) || ys[0] != 0 || ys[1] != 1 || ys[2] != 2 || !math.IsNaN(ys[3]) {
		t.Errorf("got %v", ys)
	}
	if PySort(append(make([]float64, 63), nan)) {
		t.Error("64 values holding a NaN: timsort's merges are not reproduced")
	}
}

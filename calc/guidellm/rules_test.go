package guidellm

import (
	"math"
	"testing"

	"github.com/sseaudit/sseaudit/replay"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// TestFromValues, worked by hand: (3,1) (1,1) (2,2) (1,1) merge to 1:2,
// 2:2, 3:1 of 5: probabilities .4 .4 .2, cumulative .4 .8 1; p25 is 1
// (.4 >= .25), p50 2, p90 3; mean 1.8; the mode the first of the largest
// probability, 1; variance .4×.64 + .4×.04 + .2×1.44 = .56.
func TestFromValues(t *testing.T) {
	d := FromValues([]Weighted{{3, 1}, {1, 1}, {2, 2}, {1, 1}})
	if !near(d.Mean, 1.8) || d.Mode != 1 || !near(d.Variance, 0.56) || d.Count != 5 || !near(d.TotalSum, 9) ||
		d.Min != 1 || d.Max != 3 || d.Median != 2 || d.Percentiles[4] != 1 || d.Percentiles[7] != 3 {
		t.Errorf("got %+v", d)
	}
	// Weights of 0 and less are dropped, but count sums them all.
	d = FromValues([]Weighted{{5, 0}, {7, 2}, {9, -1}})
	if d.Min != 7 || d.Max != 7 || d.Count != 1 {
		t.Errorf("got %+v", d)
	}
	if d := FromValues(nil); d != (Dist{}) {
		t.Errorf("no value: %+v", d)
	}
}

// TestMergeTimes: runs within 1e-4 s of their first merge into it; a chain
// longer than the threshold keeps its tail.
func TestMergeTimes(t *testing.T) {
	got := mergeTimes([]Weighted{{0, 1}, {0.00005, 1}, {0.00009, 1}, {0.0002, 1}, {0.00025, 1}, {1, 1}})
	want := []Weighted{{0, 3}, {0.0002, 2}, {1, 1}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %v, want %v", got, want)
		}
	}
	got = mergeTimes([]Weighted{{0, 1}, {0.00008, 1}, {0.00016, 1}})
	if len(got) != 2 || got[0] != (Weighted{0, 2}) || got[1] != (Weighted{0.00016, 1}) {
		t.Errorf("chain: %v", got)
	}
}

// TestRateDist: events at 1, 2 and 3 s in [0, 4]: shares .5 1 1 1 .5,
// rates 0 1 1 1 0: value 0 of weight 1, 1 of weight 3; count 3.
func TestRateDist(t *testing.T) {
	d := RateDist([]Weighted{{2, 1}, {1, 1}, {3, 1}}, true, 0, 4)
	if !near(d.Mean, 0.75) || d.Count != 3 || d.Median != 1 || d.Percentiles[4] != 0 || d.Mode != 1 {
		t.Errorf("got %+v", d)
	}
	// Without the window (the token rates): 1, 2, 3 with shares .5 1 .5,
	// rates 2 1 2: mean 1.5.
	if d := RateDist([]Weighted{{2, 1}, {1, 1}, {3, 1}}, false, 0, 0); !near(d.Mean, 1.5) || d.Count != 3 || d.Median != 1 {
		t.Errorf("no window: %+v", d)
	}
}

// TestConcurrencyDist: [0, 2] and [1, 3] in [0, 3]: 1 in flight for 2 s,
// 2 for 1 s; count 2.
func TestConcurrencyDist(t *testing.T) {
	d := ConcurrencyDist([][2]float64{{0, 2}, {1, 3}}, 0, 3)
	if !near(d.Mean, 4.0/3) || d.Count != 2 || d.Median != 1 || d.Max != 2 || d.Min != 1 {
		t.Errorf("got %+v", d)
	}
}

func TestLinspace(t *testing.T) {
	got := linspace(1, 2, 5)
	for i, w := range []float64{1, 1.25, 1.5, 1.75, 2} {
		if got[i] != w {
			t.Errorf("got %v", got)
		}
	}
}

func lines(c *Client, texts ...string) []Message {
	var ms []Message
	for i, s := range texts {
		ms = append(ms, c.read(replay.Message{TNs: int64(i+1) * 1e9, Text: []byte(s)}))
	}
	return ms
}

// TestRules: each rule of the streaming client, on lines.
func TestRules(t *testing.T) {
	c := &Client{API: Chat}
	role := `data: {"choices":[{"delta":{"role":"assistant","content":""}}]}`
	text := `data: {"choices":[{"delta":{"content":"a"}}]}`
	usage := `data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}`
	// [DONE] ends the request at its line: request_end is its time; the
	// role chunk is an iteration but no token; usage gives the counts.
	o := Run(0, 9e9, "", lines(c, role, text, text, usage, "data: [DONE]", text))
	if !o.Success || o.End != 5 || o.FirstToken != 2 || o.LastToken != 3 || o.TokenIterations != 2 ||
		o.RequestIterations != 5 || o.OutputTokens != (Count{2, true}) || o.PromptTokens != (Count{3, true}) {
		t.Errorf("got %+v", o)
	}
	// TPOT counts the first token: 1000 × (3 - 0) / 2; ITL leaves it out.
	if v, w := o.TPOTms(); v != 1500 || w != 2 {
		t.Errorf("TPOT %v weight %v", v, w)
	}
	if v, w := o.ITLms(); v != 1000 || w != 1 {
		t.Errorf("ITL %v weight %v", v, w)
	}
	// "data:[DONE]" is not the end marker: json.loads fails the request.
	if o := Run(0, 9e9, "", lines(c, text, "data:[DONE]")); o.Success {
		t.Error("data:[DONE] succeeded")
	}
	// JSON null ends the stream as [DONE] does; the body's end otherwise.
	if o := Run(0, 9e9, "", lines(c, text, "data: null", "data: {")); !o.Success || o.End != 2 {
		t.Errorf("null: %+v", o)
	}
	if o := Run(0, 9e9, "", lines(c, text)); !o.Success || o.End != 9 {
		t.Errorf("no end marker: %+v", o)
	}
	// Reasoning only, no usage: no text, post_validation fails it; with a
	// usage of output tokens it succeeds, TTFOT unset.
	reasoning := `data: {"choices":[{"delta":{"reasoning_content":"r"}}]}`
	if o := Run(0, 9e9, "", lines(c, reasoning)); o.Success {
		t.Error("reasoning only succeeded")
	}
	if o := Run(0, 9e9, "", lines(c, reasoning, usage)); !o.Success || o.HasFirstOutput || !o.HasFirst {
		t.Errorf("reasoning with usage: %+v", o)
	}
	// An error payload, a null delta, a non-str content fail the request.
	for _, bad := range []string{`data: {"error":{"message":"x"}}`, `data: {"choices":[{"delta":null}]}`,
		`data: {"choices":[{"delta":{"content":5}}]}`, `data: {"id":7,"choices":[{"delta":{"content":"a"}}]}`} {
		if o := Run(0, 9e9, "", lines(c, text, bad)); o.Success {
			t.Errorf("%s succeeded", bad)
		}
	}
	// Comments and other fields are iterations, not tokens.
	if o := Run(0, 9e9, "", lines(c, ": ping", "event: x", text)); !o.Success || o.RequestIterations != 3 || o.TokenIterations != 1 {
		t.Errorf("comment: %+v", o)
	}
	// A transport error after [DONE] does not fail the request.
	if o := Run(0, 9e9, "reset", lines(c, text, "data: [DONE]")); !o.Success {
		t.Errorf("error after [DONE]: %+v", o)
	}
	if o := Run(0, 9e9, "reset", lines(c, text)); o.Success {
		t.Error("error before [DONE] succeeded")
	}
	// Completions: a choice's text is a token; usage "7" validates as 7.
	cc := &Client{API: Completions}
	o = Run(0, 9e9, "", lines(cc, `data: {"choices":[{"text":"a"}]}`, `data: {"choices":[],"usage":{"completion_tokens":"7"}}`))
	if !o.Success || o.OutputTokens != (Count{7, true}) || o.TokenIterations != 1 {
		t.Errorf("completions: %+v", o)
	}
}

// TestAISBenchRules: each of Rules switched to AISBench's, on lines.
func TestAISBenchRules(t *testing.T) {
	c := &Client{API: Chat}
	role := `data: {"choices":[{"delta":{"role":"assistant","content":""}}]}`
	text := `data: {"choices":[{"delta":{"content":"a"}}]}`
	usage := `data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,` +
		`"completion_tokens_details":{"audio_tokens":4}}}`
	msgs := lines(c, role, text, text, usage, "data: [DONE]")
	// every_message: the role chunk (1 s) is the first token, the usage tail
	// (4 s) the last; latency: request_end is the last event, not [DONE]'s 5 s.
	o := RunWith(Rules{EveryMessage: true, LastEventEnd: true, PooledITL: true}, 0, 9e9, "", msgs)
	if !o.Success || o.FirstToken != 1 || o.LastToken != 4 || o.End != 4 || len(o.Times) != 4 {
		t.Errorf("every message: %+v", o)
	}
	// usage: guidellm adds the details' audio tokens (6); AISBench takes
	// completion_tokens (2); a 0 is unknown.
	if o := Run(0, 9e9, "", msgs); o.OutputTokens != (Count{6, true}) {
		t.Errorf("own usage: %+v", o.OutputTokens)
	}
	if o := RunWith(Rules{Usage: true}, 0, 9e9, "", msgs); o.OutputTokens != (Count{2, true}) {
		t.Errorf("AISBench's usage: %+v", o.OutputTokens)
	}
	zero := `data: {"choices":[],"usage":{"completion_tokens":0}}`
	if o := RunWith(Rules{Usage: true}, 0, 9e9, "", lines(c, text, zero)); o.OutputTokens.Known {
		t.Errorf("a 0 known: %+v", o.OutputTokens)
	}
	// success: a reasoning-only stream without usage fails post_validation,
	// not AISBench's rule; a stream of no event fails AISBench's only.
	reasoning := `data: {"choices":[{"delta":{"reasoning_content":"r"}}]}`
	if o := RunWith(Rules{NeedsEvent: true}, 0, 9e9, "", lines(c, reasoning)); !o.Success {
		t.Error("reasoning only failed under AISBench's rule")
	}
	if o := RunWith(Rules{NeedsEvent: true, EveryMessage: true}, 0, 9e9, "", lines(c, ": ping")); o.Success {
		t.Error("no event succeeded under AISBench's rule")
	}
	// The aisbench framer's payloads read as data lines.
	pc := &Client{API: Chat, Payloads: true}
	if o := Run(0, 9e9, "", lines(pc, `{"choices":[{"delta":{"content":"a"}}]}`, "[DONE]", text)); !o.Success || o.End != 2 ||
		o.TokenIterations != 1 {
		t.Errorf("payloads: %+v", o)
	}
	// The calculator: TPOT (E2E - TTFT) / (tokens - 1) = (4 - 1) / 1 s;
	// pooled intervals 1, 1, 1 s; duration the success's 0 to 4 s.
	var calc Calc
	calc.Rules = Rules{RequestTPOT: true, PooledITL: true, AISBenchDuration: true, Percentile: true}
	calc.Add(RunWith(Rules{EveryMessage: true, LastEventEnd: true, PooledITL: true, Usage: true}, 0, 9e9, "", msgs))
	r := calc.Result()
	if r.RequestTPOT != 3 || r.PooledITL.Mean != 1 || r.PooledITL.N != 3 || r.Duration != 4 || r.TTFTP99 != 1 {
		t.Errorf("calc: TPOT %v ITL %+v duration %v P99 %v", r.RequestTPOT, r.PooledITL, r.Duration, r.TTFTP99)
	}
}

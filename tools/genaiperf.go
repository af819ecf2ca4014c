package tools

import (
	"github.com/sseaudit/sseaudit/calc/genaiperf"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

// --- GenAI-Perf --------------------------------------------------------

var genaiperfRules = []ruleSwitch[genaiperf.Rules]{
	{Rule: Rule{"framing", "takes every read as one response (perf_analyzer's write callback), joining splintered events and merging several in one read",
		"frames the body line by line into blocks, one event each"}, framing: true},
	{Rule: Rule{"every_message", "drops responses without content: the role-only first chunk, the finish, the usage-only tail", "times every event it parses"},
		set: func(r *genaiperf.Rules) { r.EveryMessage = true }},
	{Rule: Rule{"json", "parses with orjson and blanks a response it refuses", "parses with json.loads and fails the request on a payload it refuses"},
		set: func(r *genaiperf.Rules) { r.JSONLoads = true }},
	{Rule: Rule{"failures", "stops the whole run on a failed request (perf_analyzer)", "counts it as failed"},
		set: func(r *genaiperf.Rules) { r.Failures = true }},
	{Rule: Rule{"any_usage", "counts output tokens with its tokenizer, never from the usage (not computed here)", "takes the last truthy usage, a 0 unknown"},
		set: func(r *genaiperf.Rules) { r.AnyUsage = true }},
	{Rule: Rule{"tpot_of_one", "leaves requests of one output token or one response out of inter_token_latency", "counts them with TPOT 0"},
		set: func(r *genaiperf.Rules) { r.TPOTOfOne = true }},
	{Rule: Rule{"round", "rounds inter_token_latency to the ns", "keeps TPOT unrounded"},
		set: func(r *genaiperf.Rules) { r.NoRound = true }},
	{Rule: Rule{"pooled_itl", "pools no intervals: its inter_token_latency is per request, from the tokenizer", "pools the intervals between events"},
		set: func(r *genaiperf.Rules) { r.Pooled = true }},
}

type genaiperfVariant struct {
	tool Tool
	variantFraming
	client *genaiperf.Client
	calc   *genaiperf.Calc
}

// newGenAIPerf is GenAI-Perf under rules, framed by perf_analyzer's client
// or AISBench's framer.
func newGenAIPerf(tool Tool, api string, rules genaiperf.Rules, aisFraming bool) *genaiperfVariant {
	rules.Events = aisFraming
	v := &genaiperfVariant{tool: tool, variantFraming: framedBy(replay.GenAIPerf, aisFraming),
		client: &genaiperf.Client{API: genaiperf.API(api), Rules: rules}, calc: &genaiperf.Calc{Rules: rules}}
	return v
}

func (v *genaiperfVariant) reads() string { return "" }

func (v *genaiperfVariant) add(rr *record.Replayed, _ *prepared) {
	v.calc.Add(v.client.Request(rr.T0Ns, rr.Replay))
}

func (v *genaiperfVariant) result() *ToolResult {
	r := v.calc.Result()
	tr := &ToolResult{Tool: v.tool, Err: r.Err, Notes: []string{
		"--service-kind openai --endpoint-type " + string(v.client.API) + " --streaming; perf_analyzer's client (C++) reproduced from its code: a response a read",
		"profile_export_genai_perf.json's metrics as <metric>.<stat>, times in ms (scale_data), each metric's unit left out",
	}}
	if r.Err != "" {
		for q := range tr.Summary {
			tr.Summary[q] = unknown("GenAI-Perf stops: " + r.Err)
		}
		return tr
	}
	for _, k := range r.Keys() {
		tr.Keys = append(tr.Keys, Key(k))
	}
	s := &tr.Summary
	none := "GenAI-Perf has no request left with a response"
	ms := func(st *genaiperf.Stats, x float64) Value {
		if st.N == 0 {
			return unknown(none)
		}
		return known(x / 1e9)
	}
	s[TTFTMean], s[TTFTP99] = ms(&r.TTFT, r.TTFT.Avg), ms(&r.TTFT, r.TTFT.P[len(genaiperf.Percentiles)-1])
	tokenizer := "needs GenAI-Perf's tokenizer: its inter_token_latency and token counts come from it, never from the stream's usage"
	s[ITLMean], s[ITLSamples] = unknown(tokenizer), unknown("GenAI-Perf pools no intervals (its inter_token_latency is a request's (latency - TTFT) / (tokens - 1))")
	s[TPOTMean], s[OutputTokens], s[OutputThroughput] = unknown(tokenizer), unknown(tokenizer), unknown(tokenizer)
	s[E2EMean] = ms(&r.Latency, r.Latency.Avg)
	s[Successes] = known(float64(r.Kept))
	rules := v.calc.Rules
	if rules.Pooled {
		s[ITLMean] = orWhy(r.Pooled.Avg/1e9, r.Pooled.N > 0, "no interval")
		s[ITLSamples] = known(float64(r.Pooled.N))
	}
	if rules.AnyUsage { // AISBench's counts: from the usage
		why := "a kept request's stream carries no truthy usage with completion_tokens"
		s[TPOTMean] = orWhy(r.TPOT.Avg/1e9, r.UsageKnown && r.TPOT.N > 0, why)
		s[OutputTokens] = orWhy(float64(r.UsageTokens), r.UsageKnown, why)
		s[OutputThroughput] = orWhy(float64(r.UsageTokens)/r.Duration, r.UsageKnown && r.Kept > 0, why)
	}
	if r.Kept > 0 {
		s[Duration] = known(r.Duration)
	} else {
		s[Duration] = unknown(none)
	}
	return tr
}

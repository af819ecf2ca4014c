package tools

import (
	"github.com/sseaudit/sseaudit/calc/aiperf"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

// --- AIPerf ------------------------------------------------------------

var aiperfRules = []ruleSwitch[aiperf.Rules]{
	{Rule: Rule{"framing", "times a message at its first byte and cuts messages at a \"\\n\\n\" within one read (aiohttp 3.12's readuntil): a blank line split over two reads or CRLF line ends join events",
		"frames the body line by line into blocks, each timed at its end"}, framing: true},
	{Rule: Rule{"every_message", "times only a message holding text: the role-only first chunk and the finish are not responses, E2E ends at the last text's first byte", "times every event it parses"},
		set: func(r *aiperf.Rules) { r.EveryMessage = true }},
	{Rule: Rule{"stop_at_done", "reads on after [DONE]", "stops at [DONE]"}, set: func(r *aiperf.Rules) { r.StopAtDone = true }},
	{Rule: Rule{"json", "parses with orjson and skips a message it refuses (NaN, a lone surrogate escape, a payload that is not JSON)", "parses with json.loads and fails the request on a payload it refuses"},
		set: func(r *aiperf.Rules) { r.JSONLoads = true }},
	{Rule: Rule{"empty_choices", "fails a request on a chunk with empty choices (the usage-only tail: IndexError)", "reads it"},
		set: func(r *aiperf.Rules) { r.KeepGoing = true }},
	{Rule: Rule{"zero_interval", "drops every inter-chunk latency of a request with two messages in one read (a 0 ns interval raises)", "keeps zero intervals"},
		set: func(r *aiperf.Rules) { r.ZeroIntervals = true }},
	{Rule: Rule{"any_usage", "counts output tokens with its tokenizer, never from the usage (not computed here)", "takes the last truthy usage, a 0 unknown"},
		set: func(r *aiperf.Rules) { r.AnyUsage = true }},
	{Rule: Rule{"tpot_of_one", "leaves requests of one output token out of inter_token_latency", "counts them with TPOT 0"},
		set: func(r *aiperf.Rules) { r.TPOTOfOne = true }},
}

type aiperfVariant struct {
	tool Tool
	variantFraming
	client *aiperf.Client
	calc   *aiperf.Calc
}

// newAIPerf is AIPerf under rules, framed by its own framer or AISBench's.
func newAIPerf(tool Tool, rules aiperf.Rules, aisFraming bool) *aiperfVariant {
	v := &aiperfVariant{tool: tool, variantFraming: framedBy(replay.AIPerf, aisFraming),
		client: &aiperf.Client{Rules: rules}, calc: &aiperf.Calc{Rules: rules}}
	return v
}

func (v *aiperfVariant) reads() string { return "aiperf" }

func (v *aiperfVariant) add(rr *record.Replayed, p *prepared) {
	v.calc.Add(v.client.Run(rr.T0Ns, rr.Replay.EndNs, rr.Replay.Transport, p.aiperf))
}

func (v *aiperfVariant) result() *ToolResult {
	r := v.calc.Result()
	tr := &ToolResult{Tool: v.tool, Notes: []string{
		"endpoint chat or completions, --streaming, without --goodput; a trace holds no headers: every 200 is taken as text/event-stream",
		"profile_export_aiperf.json's metrics as <tag>.<stat> in display units (ms, sec), each metric's unit left out; experimental and internal metrics are not exported",
		"a request is valid with a parsed response; the others count in error_request_count",
	}}
	for _, k := range r.Keys() {
		tr.Keys = append(tr.Keys, Key(k))
	}
	s := &tr.Summary
	none := "AIPerf has no valid request: the metric is not in its export"
	ms := func(st *aiperf.Stats, x float64) Value {
		if st.N == 0 {
			return unknown(none)
		}
		return known(x / 1e9)
	}
	s[TTFTMean], s[TTFTP99] = ms(&r.TTFT, r.TTFT.Avg), ms(&r.TTFT, r.TTFT.P[len(aiperf.Percentiles)-1])
	s[ITLMean] = ms(&r.ICL, r.ICL.Avg)
	s[ITLSamples] = known(float64(r.ICL.N))
	s[E2EMean] = ms(&r.Latency, r.Latency.Avg)
	tokenizer := "needs AIPerf's tokenizer: it counts output tokens with it, never from the stream's usage"
	s[TPOTMean] = unknown("inter_token_latency " + tokenizer)
	s[OutputTokens], s[OutputThroughput] = unknown(tokenizer), unknown(tokenizer)
	s[Successes] = known(float64(r.Valid))
	if r.HasDuration {
		s[Duration] = known(float64(r.DurationNs) / 1e9)
	} else {
		s[Duration] = unknown("AIPerf derives no benchmark_duration: no valid request has a response after its start")
	}
	if v.calc.Rules.AnyUsage { // AISBench's counts: from the usage
		why := "a valid request's stream carries no truthy usage with completion_tokens"
		s[TPOTMean] = orWhy(r.TPOT.Avg/1e9, r.UsageKnown && r.TPOT.N > 0, why)
		s[OutputTokens] = orWhy(float64(r.UsageTokens), r.UsageKnown, why)
		s[OutputThroughput] = orWhy(float64(r.UsageTokens)/(float64(r.DurationNs)/1e9), r.UsageKnown && r.HasDuration, why)
	}
	return tr
}

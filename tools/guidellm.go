package tools

import (
	"github.com/sseaudit/sseaudit/calc/guidellm"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

// --- guidellm ----------------------------------------------------------

var guidellmRules = []ruleSwitch[guidellm.Rules]{
	{Rule: Rule{"framing", "reads httpx's text lines (str.splitlines, blank ones skipped): every data line is a message, CR-only or LF-only streams frame alike, a comment line does not hide the data after it",
		"frames the body line by line into blocks, skipping comment blocks"}, framing: true},
	{Rule: Rule{"every_message", "times only a line adding text, reasoning or a tool call: the role-only first chunk, the finish and the usage-only tail are not tokens", "times every event it parses"},
		set: func(r *guidellm.Rules) { r.EveryMessage = true }},
	{Rule: Rule{"latency", "ends request_latency at the [DONE] line's read, else the body's end", "ends E2E at the last event before [DONE]"},
		set: func(r *guidellm.Rules) { r.LastEventEnd = true }},
	{Rule: Rule{"success", "fails a response without text, a tool call or output tokens (post_validation)", "fails a request with fewer than two time points"},
		set: func(r *guidellm.Rules) { r.NeedsEvent = true }},
	{Rule: Rule{"usage", "takes output tokens from completion_tokens_details or the usage, plus the details' image, video and audio tokens; without usage the dataset's", "takes the last truthy usage's completion_tokens, a 0 unknown"},
		set: func(r *guidellm.Rules) { r.Usage = true }},
	{Rule: Rule{"tpot", "takes TPOT as (last token - start) / output tokens, the first token included, weighted by output tokens",
		"takes (E2E - TTFT) / (output tokens - 1), 0 for one token, a request's mean"},
		set: func(r *guidellm.Rules) { r.RequestTPOT = true }},
	{Rule: Rule{"pooled_itl", "takes ITL as a request's (last - first token) / (output tokens - 1), weighted by output tokens - 1", "pools the intervals between events"},
		set: func(r *guidellm.Rules) { r.PooledITL = true }},
	{Rule: Rule{"percentile", "takes P99 as the first value whose cumulative probability reaches 0.99", "interpolates (np.percentile)"},
		set: func(r *guidellm.Rules) { r.Percentile = true }},
	{Rule: Rule{"throughput", "takes output throughput as the mean of output_tokens_per_second, a rate distribution over the timeline",
		"divides the output tokens by the duration"},
		set: func(r *guidellm.Rules) { r.Throughput = true }},
	{Rule: Rule{"duration", "divides by its measured window, the trace's span", "divides by the successes' last end minus first start"},
		set: func(r *guidellm.Rules) { r.AISBenchDuration = true }},
}

type guidellmVariant struct {
	tool Tool
	api  guidellm.API
	variantFraming
	rules guidellm.Rules
	calc  *guidellm.Calc
}

// newGuideLLM is guidellm under rules, framed by httpx's lines or
// AISBench's framer (the payloads its client parsed).
func newGuideLLM(tool Tool, api string, rules guidellm.Rules, aisFraming bool) *guidellmVariant {
	v := &guidellmVariant{tool: tool, api: guidellm.API(api), variantFraming: framedBy(replay.GuideLLM, aisFraming), rules: rules,
		calc: &guidellm.Calc{Rules: rules}}
	return v
}

func (v *guidellmVariant) reads() string { return "guidellm" }

func (v *guidellmVariant) add(rr *record.Replayed, p *prepared) {
	v.calc.Add(guidellm.RunWith(v.rules, rr.T0Ns, rr.Replay.EndNs, rr.Replay.Transport, p.guidellm))
}

func (v *guidellmVariant) result() *ToolResult {
	r := v.calc.Result()
	format := map[guidellm.API]string{guidellm.Chat: "/v1/chat/completions", guidellm.Completions: "/v1/completions"}[v.api]
	tr := &ToolResult{Tool: v.tool, Notes: []string{
		"backend openai_http, request format " + format + ", streaming, --prefer-response-metrics (the default); " +
			"without its perf extras (orjson): lines parsed with json.loads",
		"its metrics of the successful requests (benchmarks.json's metrics.<metric>.successful), unrounded; " +
			"its measured window (duration, and the rates' and concurrency's bounds) is the trace's span; " +
			"its console prints the rates of every request (status total), the table here the successful ones'",
	}}
	for _, k := range r.Keys() {
		tr.Keys = append(tr.Keys, Key(k))
	}
	why := func(key string) string {
		for _, k := range tr.Keys {
			if k.Name == key {
				return k.NotComputed
			}
		}
		return ""
	}
	stat := func(m guidellm.Metric, field string, scale float64) Value {
		name := guidellm.MetricNames[m] + ".successful." + field
		if w := why(name); w != "" {
			return unknown(w)
		}
		if r.Totals.Successful == 0 {
			return unknown("guidellm writes 0: no request succeeded")
		}
		for _, k := range tr.Keys {
			if k.Name == name {
				switch x := k.Value.(type) {
				case float64:
					return known(x * scale)
				case int64:
					return known(float64(x) * scale)
				}
			}
		}
		return unknown("not among guidellm's keys")
	}
	s := &tr.Summary
	s[TTFTMean], s[TTFTP99] = stat(guidellm.TTFT, "mean", 1e-3), stat(guidellm.TTFT, "percentiles.p99", 1e-3)
	s[ITLMean], s[ITLSamples] = stat(guidellm.ITL, "mean", 1e-3), stat(guidellm.ITL, "count", 1)
	s[TPOTMean], s[E2EMean] = stat(guidellm.TPOT, "mean", 1e-3), stat(guidellm.RequestLatency, "mean", 1)
	s[OutputTokens] = orWhy(float64(r.TotalOutput), r.OutputKnown, whyGuideLLMDataset)
	s[OutputThroughput] = stat(guidellm.OutputPerSecond, "mean", 1)
	s[Successes], s[Duration] = known(float64(r.Totals.Successful)), known(r.Duration)
	v.aisbench(r, s)
	return tr
}

// aisbench sets the quantities the rules switched to AISBench's compute
// instead.
func (v *guidellmVariant) aisbench(r *guidellm.Result, s *Summary) {
	rules, ok := v.rules, r.Totals.Successful > 0
	none := "guidellm writes 0: no request succeeded"
	noCount := whyGuideLLMDataset
	if rules.Usage {
		noCount = "a success's stream carries no truthy usage with a nonzero int completion_tokens"
		s[OutputTokens] = orWhy(float64(r.TotalOutput), r.OutputKnown, noCount)
	}
	if rules.Percentile {
		s[TTFTP99] = orWhy(r.TTFTP99, ok, none)
	}
	if rules.PooledITL {
		s[ITLMean] = orWhy(r.PooledITL.Mean, r.PooledITL.N > 0, "no interval")
		s[ITLSamples] = known(float64(r.PooledITL.N))
	}
	if rules.RequestTPOT {
		s[TPOTMean] = orWhy(r.RequestTPOT, ok && r.OutputKnown, map[bool]string{true: noCount, false: none}[ok])
	}
	if rules.Throughput {
		s[OutputThroughput] = orWhy(float64(r.TotalOutput)/r.Duration, r.OutputKnown && r.Duration > 0,
			cmpOr(s[OutputTokens].Why, "the duration is 0"))
		if rules.AISBenchDuration && !ok {
			s[Duration] = unknown(none)
		}
	}
}

const whyGuideLLMDataset = "needs the dataset's output token counts: a successful request's stream carries no usage"

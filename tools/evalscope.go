package tools

import (
	"github.com/sseaudit/sseaudit/calc/evalscope"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

// --- EvalScope ---------------------------------------------------------

var evalscopeRules = []ruleSwitch[evalscope.Rules]{
	{Rule: Rule{"framing", "decodes each read, makes CRLF LF, keeps a block's data lines only (joined) and hands on a JSON value complete before its blank line at once",
		"frames the body line by line into blocks"}, framing: true},
	{Rule: Rule{"every_message", "times only a message with choices: the usage-only tail is not an ITL (it still ends E2E)", "times every event it parses"},
		set: func(r *evalscope.Rules) { r.EveryMessage = true }},
	{Rule: Rule{"stop_at_done", "reads on after [DONE]", "stops at [DONE]"}, set: func(r *evalscope.Rules) { r.StopAtDone = true }},
	{Rule: Rule{"needs_event", "counts a stream read to its end as a success, without any token", "fails a request with fewer than two time points"},
		set: func(r *evalscope.Rules) { r.NeedsEvent = true }},
	{Rule: Rule{"any_usage", "takes the last truthy usage's counts as they are, else parse_responses'", "takes the last truthy usage, a 0 unknown"},
		set: func(r *evalscope.Rules) { r.AnyUsage = true }},
	{Rule: Rule{"percentile", "takes P99 as the sorted values' [int(n * 0.99)]", "interpolates (np.percentile)"},
		set: func(r *evalscope.Rules) { r.NumpyP99 = true }},
	{Rule: Rule{"duration", "divides by every request's first start (failed ones too) to the last completion", "divides by the successes' last end minus first start"},
		set: func(r *evalscope.Rules) { r.AISBenchDuration = true }},
}

type evalscopeVariant struct {
	tool Tool
	variantFraming
	client *evalscope.Client
	calc   *evalscope.Calc
}

// newEvalScope is EvalScope under rules, framed by its own framer or
// AISBench's.
func newEvalScope(tool Tool, rules evalscope.Rules, aisFraming bool) *evalscopeVariant {
	v := &evalscopeVariant{tool: tool, variantFraming: framedBy(replay.EvalScope, aisFraming),
		client: &evalscope.Client{Rules: rules}, calc: &evalscope.Calc{Rules: rules}}
	return v
}

func (v *evalscopeVariant) reads() string { return "evalscope" }

func (v *evalscopeVariant) add(rr *record.Replayed, p *prepared) {
	v.calc.Add(v.client.Run(rr.T0Ns, rr.Replay.EndNs, rr.Replay.Transport, p.evalscope))
}

func (v *evalscopeVariant) result() *ToolResult {
	r := v.calc.Result()
	tr := &ToolResult{Tool: v.tool, Err: r.Err, Notes: []string{
		"API plugin openai (OpenaiPlugin), --stream, without --tokenizer-path; a trace holds no headers: every 200 is taken as text/event-stream",
		"values unrounded: EvalScope rounds what it saves (benchmark_summary.json to 4 decimals, its ms values to 2; benchmark_percentile.json to 2)",
	}}
	if r.Err != "" {
		for q := range tr.Summary {
			tr.Summary[q] = unknown("EvalScope stops: " + r.Err)
		}
		return tr
	}
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
	s := &tr.Summary
	none := "EvalScope writes -1: no request succeeded"
	mean := func(x float64) Value {
		if r.Success == 0 {
			return unknown(none)
		}
		return known(x)
	}
	s[TTFTMean] = mean(r.AvgTTFT)
	if p99 := r.Percentiles[evalscope.ColTTFT]; r.PercentilesOK[evalscope.ColTTFT] && r.Success > 0 {
		s[TTFTP99] = known(p99[len(p99)-2] / 1000)
	} else {
		s[TTFTP99] = unknown(cmpOr(why("TTFT (ms) 99%"), "EvalScope writes NaN: no request succeeded"))
	}
	s[ITLMean], s[ITLSamples] = known(r.AvgITL), known(float64(r.ITLSamples))
	s[TPOTMean] = orWhy(r.AvgTPOT, r.TPOTKnown && r.Success > 0, cmpOr(why("Avg TPOT (ms)"), none))
	s[E2EMean] = mean(r.AvgLatency)
	s[OutputTokens] = orWhy(float64(r.TotalOutput), r.OutputKnown, why("Avg Output Tokens"))
	s[OutputThroughput] = orWhy(r.OutputThroughput, r.OutputKnown && r.Duration > 0,
		cmpOr(why("Output Throughput (tok/s)"), "EvalScope writes -1: the duration is 0"))
	s[Successes], s[Duration] = known(float64(r.Success)), known(r.Duration)
	return tr
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

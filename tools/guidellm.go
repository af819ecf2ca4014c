package tools

import (
	"github.com/sseaudit/sseaudit/calc/guidellm"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

// --- guidellm ----------------------------------------------------------

type guidellmVariant struct {
	tool Tool
	api  guidellm.API
	calc *guidellm.Calc
}

func newGuideLLM(tool Tool, api string) *guidellmVariant {
	return &guidellmVariant{tool: tool, api: guidellm.API(api), calc: &guidellm.Calc{}}
}

func (v *guidellmVariant) replay() replay.Options { return replay.Options{Framer: replay.GuideLLM} }

func (v *guidellmVariant) reads() string { return "guidellm" }

func (v *guidellmVariant) add(rr *record.Replayed, p *prepared) {
	v.calc.Add(guidellm.Run(rr.T0Ns, rr.Replay.EndNs, rr.Replay.Transport, p.guidellm))
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
	return tr
}

const whyGuideLLMDataset = "needs the dataset's output token counts: a successful request's stream carries no usage"

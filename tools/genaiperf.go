package tools

import (
	"github.com/sseaudit/sseaudit/calc/genaiperf"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

// --- GenAI-Perf --------------------------------------------------------

// genaiperfVariant is GenAI-Perf's own computation. Its rules are not
// switched to AISBench's (the tool is Partial): no why, no residual.
type genaiperfVariant struct {
	tool   Tool
	client *genaiperf.Client
	calc   *genaiperf.Calc
}

func newGenAIPerf(tool Tool, api string) *genaiperfVariant {
	return &genaiperfVariant{tool: tool, client: &genaiperf.Client{API: genaiperf.API(api)}, calc: &genaiperf.Calc{}}
}

func (v *genaiperfVariant) replay() replay.Options { return replay.Options{Framer: replay.GenAIPerf} }

func (v *genaiperfVariant) reads() string { return "" }

func (v *genaiperfVariant) add(rr *record.Replayed, _ *prepared) {
	v.calc.Add(v.client.Request(rr.T0Ns, rr.Replay))
}

func (v *genaiperfVariant) result() *ToolResult {
	r := v.calc.Result()
	tr := &ToolResult{Tool: v.tool, Err: r.Err, Notes: []string{
		"--service-kind openai --endpoint-type " + string(v.client.API) + " --streaming; perf_analyzer's client (C++) reproduced from its code: a response a read",
		"profile_export_genai_perf.json's metrics as <metric>.<stat>, times in ms (scale_data), each metric's unit left out",
		"its rules are not switched to AISBench's here: no why, no residual",
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
	if r.Kept > 0 {
		s[Duration] = known(r.Duration)
	} else {
		s[Duration] = unknown(none)
	}
	return tr
}

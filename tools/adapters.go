package tools

import (
	"github.com/sseaudit/sseaudit/calc/aiperf"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/calc/evalscope"
	"github.com/sseaudit/sseaudit/calc/guidellm"
	"github.com/sseaudit/sseaudit/calc/sglang"
	"github.com/sseaudit/sseaudit/calc/vllm"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/run"
	"github.com/sseaudit/sseaudit/unit"
)

// A variant is one computation of a tool over the trace: its own, or with
// rules switched. It reads the requests its framer replays (add), then
// gives the tool's result (result).
type variant interface {
	replay() replay.Options // the framer and its options (MaxEventBytes aside)
	reads() string          // the messages it reads ("vllm", "sglang"), or "" for none
	add(rr *record.Replayed, p *prepared)
	result() *ToolResult
}

// prepared is what a request's messages read as, for each tool's request
// function, read once for every variant of the tool (in the replay's
// workers).
type prepared struct {
	vllm      []vllm.Message
	sglang    []sglang.Message
	evalscope []evalscope.Message
	aiperf    []aiperf.Message
	guidellm  []guidellm.Message
}

// ruleSwitch is one rule of a tool and how to switch it to AISBench's:
// framing (the aisbench framer's Messages instead of the tool's own
// framing) or set (the rule's field).
type ruleSwitch[R any] struct {
	Rule
	framing bool
	set     func(*R)
}

// --- vLLM --------------------------------------------------------------

var vllmRules = []ruleSwitch[vllm.Rules]{
	{Rule: Rule{"framing", "frames each read stripped, then by StreamedResponseHandler's buffer: after a comment block or a read cut just after \"data:\", events are lost",
		"frames the body line by line into blocks"}, framing: true},
	{Rule: Rule{"every_message", "times only a message with choices: the usage-only tail is not an ITL", "times every event it parses"},
		set: func(r *vllm.Rules) { r.EveryMessage = true }},
	{Rule: Rule{"stop_at_done", "reads on after [DONE]", "stops at [DONE]"}, set: func(r *vllm.Rules) { r.StopAtDone = true }},
	{Rule: Rule{"needs_event", "counts a chat request without any token as a success", "fails a request with fewer than two time points"},
		set: func(r *vllm.Rules) { r.NeedsEvent = true }},
	{Rule: Rule{"any_usage", "takes output tokens from a usage chunk without choices only", "takes the last truthy usage of any event"},
		set: func(r *vllm.Rules) { r.AnyUsage = true }},
	{Rule: Rule{"tpot_of_one", "leaves requests of one output token out of TPOT", "counts them with TPOT 0"},
		set: func(r *vllm.Rules) { r.TPOTOfOne = true }},
	{Rule: Rule{"duration", "divides by its wall clock, the trace's span", "divides by the successes' last end minus first start"},
		set: func(r *vllm.Rules) { r.AISBenchDuration = true }},
}

// variantFraming is a variant's framer: the tool's own, or AISBench's (its
// Messages: the payloads AISBench's client parsed) when the framing rule
// is switched.
type variantFraming struct {
	framer   replay.Framer
	messages bool
}

func framedBy(own replay.Framer, aisFraming bool) variantFraming {
	if aisFraming {
		return variantFraming{framer: replay.AISBench, messages: true}
	}
	return variantFraming{framer: own}
}

func (f variantFraming) replay() replay.Options {
	return replay.Options{Framer: f.framer, Messages: f.messages}
}

type vllmVariant struct {
	tool Tool
	api  vllm.API
	variantFraming
	client *vllm.Client
	calc   *vllm.Calc
}

// newVLLM is vLLM under rules, framed by its own framer or AISBench's; a
// lean one keeps only what the table's quantities need.
func newVLLM(tool Tool, api string, rules vllm.Rules, aisFraming, lean bool) *vllmVariant {
	v := &vllmVariant{tool: tool, api: vllm.API(api), variantFraming: framedBy(replay.VLLM, aisFraming),
		client: &vllm.Client{API: vllm.API(api), Rules: rules}, calc: &vllm.Calc{Rules: rules, Lean: lean}}
	return v
}

func (v *vllmVariant) reads() string { return "vllm" }

func (v *vllmVariant) add(rr *record.Replayed, p *prepared) {
	v.calc.Add(v.client.Run(rr.T0Ns, rr.Replay.Transport, p.vllm), rr.T0Ns, rr.Replay.EndNs)
}

func (v *vllmVariant) result() *ToolResult {
	r := v.calc.Result()
	tr := &ToolResult{Tool: v.tool}
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
	s[TTFTMean], s[TTFTP99] = known(r.TTFT.Mean), known(r.TTFT.Percentiles[0])
	s[ITLMean], s[ITLSamples] = known(r.ITL.Mean), known(float64(r.ITL.Samples))
	s[TPOTMean] = orWhy(r.TPOT.Mean, r.TPOTKnown, why("mean_tpot_ms"))
	s[E2EMean] = known(r.E2EL.Mean)
	s[OutputTokens] = orWhy(float64(r.TotalOutput), r.OutputKnown, why("total_output_tokens"))
	s[OutputThroughput] = orWhy(r.OutputThroughput, r.OutputKnown, why("output_throughput"))
	s[Successes], s[Duration] = known(float64(r.Completed)), known(r.Duration)
	tr.Notes = []string{
		"backend " + map[vllm.API]string{vllm.Chat: "openai-chat", vllm.Completions: "openai"}[v.api] +
			", --percentile-metrics ttft,tpot,itl,e2el, --metric-percentiles 99, without --save-detailed",
	}
	return tr
}

// --- SGLang ------------------------------------------------------------

var sglangRules = []ruleSwitch[sglang.Rules]{
	{Rule: Rule{"framing", "parses every non-blank line as JSON: a ': keep-alive' comment, an 'event:' or 'id:' line, a CR-only body fail the request",
		"frames the body line by line into blocks, skipping comment blocks"}, framing: true},
	{Rule: Rule{"every_message", "times only a message with text: the role-only first chunk, the finish and usage-only chunks are not tokens", "times every event it parses"},
		set: func(r *sglang.Rules) { r.EveryMessage = true }},
	{Rule: Rule{"latency", "ends E2E at the last line read, [DONE] included", "ends it at the last event before [DONE]"},
		set: func(r *sglang.Rules) { r.LastEventLatency = true }},
	{Rule: Rule{"stop_at_done", "reads on after [DONE]", "stops at [DONE]"}, set: func(r *sglang.Rules) { r.StopAtDone = true }},
	{Rule: Rule{"needs_event", "counts a request without any token as a success", "fails a request with fewer than two time points"},
		set: func(r *sglang.Rules) { r.NeedsEvent = true }},
	{Rule: Rule{"any_usage", "takes output tokens from any usage holding completion_tokens", "takes the last truthy usage, a 0 unknown"},
		set: func(r *sglang.Rules) { r.AnyUsage = true }},
	{Rule: Rule{"tpot_of_one", "leaves requests of one output token out of TPOT", "counts them with TPOT 0"},
		set: func(r *sglang.Rules) { r.TPOTOfOne = true }},
	{Rule: Rule{"duration", "divides by its wall clock, the trace's span", "divides by the successes' last end minus first start"},
		set: func(r *sglang.Rules) { r.AISBenchDuration = true }},
}

type sglangVariant struct {
	tool Tool
	api  sglang.API
	variantFraming
	client *sglang.Client
	calc   *sglang.Calc
}

// newSGLang is SGLang under rules, framed by its own framer or AISBench's;
// a lean one keeps only what the table's quantities need.
func newSGLang(tool Tool, api string, rules sglang.Rules, aisFraming, lean bool) *sglangVariant {
	v := &sglangVariant{tool: tool, api: sglang.API(api), variantFraming: framedBy(replay.SGLang, aisFraming),
		client: &sglang.Client{API: sglang.API(api), Rules: rules}, calc: &sglang.Calc{Rules: rules, Lean: lean}}
	return v
}

func (v *sglangVariant) reads() string { return "sglang" }

func (v *sglangVariant) add(rr *record.Replayed, p *prepared) {
	v.calc.Add(v.client.Run(rr.T0Ns, rr.Replay.Transport, p.sglang), rr.T0Ns, rr.Replay.EndNs)
}

func (v *sglangVariant) result() *ToolResult {
	r := v.calc.Result()
	tr := &ToolResult{Tool: v.tool, Err: r.Err}
	for _, k := range r.Keys() {
		tr.Keys = append(tr.Keys, Key(k))
	}
	tr.Notes = []string{"backend " + map[sglang.API]string{sglang.Chat: "vllm-chat", sglang.Completions: "vllm"}[v.api] +
		" (the sglang-oai backends also ask the server for its speculative accept length, which can change ITL)"}
	if r.Err != "" {
		for q := range tr.Summary {
			tr.Summary[q] = unknown("SGLang stops: " + r.Err)
		}
		return tr
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
	s[TTFTMean], s[TTFTP99] = known(r.TTFT.Mean), known(r.TTFT.P99)
	s[ITLMean], s[ITLSamples] = known(r.ITL.Mean), known(float64(r.ITL.Samples))
	s[TPOTMean] = orWhy(r.TPOT.Mean, r.TPOTKnown, why("mean_tpot_ms"))
	s[E2EMean] = known(r.E2E.Mean)
	s[OutputTokens] = orWhy(float64(r.TotalOutput), r.OutputKnown, why("total_output_tokens"))
	s[OutputThroughput] = orWhy(r.OutputThroughput, r.OutputKnown, why("output_throughput"))
	s[Successes], s[Duration] = known(float64(r.Completed)), known(r.Duration)
	return tr
}

func orWhy(x float64, ok bool, why string) Value {
	if ok {
		return known(x)
	}
	return unknown(why)
}

// --- AISBench ----------------------------------------------------------

// aisbenchVariant is AISBench itself: calc/aisbench's total stage (its
// DefaultPerfMetricCalculator), the result `audit report` gives; or one of
// its open pull requests' clients: pr479 gives usage-only events no time
// point, pr481 skips "id:" blocks as it skips comment blocks.
type aisbenchVariant struct {
	tool          Tool
	run           *run.Run
	c             int  // max concurrency, from the trace's metadata (0: unknown)
	skipID        bool // pr481
	dropUsageOnly bool // pr479
}

func (v *aisbenchVariant) replay() replay.Options {
	return replay.Options{Framer: replay.AISBench, SkipIDBlocks: v.skipID}
}

func (v *aisbenchVariant) reads() string { return "" }

func (v *aisbenchVariant) add(rr *record.Replayed, _ *prepared) {
	rec := rr.Record
	if v.dropUsageOnly && rec.Events != nil {
		rec = withoutUsageOnly(rec)
	}
	v.run.Add(rec)
}

// withoutUsageOnly is a record whose usage-only events have no time point
// (AISBench's pull request 479): their usage still counts. A success left
// with fewer than two time points fails, as RequestOutput.get_metrics
// makes it.
func withoutUsageOnly(rec record.Request) record.Request {
	out := rec
	out.TimePoints = []float64{rec.TimePoints[0]}
	out.Events = nil
	for i, e := range rec.Events {
		if e.Class == replay.ClassUsageOnly {
			continue
		}
		out.TimePoints = append(out.TimePoints, rec.TimePoints[i+1])
		out.Events = append(out.Events, e)
	}
	if len(out.TimePoints) < 2 {
		out.Success = false
	}
	return out
}

func (v *aisbenchVariant) result() *ToolResult {
	tr := &ToolResult{Tool: v.tool, Notes: []string{
		"its chat client (VLLMCustomAPIChat), as audit report replays it: a completions stream fails every request (KeyError: 'delta')"}}
	res, err := aisbench.Compute(v.run, aisbench.Config{MaxConcurrency: v.c})
	v.run.Release()
	if err != nil {
		tr.Err = err.Error()
		return tr
	}
	st := res.Total
	if st.Err != nil {
		tr.Err = st.Err.Error()
		for q := range tr.Summary {
			tr.Summary[q] = unknown(tr.Err)
		}
		return tr
	}
	tr.Keys = aisbenchKeys(st, v.c)
	stat := func(m metric.Metric, name string) Value {
		r := st.Metric(m)
		if r == nil {
			return unknown("AISBench removes the " + string(m) + " row: " + removedWhy(st, m))
		}
		s, ok := r.Statistic(name)
		if !ok {
			return unknown("not among AISBench's statistics")
		}
		return known(s.Raw)
	}
	s := &tr.Summary
	s[TTFTMean], s[TTFTP99] = stat(metric.TTFT, "Average"), stat(metric.TTFT, "P99")
	s[ITLMean] = stat(metric.ITL, "Average")
	if r := st.Metric(metric.ITL); r != nil {
		s[ITLSamples] = known(float64(r.Samples))
	} else {
		s[ITLSamples] = s[ITLMean]
	}
	s[TPOTMean], s[E2EMean] = stat(metric.TPOT, "Average"), stat(metric.E2EL, "Average")
	c := st.Common
	s[OutputTokens] = known(float64(c.TotalGeneratedTokens))
	s[OutputThroughput] = orWhy(c.OutputTokenThroughput.Raw, c.HasTokenThroughput, "AISBench leaves the token throughputs out when the duration is 0")
	s[Successes], s[Duration] = known(float64(c.SuccessRequests)), known(st.DurationSeconds)
	tr.Notes = append(tr.Notes, "the total stage (DefaultPerfMetricCalculator), unrounded; audit report gives both stages as AISBench prints them")
	for _, rm := range st.Removed {
		tr.Notes = append(tr.Notes, "AISBench leaves the "+string(rm.Name)+" row out: "+rm.Reason)
	}
	return tr
}

func removedWhy(st *aisbench.StageResult, m metric.Metric) string {
	for _, r := range st.Removed {
		if r.Name == m {
			return r.Reason
		}
	}
	return "no value"
}

// aisbenchKeys are the total stage's entries of <ds>.json and the rows of
// <ds>.csv, unrounded (times in ms, as AISBench prints them).
func aisbenchKeys(st *aisbench.StageResult, c int) []Key {
	cm := st.Common
	ks := []Key{
		{Name: "Benchmark Duration", Value: st.DurationSeconds * 1000},
		{Name: "Total Requests", Value: int64(cm.TotalRequests)},
		{Name: "Failed Requests", Value: int64(cm.FailedRequests)},
		{Name: "Success Requests", Value: int64(cm.SuccessRequests)},
		{Name: "Concurrency", Value: cm.Concurrency.Raw},
		{Name: "Max Concurrency", Value: int64(c)},
		{Name: "Request Throughput", Value: cm.RequestThroughput.Raw},
		{Name: "Total Input Tokens", Value: cm.TotalInputTokens},
		{Name: "Total Generated Tokens", Value: cm.TotalGeneratedTokens},
	}
	if c == 0 {
		ks[5] = Key{Name: "Max Concurrency", NotComputed: "AISBench's --max-concurrency (batch_size): the trace's metadata holds none"}
	}
	for _, name := range []string{"Input Token Throughput", "Output Token Throughput", "Total Token Throughput"} {
		if !cm.HasTokenThroughput {
			ks = append(ks, Key{Name: name, Value: nil})
		}
	}
	if cm.HasTokenThroughput {
		ks = append(ks, Key{Name: "Input Token Throughput", Value: cm.InputTokenThroughput.Raw},
			Key{Name: "Output Token Throughput", Value: cm.OutputTokenThroughput.Raw},
			Key{Name: "Total Token Throughput", Value: cm.TotalTokenThroughput.Raw})
	}
	for _, m := range st.Metrics {
		scale := 1.0
		if m.Unit == unit.Seconds {
			scale = 1000
		}
		for _, s := range m.Stats {
			ks = append(ks, Key{Name: string(m.Name) + " " + s.Name, Value: s.Raw * scale})
		}
		ks = append(ks, Key{Name: string(m.Name) + " N", Value: int64(m.N)})
	}
	return ks
}

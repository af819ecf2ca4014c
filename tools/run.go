package tools

import (
	"bytes"
	"fmt"

	"github.com/sseaudit/sseaudit/calc/aiperf"
	"github.com/sseaudit/sseaudit/calc/evalscope"
	"github.com/sseaudit/sseaudit/calc/genaiperf"
	"github.com/sseaudit/sseaudit/calc/guidellm"
	"github.com/sseaudit/sseaudit/calc/sglang"
	"github.com/sseaudit/sseaudit/calc/vllm"
	"github.com/sseaudit/sseaudit/internal/parallel"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/run"
	"github.com/sseaudit/sseaudit/samples"
	"github.com/sseaudit/sseaudit/trace"
)

// Options say what Run computes.
type Options struct {
	Tools []Tool // in the table's order; nil for Default()
	// API is chat or completions: which request function a tool runs
	// (its chat or completions client); "" reads it from the trace's
	// metadata (sseaudit.run.api), else from the first payload.
	API string
	// Why recomputes each tool with its rules switched to AISBench's, one
	// at a time and all at once (Report.Why, Report.Residual).
	Why           bool
	MaxEventBytes int64 // replay's limit; 0 for its default
}

// Opener opens the trace anew: Run reads it once for each framer.
type Opener func() (trace.Reader, error)

// Run computes every tool's report from the trace.
func Run(open Opener, opts Options) (*Report, error) {
	open = openBytes(open)
	tools := opts.Tools
	if tools == nil {
		tools = Default()
	}
	rep := &Report{API: opts.API, APIFrom: "--api"}
	r, err := open()
	if err != nil {
		return nil, err
	}
	info := r.Info()
	rep.Trace = info.Path
	c, _, err := info.Meta.MaxConcurrency()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("%s: %w", info.Path, err)
	}
	noTimeline, _ := info.Meta.Get(trace.KeyStartTimes)
	if rep.API == "" {
		rep.API, rep.APIFrom, err = sniffAPI(r)
	}
	r.Close()
	if err != nil {
		return nil, err
	}

	type entry struct {
		own   variant
		rules []variant // one a rule, in the rules' order
		all   variant   // every rule switched
	}
	entries := make([]entry, len(tools))
	var every []variant
	for i, t := range tools {
		e := &entries[i]
		switch t.Name {
		case "aisbench", "aisbench@pr479", "aisbench@pr481":
			e.own = &aisbenchVariant{tool: t, run: run.New(samples.NewHeap()), c: c,
				dropUsageOnly: t.Name == "aisbench@pr479", skipID: t.Name == "aisbench@pr481"}
			if opts.Why && t.Name != "aisbench" {
				// The pull request's one rule switched back: AISBench itself.
				e.rules = []variant{&aisbenchVariant{tool: t, run: run.New(samples.NewHeap()), c: c}}
			}
		case "vllm":
			e.own = newVLLM(t, rep.API, vllm.Rules{}, false, false)
			if opts.Why {
				var all vllm.Rules
				for _, rs := range vllmRules {
					var rules vllm.Rules
					if rs.set != nil {
						rs.set(&rules)
						rs.set(&all)
					}
					e.rules = append(e.rules, newVLLM(t, rep.API, rules, rs.framing, true))
				}
				e.all = newVLLM(t, rep.API, all, true, true)
			}
		case "sglang":
			e.own = newSGLang(t, rep.API, sglang.Rules{}, false, false)
			if opts.Why {
				var all sglang.Rules
				for _, rs := range sglangRules {
					var rules sglang.Rules
					if rs.set != nil {
						rs.set(&rules)
						rs.set(&all)
					}
					e.rules = append(e.rules, newSGLang(t, rep.API, rules, rs.framing, true))
				}
				e.all = newSGLang(t, rep.API, all, true, true)
			}
		case "evalscope":
			e.own = newEvalScope(t, evalscope.Rules{}, false)
			if opts.Why {
				var all evalscope.Rules
				for _, rs := range evalscopeRules {
					var rules evalscope.Rules
					if rs.set != nil {
						rs.set(&rules)
						rs.set(&all)
					}
					e.rules = append(e.rules, newEvalScope(t, rules, rs.framing))
				}
				e.all = newEvalScope(t, all, true)
			}
		case "aiperf":
			e.own = newAIPerf(t, aiperf.Rules{}, false)
			if opts.Why {
				var all aiperf.Rules
				for _, rs := range aiperfRules {
					var rules aiperf.Rules
					if rs.set != nil {
						rs.set(&rules)
						rs.set(&all)
					}
					e.rules = append(e.rules, newAIPerf(t, rules, rs.framing))
				}
				e.all = newAIPerf(t, all, true)
			}
		case "genai-perf":
			e.own = newGenAIPerf(t, rep.API, genaiperf.Rules{}, false)
			if opts.Why {
				var all genaiperf.Rules
				for _, rs := range genaiperfRules {
					var rules genaiperf.Rules
					if rs.set != nil {
						rs.set(&rules)
						rs.set(&all)
					}
					e.rules = append(e.rules, newGenAIPerf(t, rep.API, rules, rs.framing))
				}
				e.all = newGenAIPerf(t, rep.API, all, true)
			}
		case "guidellm":
			e.own = newGuideLLM(t, rep.API, guidellm.Rules{}, false)
			if opts.Why {
				var all guidellm.Rules
				for _, rs := range guidellmRules {
					var rules guidellm.Rules
					if rs.set != nil {
						rs.set(&rules)
						rs.set(&all)
					}
					e.rules = append(e.rules, newGuideLLM(t, rep.API, rules, rs.framing))
				}
				e.all = newGuideLLM(t, rep.API, all, true)
			}
		default:
			return nil, fmt.Errorf("tools: %s has no calculator", t.Name)
		}
		every = append(every, e.own)
		every = append(every, e.rules...)
		if e.all != nil {
			every = append(every, e.all)
		}
	}
	if err := readPasses(open, every, opts.MaxEventBytes, rep.API, rep); err != nil {
		return nil, err
	}

	// The results, each variant's at once.
	results := make(map[variant]*ToolResult, len(every))
	tasks := make([]func(), len(every))
	out := make([]*ToolResult, len(every))
	for k, v := range every {
		tasks[k] = func() { out[k] = v.result() }
	}
	parallel.Do(tasks...)
	for k, v := range every {
		results[v] = out[k]
		if noTimeline != "" {
			if err := withoutTimeline(out[k], noTimeline); err != nil {
				return nil, err
			}
		}
	}
	var ais *ToolResult
	for i := range entries {
		tr := results[entries[i].own]
		rep.Tools = append(rep.Tools, tr)
		if tr.Tool.Name == "aisbench" {
			ais = tr
		}
	}
	if opts.Why {
		for i, t := range tools {
			e := &entries[i]
			rules := ruleList(t.Name)
			own := results[e.own]
			for k, v := range e.rules {
				if a, ok := attribute(t, rules[k], own, results[v]); ok {
					rep.Why = append(rep.Why, a)
				}
			}
			if e.all != nil && ais != nil && ais.Err == "" {
				rep.Residual = append(rep.Residual, residual(t, ais, results[e.all]))
			}
		}
	}
	return rep, nil
}

func ruleList(tool string) []Rule {
	var rs []Rule
	switch tool {
	case "aisbench@pr479":
		rs = append(rs, Rule{"pr479", "gives a usage-only event no time point (its usage still counts)", "times every event it parses"})
	case "aisbench@pr481":
		rs = append(rs, Rule{"pr481", "skips a block starting with \"id:\" as it skips a comment block", "parses it as JSON, and fails the request"})
	case "vllm":
		for _, r := range vllmRules {
			rs = append(rs, r.Rule)
		}
	case "sglang":
		for _, r := range sglangRules {
			rs = append(rs, r.Rule)
		}
	case "evalscope":
		for _, r := range evalscopeRules {
			rs = append(rs, r.Rule)
		}
	case "aiperf":
		for _, r := range aiperfRules {
			rs = append(rs, r.Rule)
		}
	case "genai-perf":
		for _, r := range genaiperfRules {
			rs = append(rs, r.Rule)
		}
	case "guidellm":
		for _, r := range guidellmRules {
			rs = append(rs, r.Rule)
		}
	}
	return rs
}

// readPasses reads the trace once for each framer the variants need,
// handing every request to the variants of that framer, and fills the
// report's request count and span.
func readPasses(open Opener, every []variant, maxEventBytes int64, api string, rep *Report) error {
	type pass struct {
		opts  replay.Options
		vs    []variant
		reads map[string]bool
	}
	type key struct {
		framer replay.Framer
		skipID bool
	}
	var passes []*pass
	byKey := map[key]*pass{}
	for _, v := range every {
		o := v.replay()
		k := key{o.Framer, o.SkipIDBlocks}
		p := byKey[k]
		if p == nil {
			p = &pass{opts: replay.Options{Framer: o.Framer, SkipIDBlocks: o.SkipIDBlocks, MaxEventBytes: maxEventBytes},
				reads: map[string]bool{}}
			byKey[k] = p
			passes = append(passes, p)
		}
		p.opts.Messages = p.opts.Messages || o.Messages
		p.vs = append(p.vs, v)
		p.reads[v.reads()] = true
	}
	for k, p := range passes {
		r, err := open()
		if err != nil {
			return err
		}
		var first, last int64
		n := 0
		err = record.EachReplayWith(r, p.opts, func() func(*record.Replayed) *prepared {
			vc := &vllm.Client{API: vllm.API(api)}
			sc := &sglang.Client{API: sglang.API(api)}
			ec := &evalscope.Client{}
			ac := &aiperf.Client{}
			gc := &guidellm.Client{API: guidellm.API(api), Payloads: p.opts.Framer == replay.AISBench}
			return func(rr *record.Replayed) *prepared {
				var pr prepared
				if rr.Replay.Transport == "" {
					if p.reads["vllm"] {
						pr.vllm = vc.Read(rr.Replay)
					}
					if p.reads["sglang"] {
						pr.sglang = sc.Read(rr.Replay)
					}
					if p.reads["evalscope"] {
						pr.evalscope = ec.Read(rr.Replay)
					}
					if p.reads["aiperf"] {
						pr.aiperf = ac.Read(rr.Replay)
					}
				}
				if p.reads["guidellm"] {
					// Lines before a transport error count: [DONE] among
					// them ends the request first.
					pr.guidellm = gc.Read(rr.Replay)
				}
				return &pr
			}
		},
			func(rr *record.Replayed, pr *prepared) error {
				for _, v := range p.vs {
					v.add(rr, pr)
				}
				if n == 0 || rr.T0Ns < first {
					first = rr.T0Ns
				}
				if n == 0 || rr.Replay.EndNs > last {
					last = rr.Replay.EndNs
				}
				n++
				return nil
			})
		r.Close()
		if err != nil {
			return err
		}
		if k == 0 {
			rep.Requests = n
			if n > 0 {
				rep.SpanS = float64(last)/1e9 - float64(first)/1e9
			}
		}
	}
	return nil
}

// sniffAPI reads the API from the trace's metadata, else from the first
// request whose body holds a choice: "delta" is chat, "text" completions.
func sniffAPI(r trace.Reader) (api, from string, err error) {
	if v, ok := r.Info().Meta.Get(trace.KeyRunPrefix + "api"); ok && (v == "chat" || v == "completions") {
		return v, "metadata", nil
	}
	for r.Scan() {
		var body []byte
		for _, c := range r.Request().Chunks {
			body = append(body, c.Data...)
		}
		switch {
		case bytes.Contains(body, []byte(`"delta"`)):
			return "chat", "payload", nil
		case bytes.Contains(body, []byte(`"text"`)):
			return "completions", "payload", nil
		}
	}
	return "chat", "default", r.Err()
}

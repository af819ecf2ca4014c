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
			mk := func(r vllm.Rules, framing, lean bool) variant { return newVLLM(t, rep.API, r, framing, lean) }
			e.own = mk(vllm.Rules{}, false, false)
			if opts.Why {
				e.rules, e.all = switched(vllmRules, mk)
			}
		case "sglang":
			mk := func(r sglang.Rules, framing, lean bool) variant { return newSGLang(t, rep.API, r, framing, lean) }
			e.own = mk(sglang.Rules{}, false, false)
			if opts.Why {
				e.rules, e.all = switched(sglangRules, mk)
			}
		case "evalscope":
			mk := func(r evalscope.Rules, framing, _ bool) variant { return newEvalScope(t, r, framing) }
			e.own = mk(evalscope.Rules{}, false, false)
			if opts.Why {
				e.rules, e.all = switched(evalscopeRules, mk)
			}
		case "aiperf":
			mk := func(r aiperf.Rules, framing, _ bool) variant { return newAIPerf(t, r, framing) }
			e.own = mk(aiperf.Rules{}, false, false)
			if opts.Why {
				e.rules, e.all = switched(aiperfRules, mk)
			}
		case "genai-perf":
			mk := func(r genaiperf.Rules, framing, _ bool) variant { return newGenAIPerf(t, rep.API, r, framing) }
			e.own = mk(genaiperf.Rules{}, false, false)
			if opts.Why {
				e.rules, e.all = switched(genaiperfRules, mk)
			}
		case "guidellm":
			mk := func(r guidellm.Rules, framing, _ bool) variant { return newGuideLLM(t, rep.API, r, framing) }
			e.own = mk(guidellm.Rules{}, false, false)
			if opts.Why {
				e.rules, e.all = switched(guidellmRules, mk)
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

// switched is a tool's variants with each of its rules switched to
// AISBench's, one at a time (in the rules' order), and with every one:
// build makes a variant of the rules, with AISBench's framing when framing,
// as a variant made to attribute (lean) rather than the tool's own.
func switched[R any](rules []ruleSwitch[R], build func(r R, framing, lean bool) variant) (one []variant, all variant) {
	var every R
	for _, rs := range rules {
		var r R
		if rs.set != nil {
			rs.set(&r)
			rs.set(&every)
		}
		one = append(one, build(r, rs.framing, true))
	}
	return one, build(every, true, true)
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

// Package tools puts every benchmark tool's numbers from the same bytes side
// by side (audit tools): for each tool, what it would have reported from a
// trace, through its own client's framing and its own metric code (the
// calculator packages calc/aisbench, calc/vllm, calc/sglang, ...), its
// result keys as it saves them, what the bytes cannot give it and why; then
// one table across the tools, and why they differ: each tool recomputed
// with one of its rules switched to AISBench's at a time, the difference
// attributed to the rule that makes it.
//
// The pipeline: Run opens the trace once for each framer a tool needs
// (record.EachReplay), hands every request to the tools and their variants
// reading that framer (each a consumer), then builds the Report: the tools'
// keys, their summaries (the table's quantities), the attributions. Writing
// the report (text, markdown, JSON, HTML) computes nothing.
package tools

import (
	"fmt"
	"strings"
)

// Source pins the code a tool's calculator reproduces.
type Source struct {
	Repo   string   `json:"repo"`
	Commit string   `json:"commit"`
	Files  []string `json:"files"`
	// Proof is how the calculator is tested: "golden" (the tool's own code
	// run on our traces) or "documented" (its documented definitions).
	Proof string `json:"proof"`
}

// Tool is one tool audit tools knows.
type Tool struct {
	Name   string // as --tool names it
	Title  string // as the table heads it
	Source Source
	// Variant marks a tool that is another's unreleased change (a pull
	// request): in the table only when --tool names it.
	Variant bool
}

// Known lists the tools, in the table's order.
var Known = []Tool{
	{Name: "aisbench", Title: "AISBench", Source: Source{
		Repo: "AISBench/benchmark", Commit: "29c363e",
		Files: []string{"ais_bench/benchmark/models/api_models/base_api.py", "ais_bench/benchmark/summarizers/default_perf.py",
			"ais_bench/benchmark/calculators/default_perf_metric_calculator.py"},
		Proof: "golden"}},
	{Name: "aisbench@pr479", Title: "AISBench#479", Source: Source{
		Repo: "AISBench/benchmark", Commit: "pull/479",
		Files: []string{"ais_bench/benchmark/models/api_models/base_api.py"},
		Proof: "documented"}, Variant: true},
	{Name: "aisbench@pr481", Title: "AISBench#481", Source: Source{
		Repo: "AISBench/benchmark", Commit: "pull/481",
		Files: []string{"ais_bench/benchmark/models/api_models/base_api.py"},
		Proof: "documented"}, Variant: true},
	{Name: "vllm", Title: "vLLM", Source: Source{
		Repo: "vllm-project/vllm", Commit: "2f41c894e320a07a46a360ee72149dd84d6f4bec",
		Files: []string{"vllm/benchmarks/lib/endpoint_request_func.py", "vllm/benchmarks/serve.py"},
		Proof: "golden"}},
	{Name: "sglang", Title: "SGLang", Source: Source{
		Repo: "sgl-project/sglang", Commit: "db570fe619ae15d8bd4ee04f146bc8234c52a20d",
		Files: []string{"python/sglang/benchmark/serving.py"},
		Proof: "golden"}},
	{Name: "evalscope", Title: "EvalScope", Source: Source{
		Repo: "modelscope/evalscope", Commit: "fde259d2a32ab8a4cdb3af44dc8b18f504f1e277",
		Files: []string{"evalscope/perf/plugin/api/default_api.py", "evalscope/perf/plugin/api/openai_api.py",
			"evalscope/perf/utils/benchmark_util.py", "evalscope/perf/utils/db_util.py", "evalscope/perf/utils/perf_models.py"},
		Proof: "golden"}},
}

// Lookup finds a tool by name.
func Lookup(name string) (Tool, bool) {
	for _, t := range Known {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Names are the known tools' names.
func Names() []string {
	names := make([]string, len(Known))
	for i, t := range Known {
		names[i] = t.Name
	}
	return names
}

// Default are the tools of the table when --tool names none: every
// released tool.
func Default() []Tool {
	var ts []Tool
	for _, t := range Known {
		if !t.Variant {
			ts = append(ts, t)
		}
	}
	return ts
}

// ParseList reads --tool's comma-separated list ("" for Default), in the
// order given, each once.
func ParseList(s string) ([]Tool, error) {
	if strings.TrimSpace(s) == "" {
		return Default(), nil
	}
	var out []Tool
	seen := map[string]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		t, ok := Lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown tool %q (want %s)", name, strings.Join(Names(), ", "))
		}
		if seen[name] {
			return nil, fmt.Errorf("tool %q given twice", name)
		}
		seen[name] = true
		out = append(out, t)
	}
	return out, nil
}

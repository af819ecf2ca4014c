package tools

import (
	"fmt"
	"strings"
)

// timelineKeys are, for each tool, the result keys that divide by the run's
// timeline (its duration, requests in flight, per-second buckets) rather
// than describe requests: a trace without send times (trace.KeyStartTimes)
// cannot give them.
var timelineKeys = map[string][]string{
	"aisbench": {"Benchmark Duration", "Concurrency", "Request Throughput", "Input Token Throughput",
		"Output Token Throughput", "Total Token Throughput"},
	"vllm": {"duration", "request_throughput", "request_goodput", "output_throughput", "total_token_throughput",
		"max_output_tokens_per_s", "max_concurrent_requests", "rtfx"},
	"sglang": {"duration", "request_throughput", "output_throughput", "concurrency", "max_output_tokens_per_s",
		"max_concurrent_requests"},
	"evalscope": {"Test Duration (s)", "Req Throughput (req/s)", "Output Throughput (tok/s)",
		"Total Throughput (tok/s)", "Input Throughput (tok/s)"},
}

// timelineQuantities are the table's rows that divide by the run's duration.
var timelineQuantities = []Quantity{Duration, OutputThroughput}

// family is a tool's name less its variant ("aisbench@pr479": aisbench).
func family(tool string) string {
	name, _, _ := strings.Cut(tool, "@")
	return name
}

// withoutTimeline marks what a tool cannot compute from a trace without send
// times: its timeline keys and quantities, each saying why; the per-request
// figures stand.
func withoutTimeline(tr *ToolResult, reason string) error {
	keys, ok := timelineKeys[family(tr.Tool.Name)]
	if !ok {
		return fmt.Errorf("tools: %s names no keys that need the run's timeline", tr.Tool.Name)
	}
	why := fmt.Sprintf("the trace has no send times (%s): the run's duration and requests in flight are unknown", reason)
	for i := range tr.Keys {
		for _, k := range keys {
			if tr.Keys[i].Name == k {
				tr.Keys[i].Value, tr.Keys[i].NotComputed = nil, why
			}
		}
	}
	if tr.Err == "" {
		for _, q := range timelineQuantities {
			tr.Summary[q] = unknown(why)
		}
	}
	return nil
}

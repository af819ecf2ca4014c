package evalscope

import (
	"cmp"
	"math"
	"slices"

	"github.com/sseaudit/sseaudit/pynum"
)

// Calc gathers a run's requests and computes MetricsAccumulator's metrics
// and get_percentile_results' percentiles.
type Calc struct {
	Rules   Rules
	outputs []Output
}

// Add takes one request's output.
func (c *Calc) Add(o Output) { c.outputs = append(c.outputs, o) }

// Outputs are the requests' outputs as added.
func (c *Calc) Outputs() []Output { return c.outputs }

// Result computes what EvalScope writes. The requests are taken in the order
// they ended (their bodies' end, ties in trace order): the order in which
// its queue hands them to MetricsAccumulator.update and to the database,
// which the sums and the sorts of values holding NaN follow.
func (c *Calc) Result() *Result {
	outs := slices.Clone(c.outputs)
	slices.SortStableFunc(outs, func(a, b Output) int { return cmp.Compare(a.EndNs, b.EndNs) })
	r := &Result{PromptKnown: true, OutputKnown: true}
	var sumLat, sumTTFT, sumTPOT, sumDecoded float64
	var sumPrompt, sumCompl int64
	var wallStart, wallEnd float64
	nDecoded, noDecode := 0, true
	var itls []float64
	var rows []Output
	for i := range outs {
		o := &outs[i]
		r.Total++
		// MetricsAccumulator._update_wall_time, every request (a failed one's
		// completed_time is 0.0).
		if i == 0 {
			wallStart, wallEnd = o.StartTime, o.CompletedTime
		} else {
			wallStart, wallEnd = min(wallStart, o.StartTime), max(wallEnd, o.CompletedTime)
		}
		if !o.Success {
			continue
		}
		r.Success++
		rows = append(rows, *o)
		if !o.PromptTokens.Known {
			r.PromptKnown = false
			r.PromptWhy = cmp.Or(r.PromptWhy, o.PromptTokens.Why)
		}
		if o.ParseErr != "" && r.Err == "" {
			r.Err = o.ParseErr + " (OpenaiPlugin.parse_responses, counting the text of a request whose stream carries no usage)"
		}
		if !o.CompletionTokens.Known {
			r.OutputKnown = false
			r.OutputWhy = cmp.Or(r.OutputWhy, o.CompletionTokens.Why)
		}
		tpot := TPOT(o.Latency, o.TTFT, o.CompletionTokens.N)
		noDecode = noDecode && o.Latency-o.TTFT == 0
		sumLat += o.Latency
		sumTTFT += o.TTFT
		sumPrompt += o.PromptTokens.N
		sumCompl += o.CompletionTokens.N
		sumTPOT += tpot
		itls = append(itls, o.ITL...)
		if l := DecodedPerIter(o.CompletionTokens.N, len(o.ITL)); l > 1 {
			sumDecoded += l
			nDecoded++
		}
	}
	r.TPOTKnown = r.OutputKnown || noDecode
	r.Duration = 1.0 // wall_time before any request
	if r.Total > 0 {
		r.Duration = max(wallEnd-wallStart, 0)
	}
	if c.Rules.AISBenchDuration {
		r.Duration = aisbenchDuration(rows)
	}
	n, t := float64(r.Success), r.Duration
	r.AvgLatency = safeDiv(sumLat, n)
	r.AvgTTFT = safeDiv(sumTTFT, n) // every success is a stream
	r.AvgTPOT = safeDiv(sumTPOT, n)
	r.AvgPrompt = safeDiv(float64(sumPrompt), n)
	r.AvgOutput = safeDiv(float64(sumCompl), n)
	r.ITLSamples = len(itls)
	if len(itls) > 0 {
		r.AvgITL = pynum.PySum(itls) / float64(len(itls))
	}
	r.QPS = safeDiv(n, t)
	r.OutputThroughput = safeDiv(float64(sumCompl), t)
	r.TotalThroughput = safeDiv(float64(sumPrompt+sumCompl), t)
	r.TotalOutput = sumCompl
	r.AvgDecoded = -1
	if nDecoded > 0 {
		r.AvgDecoded = sumDecoded / float64(nDecoded)
	}
	r.Percentiles, r.PercentilesOK = percentileColumns(rows, c.Rules.NumpyP99)
	return r
}

// aisbenchDuration is AISBench's stage duration over the successful
// requests: the last end minus the first start.
func aisbenchDuration(rows []Output) float64 {
	if len(rows) == 0 {
		return 0
	}
	start, end := rows[0].StartTime, rows[0].StartTime+rows[0].Latency
	for _, o := range rows[1:] {
		start, end = min(start, o.StartTime), max(end, o.StartTime+o.Latency)
	}
	return end - start
}

// Column is one metric of benchmark_percentile.json.
type Column int

const (
	ColLatency Column = iota
	ColTTFT
	ColITL
	ColTPOT
	ColInputTokens
	ColOutputTokens
	ColOutputThroughput
	ColTotalThroughput
	ColDecodeThroughput
	numColumns
)

// ColumnNames are the columns' keys (PercentileMetrics), in PercentileRow's
// field order, the file's.
var ColumnNames = [numColumns]string{"Latency (s)", "TTFT (ms)", "ITL (ms)", "TPOT (ms)", "Input tokens",
	"Output tokens", "Output (tok/s)", "Total (tok/s)", "Decode (tok/s)"}

// percentileColumns is get_percentile_results for an LLM API: each
// column's values over the successful requests (all streams), in the
// database's order, and their percentiles.
func percentileColumns(rows []Output, numpy bool) (cols [numColumns][]float64, ok [numColumns]bool) {
	var data [numColumns][]float64
	ratio := func(num, den float64) float64 {
		if den > 0 {
			return num / den
		}
		return math.NaN()
	}
	for _, o := range rows {
		tpot := TPOT(o.Latency, o.TTFT, o.CompletionTokens.N)
		p, c := float64(o.PromptTokens.N), float64(o.CompletionTokens.N)
		data[ColLatency] = append(data[ColLatency], o.Latency)
		data[ColTTFT] = append(data[ColTTFT], o.TTFT*1000)
		for _, x := range o.ITL {
			data[ColITL] = append(data[ColITL], x*1000)
		}
		data[ColTPOT] = append(data[ColTPOT], tpot*1000)
		data[ColInputTokens] = append(data[ColInputTokens], p)
		data[ColOutputTokens] = append(data[ColOutputTokens], c)
		data[ColOutputThroughput] = append(data[ColOutputThroughput], ratio(c, o.Latency))
		data[ColTotalThroughput] = append(data[ColTotalThroughput], ratio(p+c, o.Latency))
		data[ColDecodeThroughput] = append(data[ColDecodeThroughput], ratio(1, tpot))
	}
	for k := range cols {
		if numpy {
			cols[k], ok[k] = NumpyPercentilesOf(data[k], Percentiles), true
		} else {
			cols[k], ok[k] = PercentilesOf(data[k], Percentiles)
		}
	}
	return cols, ok
}

package guidellm

// Result is GenerativeMetrics' request totals and the successful requests'
// distributions, unrounded, with what depends on the dataset.
type Result struct {
	Duration float64 // GenerativeBenchmark.duration: the measured window
	Totals   Totals
	Dists    [numMetrics]Dist
	// Depends marks, for each metric, the fields (fieldNames' order) that
	// differ with the dataset's lengths: a successful request's stream
	// carries no usage.
	Depends     [numMetrics][]bool
	TotalOutput int64 // the successes' output tokens, when OutputKnown
	OutputKnown bool  // every success's output tokens came from its usage
	// Under Rules switched to AISBench's, in seconds: TTFT's P99
	// (Percentile), the pooled ITL (PooledITL), the requests' mean TPOT
	// (RequestTPOT, known with OutputKnown).
	TTFTP99   float64
	PooledITL struct {
		Mean float64
		N    int
	}
	RequestTPOT float64
}

// fieldNames are a DistributionSummary's fields as benchmarks.json holds
// them (pdf left out), the percentiles under "percentiles.".
var fieldNames = func() []string {
	names := []string{"mean", "median", "mode", "variance", "std_dev", "min", "max", "count", "total_sum"}
	for _, p := range PercentileNames {
		names = append(names, "percentiles."+p)
	}
	return names
}()

const countField = 7

func (d Dist) fields() []float64 {
	fs := []float64{d.Mean, d.Median, d.Mode, d.Variance, d.StdDev, d.Min, d.Max, float64(d.Count), d.TotalSum}
	return append(fs, d.Percentiles[:]...)
}

// Key is one key of the saved result: its value (int64, float64), or why
// it is not computed.
type Key struct {
	Name        string
	Value       any
	NotComputed string
}

const whyDataset = "needs the dataset's prompt or output token counts: a successful request's stream carries no usage " +
	"(compile_stats then takes the GenerationRequest's, and output_tokens falls back to the token iterations without one)"

// Keys are the benchmark's duration and its metrics (GenerativeMetrics) kept
// here, as "<metric>.successful.<field>"
// ("time_to_first_token_ms.successful.percentiles.p99"), after
// request_totals' four; in its field order, unrounded.
func (r *Result) Keys() []Key {
	ks := []Key{
		{Name: "duration", Value: r.Duration},
		{Name: "request_totals.successful", Value: int64(r.Totals.Successful)},
		{Name: "request_totals.incomplete", Value: int64(0)},
		{Name: "request_totals.errored", Value: int64(r.Totals.Errored)},
		{Name: "request_totals.total", Value: int64(r.Totals.Successful + r.Totals.Errored)},
	}
	for m, d := range r.Dists {
		fs := d.fields()
		for i, f := range fieldNames {
			name := MetricNames[m] + ".successful." + f
			switch {
			case r.Depends[m][i]:
				ks = append(ks, Key{Name: name, NotComputed: whyDataset})
			case i == countField:
				ks = append(ks, Key{Name: name, Value: d.Count})
			default:
				ks = append(ks, Key{Name: name, Value: fs[i]})
			}
		}
	}
	return ks
}

// TimelineKeys are the keys that divide by the run's timeline: duration and
// every field of the Timeline metrics.
func TimelineKeys() []string {
	ks := []string{"duration"}
	for _, m := range Timeline {
		for _, f := range fieldNames {
			ks = append(ks, MetricNames[m]+".successful."+f)
		}
	}
	return ks
}

package lag

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// SchemaVersion is the version of the JSON WriteJSON writes.
const SchemaVersion = 1

// Sources name the two files compared, for the output.
type Sources struct{ Wire, Client string }

func ms(ns float64) string { return fmt.Sprintf("%.3f", ns/1e6) }

// WriteText writes the report as text.
func (r *Report) WriteText(w io.Writer, src Sources) error {
	var b strings.Builder
	fmt.Fprintf(&b, "wire    %s: %d requests\n", src.Wire, r.WireRequests)
	fmt.Fprintf(&b, "client  %s: %d requests\n", src.Client, r.ClientRequests)
	fmt.Fprintf(&b, "matched %d (%d by prompt, %d by order and time); compared %d (successful on both sides)\n",
		r.Matched, r.ByPrompt, r.Matched-r.ByPrompt, r.Compared)
	o := r.Offset
	switch {
	case !o.Bounded:
		b.WriteString("clock offset: unknown (no request to compare)\n")
	default:
		fmt.Fprintf(&b, "clock offset: client = wire + %.6f s (%s); bounds %.6f to %.6f s",
			float64(o.Ns)/1e9, o.Source, float64(o.LowNs)/1e9, float64(o.HighNs)/1e9)
		if !o.Consistent {
			b.WriteString(" — inconsistent (low above high): requests matched wrongly, or clocks that drift")
		}
		b.WriteString("\n")
	}
	e := r.Events
	fmt.Fprintf(&b, "events: %d aligned; %d merged by the client into a later one; %d timed by the client, not on the wire; %d on the wire, never timed\n",
		e.Aligned, e.Merged, e.ClientOnly, e.NeverTimed)
	if e.DifferCount > 0 {
		fmt.Fprintf(&b, "  %d requests count different events on the two sides: %s\n", e.DifferCount, strings.Join(e.Differ, ", "))
	}
	b.WriteString("\nlag per event (client time point - wire arrival - offset), ms\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tN\tMin\tP50\tAverage\tP90\tP99\tMax\t")
	distRow(tw, "lag", r.Lag)
	tw.Flush()
	if len(r.ByInFlight) > 0 {
		b.WriteString("\nlag by requests in flight on the wire, ms\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "in flight\tN\tMin\tP50\tAverage\tP90\tP99\tMax\t")
		for _, k := range r.ByInFlight {
			name := fmt.Sprint(k.Lo)
			if k.Hi != k.Lo {
				name = fmt.Sprintf("%d-%d", k.Lo, k.Hi)
			}
			distRow(tw, name, k.Lag)
		}
		tw.Flush()
		fmt.Fprintf(&b, "slope: %.3f ms more lag a request in flight (least squares)\n", r.SlopeNsPerStream/1e6)
	}
	if len(r.Metrics) > 0 {
		b.WriteString("\nthe client's metrics (AISBench's formulas), from its time points and with the wire's times, ms\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "metric\tN\tclient P50\twire P50\tclient Average\twire Average\tclient P99\twire P99\t")
		for _, m := range r.Metrics {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", m.Name, m.Client.N, ms(m.Client.P50), ms(m.Wire.P50),
				ms(m.Client.Mean), ms(m.Wire.Mean), ms(m.Client.P99), ms(m.Wire.P99))
		}
		tw.Flush()
	}
	b.WriteString("\nfindings\n")
	if len(r.Findings) == 0 {
		b.WriteString("  none\n")
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  %s %s: %s\n", f.Severity, f.Code, f.Message)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func distRow(w io.Writer, name string, d Dist) {
	fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, d.N, ms(d.Min), ms(d.P50), ms(d.Mean), ms(d.P90), ms(d.P99), ms(d.Max))
}

type jsonDist struct {
	N       int     `json:"n"`
	MinNs   float64 `json:"min_ns"`
	P50Ns   float64 `json:"p50_ns"`
	MeanNs  float64 `json:"mean_ns"`
	P90Ns   float64 `json:"p90_ns"`
	P99Ns   float64 `json:"p99_ns"`
	MaxNs   float64 `json:"max_ns"`
	StdevNs float64 `json:"stdev_ns"`
}

func jd(d Dist) jsonDist {
	return jsonDist{d.N, d.Min, d.P50, d.Mean, d.P90, d.P99, d.Max, d.Stdev}
}

// WriteJSON writes the report as one JSON object (times in ns, keys
// naming their unit).
func (r *Report) WriteJSON(w io.Writer, src Sources) error {
	type bucket struct {
		Lo  int      `json:"in_flight_lo"`
		Hi  int      `json:"in_flight_hi"`
		Lag jsonDist `json:"lag"`
	}
	type metric struct {
		Name   string   `json:"name"`
		Client jsonDist `json:"client"`
		Wire   jsonDist `json:"wire"`
	}
	type finding struct {
		Code     string             `json:"code"`
		Severity string             `json:"severity"`
		Figure   string             `json:"figure"`
		Message  string             `json:"message"`
		Evidence map[string]float64 `json:"evidence"`
	}
	out := struct {
		Schema  int       `json:"schema_version"`
		Wire    string    `json:"wire"`
		Client  string    `json:"client"`
		Counts  any       `json:"requests"`
		Offset  any       `json:"clock_offset"`
		Events  any       `json:"events"`
		Lag     jsonDist  `json:"lag"`
		ByIF    []bucket  `json:"lag_by_in_flight"`
		Slope   float64   `json:"slope_ns_per_in_flight"`
		Metrics []metric  `json:"metrics"`
		Finds   []finding `json:"findings"`
	}{Schema: SchemaVersion, Wire: src.Wire, Client: src.Client, Lag: jd(r.Lag), Slope: r.SlopeNsPerStream,
		ByIF: []bucket{}, Metrics: []metric{}, Finds: []finding{}}
	out.Counts = map[string]int{"wire": r.WireRequests, "client": r.ClientRequests, "matched": r.Matched,
		"matched_by_prompt": r.ByPrompt, "compared": r.Compared}
	out.Offset = map[string]any{"ns": r.Offset.Ns, "source": r.Offset.Source, "low_ns": r.Offset.LowNs,
		"high_ns": r.Offset.HighNs, "consistent": r.Offset.Consistent, "bounded": r.Offset.Bounded}
	differ := r.Events.Differ
	if differ == nil {
		differ = []string{}
	}
	out.Events = map[string]any{"aligned": r.Events.Aligned, "merged": r.Events.Merged, "client_only": r.Events.ClientOnly,
		"never_timed": r.Events.NeverTimed, "requests_differing": r.Events.DifferCount, "requests_differing_first": differ}
	for _, k := range r.ByInFlight {
		out.ByIF = append(out.ByIF, bucket{k.Lo, k.Hi, jd(k.Lag)})
	}
	for _, m := range r.Metrics {
		out.Metrics = append(out.Metrics, metric{m.Name, jd(m.Client), jd(m.Wire)})
	}
	for _, f := range r.Findings {
		ev := map[string]float64{}
		for _, e := range f.Evidence {
			ev[e.Name] = e.Value
		}
		out.Finds = append(out.Finds, finding{f.Code, string(f.Severity), f.Figure, f.Message, ev})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

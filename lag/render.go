package lag

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sseaudit/sseaudit/findings"
)

// SchemaVersion is the version of the JSON WriteJSON writes.
const SchemaVersion = 1

// Sources name the two files compared, for the output.
type Sources struct{ Wire, Client string }

func ms(ns float64) string { return fmt.Sprintf("%.3f", ns/1e6) }

// table is one of the report's tables, rendered as text or HTML.
type table struct {
	Title  string
	Header []string
	Rows   [][]string
	Note   string // a line after the table
}

// summary is the report's opening lines: the inputs, the matching, the
// clocks' offset and the events counted.
func (r *Report) summary(src Sources) []string {
	lines := []string{
		fmt.Sprintf("wire    %s: %d requests", src.Wire, r.WireRequests),
		fmt.Sprintf("client  %s: %d requests", src.Client, r.ClientRequests),
		fmt.Sprintf("matched %d (%d by prompt, %d by order and time); compared %d (successful on both sides)",
			r.Matched, r.ByPrompt, r.Matched-r.ByPrompt, r.Compared),
	}
	o := r.Offset
	switch {
	case o.Unbounded() && r.Compared == 0:
		lines = append(lines, "clock offset: unknown (no request to compare)")
	case o.Unbounded():
		lines = append(lines, fmt.Sprintf("clock offset: client = wire + %.6f s, its low bound: no high bound (every compared client counts more events than the wire) and no known clock, so the lags are upper bounds",
			float64(o.Ns)/1e9))
	case !o.Bounded:
		lines = append(lines, fmt.Sprintf("clock offset: client = wire + %.6f s (%s); low bound %.6f s, no high bound (every compared client counts more events than the wire)",
			float64(o.Ns)/1e9, o.Source, float64(o.LowNs)/1e9))
	default:
		l := fmt.Sprintf("clock offset: client = wire + %.6f s (%s); bounds %.6f to %.6f s",
			float64(o.Ns)/1e9, o.Source, float64(o.LowNs)/1e9, float64(o.HighNs)/1e9)
		if !o.Consistent {
			l += " — inconsistent (low above high): requests matched wrongly, or clocks that drift"
		}
		lines = append(lines, l)
	}
	e := r.Events
	lines = append(lines, fmt.Sprintf("events: %d aligned; %d merged by the client into a later one; %d timed by the client, not on the wire; %d on the wire, never timed",
		e.Aligned, e.Merged, e.ClientOnly, e.NeverTimed))
	if e.DifferCount > 0 {
		lines = append(lines, fmt.Sprintf("  %d requests count different events on the two sides: %s", e.DifferCount, strings.Join(e.Differ, ", ")))
	}
	return lines
}

var distHeader = []string{"N", "Min", "P50", "Average", "P90", "P99", "Max"}

func distCells(name string, d Dist) []string {
	return []string{name, fmt.Sprint(d.N), ms(d.Min), ms(d.P50), ms(d.Mean), ms(d.P90), ms(d.P99), ms(d.Max)}
}

// tables are the report's tables in order.
func (r *Report) tables() []table {
	ts := []table{{
		Title:  "lag per event (client time point - wire arrival - offset), ms",
		Header: append([]string{""}, distHeader...),
		Rows:   [][]string{distCells("lag", r.Lag)},
	}}
	if o := r.Offset; o.Bounded && !o.Consistent {
		ts[0].Note = "not to be trusted: the clocks' offset is inconsistent (finding " + findings.LagOffsetInconsistentCode + ")"
	} else if o.Unbounded() && r.Compared > 0 {
		ts[0].Note = "upper bounds: the clocks' offset is only bounded from below (finding " + findings.LagOffsetUnboundedCode + ")"
	}
	if len(r.ByInFlight) > 0 {
		t := table{Title: "lag by requests in flight on the wire, ms", Header: append([]string{"in flight"}, distHeader...),
			Note: fmt.Sprintf("slope: %.3f ms more lag a request in flight (least squares)", r.SlopeNsPerStream/1e6)}
		for _, k := range r.ByInFlight {
			name := fmt.Sprint(k.Lo)
			if k.Hi != k.Lo {
				name = fmt.Sprintf("%d-%d", k.Lo, k.Hi)
			}
			t.Rows = append(t.Rows, distCells(name, k.Lag))
		}
		ts = append(ts, t)
	}
	if len(r.Metrics) > 0 {
		t := table{Title: "the client's metrics (AISBench's formulas), from its time points and with the wire's times, ms",
			Header: []string{"metric", "N", "client P50", "wire P50", "client Average", "wire Average", "client P99", "wire P99"}}
		for _, m := range r.Metrics {
			t.Rows = append(t.Rows, []string{m.Name, fmt.Sprint(m.Client.N), ms(m.Client.P50), ms(m.Wire.P50),
				ms(m.Client.Mean), ms(m.Wire.Mean), ms(m.Client.P99), ms(m.Wire.P99)})
		}
		ts = append(ts, t)
	}
	return ts
}

// WriteText writes the report as text.
func (r *Report) WriteText(w io.Writer, src Sources) error {
	var b strings.Builder
	r.writeTables(&b, src)
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

// WriteTables writes WriteText's summary and tables without its findings,
// for a report that lists the findings among its own (audit check).
func (r *Report) WriteTables(w io.Writer, src Sources) error {
	var b strings.Builder
	r.writeTables(&b, src)
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) writeTables(b *strings.Builder, src Sources) {
	for _, l := range r.summary(src) {
		b.WriteString(l + "\n")
	}
	for _, t := range r.tables() {
		b.WriteString("\n" + t.Title + "\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, row := range append([][]string{t.Header}, t.Rows...) {
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		}
		tw.Flush()
		if t.Note != "" {
			b.WriteString(t.Note + "\n")
		}
	}
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

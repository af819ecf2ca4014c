package findings

import (
	"fmt"

	"github.com/sseaudit/sseaudit/unit"
)

// ClientLagCode is the finding audit lag makes when a benchmark client's
// own delay is a material part of the ITL it reports.
const ClientLagCode = "client-lag"

// LagMetric is a metric as the client recorded it and with the wire's
// times in their place: means and 99th percentiles, in ns.
type LagMetric struct {
	ClientMeanNs, WireMeanNs float64
	ClientP99Ns, WireP99Ns   float64
	N                        int
}

// ClientLag is the client-lag finding: the median lag of the client's time
// points behind the wire is at least threshold times the wire's mean ITL.
// nil when it is not, or when there is no ITL to compare with.
func ClientLag(medianLagNs float64, itl, ttft LagMetric, threshold float64) *Finding {
	if itl.N == 0 || !(itl.WireMeanNs > 0) || !(medianLagNs >= threshold*itl.WireMeanNs) {
		return nil
	}
	share := medianLagNs / itl.WireMeanNs
	ms := func(ns float64) string { return unit.Text(unit.Seconds, ns/1e9) }
	return &Finding{Code: ClientLagCode, Severity: SeverityWarning, Figure: "ITL",
		Message: fmt.Sprintf("the client's time points lag the wire by a median %s, %.0f%% of the wire's mean ITL (threshold %.0f%%): what it reports carries its own delay — ITL P99 %s (wire %s), TTFT mean %s (wire %s)",
			ms(medianLagNs), 100*share, 100*threshold, ms(itl.ClientP99Ns), ms(itl.WireP99Ns), ms(ttft.ClientMeanNs), ms(ttft.WireMeanNs)),
		Evidence: []Evidence{ev("median_lag", medianLagNs/1e9, unit.Seconds), ev("lag_over_itl", share, unit.Ratio),
			ev("client_itl_p99", itl.ClientP99Ns/1e9, unit.Seconds), ev("wire_itl_p99", itl.WireP99Ns/1e9, unit.Seconds),
			ev("client_ttft_mean", ttft.ClientMeanNs/1e9, unit.Seconds), ev("wire_ttft_mean", ttft.WireMeanNs/1e9, unit.Seconds)}}
}

// LagOffsetInconsistentCode is the finding audit lag makes instead of
// client-lag when the clocks' offset is inconsistent: the lag rests on an
// offset known to be wrong, and no finding may be drawn from it.
const LagOffsetInconsistentCode = "lag-offset-inconsistent"

// LagBound is a bound of the clocks' offset (client = wire + offset, ns)
// and the matched request that gives it (its wire and client IDs).
type LagBound struct {
	Ns              int64
	Wire, Client    string
	MatchedByPrompt bool
}

// describe names the request that gives the bound: "w1 (the client's
// c1, matched by prompt)".
func (b LagBound) describe() string {
	how := "by order and time"
	if b.MatchedByPrompt {
		how = "by prompt"
	}
	return fmt.Sprintf("%s (the client's %s, matched %s)", b.Wire, b.Client, how)
}

// LagOffsetInconsistent is the lag-offset-inconsistent finding: the low
// bound of the clocks' offset (a request is sent before the tap gets it)
// lies above its high bound (an event reaches the client after the tap).
// nil when it does not.
func LagOffsetInconsistent(low, high LagBound) *Finding {
	if low.Ns <= high.Ns {
		return nil
	}
	req := func(b LagBound) string { return "request " + b.describe() }
	s := func(ns int64) string { return fmt.Sprintf("%.6f s", float64(ns)/1e9) }
	gap := float64(low.Ns-high.Ns) / 1e9
	ids := []string{low.Wire}
	if high.Wire != low.Wire {
		ids = append(ids, high.Wire)
	}
	return &Finding{Code: LagOffsetInconsistentCode, Severity: SeverityError, Figure: "client lag",
		Message: fmt.Sprintf("the clocks' offset cannot be known: %s puts it at least %s (a request leaves the client before the tap gets it), %s at most %s (an event reaches the client after the tap), %s less; requests were matched wrongly, or the two clocks drift apart during the run. The lag per event rests on this offset and cannot be trusted (nor, if requests were matched wrongly, the metrics with the wire's times): no client-lag finding is made",
			req(low), s(low.Ns), req(high), s(high.Ns), unit.Text(unit.Seconds, gap)),
		Evidence: []Evidence{ev("offset_low", float64(low.Ns)/1e9, unit.Seconds), ev("offset_high", float64(high.Ns)/1e9, unit.Seconds),
			ev("low_above_high", gap, unit.Seconds)},
		Requests: ids}
}

// LagOffsetUnboundedCode is the finding audit lag makes instead of
// client-lag when the clocks' offset has no high bound and no known clock:
// the lag per event is then only an upper bound.
const LagOffsetUnboundedCode = "lag-offset-unbounded"

// LagOffsetUnbounded is the lag-offset-unbounded finding: every compared
// request's client counts more events than the wire, so no event bounds
// the offset from above; it is taken at its low bound (a request leaves the
// client before the tap gets it), and each lag is overstated by the
// client's send delay, by up to medianLagNs at the median.
func LagOffsetUnbounded(low LagBound, compared int, medianLagNs float64) *Finding {
	return &Finding{Code: LagOffsetUnboundedCode, Severity: SeverityWarning, Figure: "client lag",
		Message: fmt.Sprintf("the clocks' offset has no high bound: in all %d compared requests the client counts more events than the wire, so the offset is taken at its low bound (request %s: sent at least %s before the tap got it), and every lag is an upper bound, overstated by the client's send delay (median lag at most %s); no client-lag finding is made. A known clock (the tap's sseaudit.run.clock_monotonic_ns, shared by a client on the same host) or a client that counts the wire's events measures it",
			compared, low.describe(), unit.Text(unit.Seconds, float64(low.Ns)/1e9), unit.Text(unit.Seconds, medianLagNs/1e9)),
		Evidence: []Evidence{ev("offset_low", float64(low.Ns)/1e9, unit.Seconds), ev("median_lag_at_most", medianLagNs/1e9, unit.Seconds)},
		Requests: []string{low.Wire}}
}

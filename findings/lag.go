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

package findings

import (
	"fmt"

	"github.com/sseaudit/sseaudit/unit"
)

// ClientLagCode is the finding audit lag makes when a benchmark client's
// own delay is a material part of the ITL it reports.
const ClientLagCode = "client-lag"

// LagMetric is a metric's mean as the client recorded it and with the
// wire's times in their place, in ns.
type LagMetric struct {
	ClientMeanNs, WireMeanNs float64
	N                        int
}

// ClientLag is the client-lag finding: the median lag of the client's time
// points behind the wire is at least threshold times the wire's mean ITL.
// nil when it is not, or when there is no ITL to compare with.
func ClientLag(medianLagNs float64, itl LagMetric, threshold float64) *Finding {
	if itl.N == 0 || !(itl.WireMeanNs > 0) || !(medianLagNs >= threshold*itl.WireMeanNs) {
		return nil
	}
	share := medianLagNs / itl.WireMeanNs
	return &Finding{Code: ClientLagCode, Severity: SeverityWarning, Figure: "ITL",
		Message: fmt.Sprintf("the client's time points lag the wire by a median %s, %.0f%% of the wire's mean ITL (threshold %.0f%%): its ITL (mean %s) is partly its own delay; with the wire's times it is %s",
			unit.Text(unit.Seconds, medianLagNs/1e9), 100*share, 100*threshold,
			unit.Text(unit.Seconds, itl.ClientMeanNs/1e9), unit.Text(unit.Seconds, itl.WireMeanNs/1e9)),
		Evidence: []Evidence{ev("median_lag", medianLagNs/1e9, unit.Seconds), ev("lag_over_itl", share, unit.Ratio),
			ev("client_itl_mean", itl.ClientMeanNs/1e9, unit.Seconds), ev("wire_itl_mean", itl.WireMeanNs/1e9, unit.Seconds)}}
}

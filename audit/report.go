package audit

import (
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/calc/ssemetrics"
	"github.com/sseaudit/sseaudit/figures"
	"github.com/sseaudit/sseaudit/findings"
)

// Report is the finalized audit of one run: AISBench's two stages exactly
// as AISBench computes them, and sseaudit's figures beside them, never in
// their place. It is data only: the renderers (package render, the HTML
// page) format it and compute nothing, and it holds no memory of the run's
// records.
type Report struct {
	// AISBench's figures: the stages, the stable window explained.
	aisbench.Result
	// SSE is sseaudit's figures of each stage: the ITL accounting, its
	// metrics (ContentUpdateInterval & co.), SLO attainment, the windowed
	// throughput.
	SSE ssemetrics.Result
	// AllStats are the statistics of sseaudit's figures: every requested one
	// sseaudit can compute (P99.9 too); those not in Stats are not AISBench's.
	AllStats   []string
	Thresholds findings.Thresholds
	// Findings are what a reviewer should know about the figures, in a fixed order.
	Findings []findings.Finding
	// Figures are the data the HTML report draws (the in-flight curve, request
	// timelines, interval distributions); nil when no request succeeded.
	Figures *figures.Figures
}

// Finding returns the first finding with the code (and stage, unless ""), or nil.
func (r *Report) Finding(code string, stage aisbench.Stage) *findings.Finding {
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Code == code && (stage == "" || f.Stage == stage) {
			return f
		}
	}
	return nil
}

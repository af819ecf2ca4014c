package audit

// Exported formatting, so that every renderer (text, markdown, HTML) spells a
// number the same way. They format; they compute nothing.

// FormatAISBench is the number AISBench prints for a rounded statistic (times
// in ms, as round(v*1000, 4)), without unit.
func FormatAISBench(u Unit, rounded float64) string { return aisbenchNumber(u, rounded) }

// FormatValue shows a value of sseaudit's section in its display unit (ms for
// times) with at most four decimals; "-" for NaN.
func FormatValue(u Unit, x float64) string { return sseNumber(u, x) }

// UnitLabel is the unit shown beside a metric: "ms" for times.
func UnitLabel(u Unit) string { return sseUnitLabel(u) }

// StageTitle is the article's name of a stage with AISBench's: "whole
// (total)", "native (stable)".
func StageTitle(s Stage) string { return stageTitles[s] }

// FormatEvidence is one piece of a finding's evidence as the text report
// shows it ("intervals 187", "share 50%", "mean_shift 12.5 ms").
func FormatEvidence(e Evidence) string { return evidenceText(e) }

// StatHeader is a statistic's column name, marked * when AISBench's table
// lacks it.
func (r *Report) StatHeader(s string) string { return r.statHeader(s) }

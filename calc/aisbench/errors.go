package aisbench

import (
	"errors"
	"fmt"
	"strings"
)

// AISBenchError is an error AISBench itself raises while computing a stage; its
// Error() is what AISBench's summarizer would report, in the form the project's
// oracle writes to <stage>.error: "Exception: [CODE] message".
type AISBenchError struct {
	Exception string // Python exception class, e.g. "AISBenchDataContentError"
	Code      string // the CALC_CODES member AISBench raises it with
	RealCode  string // the code string AISBench's error-code table gives that member
	Message   string // AISBench's message, verbatim (typos included)
}

func (e *AISBenchError) Error() string {
	return fmt.Sprintf("%s: [%s] %s", e.Exception, e.Code, e.Message)
}

// Is makes errors.Is(err, ErrNoStableStage) work on any AISBenchError with that code.
func (e *AISBenchError) Is(target error) bool {
	t, ok := target.(*AISBenchError)
	return ok && t.Code == e.Code
}

var (
	// ErrNoStableStage is raised by StablePerfMetricCalculator when in-flight
	// requests never reach the max concurrency at a second request start.
	ErrNoStableStage = &AISBenchError{
		Exception: "AISBenchDataContentError",
		Code:      "CALC_CODES.CAN_NOT_FIND_STABLE_STAGE",
		RealCode:  "CALC-DATA-002",
		Message:   "Can not find a stable stage from performance results! Please check the conccurency plot.",
	}
	// ErrAllRequestsFailed is what AISBench raises when no request succeeded.
	// Both calculators would raise CALC_CODES.ALL_REQUEST_DATAS_INVALID ("All
	// requests failed, ..."), but the summarizer's loader gets there first: with
	// only {"success": false} records, its per-field lengths are an empty dict
	// and its structure check fails.
	ErrAllRequestsFailed = &AISBenchError{
		Exception: "AISBenchDataContentError",
		Code:      "SUMM_CODES.DIFF_STRUCTURE_OF_PERF_DATA",
		RealCode:  "SUMM-MTRC-001",
		Message:   "The length of details perf datas is not the same: {}, each perf data should have same data structure",
	}
)

// UnknownTokensError says a stage's AISBench numbers cannot be exact because
// token counts are missing: AISBench would have counted them with its tokenizer
// (it does the same for a count of 0), and this package never guesses them.
type UnknownTokensError struct {
	Kind    string   // "input" or "output"
	Missing int      // requests with no count at all
	Zero    int      // requests whose count is 0
	IDs     []string // the requests' IDs, in trace order
}

func (e *UnknownTokensError) Error() string {
	column := e.Kind + "_tokens"
	switch {
	case e.Zero == 0:
		return fmt.Sprintf("%s token counts unknown for %d requests (no usage in the body and no %s column): AISBench would have counted them with its tokenizer",
			e.Kind, e.Missing, column)
	case e.Missing == 0:
		return fmt.Sprintf("%s token counts unknown for %d requests (a count of 0, which AISBench treats as missing): AISBench would have counted them with its tokenizer",
			e.Kind, e.Zero)
	}
	return fmt.Sprintf("%s token counts unknown for %d requests (%d with no usage in the body and no %s column, %d with a count of 0, which AISBench treats as missing): AISBench would have counted them with its tokenizer",
		e.Kind, e.Missing+e.Zero, e.Missing, column, e.Zero)
}

// NoTimelineError: the trace's requests have no send times (imported from
// records that lack them, every request starting at 0). The per-request
// figures stand; the stable stage and the run's duration, concurrency and
// throughputs, which need the timeline, are not computed as the run's.
type NoTimelineError struct{ Reason string }

func (e *NoTimelineError) Error() string {
	return "the trace has no send times (" + e.Reason + ")"
}

// ErrUnknownMaxConcurrency: the stable stage and AISBench's <ds>.json need the
// configured max concurrency (AISBench's batch_size), and the run did not say it.
var ErrUnknownMaxConcurrency = errors.New("max concurrency unknown: AISBench's stable stage and its Max Concurrency need the configured batch_size")

// NaNTimePointError: a successful request has a NaN time point, where AISBench's
// results depend on Python's comparison order and cannot be reproduced.
type NaNTimePointError struct {
	ID    string
	Index int // position of the request in trace order
	Point int // position of the NaN in its time points
}

func (e *NaNTimePointError) Error() string {
	return fmt.Sprintf("request %q (#%d): time point %d is NaN; AISBench's ordering of NaN times cannot be reproduced", e.ID, e.Index, e.Point)
}

// joinErrors is errors.Join with a one-line message, fit for a <stage>.error file.
func joinErrors(errs ...error) error {
	var kept []error
	for _, err := range errs {
		if err != nil {
			kept = append(kept, err)
		}
	}
	switch len(kept) {
	case 0:
		return nil
	case 1:
		return kept[0]
	}
	return &multiError{errs: kept}
}

type multiError struct{ errs []error }

func (m *multiError) Error() string {
	parts := make([]string, len(m.errs))
	for i, err := range m.errs {
		parts[i] = err.Error()
	}
	return strings.Join(parts, "; ")
}

func (m *multiError) Unwrap() []error { return m.errs }

// ErrorKind says what stopped a stage: "aisbench" and AISBench's error code
// when AISBench itself stops there, else "inexact" (AISBench's numbers
// cannot be reproduced exactly: unknown token counts or C, a NaN time point)
// and no code.
func ErrorKind(err error) (kind string, code *string) {
	var ais *AISBenchError
	if errors.As(err, &ais) {
		return "aisbench", &ais.RealCode
	}
	return "inexact", nil
}

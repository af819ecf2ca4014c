// Package partial turns one request's replay into the rows of the replay
// tables (trace/tables) and those rows back into the record audit.Builder
// takes: what `audit replay --format parquet` writes for each part of a run
// and `audit merge` reads.
package partial

import (
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace/tables"
)

// The replay tables (package tables) hold plain rows and know neither
// replay's results nor audit's records, so that the trace layer does not
// depend on the ones above it: the conversions both ways live here. tables
// names the classes as replay does, in replay.Classes order (TestTableNames).

// Rows returns the replay tables' rows of one request: t0Ns is the trace's
// t0, res what the framer replayed and rec the record audit.Builder takes
// (audit.RecordFromReplays of the same replay). The events rows are appended to
// events, so that a writer can reuse one slice; tables.Writer.Write fills in
// the keys that tie the rows together.
func Rows(events []tables.EventRow, t0Ns int64, res *replay.Result, rec record.Request) (tables.RequestRow, []tables.EventRow) {
	return requestTableRow(t0Ns, res, rec), appendEventTableRows(events, res, rec)
}

// requestTableRow is the requests row of one request (see Rows).
func requestTableRow(t0Ns int64, res *replay.Result, rec record.Request) tables.RequestRow {
	row := tables.RequestRow{
		RequestID: rec.ID, Success: rec.Success, T0Ns: t0Ns,
		TimePointsS: rec.TimePoints, InputTokens: rec.InputTokens, OutputTokens: rec.OutputTokens,
		TokenSource: res.TokenSource, EventRecords: rec.Events != nil, BodyBytes: res.Bytes.Sum(),
	}
	if res.ErrorInfo != "" {
		row.Error = &res.ErrorInfo
	}
	// What AISBench's _calc_perf_data computes for a request it counts as
	// successful (two time points at least).
	if tp := rec.TimePoints; rec.Success && len(tp) >= 2 {
		e2el, ttft := aisbench.E2EL(tp[0], tp[len(tp)-1]), aisbench.TTFT(tp[0], tp[1])
		row.E2ELS, row.TTFTS = &e2el, &ttft
		row.ITLIntervals = int64(len(tp) - 2)
		if out := rec.OutputTokens; out != nil && *out > 0 {
			tpot := aisbench.TPOT(e2el, ttft, *out)
			row.TPOTS = &tpot
		}
	}
	for i, n := range row.ClassCounts() {
		*n = int64(res.Counts[replay.Classes[i]])
	}
	if v := rec.Spec; v != nil {
		row.SpecSuccess = &v.Success
		row.SpecEvents, row.SpecFirstNs, row.SpecLastNs = ptr(int64(v.Events)), &v.FirstNs, &v.LastNs
		row.CommentInBlock, row.FieldLines, row.MultiLineData = ptr(int64(v.CommentInBlock)), ptr(int64(v.FieldLines)), ptr(int64(v.MultiLineData))
	}
	return row
}

// appendEventTableRows appends the events rows of one request (see
// Rows). The record's time point and token count go to the recorded
// events when the record holds them.
func appendEventTableRows(rows []tables.EventRow, res *replay.Result, rec record.Request) []tables.EventRow {
	k := 0 // recorded events so far
	for _, e := range res.Events {
		row := tables.EventRow{
			Class: e.Class.String(), TNs: e.TNs, Recorded: e.Recorded, PayloadBytes: e.End - e.Start,
			ContentBytes: int64(e.ContentBytes), ReasoningBytes: int64(e.ReasoningBytes),
		}
		if e.Recorded && rec.Events != nil {
			row.TimeS = &rec.TimePoints[k+1]
			if t := rec.Events[k].Tokens; t != -1 {
				row.Tokens = &rec.Events[k].Tokens
			}
			k++
		}
		rows = append(rows, row)
	}
	return rows
}

// classByTableName maps the tables' class names back to the classes.
var classByTableName = func() map[string]replay.Class {
	m := make(map[string]replay.Class, len(replay.Classes))
	for _, c := range replay.Classes {
		m[c.String()] = c
	}
	return m
}()

// Record rebuilds the record of one request exactly, float bits
// included, from its rows as a tables.Reader returns them (checked against
// each other, class names among tables.ClassNames). The record shares no
// memory with the rows, which the Reader reuses.
func Record(row tables.RequestRow, events []tables.EventRow) record.Request {
	rec := record.Request{
		ID: row.RequestID, Success: row.Success,
		TimePoints:  append(make([]float64, 0, len(row.TimePointsS)), row.TimePointsS...),
		InputTokens: clonePtr(row.InputTokens), OutputTokens: clonePtr(row.OutputTokens),
	}
	if row.SpecSuccess != nil { // the Reader checked that all spec_* columns are set then
		rec.Spec = &record.SpecView{Success: *row.SpecSuccess, Events: int(*row.SpecEvents), FirstNs: *row.SpecFirstNs, LastNs: *row.SpecLastNs,
			CommentInBlock: int(*row.CommentInBlock), FieldLines: int(*row.FieldLines), MultiLineData: int(*row.MultiLineData)}
	}
	if !row.EventRecords {
		return rec
	}
	rec.Events = make([]record.Event, 0, len(rec.TimePoints)-1)
	for _, ev := range events {
		if !ev.Recorded {
			continue
		}
		tokens := int64(-1)
		if ev.Tokens != nil {
			tokens = *ev.Tokens
		}
		rec.Events = append(rec.Events, record.Event{Class: classByTableName[ev.Class], TNs: ev.TNs, Tokens: tokens,
			ContentBytes: int(ev.ContentBytes), ReasoningBytes: int(ev.ReasoningBytes)})
	}
	return rec
}

func ptr[T any](v T) *T { return &v }

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

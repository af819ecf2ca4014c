package tools

import (
	"encoding/json"
	"io"
	"math"

	"github.com/sseaudit/sseaudit/internal/ordjson"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/unit"
)

// SchemaVersion is the "schema_version" of WriteJSON's output.
const SchemaVersion = "1"

type object = ordjson.Object

// number is a float as Python's json writes it (repr: 2012.0, not 2012),
// the non-finite ones as strings ("NaN", "Infinity"), so that JSON stays
// valid.
type number float64

func (n number) MarshalJSON() ([]byte, error) {
	x := float64(n)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ordjson.Number(x).MarshalJSON()
	}
	return []byte(pynum.PyFloatRepr(x)), nil
}

// jsonValue is a key's value as JSON holds it: floats spelled as Python
// does for the non-finite ones.
func jsonValue(v any) any {
	if x, ok := v.(float64); ok {
		return number(x)
	}
	return v
}

// summaryValue is a quantity's value in its display unit (ms for times),
// null when unknown.
func summaryValue(q Quantity, v Value) any {
	if !v.Known {
		return nil
	}
	return number(v.X * unit.Scale(q.Unit()))
}

// WriteJSON writes the report at full precision: tools.<tool>.result (the
// tool's keys as it saves them, unrounded), .not_computed (key → why),
// .source, .notes, .summary (the table's quantities); why (each rule that
// moves a quantity) and residual.
func (r *Report) WriteJSON(w io.Writer) error {
	var doc object
	doc.Set("schema_version", SchemaVersion)
	doc.Set("trace", r.Trace)
	doc.Set("api", r.API)
	doc.Set("api_from", r.APIFrom)
	doc.Set("requests", r.Requests)
	doc.Set("span_ms", number(r.SpanS*1000))
	var ts object
	for _, tr := range r.Tools {
		var t, result, nc, sum object
		t.Set("title", tr.Tool.Title)
		t.Set("source", tr.Tool.Source)
		if tr.Err != "" {
			t.Set("error", tr.Err)
		} else {
			t.Set("error", nil)
		}
		for _, k := range tr.Keys {
			if k.NotComputed != "" {
				nc.Set(k.Name, k.NotComputed)
			} else {
				result.Set(k.Name, jsonValue(k.Value))
			}
		}
		t.Set("result", result)
		t.Set("not_computed", nc)
		notes := tr.Notes
		if notes == nil {
			notes = []string{}
		}
		t.Set("notes", notes)
		for _, q := range Quantities {
			sum.Set(q.Key(), summaryValue(q, tr.Summary[q]))
		}
		t.Set("summary", sum)
		ts.Set(tr.Tool.Name, t)
	}
	doc.Set("tools", ts)
	why := []object{}
	for _, a := range r.Why {
		var o, moves object
		o.Set("tool", a.Tool.Name)
		o.Set("rule", a.Rule.Name)
		o.Set("own", a.Rule.Own)
		o.Set("aisbench", a.Rule.AISBench)
		for _, d := range a.Deltas {
			var m object
			m.Set("own", summaryValue(d.Quantity, d.Own))
			m.Set("switched", summaryValue(d.Quantity, d.Switched))
			if n := a.PerRequest[d.Quantity]; n != 0 {
				m.Set("per_request", n)
			}
			moves.Set(d.Quantity.Key(), m)
		}
		o.Set("moves", moves)
		why = append(why, o)
	}
	doc.Set("why", why)
	var res object
	for _, rs := range r.Residual {
		var moves object
		for _, d := range rs.Deltas {
			var m object
			m.Set("aisbench", summaryValue(d.Quantity, d.Own))
			m.Set("switched", summaryValue(d.Quantity, d.Switched))
			moves.Set(d.Quantity.Key(), m)
		}
		res.Set(rs.Tool.Name, moves)
	}
	doc.Set("residual", res)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

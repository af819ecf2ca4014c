package audit_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/render"
	"github.com/sseaudit/sseaudit/replay"
)

// fuzzRecords builds requests from fuzz bytes: time points, events of every
// class with text or not, token counts known or not.
func fuzzRecords(raw []byte) []record.Request {
	classes := replay.Classes
	var recs []record.Request
	for len(raw) >= 3 {
		n := int(raw[0] % 7)
		raw = raw[1:]
		n = min(n, len(raw))
		tp := make([]float64, n)
		var events []record.Event
		t := 0.0
		for i := range n {
			t += float64(raw[i]) / 16
			tp[i] = t
			if i > 0 {
				c := classes[int(raw[i])%len(classes)]
				e := record.Event{Class: c, TNs: int64(t * 1e9), Tokens: int64(raw[i]%4) - 1}
				if c == replay.ClassContent {
					e.ContentBytes = 1 + int(raw[i]%5)
				}
				if c == replay.ClassReasoning {
					e.ReasoningBytes = 1 + int(raw[i]%3)
				}
				events = append(events, e)
			}
		}
		raw = raw[n:]
		var out *int64
		if n%3 != 0 {
			out = int64p(int64(n))
		}
		recs = append(recs, record.Request{ID: string(rune('a' + len(recs)%26)), Success: n != 5, TimePoints: tp,
			InputTokens: int64p(int64(n + 1)), OutputTokens: out, Events: events})
	}
	return recs
}

// FuzzReportJSON: whatever the requests, the report's JSON parses, validates
// against schemas/report/v1.schema.json, and reads back to the report's own
// N and samples for every metric of every stage.
func FuzzReportJSON(f *testing.F) {
	f.Add([]byte{4, 10, 20, 30, 5, 15, 25, 40, 6, 1, 2, 3, 4, 5, 6}, uint8(2))
	f.Add([]byte{0, 0, 0, 0}, uint8(1))
	f.Add([]byte{6, 255, 1, 128, 7, 7, 7, 200, 3, 9, 9, 9}, uint8(3))
	v := loadReportSchema(f)
	f.Fuzz(func(t *testing.T, raw []byte, c uint8) {
		b := audit.NewBuilder(audit.Config{MaxConcurrency: int(c % 5), KeepITLSamples: true})
		for _, r := range fuzzRecords(raw) {
			b.Add(r)
		}
		rep, err := b.Finalize()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := render.JSON(&buf, rep); err != nil {
			t.Fatal(err)
		}
		doc := decodeWithNumbers(t, buf.Bytes())
		if err := v.validate(doc); err != nil {
			t.Fatalf("report JSON does not validate: %v\n%s", err, buf.Bytes())
		}
		var back struct {
			Metrics map[string]map[string]struct {
				N       int `json:"N"`
				Samples int `json:"samples"`
			} `json:"metrics"`
		}
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		for _, st := range []*aisbench.StageResult{rep.Total, rep.Stable} {
			if st.Err != nil {
				continue
			}
			for _, m := range st.Metrics {
				got, ok := back.Metrics[string(m.Name)][string(st.Stage)]
				if !ok || got.N != m.N || got.Samples != m.Samples || m.Samples != len(m.Values) {
					t.Fatalf("metrics.%s.%s = %+v (present %v), report N %d samples %d (%d values)", m.Name, st.Stage, got, ok, m.N, m.Samples, len(m.Values))
				}
			}
		}
	})
}

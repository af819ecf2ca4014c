package replay

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// loadJSONL is a test-only reader of the JSONL interchange, enough for the
// cases in testdata (the real reader lives in package trace).
func loadJSONL(t *testing.T, path string) []*trace.Request {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var reqs []*trace.Request
	for line := 1; sc.Scan(); line++ {
		var row struct {
			Run          json.RawMessage `json:"run"`
			RequestID    string          `json:"request_id"`
			T0Ns         int64           `json:"t0_ns"`
			EndNs        *int64          `json:"end_ns"`
			HTTPStatus   *int32          `json:"http_status"`
			Error        *string         `json:"error"`
			InputTokens  *int64          `json:"input_tokens"`
			OutputTokens *int64          `json:"output_tokens"`
			TimePointsS  []float64       `json:"time_points_s"`
			Chunks       []struct {
				TNs     int64   `json:"t_ns"`
				Data    *string `json:"data"`
				DataB64 *string `json:"data_b64"`
			} `json:"chunks"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		if row.Run != nil {
			continue
		}
		req := &trace.Request{RequestID: row.RequestID, T0Ns: row.T0Ns, EndNs: row.EndNs, HTTPStatus: row.HTTPStatus,
			Error: row.Error, InputTokens: row.InputTokens, OutputTokens: row.OutputTokens, TimePointsS: row.TimePointsS}
		if row.Chunks != nil {
			req.Chunks = []trace.Chunk{}
		}
		for _, c := range row.Chunks {
			var data []byte
			switch {
			case c.Data != nil:
				data = []byte(*c.Data)
			case c.DataB64 != nil:
				data, err = base64.StdEncoding.DecodeString(*c.DataB64)
				if err != nil {
					t.Fatalf("%s:%d: request %s: data_b64: %v", path, line, row.RequestID, err)
				}
			default:
				t.Fatalf("%s:%d: request %s: chunk without data", path, line, row.RequestID)
			}
			req.Chunks = append(req.Chunks, trace.Chunk{TNs: c.TNs, Data: data})
		}
		reqs = append(reqs, req)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return reqs
}

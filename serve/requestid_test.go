package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
)

// TestOddRequestID: a request_id the trace checker accepts (valid
// UTF-8) but that holds a control character is sent raw in the
// X-Sseaudit-Request-Id header; Go's HTTP client (audit capture's, audit
// tap's) then refuses the whole answer as malformed, and the recorded 200
// stream is never seen.
func TestOddRequestID(t *testing.T) {
	for _, id := range []string{"a\x00b", "a\x01b", "a\x7fb", "a\x1bb"} {
		t.Run(strconv.Quote(id), func(t *testing.T) {
			q, _ := json.Marshal(id)
			line := fmt.Sprintf(`{"request_id": %s, "t0_ns": 0, "end_ns": 0, "http_status": 200, "chunks": [{"t_ns": 0, "data": "data: x\n\n"}]}`, q)
			_, ts := rawServer(t, Options{}, line)
			res, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", nil)
			if err != nil {
				t.Fatalf("the client refuses the answer: %v", err)
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			if res.StatusCode != 200 || string(b) != "data: x\n\n" || err != nil {
				t.Errorf("status %d, body %q, %v", res.StatusCode, b, err)
			}
		})
	}
}

// Package tapbench is what the two measurements of audit tap's overhead
// share: tap.BenchmarkOverhead (upstream, tap and client in one process)
// and bench/tapload (three processes). An upstream streams events stamped
// with the wall-clock time each was written; a client opens many streams at
// once and times every event from its stamp to the read that brought it in.
package tapbench

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Gap is the time between two events of a stream (a decode step).
const Gap = 20 * time.Millisecond

// Body is the streamed chat request the client sends.
const Body = `{"model":"m","messages":[{"role":"user","content":"say hi"}],"stream":true}`

// Upstream streams ?n= SSE events, Gap apart after ?phase= ns, each
// carrying the time it was written (ns since the Unix epoch) and flushed at
// once, then [DONE].
func Upstream(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	phase, _ := strconv.ParseInt(r.URL.Query().Get("phase"), 10, 64)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	start := time.Now().Add(time.Duration(phase))
	for i := range n {
		if d := time.Until(start.Add(time.Duration(i+1) * Gap)); d > 0 {
			time.Sleep(d)
		}
		fmt.Fprintf(w, "data: {\"t\":%d,\"choices\":[{\"index\":0,\"delta\":{\"content\":\" token\"}}]}\n\n", time.Now().UnixNano())
		w.(http.Flusher).Flush()
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// Latencies streams `streams` streams of n events from url at once, stream
// k's written after a phase of k/streams of spread, and returns, for every
// event, the time from its write upstream to the read that brought it in,
// in µs; the first error, if any, with what was timed.
func Latencies(c *http.Client, url string, streams, n int, spread time.Duration) ([]float64, error) {
	var mu sync.Mutex
	var out []float64
	var firstErr error
	var wg sync.WaitGroup
	for k := range streams {
		wg.Go(func() {
			mine, err := stream(c, url, n, int64(spread)*int64(k)/int64(streams))
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			out = append(out, mine...)
		})
	}
	wg.Wait()
	return out, firstErr
}

func stream(c *http.Client, url string, n int, phase int64) ([]float64, error) {
	q := "?n=" + strconv.Itoa(n) + "&phase=" + strconv.FormatInt(phase, 10)
	resp, err := c.Post(url+"/v1/chat/completions"+q, "application/json", bytes.NewReader([]byte(Body)))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", url, resp.StatusCode)
	}
	var mine []float64
	buf := make([]byte, 32<<10)
	var pending []byte
	for {
		k, err := resp.Body.Read(buf)
		now := time.Now().UnixNano()
		pending = append(pending, buf[:k]...)
		for {
			i := bytes.Index(pending, []byte("\n\n"))
			if i < 0 {
				break
			}
			ev := pending[:i]
			pending = pending[i+2:]
			if j := bytes.Index(ev, []byte(`{"t":`)); j >= 0 {
				end := bytes.IndexByte(ev[j:], ',')
				t, _ := strconv.ParseInt(string(ev[j+5:j+end]), 10, 64)
				mine = append(mine, float64(now-t)/1e3)
			}
		}
		if err == io.EOF {
			return mine, nil
		}
		if err != nil {
			return mine, err
		}
	}
}

// Quantile is the q-quantile of xs, the lower of two neighbours (0 for
// none).
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

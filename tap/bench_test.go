package tap_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/tap"
	"github.com/sseaudit/sseaudit/trace"
)

// The overhead benchmark's shape: streams at once, and the gap between two
// events of a stream (a decode step).
const (
	benchStreams = 256
	benchGap     = 20 * time.Millisecond
)

// pacedUpstream streams ?n= events, benchGap apart, each carrying the time
// it was written (ns, this process's clock) and flushed at once.
func pacedUpstream(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	start := time.Now()
	for i := range n {
		if d := time.Until(start.Add(time.Duration(i+1) * benchGap)); d > 0 {
			time.Sleep(d)
		}
		fmt.Fprintf(w, "data: {\"t\":%d,\"choices\":[{\"index\":0,\"delta\":{\"content\":\" token\"}}]}\n\n", time.Now().UnixNano())
		w.(http.Flusher).Flush()
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// latencies streams benchStreams streams of n events from url at once and
// returns, for every event, the time from its write upstream to the read
// that brought it to the client, in µs.
func latencies(b *testing.B, client *http.Client, url string, n int) []float64 {
	var mu sync.Mutex
	var out []float64
	var wg sync.WaitGroup
	for range benchStreams {
		wg.Go(func() {
			resp, err := client.Post(url+"/v1/chat/completions?n="+strconv.Itoa(n), "application/json", bytes.NewReader([]byte(chatBody)))
			if err != nil {
				b.Error(err)
				return
			}
			defer resp.Body.Close()
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
				if err != nil {
					break
				}
			}
			mu.Lock()
			out = append(out, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// BenchmarkOverhead is the latency audit tap adds to each forwarded read:
// benchStreams streams at once on loopback, each event's time from its
// write upstream to its read by the client, directly and through the tap
// (recording into a file), the two runs alternated. An iteration is one
// event on every stream (benchGap of wall time). It reports the medians
// and 99th percentiles of both and their differences, in µs:
//
//	go test ./tap -run '^$' -bench Overhead -benchtime 100x
func BenchmarkOverhead(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(pacedUpstream))
	defer up.Close()
	up.Config.SetKeepAlivesEnabled(true)
	o := tap.Options{Upstream: up.URL}
	meta, err := tap.Meta(o, benchStreams)
	if err != nil {
		b.Fatal(err)
	}
	file, err := capture.CreateFile(filepath.Join(b.TempDir(), "bench.arrows"), trace.WriteOptions{Meta: meta, Extra: tap.Extra()}, 0)
	if err != nil {
		b.Fatal(err)
	}
	p, err := tap.New(o, file)
	if err != nil {
		b.Fatal(err)
	}
	front := httptest.NewServer(p)
	defer func() { front.Close(); p.Close(); file.Close() }()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * benchStreams, DisableCompression: true}}

	n := max(b.N, 10)
	latencies(b, client, up.URL, 2) // connections opened before the clock runs
	latencies(b, client, front.URL, 2)
	b.ResetTimer()
	var direct, tapped []float64
	for half := range 2 { // alternated halves: drifts of the machine fall on both
		direct = append(direct, latencies(b, client, up.URL, n/2+half)...)
		tapped = append(tapped, latencies(b, client, front.URL, n/2+half)...)
	}
	b.StopTimer()
	d50, d99 := quantile(direct, 0.5), quantile(direct, 0.99)
	t50, t99 := quantile(tapped, 0.5), quantile(tapped, 0.99)
	b.ReportMetric(d50, "direct-p50-µs")
	b.ReportMetric(d99, "direct-p99-µs")
	b.ReportMetric(t50, "tap-p50-µs")
	b.ReportMetric(t99, "tap-p99-µs")
	b.ReportMetric(t50-d50, "added-p50-µs")
	b.ReportMetric(t99-d99, "added-p99-µs")
	b.ReportMetric(0, "ns/op")
}

package tap_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/internal/tapbench"
	"github.com/sseaudit/sseaudit/tap"
	"github.com/sseaudit/sseaudit/trace"
)

// benchStreams is the overhead benchmark's streams at once.
const benchStreams = 256

// BenchmarkOverhead is the latency audit tap adds to each forwarded read:
// benchStreams streams at once on loopback, each event's time from its
// write upstream to its read by the client, directly and through the tap
// (recording into a file), the two runs alternated. An iteration is one
// event on every stream (tapbench.Gap of wall time). It reports the medians
// and 99th percentiles of both and their differences, in µs:
//
//	go test ./tap -run '^$' -bench Overhead -benchtime 100x
func BenchmarkOverhead(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(tapbench.Upstream))
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
	latencies := func(url string, n int) []float64 {
		xs, err := tapbench.Latencies(client, url, benchStreams, n, 0)
		if err != nil {
			b.Error(err)
		}
		return xs
	}
	latencies(up.URL, 2) // connections opened before the clock runs
	latencies(front.URL, 2)
	b.ResetTimer()
	var direct, tapped []float64
	for half := range 2 { // alternated halves: drifts of the machine fall on both
		direct = append(direct, latencies(up.URL, n/2+half)...)
		tapped = append(tapped, latencies(front.URL, n/2+half)...)
	}
	b.StopTimer()
	q := tapbench.Quantile
	d50, d99 := q(direct, 0.5), q(direct, 0.99)
	t50, t99 := q(tapped, 0.5), q(tapped, 0.99)
	b.ReportMetric(d50, "direct-p50-µs")
	b.ReportMetric(d99, "direct-p99-µs")
	b.ReportMetric(t50, "tap-p50-µs")
	b.ReportMetric(t99, "tap-p99-µs")
	b.ReportMetric(t50-d50, "added-p50-µs")
	b.ReportMetric(t99-d99, "added-p99-µs")
	b.ReportMetric(0, "ns/op")
}

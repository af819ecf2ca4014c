// Command tapload measures what audit tap adds to each streamed read with
// the upstream server, the tap and the client in processes of their own,
// as they are when a benchmark client is pointed at a tap
// (tap.BenchmarkOverhead runs all three in one process, where the harness
// takes most of the CPU the tap is timed on). bench/tap-overhead.sh runs it.
//
//	tapload upstream -addr 127.0.0.1:0
//	tapload client -direct URL -tapped URL [-streams 256] [-events 100] [-rounds 2] [-stagger]
//
// The upstream streams ?n= SSE events a response, gap apart (after ?phase=
// ns), each carrying the wall-clock time it was written (ns); the client
// opens the streams at once, direct and through the tap in alternated
// rounds, and takes each event's time from its write to the read that
// brought it in. It prints the medians and 99th percentiles of both, in µs,
// and their differences. Without -stagger every stream writes at the same
// instants, as a server that decodes its batch a step at a time does: each
// step is a burst of -streams events at once. With -stagger each stream
// starts at a phase of its own within the gap: the events come spread out.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: tapload upstream|client [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "upstream":
		err = upstream(os.Args[2:])
	case "client":
		err = client(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q: want upstream or client", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tapload:", err)
		os.Exit(1)
	}
}

func upstream(args []string) error {
	fs := flag.NewFlagSet("upstream", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	gap := fs.Duration("gap", 20*time.Millisecond, "time between two events of a stream")
	fs.Parse(args)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	return http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		phase, _ := strconv.ParseInt(r.URL.Query().Get("phase"), 10, 64)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		start := time.Now().Add(time.Duration(phase))
		for i := range n {
			if d := time.Until(start.Add(time.Duration(i+1) * *gap)); d > 0 {
				time.Sleep(d)
			}
			fmt.Fprintf(w, "data: {\"t\":%d,\"choices\":[{\"index\":0,\"delta\":{\"content\":\" token\"}}]}\n\n", time.Now().UnixNano())
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
}

const body = `{"model":"m","stream":true,"messages":[{"role":"user","content":"Say hello"}]}`

func client(args []string) error {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	direct := fs.String("direct", "", "the upstream's URL")
	tapped := fs.String("tapped", "", "the tap's URL")
	streams := fs.Int("streams", 256, "streams at once")
	events := fs.Int("events", 100, "events a stream")
	rounds := fs.Int("rounds", 2, "rounds of each, alternated")
	stagger := fs.Bool("stagger", false, "start each stream at a phase of its own within the gap (20 ms)")
	fs.Parse(args)
	gap := int64(20 * time.Millisecond)
	if !*stagger {
		gap = 0
	}
	if *direct == "" || *tapped == "" {
		return fmt.Errorf("want -direct and -tapped")
	}
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * *streams, DisableCompression: true}}
	// Connections opened before anything is timed.
	for _, u := range []string{*direct, *tapped} {
		if _, err := latencies(c, u, *streams, 2, 0); err != nil {
			return err
		}
	}
	var d, t []float64
	for range *rounds {
		x, err := latencies(c, *direct, *streams, *events, gap)
		if err != nil {
			return err
		}
		y, err := latencies(c, *tapped, *streams, *events, gap)
		if err != nil {
			return err
		}
		d, t = append(d, x...), append(t, y...)
	}
	d50, d99, t50, t99 := quantile(d, 0.5), quantile(d, 0.99), quantile(t, 0.5), quantile(t, 0.99)
	fmt.Printf("events: %d direct, %d through the tap\n", len(d), len(t))
	fmt.Printf("direct   median %8.1f µs  P99 %8.1f µs\n", d50, d99)
	fmt.Printf("tapped   median %8.1f µs  P99 %8.1f µs\n", t50, t99)
	fmt.Printf("added    median %8.1f µs  P99 %8.1f µs\n", t50-d50, t99-d99)
	return nil
}

// latencies streams streams streams of n events from url at once, stream
// k's after a phase of k/streams of spread ns, and returns, for every event,
// the time from its write upstream to the read that brought it in, in µs.
func latencies(c *http.Client, url string, streams, n int, spread int64) ([]float64, error) {
	var mu sync.Mutex
	var out []float64
	var firstErr error
	var wg sync.WaitGroup
	for k := range streams {
		wg.Go(func() {
			mine, err := stream(c, url, n, spread*int64(k)/int64(streams))
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
	resp, err := c.Post(url+"/v1/chat/completions"+q, "application/json", bytes.NewReader([]byte(body)))
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

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

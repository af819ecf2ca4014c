// Command tapload measures what audit tap adds to each streamed read with
// the upstream server, the tap and the client in processes of their own,
// as they are when a benchmark client is pointed at a tap
// (tap.BenchmarkOverhead runs all three in one process, where the harness
// takes most of the CPU the tap is timed on). bench/tap-overhead.sh runs it.
//
//	tapload upstream -addr 127.0.0.1:0
//	tapload client -direct URL -tapped URL [-streams 256] [-events 100] [-rounds 2] [-stagger]
//
// The upstream is internal/tapbench's: ?n= events 20 ms apart, each stamped
// with the time it was written. The client opens the streams at once,
// direct and through the tap in alternated rounds, and prints the medians
// and 99th percentiles of each event's time from its write to its read, in
// µs, and their differences. Without -stagger every stream writes at the
// same instants, as a server that decodes its batch a step at a time does:
// each step is a burst of -streams events at once. With -stagger each
// stream starts at a phase of its own within the gap: the events come
// spread out.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/sseaudit/sseaudit/internal/tapbench"
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
	fs.Parse(args)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	return http.Serve(ln, http.HandlerFunc(tapbench.Upstream))
}

func client(args []string) error {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	direct := fs.String("direct", "", "the upstream's URL")
	tapped := fs.String("tapped", "", "the tap's URL")
	streams := fs.Int("streams", 256, "streams at once")
	events := fs.Int("events", 100, "events a stream")
	rounds := fs.Int("rounds", 2, "rounds of each, alternated")
	stagger := fs.Bool("stagger", false, "start each stream at a phase of its own within the gap")
	fs.Parse(args)
	if *direct == "" || *tapped == "" {
		return fmt.Errorf("want -direct and -tapped")
	}
	var spread time.Duration
	if *stagger {
		spread = tapbench.Gap
	}
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * *streams, DisableCompression: true}}
	// Connections opened before anything is timed.
	for _, u := range []string{*direct, *tapped} {
		if _, err := tapbench.Latencies(c, u, *streams, 2, 0); err != nil {
			return err
		}
	}
	var d, t []float64
	for range *rounds {
		x, err := tapbench.Latencies(c, *direct, *streams, *events, spread)
		if err != nil {
			return err
		}
		y, err := tapbench.Latencies(c, *tapped, *streams, *events, spread)
		if err != nil {
			return err
		}
		d, t = append(d, x...), append(t, y...)
	}
	q := tapbench.Quantile
	fmt.Printf("events: %d direct, %d through the tap\n", len(d), len(t))
	fmt.Printf("direct   median %8.1f µs  P99 %8.1f µs\n", q(d, 0.5), q(d, 0.99))
	fmt.Printf("tapped   median %8.1f µs  P99 %8.1f µs\n", q(t, 0.5), q(t, 0.99))
	fmt.Printf("added    median %8.1f µs  P99 %8.1f µs\n", q(t, 0.5)-q(d, 0.5), q(t, 0.99)-q(d, 0.99))
	return nil
}

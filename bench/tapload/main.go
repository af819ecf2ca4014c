// Command tapload measures what audit tap adds to each streamed read with
// the upstream server, the tap and the client in processes of their own,
// as they are when a benchmark client is pointed at a tap
// (tap.BenchmarkOverhead runs all three in one process, where the harness
// takes most of the CPU the tap is timed on). bench/tap-overhead.sh runs it.
//
//	tapload upstream -addr 127.0.0.1:0
//	tapload relay -upstream URL -addr 127.0.0.1:0
//	tapload client -direct URL -tapped URL [-relay URL] [-streams 256] [-events 100] [-rounds 2] [-stagger]
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
//
// The relay is the least any tap can do: it copies the bytes of each
// connection to the upstream and back, read by read, with no HTTP and no
// recording. Given -relay, the client streams through it too, in the same
// rounds: what the relay adds is the floor of what a tap can add on the
// machine (the extra hop: a wake of one more process and two more system
// calls an event).
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/sseaudit/sseaudit/internal/tapbench"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: tapload upstream|relay|client [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "upstream":
		err = upstream(os.Args[2:])
	case "relay":
		err = relay(os.Args[2:])
	case "client":
		err = client(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q: want upstream, relay or client", os.Args[1])
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

func relay(args []string) error {
	fs := flag.NewFlagSet("relay", flag.ExitOnError)
	up := fs.String("upstream", "", "the upstream's URL")
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	fs.Parse(args)
	u, err := url.Parse(*up)
	if err != nil || u.Host == "" {
		return fmt.Errorf("-upstream %q: want http://host:port", *up)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			s, err := net.Dial("tcp", u.Host)
			if err != nil {
				return
			}
			defer s.Close()
			done := make(chan struct{}, 2)
			go pipe(s, c, done)
			go pipe(c, s, done)
			<-done
			<-done
		}()
	}
}

// pipe copies src to dst read by read (io.Copy would splice, which is not
// what a recording tap can do), then half-closes dst.
func pipe(dst, src net.Conn, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if tc, ok := dst.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
			return
		}
	}
}

func client(args []string) error {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	direct := fs.String("direct", "", "the upstream's URL")
	tapped := fs.String("tapped", "", "the tap's URL")
	relayed := fs.String("relay", "", "a bare relay's URL (tapload relay), measured alike")
	streams := fs.Int("streams", 256, "streams at once")
	events := fs.Int("events", 100, "events a stream")
	rounds := fs.Int("rounds", 2, "rounds of each, alternated")
	stagger := fs.Bool("stagger", false, "start each stream at a phase of its own within the gap")
	each := fs.Bool("each", false, "print every round's figures too (a fresh tap warms up in its first rounds)")
	fs.Parse(args)
	if *direct == "" || *tapped == "" {
		return fmt.Errorf("want -direct and -tapped")
	}
	var spread time.Duration
	if *stagger {
		spread = tapbench.Gap
	}
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * *streams, DisableCompression: true}}
	urls := []string{*direct, *tapped}
	if *relayed != "" {
		urls = append(urls, *relayed)
	}
	// Connections opened before anything is timed.
	for _, u := range urls {
		if _, err := tapbench.Latencies(c, u, *streams, 2, 0); err != nil {
			return err
		}
	}
	q := tapbench.Quantile
	names := []string{"direct", "tapped", "relayed"}
	lat := make([][]float64, len(urls)) // direct, tapped, relayed
	for k := range *rounds {
		for i, u := range urls {
			x, err := tapbench.Latencies(c, u, *streams, *events, spread)
			if err != nil {
				return err
			}
			lat[i] = append(lat[i], x...)
			if *each {
				fmt.Printf("round %d %-8s median %8.1f µs  P99 %8.1f µs\n", k+1, names[i], q(x, 0.5), q(x, 0.99))
			}
		}
	}
	d, t := lat[0], lat[1]
	fmt.Printf("events: %d direct, %d through the tap\n", len(d), len(t))
	fmt.Printf("direct   median %8.1f µs  P99 %8.1f µs\n", q(d, 0.5), q(d, 0.99))
	fmt.Printf("tapped   median %8.1f µs  P99 %8.1f µs\n", q(t, 0.5), q(t, 0.99))
	fmt.Printf("added    median %8.1f µs  P99 %8.1f µs\n", q(t, 0.5)-q(d, 0.5), q(t, 0.99)-q(d, 0.99))
	if len(lat) > 2 {
		r := lat[2]
		fmt.Printf("relayed  median %8.1f µs  P99 %8.1f µs\n", q(r, 0.5), q(r, 0.99))
		fmt.Printf("floor    median %8.1f µs  P99 %8.1f µs  (added by a bare relay: no HTTP, no recording)\n", q(r, 0.5)-q(d, 0.5), q(r, 0.99)-q(d, 0.99))
	}
	return nil
}

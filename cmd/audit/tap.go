package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/internal/rawconn"
	"github.com/sseaudit/sseaudit/tap"
	"github.com/sseaudit/sseaudit/trace"
)

func tapCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "tap",
		Usage:     "a recording proxy: any benchmark client through it to its server, every exchange recorded into a trace",
		ArgsUsage: "--upstream URL [--listen 127.0.0.1:8080] -o RUN.arrows",
		Description: `Stands between a benchmark client (AISBench, vllm bench serve, GenAI-Perf, AIPerf,
guidellm, an SDK, curl) and the server it measures: point the client at --listen
instead of the server. Every request is forwarded unchanged to --upstream
(method, path, query, headers less the hop-by-hop ones, body) and every answer
comes back unchanged, each read of its body written and flushed to the client as
it arrives; status and headers kept, keep-alive, any number of streams at once, a
gzip (or other) Content-Encoding passed through untouched.

Each streamed exchange (a request with "stream": true, or an answer of
text/event-stream; with --record all, every exchange) is recorded: t0 when the
request's last body byte reached the tap, every read of the answer with its
arrival time (monotonic clock, ns since the tap started), status, end, error
(upstream reset; client_canceled when the client went away; tap_stopped when
a second signal cut it), the request's
prompt in the "prompt" column (audit serve --match replays it) and its whole body
in "request_body", the answer's Content-Type and Content-Encoding (the body kept as
received; audit's commands decode it), the exchanges in flight at its start.
No request header is recorded, nor the query string: an API key (Authorization,
api-key, x-api-key, ?key=, ...) never reaches the trace, and one the server
echoes back is masked.

The trace is an Arrow IPC stream (.arrows) written as exchanges end, a record
batch every --flush-every exchanges and every second: a crash or kill -9 loses
only the exchanges in flight and those not yet flushed. Ctrl-C or SIGTERM stops
accepting connections and lets the exchanges in flight finish (a second signal
cuts them), then closes the file, adds the peak of exchanges in flight and the
count to its metadata, and exits 0. The peak is never taken for the client's
max concurrency C: give --max-concurrency C to record it.

Listens on loopback; another --listen address gets a warning (anyone who can
reach it uses your upstream, with your client's key).

Examples (they need a server and a client; run them by hand):
  $ audit tap --upstream http://127.0.0.1:8000 -o run.arrows &
  $ vllm bench serve --base-url http://127.0.0.1:8080 --max-concurrency 16 ...
  $ kill -INT %1
  $ audit report --max-concurrency 16 run.arrows
  $ audit lag --wire run.arrows --client aisbench_work_dir/`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "upstream", Usage: "the server: http://host:port, with an optional base path (required)"},
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:8080", Usage: "address to listen on (port 0: any free port; the address is printed)"},
			enumFlag("record", "streamed", "which exchanges to record: streamed or all", "streamed", "all"),
			&cli.IntFlag{Name: "max-concurrency", Usage: "the client's max concurrency C, recorded as the run's (not known otherwise)"},
			&cli.IntFlag{Name: "flush-every", Value: capture.DefaultFlushEvery, Usage: "exchanges a record batch holds at most (written to disk at once)"},
			&cli.Int64Flag{Name: "max-request-bytes", Value: tap.DefaultMaxRequestBytes, Usage: "largest request body (larger: 413, not forwarded)"},
			&cli.Int64Flag{Name: "max-record-bytes", Value: tap.DefaultMaxRecordBytes, Usage: "answer bytes recorded of one exchange (the rest forwarded, not recorded)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the trace to write, .arrows (required; never overwritten)"},
		},
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("tap: unexpected arguments: %s", strings.Join(cmd.Args().Slice(), " "))
			}
			o, out, c, err := tapOptions(cmd)
			if err != nil {
				return err
			}
			return runTap(ctx, e, o, out, c, cmd.String("listen"), int(cmd.Int("flush-every")))
		}),
	}
}

// tapOptions are tap's flags as tap.Options, with -o and C.
func tapOptions(cmd *cli.Command) (tap.Options, string, int, error) {
	o := tap.Options{Upstream: cmd.String("upstream"), All: cmd.String("record") == "all",
		MaxRequestBytes: cmd.Int64("max-request-bytes"), MaxRecordBytes: cmd.Int64("max-record-bytes")}
	out := cmd.String("output")
	switch {
	case o.Upstream == "":
		return o, "", 0, usagef("tap: missing --upstream URL")
	case out == "":
		return o, "", 0, usagef("tap: missing -o TRACE.arrows")
	case cmd.Int("flush-every") < 1 || o.MaxRequestBytes < 1 || o.MaxRecordBytes < 1:
		return o, "", 0, usagef("tap: --flush-every, --max-request-bytes and --max-record-bytes must be positive")
	}
	if _, err := tap.ParseUpstream(o.Upstream); err != nil {
		return o, "", 0, usagef("tap: --%v", err)
	}
	c, err := maxConcurrencyFlag(cmd)
	return o, out, c, err
}

// runTap records until a signal: the first stops accepting and lets the
// exchanges in flight end, the second cuts them.
func runTap(ctx context.Context, e env, o tap.Options, out string, c int, listen string, flushEvery int) error {
	o.Clock = tap.NewClock()
	meta, err := tap.Meta(o, c)
	if err != nil {
		return usagef("tap: %v", err)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("tap: %w", err)
	}
	ln = rawconn.Listener(ln) // the client's side raw too, as the upstream's (tap.NewTransport)
	file, err := capture.CreateFile(out, trace.WriteOptions{Meta: meta, Extra: tap.Extra()}, flushEvery)
	if err != nil {
		ln.Close()
		return err
	}
	o.Warnf = func(format string, args ...any) { fmt.Fprintf(e.stderr, "tap: warning: "+format+"\n", args...) }
	p, err := tap.New(o, file)
	if err != nil {
		ln.Close()
		file.Close()
		return err
	}
	if addr := ln.Addr().(*net.TCPAddr); !addr.IP.IsLoopback() {
		fmt.Fprintf(e.stderr, "tap: warning: listening on %s, not a loopback address: anyone who can reach it uses %s through you\n", addr, capture.RedactURL(o.Upstream))
	}
	fmt.Fprintf(e.stderr, "tap: http://%s -> %s, recording into %s; Ctrl-C stops\n", ln.Addr(), capture.RedactURL(o.Upstream), out)
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 90 * time.Second}
	interrupted := serveUntilSignal(ctx, e.stderr, srv, ln, p)
	p.Close()
	closeErr := file.Close()
	s := p.Stats()
	if closeErr == nil && s.WriteErr == nil {
		closeErr = tap.Finish(out, s)
	}
	writeTapSummary(e.stderr, s, out, file)
	switch {
	case s.WriteErr != nil:
		return fmt.Errorf("tap: %w", s.WriteErr)
	case closeErr != nil:
		return closeErr
	case interrupted != nil:
		return fmt.Errorf("tap: %w", interrupted)
	}
	return nil
}

// serveUntilSignal serves until SIGINT or SIGTERM (or ctx ends), then
// shuts the server down: no new connection, the exchanges in flight end
// (a second signal cuts them). It returns the server's own failure, if
// any.
func serveUntilSignal(ctx context.Context, stderr io.Writer, srv *http.Server, ln net.Listener, p *tap.Proxy) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-sigs:
	case <-ctx.Done():
	}
	fmt.Fprintf(stderr, "\ntap: stopping: no new connections; %d exchanges in flight finish (Ctrl-C again cuts them)\n", p.InFlight())
	shut := make(chan struct{})
	go func() { srv.Shutdown(context.Background()); close(shut) }()
	select {
	case <-shut:
	case <-sigs:
		fmt.Fprintf(stderr, "tap: cutting %d exchanges in flight\n", p.InFlight())
		p.Cut()
		srv.Close()
		<-shut
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// writeTapSummary says what the tap did and what is on disk.
func writeTapSummary(w io.Writer, s tap.Stats, out string, file *capture.File) {
	fmt.Fprintf(w, "tap: %d exchanges forwarded, %d recorded (%d failed), %d on disk in %s; %d body bytes; at most %d in flight\n",
		s.Forwarded, s.Recorded, s.Failed, file.Requests(), out, s.BodyBytes, s.PeakInFlight)
	if s.Refused > 0 {
		fmt.Fprintf(w, "tap: %d requests answered by the tap itself (413 over --max-request-bytes, or 400: an unreadable body), not forwarded\n", s.Refused)
	}
	for _, enc := range sortedKeys64(s.Encoded) {
		fmt.Fprintf(w, "tap: %d answers were %s-encoded (recorded as received; decoded when read)\n", s.Encoded[enc], enc)
	}
	if s.Masked > 0 {
		fmt.Fprintf(w, "tap: %d credentials the server echoed (a request's own Authorization or key header) masked in the recording, byte for byte with '*'\n", s.Masked)
	}
	if file.Partial() {
		fmt.Fprintf(w, "tap: %s ends inside a record batch: audit capture --salvage %s -o NEW.arrows keeps the %d exchanges before it\n", out, out, file.Requests())
	}
}

func sortedKeys64(m map[string]int64) []string {
	n := make(map[string]int, len(m))
	for k := range m {
		n[k] = 0
	}
	return sortedKeys(n)
}

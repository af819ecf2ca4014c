package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/serve"
)

func serveCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "replay a trace as a live OpenAI-compatible streaming server",
		ArgsUsage: "TRACE",
		Description: `Answers POST /v1/chat/completions and /v1/completions with the trace's streams:
the i-th request that arrives gets the i-th stream (--match: the stream whose
prompt, in the trace's "prompt" column, equals the request's), with its status
code, its body bytes cut into the same writes, each write sent as long after the
request's arrival as the read arrived after t0 in the trace (divided by --speed),
and its failures: a request that got no response is answered by closing the
connection, one cut mid-stream is cut after its last read (its status sent
first); an error answer audit capture recorded whole ("HTTP 429 ...: its body")
is sent whole. The request's own parameters (model, max_tokens, stream) are not
looked at. When every stream has been served, further requests get 503.
GET /v1/models and /health answer too.

Listens on loopback unless told otherwise; serves up to --max-connections clients
at once (a further client takes the slot of the connection idle longest, or
waits). A client has --read-timeout to send its headers, and again its body; an
idle keep-alive connection is closed after --idle-timeout. Without --match a
request body is read and dropped; with it, bodies are held to read their prompts,
--max-body-memory of them at once (a request beyond it gets 503).
Without --match the trace is read ahead, up to 64 MiB of streams (a trace that
fits is decoded before the first request), then a stream as one is handed out
(any size); --match reads it whole into memory. Ctrl-C stops (requests in
flight are cut).

How precise: on Linux one pacer wakes on a timerfd for the next due write of
every stream, armed early by how late its recent wakes were (by at most a tenth
of the time between wakes: spinning costs at most a tenth of a core) and waiting
the rest on the clock, and a request arrives when the kernel received its first
byte. Measured on the wire (bench/serve-timing.sh, 2 cores, the Python clients
on the same machine): with --realtime, in 36 rounds of 36 at 1, 16 and 64
streams each round's P99 was within 131 µs; at 64 streams the median was 7 µs
and the P99 27 to 55 µs, for 11 to 14% of a core (a single write can be
milliseconds late when the VM stalls). At normal priority the pacing is about as
good (P99 36 to 136 µs after a stream's first write, in 34 rounds of 36), but in
10 rounds of 36 the streams of the clients' opening burst start 0.2 to 1.6 ms
late as a whole: the busy kernel took in their requests late (on loopback it
stamps a TCP segment as it processes it, not as it is sent), and the server
cannot know the request sooner than its kernel does.
Elsewhere than Linux serve uses Go's timers. Figures: docs/performance.md.

Arguments:
  TRACE   the trace to serve (.parquet, .arrow, .arrows, .jsonl)

Examples (they need a client; run them by hand):
  $ audit serve --listen 127.0.0.1:8000 trace.parquet
  $ audit serve --match --speed 2 --once gen.arrows
  $ curl -N http://127.0.0.1:8000/v1/chat/completions -d '{"messages":[{"role":"user","content":"hi"}],"stream":true}'`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:8000", Usage: "address to listen on (port 0: any free port; the address is printed)"},
			&cli.IntFlag{Name: "max-connections", Value: 1024, Usage: "connections served at once; more wait until one closes (or takes the slot of one idle longest)"},
			&cli.Int64Flag{Name: "max-body-bytes", Value: serve.DefaultMaxBodyBytes, Usage: "largest request body (larger: 413)"},
			&cli.Int64Flag{Name: "max-body-memory", Value: serve.DefaultMaxBodyMemory, Usage: "request bodies held at once, all clients together, with --match (over it: 503)"},
			&cli.DurationFlag{Name: "read-timeout", Value: 30 * time.Second, Usage: "time a client has to send a request's headers, and again its body"},
			&cli.DurationFlag{Name: "idle-timeout", Value: 30 * time.Second, Usage: "time an idle keep-alive connection stays open"},
			&cli.Float64Flag{Name: "speed", Value: 1, Usage: "replay speed: 2 sends every read twice as soon"},
			&cli.BoolFlag{Name: "match", Usage: "answer each request with the stream whose prompt matches (needs a prompt column)"},
			&cli.BoolFlag{Name: "once", Usage: "exit when every stream has been served and answered"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "one line on stderr a served request"},
			&cli.BoolFlag{Name: "realtime", Usage: "run under the real-time policy SCHED_FIFO, on one thread at a time (Linux; needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO): writes on time while clients hold the CPUs"},
			&cli.IntFlag{Name: "realtime-priority", Value: 10, Usage: "the SCHED_FIFO priority of --realtime, 1 to 99"},
			traceFormatFlag("in-format"),
			runMetaFlag(),
		}, limitFlags()...),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			path, err := oneArg(cmd, "TRACE")
			if err != nil {
				return err
			}
			if p := cmd.Int("realtime-priority"); p < 1 || p > 99 {
				return usagef("serve: --realtime-priority %d: want 1 to 99", p)
			}
			speed := cmd.Float64("speed")
			if !(speed > 0) || speed > 1e6 {
				return usagef("serve: --speed %v: want a positive number", speed)
			}
			r, err := openTrace(e, cmd, path, "in-format")
			if err != nil {
				return err
			}
			defer r.Close()
			for _, f := range []string{"max-body-bytes", "max-body-memory"} {
				if cmd.Int64(f) < 1 {
					return usagef("serve: --%s %d: want a positive number of bytes", f, cmd.Int64(f))
				}
			}
			for _, f := range []string{"read-timeout", "idle-timeout"} {
				if cmd.Duration(f) <= 0 {
					return usagef("serve: --%s %v: want a positive duration", f, cmd.Duration(f))
				}
			}
			opts := serve.Options{Speed: speed, Match: cmd.Bool("match"), MaxBodyBytes: cmd.Int64("max-body-bytes"),
				MaxBodyMemory: cmd.Int64("max-body-memory"), BodyTimeout: cmd.Duration("read-timeout")}
			if cmd.Bool("verbose") {
				opts.Logf = func(format string, args ...any) { fmt.Fprintf(e.stderr, "serve: "+format+"\n", args...) }
			}
			if cmd.Bool("realtime") {
				if err := serve.SetRealtime(cmd.Int("realtime-priority")); err != nil {
					return fmt.Errorf("serve: --realtime: %w", err)
				}
			}
			if policy, prio, ok := serve.Realtime(); ok {
				fmt.Fprintf(e.stderr, "serve: real-time priority (%s %d): Go code runs on one thread at a time (GOMAXPROCS 1)\n", policy, prio)
			}
			s, err := serve.New(r, opts)
			if err != nil {
				return err
			}
			if cmd.Int("max-connections") < 1 {
				return usagef("serve: --max-connections %d: want a positive number", cmd.Int("max-connections"))
			}
			ln, err := net.Listen("tcp", cmd.String("listen"))
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			limited := serve.LimitListener(serve.ArrivalListener(ln), cmd.Int("max-connections"))
			ln = limited
			addr := ln.Addr().(*net.TCPAddr)
			if !addr.IP.IsLoopback() {
				fmt.Fprintf(e.stderr, "serve: warning: listening on %s, not a loopback address: anyone who can reach it gets the trace\n", addr)
			}
			fmt.Fprintf(e.stderr, "serve: %s on http://%s (POST /v1/chat/completions, /v1/completions); Ctrl-C stops\n", path, ln.Addr())
			// Idle keep-alive connections and slow senders would otherwise
			// hold the connection slots for ever (issue 21).
			srv := &http.Server{Handler: s, ReadHeaderTimeout: cmd.Duration("read-timeout"),
				IdleTimeout: cmd.Duration("idle-timeout"), ConnState: limited.ConnState, ConnContext: serve.ConnContext, ErrorLog: nil}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			errc := make(chan error, 1)
			go func() { errc <- srv.Serve(ln) }()
			once := make(<-chan struct{})
			if cmd.Bool("once") {
				once = s.Exhausted()
			}
			select {
			case err := <-errc:
				return fmt.Errorf("serve: %w", err)
			case <-ctx.Done():
				srv.Close()
			case <-once:
				s.Wait()
				sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				srv.Shutdown(sctx)
				cancel()
			}
			if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("serve: %w", err)
			}
			fmt.Fprintf(e.stderr, "serve: served %d streams\n", s.Served())
			return s.Err()
		}),
	}
}

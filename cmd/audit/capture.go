package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/trace"
)

func captureCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "capture",
		Usage:     "record a live OpenAI-compatible streaming endpoint into a trace",
		ArgsUsage: "--url URL --requests N --concurrency C -o TRACE.arrows",
		Description: `Drives the server like AISBench's client: a closed loop of C clients (each sends
its next request when its previous one ends), at most --rate requests a second
when given, each request streaming with "stream_options": {"include_usage": true}
(and "continuous_usage_stats": true with --continuous-usage), max_tokens and
model. It records t0 just before each request is sent and every read of the body
with its arrival time (monotonic clock, ns since the capture started), the status
and any error; a 4xx/5xx answer keeps its body in the error column too.

The trace is an Arrow IPC stream (.arrows) written as it goes, one record batch
every --flush-every requests and every second: a crash or kill -9 loses only the
requests in flight (and those that ended after the oldest in-flight one was sent:
rows are in send order). audit convert finishes such a file; one cut inside a
record batch (a full disk) is first salvaged with --salvage. Ctrl-C stops
sending; the requests in flight are canceled and left out, or, with --drain,
finished and kept (a second Ctrl-C cancels them). A progress line is shown on
stderr when it is a terminal; a summary always.

A server that refuses the connection before any response ends the capture with
an error and leaves no file; a 200 that is not text/event-stream gets a warning.
Answers are recorded as a decoding client reads them: a body the server encoded
(Content-Encoding gzip, deflate, br, zstd) is stored decoded, with a warning (one
that does not decode is stored as sent and the request marked failed); a
redirect is recorded as the answer and never followed (it would carry the
request's headers, an API key among them, to another host); a body longer than
--max-body-bytes is cut there and the request marked failed. The trace never
holds a credential: the URL is stored without user, password or query (in errors
too), headers are not stored, and a key the server echoes (a --header's, the
URL's password or a ?key= parameter) is masked byte for byte. The summary says how many requests are on disk; an interrupted
capture, or one whose file could not be written, exits 1.

Examples (they need a live server; run them by hand):
  $ audit capture --url http://127.0.0.1:8000 --model qwen --requests 200 --concurrency 8 --max-tokens 256 -o run.arrows
  $ audit capture --url http://127.0.0.1:8000/v1 --api completions --prompts prompts.jsonl --rate 4 --requests 100 --concurrency 16 -o run.arrows
  $ audit convert run.arrows -o run.parquet
  $ audit capture --salvage cut.arrows -o saved.arrows`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "url", Usage: "the server: http://host:port, .../v1, or the endpoint URL (required)"},
			enumFlag("api", "chat", "chat (/v1/chat/completions) or completions (/v1/completions); when not given, the API of the endpoint --url names, else chat", "chat", "completions"),
			&cli.IntFlag{Name: "requests", Value: 100, Usage: "requests to send"},
			&cli.IntFlag{Name: "concurrency", Value: 1, Usage: "clients of the closed loop"},
			&cli.Float64Flag{Name: "rate", Usage: "at most this many requests a second (0: no cap)"},
			&cli.StringFlag{Name: "prompts", Usage: "JSONL file of prompts (a JSON string or {\"prompt\": ...} a line), used in turn"},
			&cli.IntFlag{Name: "prompt-words", Value: 128, Usage: "words of each synthetic prompt when --prompts is not given"},
			&cli.IntFlag{Name: "max-tokens", Value: 256, Usage: "max_tokens of each request (0: not sent)"},
			&cli.StringFlag{Name: "model", Usage: "model of each request (not sent when empty)"},
			&cli.StringSliceFlag{Name: "header", Usage: "an HTTP header K:V to send (repeatable)"},
			&cli.BoolFlag{Name: "continuous-usage", Usage: "ask for usage on every chunk (stream_options.continuous_usage_stats)"},
			&cli.BoolFlag{Name: "drain", Usage: "on Ctrl-C, let the requests in flight finish and keep them"},
			&cli.DurationFlag{Name: "timeout", Usage: "bound on one request (0: none)"},
			&cli.Int64Flag{Name: "max-body-bytes", Value: capture.DefaultMaxBodyBytes, Usage: "body bytes kept of one answer: a longer body is cut there and the request marked failed"},
			&cli.IntFlag{Name: "flush-every", Value: capture.DefaultFlushEvery, Usage: "requests a record batch holds at most (written to disk at once)"},
			enumFlag("progress", "auto", "progress line on stderr: auto (when a terminal), always, never", "auto", "always", "never"),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the trace to write, .arrows (required; never overwritten)"},
			&cli.StringFlag{Name: "salvage", Usage: "instead of capturing: copy the readable part of a capture file cut inside a record batch (every complete batch) to -o"},
		},
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("capture: unexpected arguments: %s", strings.Join(cmd.Args().Slice(), " "))
			}
			out := cmd.String("output")
			if out == "" {
				return usagef("capture: missing -o TRACE.arrows")
			}
			if src := cmd.String("salvage"); src != "" {
				n, dropped, err := capture.Salvage(src, out)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stderr, "capture: salvaged %d requests from %s into %s (%d bytes of an unfinished record batch left behind)\n", n, src, out, dropped)
				return nil
			}
			o, meta, err := captureOptions(cmd)
			if err != nil {
				return err
			}
			return runCapture(ctx, e, o, meta, out, cmd.String("progress"))
		}),
	}
}

// captureOptions are capture's flags as capture.Options, with the run's
// metadata they give.
func captureOptions(cmd *cli.Command) (capture.Options, trace.Meta, error) {
	if cmd.String("url") == "" {
		return capture.Options{}, nil, usagef("capture: missing --url")
	}
	o := capture.Options{
		URL: cmd.String("url"), Requests: int(cmd.Int("requests")), Concurrency: int(cmd.Int("concurrency")), Rate: cmd.Float64("rate"),
		PromptWords: int(cmd.Int("prompt-words")), MaxTokens: int(cmd.Int("max-tokens")), Model: cmd.String("model"),
		ContinuousUsage: cmd.Bool("continuous-usage"), Drain: cmd.Bool("drain"), Timeout: cmd.Duration("timeout"),
		FlushEvery: int(cmd.Int("flush-every")), MaxBodyBytes: cmd.Int64("max-body-bytes"),
		Headers: http.Header{},
	}
	if cmd.IsSet("api") {
		o.API = cmd.String("api") // else capture takes the API of the endpoint --url names
	}
	if o.MaxTokens < 0 || o.PromptWords < 1 || o.Timeout < 0 || o.FlushEvery < 1 || o.MaxBodyBytes < 1 {
		return o, nil, usagef("capture: --max-tokens must be 0 or more; --prompt-words, --flush-every and --max-body-bytes positive; --timeout not negative")
	}
	for _, h := range cmd.StringSlice("header") {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return o, nil, usagef("capture: --header %q: want NAME:VALUE", h)
		}
		o.Headers.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	meta, err := capture.Meta(o)
	if err != nil {
		return o, nil, usagef("capture: %v", err)
	}
	if p := cmd.String("prompts"); p != "" {
		f, err := os.Open(p)
		if err != nil {
			return o, nil, err
		}
		o.Prompts, err = capture.ReadPrompts(f, p)
		f.Close()
		if err != nil {
			return o, nil, err
		}
	}
	return o, meta, nil
}

// runCapture captures into out: the first Ctrl-C (or SIGTERM) stops
// sending, the second aborts what is in flight; the summary always.
func runCapture(ctx context.Context, e env, o capture.Options, meta trace.Meta, out, progressMode string) error {
	file, err := capture.CreateFile(out, trace.WriteOptions{Meta: meta, Extra: capture.Extra()}, o.FlushEvery)
	if err != nil {
		return err
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	abort := make(chan struct{})
	o.Abort = abort
	go func() {
		select {
		case <-sigs:
		case <-runCtx.Done():
			return
		}
		fmt.Fprintf(e.stderr, "\ncapture: interrupted: no more requests are sent; %s\n",
			map[bool]string{true: "draining those in flight (Ctrl-C again cancels them)", false: "canceling those in flight"}[o.Drain])
		stop()
		select {
		case <-sigs:
			close(abort)
		case <-time.After(24 * time.Hour):
		}
	}()
	bar := newCaptureProgress(e.stderr, progressMode, o.Requests)
	o.Progress = bar.update
	o.Warnf = func(format string, args ...any) {
		bar.clear()
		fmt.Fprintf(e.stderr, "capture: warning: "+format+"\n", args...)
	}
	sum, runErr := capture.Run(runCtx, o, file)
	bar.clear()
	if errors.Is(runErr, capture.ErrConnect) && !sum.GotResponse {
		// Nothing was captured: a file left behind would only block the
		// next try (issue 20).
		if err := file.Remove(); err != nil {
			return fmt.Errorf("capture: %w (and removing %s: %v)", runErr, out, err)
		}
		fmt.Fprintf(e.stderr, "capture: no answer from the server: nothing captured, %s not kept\n", out)
		return fmt.Errorf("capture: %w", runErr)
	}
	closeErr := file.Close()
	writeSummary(e.stderr, sum, out, file)
	switch {
	case runErr != nil:
		return fmt.Errorf("capture: %w", runErr)
	case closeErr != nil:
		return closeErr
	case sum.Interrupted:
		return fmt.Errorf("capture: interrupted: %d of %d requests sent; %s holds the %d written", sum.Sent, o.Requests, out, file.Requests())
	}
	return nil
}

// writeSummary says what the capture did and what is on disk: the
// requests of the record batches written whole, which after a failed write
// (a full disk) are fewer than those captured.
func writeSummary(w io.Writer, s capture.Summary, out string, file *capture.File) {
	var outcomes []string
	for k, n := range s.ByOutcome {
		outcomes = append(outcomes, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(outcomes)
	onDisk := file.Requests()
	rate := 0.0
	if s.Elapsed > 0 {
		rate = float64(s.Written) / s.Elapsed.Seconds()
	}
	fmt.Fprintf(w, "capture: %d sent, %d written to %s, %d failed, %d canceled (not written); %s; %d body bytes in %.1fs (%.2f req/s)\n",
		s.Sent, onDisk, out, s.Failed, s.Canceled, strings.Join(outcomes, ", "), s.BodyBytes, s.Elapsed.Seconds(), rate)
	if lost := s.Written - onDisk; lost > 0 {
		fmt.Fprintf(w, "capture: %d more requests were captured but did not reach the disk (the write failed)\n", lost)
	}
	if file.Partial() {
		fmt.Fprintf(w, "capture: %s ends inside a record batch: audit capture --salvage %s -o NEW.arrows keeps the %d requests before it\n", out, out, onDisk)
	}
	if s.Interrupted {
		fmt.Fprintf(w, "capture: interrupted before all requests were sent\n")
	}
	if s.NonStreaming > 0 {
		fmt.Fprintf(w, "capture: %d answers with status 200 were not text/event-stream\n", s.NonStreaming)
	}
	for _, enc := range sortedKeys(s.Encoded) {
		fmt.Fprintf(w, "capture: %d answers were %s-encoded (Content-Encoding)\n", s.Encoded[enc], enc)
	}
	if s.Masked > 0 {
		fmt.Fprintf(w, "capture: %d credentials the server echoed (a --header's key, the URL's) masked in the recording, byte for byte with '*'\n", s.Masked)
	}
	if s.Redirects > 0 {
		fmt.Fprintf(w, "capture: %d answers were redirects, recorded and not followed\n", s.Redirects)
	}
	if s.CutBodies > 0 {
		fmt.Fprintf(w, "capture: %d bodies were cut at --max-body-bytes\n", s.CutBodies)
	}
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

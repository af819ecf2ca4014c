package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/sseaudit/sseaudit/capture"
)

// progress is the one status line a long command draws on a terminal's
// stderr: from delay on, at most every progressEvery (a forced draw always),
// and cleared when done. It is safe for concurrent use (capture's clients
// report at once), and a nil *progress draws nothing, so that commands call
// it without asking whether stderr is a terminal.
type progress struct {
	w     io.Writer
	now   func() time.Time
	delay time.Duration
	mu    sync.Mutex
	start time.Time
	last  time.Time
	drawn bool
}

const (
	progressDelay = time.Second // before report's line: a short run shows none
	progressEvery = 100 * time.Millisecond
	progressWidth = 20
)

// newProgress is a progress line on w for mode: "always", "never" or
// "auto" (only when w is a terminal); nil when off.
func newProgress(w io.Writer, mode string, delay time.Duration, now func() time.Time) *progress {
	if mode == "never" || (mode == "auto" && !isTerminal(w)) {
		return nil
	}
	t := now()
	return &progress{w: w, now: now, delay: delay, start: t}
}

// draw redraws the line with text(elapsed) when it is due, or when forced
// (past the delay).
func (p *progress) draw(force bool, text func(elapsed time.Duration) string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	elapsed := t.Sub(p.start)
	if elapsed < p.delay || (!force && t.Sub(p.last) < progressEvery) {
		return
	}
	p.last = t
	fmt.Fprintf(p.w, "\r\x1b[K%s", text(elapsed))
	p.drawn = true
}

// clear removes the line, if drawn.
func (p *progress) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// sweep is a bar for work of unknown size: a mark that goes back and forth.
func sweep(elapsed time.Duration, width int) string {
	pos := int(elapsed/progressEvery) % (2 * (width - 3))
	if pos >= width-3 {
		pos = 2*(width-3) - pos
	}
	return "[" + strings.Repeat(" ", pos) + "===" + strings.Repeat(" ", width-3-pos) + "]"
}

// filled is a bar for done of total.
func filled(done, total, width int) string {
	fill := width * done / max(total, 1)
	return "[" + strings.Repeat("=", fill) + strings.Repeat(" ", width-fill) + "]"
}

// replayProgress is report's line: the requests replayed (the trace's
// count is not known ahead), their rate and the phase, after a second.
type replayProgress struct {
	*progress
	n     int
	phase string
}

// newReplayProgress is report's line on stderr, nil when it is not a terminal.
func newReplayProgress(stderr io.Writer) *replayProgress {
	return newReplayProgressTo(stderr, "auto", time.Now)
}

func newReplayProgressTo(w io.Writer, mode string, now func() time.Time) *replayProgress {
	p := newProgress(w, mode, progressDelay, now)
	if p == nil {
		return nil
	}
	return &replayProgress{progress: p, phase: "replaying"}
}

// tick counts one request.
func (p *replayProgress) tick() {
	if p == nil {
		return
	}
	p.n++
	if p.n%64 == 0 || p.n < 64 {
		p.draw(false, p.text)
	}
}

// setPhase names what the run does now, and draws it when the run is long.
func (p *replayProgress) setPhase(msg string) {
	if p == nil {
		return
	}
	p.phase = msg
	p.draw(true, p.text)
}

func (p *replayProgress) text(elapsed time.Duration) string {
	rate := ""
	if p.phase == "replaying" {
		rate = fmt.Sprintf(", %.0f req/s", float64(p.n)/elapsed.Seconds())
	}
	return fmt.Sprintf("%s %s: %d requests%s, %.1f s", sweep(elapsed, progressWidth), p.phase, p.n, rate, elapsed.Seconds())
}

// done clears the line.
func (p *replayProgress) done() {
	if p != nil {
		p.clear()
	}
}

// captureProgress is capture's line: requests done of the total, failed and
// in flight, the rate.
type captureProgress struct {
	*progress
	total int
}

func newCaptureProgress(w io.Writer, mode string, total int) *captureProgress {
	return &captureProgress{progress: newProgress(w, mode, 0, time.Now), total: total}
}

func (c *captureProgress) update(p capture.Progress) {
	c.draw(p.Done >= c.total, func(time.Duration) string {
		rate := 0.0
		if p.Elapsed > 0 {
			rate = float64(p.Done) / p.Elapsed.Seconds()
		}
		return fmt.Sprintf("%s %d/%d done, %d failed, %d in flight, %.1f req/s, %s",
			filled(p.Done, c.total, 30), p.Done, c.total, p.Failed, p.InFlight, rate, p.Elapsed.Truncate(time.Second))
	})
}

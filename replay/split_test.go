package replay

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/internal/shared"
	"github.com/sseaudit/sseaudit/trace"
)

// splitBodies are bodies whose framing a cut between reads could change:
// CRLF and CR line ends, a BOM, fields without data, a [DONE] with spaces,
// comments, and bytes after [DONE].
var splitBodies = []string{
	"data: " + pContent + "\r\n\r\ndata: " + pUsage + "\r\n\r\ndata: [DONE]\r\n\r\nxx",
	"data: " + pContent + "\r\rdata: " + pUsage + "\r\r",
	"\xef\xbb\xbfdata: " + pContent + "\n\n",
	"id: 1\r\n\r\nevent: x\rretry: 3\r\rdata:  [DONE] \n\n",
	": c\ndata: " + pContent + "\n\ndata: [DONE]\ndata: x\n\nafter\n\n",
}

// TestSplitIndependence: how a body was cut into reads changes its events'
// times, never what they are: a body replayed in one read and cut at every
// position (or every len/400 bytes), and into 50 random runs of reads,
// gives the same events, classes, facts, byte accounting, time point count
// and tokens, with both framers, with and without messages.
func TestSplitIndependence(t *testing.T) {
	bodies := append(append([]string{}, splitBodies...), framingSeeds...)
	checkSplits(t, bodies)
}

// TestSplitIndependenceCorpus: the same over the real servers' chunks,
// a third of the events ended by CRLF.
func TestSplitIndependenceCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(shared.Dir(t, "corpus/real-streams"), "*.json"))
	var bodies []string
	for _, f := range files {
		_, compact := corpusEvents(t, f)
		var b strings.Builder
		for i, e := range compact {
			sep := "\n\n"
			if i%3 == 1 {
				sep = "\r\n\r\n"
			}
			b.WriteString("data: " + string(e) + sep)
		}
		bodies = append(bodies, b.String()+"data: [DONE]\n\n")
	}
	checkSplits(t, bodies)
}

func checkSplits(t *testing.T, bodies []string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	for bi, s := range bodies {
		body := []byte(s)
		for _, fr := range []Framer{AISBench, SSE} {
			for _, opt := range []Options{{Framer: fr}, {Framer: fr, Messages: true}} {
				want := replaySummary(t, body, nil, opt)
				check := func(cuts []int) {
					if got := replaySummary(t, body, cuts, opt); got != want {
						t.Fatalf("body %d, %s, messages %v, cut at %v:\none read:\n%s\ncut:\n%s", bi, fr, opt.Messages, cuts, want, got)
					}
				}
				for c := 1; c < len(body); c += 1 + len(body)/400 {
					check([]int{c})
				}
				for range 50 {
					var cuts []int
					for c := rng.IntN(20); c < len(body); c += 1 + rng.IntN(30) {
						cuts = append(cuts, c)
					}
					check(cuts)
				}
			}
		}
	}
}

// replaySummary replays body cut into reads at cuts and says, times aside,
// what came of it.
func replaySummary(t *testing.T, body []byte, cuts []int, opt Options) string {
	t.Helper()
	status, end := int32(200), int64(9_000_000_000)
	req := &trace.Request{RequestID: "s", T0Ns: 1_000_000_000, EndNs: &end, HTTPStatus: &status, Chunks: []trace.Chunk{}}
	prev, at := 0, req.T0Ns
	for _, c := range append(cuts, len(body)) {
		if c > prev {
			at += 1000
			req.Chunks = append(req.Chunks, trace.Chunk{TNs: at, Data: body[prev:c]})
			prev = c
		}
	}
	r, err := Replay(req, opt)
	if err != nil {
		t.Fatalf("cut at %v: %v", cuts, err)
	}
	p := func(v *int64) string {
		if v == nil {
			return "nil"
		}
		return fmt.Sprint(*v)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ok=%v err=%q bytes=%v counts=%v points=%d in=%s out=%s source=%s sse=%v\n", r.Success, r.ErrorInfo, r.Bytes, r.Counts,
		len(r.TimePointsNs), p(r.InputTokens), p(r.OutputTokens), r.TokenSource, r.SSE != nil)
	for _, e := range r.Events {
		u := ""
		if e.Usage != nil {
			u = fmt.Sprint(e.Usage.PromptTokens, e.Usage.CompletionTokens, p(e.Usage.CachedTokens))
		}
		fmt.Fprintf(&b, "  %d [%d,%d) %s facts=%b recorded=%v type=%q usage=%s logprobs=%d content=%d reasoning=%d\n",
			e.Index, e.Start, e.End, e.Class, e.Facts, e.Recorded, e.EventType, u, e.LogprobEntries, e.ContentBytes, e.ReasoningBytes)
	}
	return b.String()
}

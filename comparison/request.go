package comparison

import (
	"crypto/sha256"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

// Request is one request of a run as a comparison takes it: the record
// AISBench's summarizer sees (with the sse framer's view, for the framing
// constructs) and what the replay said of its stream beside it.
type Request struct {
	Record record.Request
	// Prompt identifies the request's prompt (PromptKey of the trace's
	// "prompt" column); HasPrompt is false when the trace has none.
	Prompt    PromptKey
	HasPrompt bool
	// Error is AISBench's error_info of a failed request, "" when none.
	Error string
	// TokenSource is where the token counts came from: usage, trace, mixed
	// or unknown (replay.Result.TokenSource).
	TokenSource string
	// Events counts every event the framer cut, by class, recorded or not.
	Events replay.EventCounts
}

// PromptKey is a digest of a prompt: requests with the same prompt have
// the same key.
type PromptKey [16]byte

// KeyOf is the key of a prompt.
func KeyOf(prompt string) PromptKey {
	sum := sha256.Sum256([]byte(prompt))
	var k PromptKey
	copy(k[:], sum[:])
	return k
}

// FromReplayed is the Request of a request record.Each replayed with
// KeepReplay (and Spec, for the framing constructs); its prompt is set
// apart (Builder.SetPrompts).
func FromReplayed(rr *record.Replayed) Request {
	res := rr.Replay
	return Request{Record: rr.Record, Error: res.ErrorInfo, TokenSource: res.TokenSource, Events: res.Counts}
}

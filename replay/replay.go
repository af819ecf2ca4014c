package replay

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/sseaudit/sseaudit/trace"
)

// Framer names the way a body is cut into events.
type Framer string

const (
	// AISBench frames the body the way AISBench's streaming client does
	// (aiohttp line delivery, iter_lines, strip, "data:" removal).
	AISBench Framer = "aisbench"
	// SSE frames the body with the WHATWG server-sent-events algorithm.
	SSE Framer = "sse"
)

// Class is the primary kind of one event. The classifier's precedence for a
// JSON object is content > reasoning > tool_call > finish > role >
// usage_only > metadata_only (see classify.go).
type Class uint8

const (
	ClassRole         Class = iota // a role and no text
	ClassReasoning                 // non-empty delta.reasoning_content or delta.reasoning
	ClassContent                   // non-empty delta.content or choices[].text
	ClassToolCall                  // non-empty delta.tool_calls
	ClassFinish                    // finish_reason and no text
	ClassUsageOnly                 // no choices, a truthy usage
	ClassMetadataOnly              // a JSON object with none of the above
	ClassDone                      // [DONE]
	ClassComment                   // a comment block (aisbench) or comment-only block (sse)
	ClassAfterDone                 // anything after [DONE]
	ClassMalformed                 // not a JSON object
	ClassError                     // an "error" member, or sse "event: error"
	numClasses
)

var classNames = [numClasses]string{
	"role", "reasoning", "content", "tool_call", "finish", "usage_only",
	"metadata_only", "done", "comment", "after_done", "malformed", "error",
}

func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// Classes lists every class in a stable order for output.
var Classes = []Class{
	ClassRole, ClassReasoning, ClassContent, ClassToolCall, ClassFinish, ClassUsageOnly,
	ClassMetadataOnly, ClassDone, ClassComment, ClassAfterDone, ClassMalformed, ClassError,
}

// Bucket is where a body byte went: the bytes of an event's payload go to the
// bucket of its class; the rest is framing or ignored.
type Bucket uint8

const (
	// BucketFraming holds line ends, blank lines, "data:" prefixes, field
	// names, the whitespace the framer strips and the BOM.
	BucketFraming Bucket = Bucket(numClasses) + iota
	// BucketIgnored holds bytes a framer skips that are not part of a class:
	// unknown SSE fields, an SSE event never dispatched (no blank line before
	// the end of the body).
	BucketIgnored
	numBuckets
)

// ClassBucket is the bucket that holds the payload bytes of class c.
func ClassBucket(c Class) Bucket { return Bucket(c) }

func (b Bucket) String() string {
	switch {
	case b < Bucket(numClasses):
		return Class(b).String()
	case b == BucketFraming:
		return "framing"
	case b == BucketIgnored:
		return "ignored"
	}
	return "Bucket(" + strconv.Itoa(int(b)) + ")"
}

// Buckets lists every bucket in a stable order for output: the classes'
// buckets in Classes order, then framing and ignored.
var Buckets = func() []Bucket {
	var bs []Bucket
	for _, c := range Classes {
		bs = append(bs, ClassBucket(c))
	}
	return append(bs, BucketFraming, BucketIgnored)
}()

// ByteCounts counts body bytes per bucket.
type ByteCounts [numBuckets]int64

// Sum is the number of bytes counted, the body size after Replay.
func (b *ByteCounts) Sum() int64 {
	var n int64
	for _, v := range b {
		n += v
	}
	return n
}

// EventCounts counts events per class.
type EventCounts [numClasses]int

// Event is one event of a body as a framer cut it.
type Event struct {
	Index int   // 0-based in the request
	TNs   int64 // t_ns of the read that completed the event
	// Start and End are the event's byte range [Start, End) in the body (the
	// chunks concatenated), without the surrounding whitespace and blank
	// lines.
	Start, End int64
	Class      Class
	Facts      Facts // everything the payload carried, for events with a JSON object
	// Recorded is true when the event got a time point: for the aisbench
	// framer, when AISBench's client recorded one (and kept it); for the sse
	// framer, a dispatched data event before [DONE].
	Recorded       bool
	EventType      string // the sse "event:" field, if any
	Usage          *Usage // the event's usage when present and truthy (AISBench's rule) and an object
	LogprobEntries int    // choices[].logprobs.content entries, or completions logprobs.tokens
	ContentBytes   int    // bytes of delta.content / choices[].text, unescaped
	ReasoningBytes int    // bytes of delta.reasoning_content (or delta.reasoning), unescaped
}

// Facts are what an event's JSON carried, whatever its class.
type Facts uint8

const (
	HasText      Facts = 1 << iota // non-empty string delta.content or text in some choice
	HasReasoning                   // non-empty string delta.reasoning_content or delta.reasoning
	HasToolCall                    // non-empty delta.tool_calls
	HasFinish                      // non-empty string finish_reason
	HasRole                        // non-empty string delta.role
	HasUsage                       // a truthy usage
	HasError                       // an "error" object or non-empty string
)

// Usage is an event's usage object. A count that is missing or not an
// integer is 0, which AISBench treats as unknown.
type Usage struct {
	PromptTokens, CompletionTokens int64
	CachedTokens                   *int64 // prompt_tokens_details.cached_tokens, when an integer
}

// Result is what replaying one request gives.
type Result struct {
	RequestID string
	Framer    Framer
	// Success is AISBench's success flag as it ends up in its files (after
	// RequestOutput.get_metrics). For the sse framer it follows the same
	// transport rules, with malformed events not failing the request.
	Success   bool
	ErrorInfo string // why not, worded as AISBench's error_info where it sets one
	// TimePointsNs are the time points on the trace clock, t0 first; empty
	// (not nil) when AISBench cleared them after an exception; nil when the
	// trace held time_points_s instead of bytes.
	TimePointsNs []int64
	// TimePointsS are the time points AISBench would have recorded:
	// float64(ns)/1e9, or the trace's time_points_s as given.
	TimePointsS []float64
	// InputTokens and OutputTokens follow AISBench: the last truthy usage
	// wins; a count it leaves at 0 falls back to the trace's columns; nil is
	// unknown.
	InputTokens, OutputTokens *int64
	// TokenSource says where the known counts came from: "usage", "trace",
	// "mixed" (one from each) or "unknown".
	TokenSource string
	Events      []Event
	Bytes       ByteCounts
	Counts      EventCounts
	// Messages are, for the vllm and sglang framers (and the aisbench framer
	// with Options.Messages), what the client's framing hands its request
	// function (clients.go).
	Messages []Message
	// Transport is, for the framers of Messages, why the client could not
	// read the body to its end ("" when it could): no response, a status
	// other than 200, a transport error, invalid UTF-8, a line too long.
	// Success is then false; otherwise, for the vllm and sglang framers,
	// Success is true and the request function decides.
	Transport string
	// EndNs is when the body ended: end_ns, else the last chunk's time, else
	// t0.
	EndNs int64
	// SSE is, for the aisbench framer, the Outcome the sse framer gives the
	// same request, known without running it because the body holds none
	// of the constructs the two framers cut differently (agree.go); nil
	// otherwise: replay the request with SSE then.
	SSE *Outcome
}

// Options select how Replay works.
type Options struct {
	Framer Framer // AISBench when empty
	// MaxEventBytes bounds the payload of one event (what follows "data:",
	// the data lines of an SSE event joined). A larger event ends Replay in
	// an error wrapping trace.ErrLimit, before it is parsed: parsing costs
	// memory in proportion to the payload, many times over. 0 means
	// DefaultMaxEventBytes; a negative value means no limit.
	MaxEventBytes int64
	// Messages, with the aisbench framer, fills Result.Messages and
	// Result.Transport (the other framers of Messages always do).
	Messages bool
	// SkipIDBlocks, with the aisbench framer, skips a block that starts
	// with "id:" the way AISBench's client skips a comment block: its open
	// pull request 481, not the released client.
	SkipIDBlocks bool
	// Memo, when set, classifies a payload it holds from memory and
	// remembers the others: share one between the replays of the same
	// request with both framers (and Reset it between requests).
	Memo *VerdictMemo
	// ShareTimePoints: the request's TimePointsS outlive the Result and
	// never change (a trace.MemoryReader's), so a request replayed from its
	// time points shares them instead of copying them.
	ShareTimePoints bool
}

// DefaultMaxEventBytes is the largest event payload Replay classifies unless
// told otherwise (trace.DefaultLimits.MaxEventBytes, --max-event-bytes).
var DefaultMaxEventBytes = trace.DefaultLimits.MaxEventBytes

// maxEventsPrealloc bounds the events Replay allocates room for up front.
const maxEventsPrealloc = 1 << 16

// Retries is AISBench's default retry count for API models: the number of
// attempts in all.
const Retries = 2

// Replayer replays requests, reusing its buffers and JSON parser between
// calls. The zero value is ready to use; a Replayer is not safe for
// concurrent use.
type Replayer struct {
	body      []byte // the chunks concatenated
	chunkEnds []int64
	spare     *Result // given back by Recycle: its memory is reused
	cls       classifier
	acct      accountant
	ais       aisFramer
	sse       sseFramer
	vllm      vllmFramer
	sglang    sglangFramer
	evalscope evalscopeFramer
	aiperf    aiperfFramer
	guidellm  guidellmFramer
	text      messageText
}

// Replay replays one request with a fresh Replayer.
func Replay(req *trace.Request, opt Options) (*Result, error) {
	var r Replayer
	return r.Replay(req, opt)
}

// Recycle gives res, a result of r.Replay, back to r: the next Replay on r
// writes its events and time points in res's memory, instead of taking new
// memory for each request. Neither res nor anything read from it (its
// Events, its TimePointsNs) may be used afterwards; TimePointsS, the token
// counts and SSE are never reused and may be kept.
func (r *Replayer) Recycle(res *Result) { r.spare = res }

// Replay frames, classifies and times every event of req. Bad streams are
// data in the Result; the error is only for internal accounting failures
// (bytes that do not add up), which are bugs.
func (r *Replayer) Replay(req *trace.Request, opt Options) (*Result, error) {
	framer := opt.Framer
	if framer == "" {
		framer = AISBench
	}
	if !slices.Contains(Framers, framer) {
		return nil, fmt.Errorf("replay: request %q: unknown framer %q (want %s)", req.RequestID, framer, framerList())
	}
	// A recycled result's events and time points are written over.
	var events []Event
	var timePoints []int64
	res := r.spare
	r.spare = nil
	if res != nil {
		events, timePoints = res.Events[:0], res.TimePointsNs[:0]
		*res = Result{}
	} else {
		res = new(Result)
	}
	res.RequestID, res.Framer = req.RequestID, framer
	r.cls.maxBytes, r.cls.over, r.cls.memo = opt.MaxEventBytes, 0, opt.Memo
	if r.cls.maxBytes == 0 {
		r.cls.maxBytes = DefaultMaxEventBytes
	}

	if req.TimePointsOnly() {
		replayTimePoints(req, res, opt.ShareTimePoints)
		return res, nil
	}

	r.body = r.body[:0]
	r.chunkEnds = r.chunkEnds[:0]
	for _, c := range req.Chunks {
		r.body = append(r.body, c.Data...)
		r.chunkEnds = append(r.chunkEnds, int64(len(r.body)))
	}
	in := input{
		req:        req,
		body:       r.body,
		chunkEnds:  r.chunkEnds,
		endNs:      endTime(req),
		timePoints: timePoints,
	}
	r.acct.reset(int64(len(r.body)))
	// Events mostly end with a blank line: one allocation instead of growth,
	// up to a bound (a body of blank lines holds no events at all).
	if want := min(bytes.Count(r.body, lflf)+1, maxEventsPrealloc); cap(events) >= want {
		res.Events = events
	} else {
		res.Events = make([]Event, 0, want)
	}
	var tok tokens
	res.EndNs = in.endNs
	r.text.reset()
	switch framer {
	case AISBench:
		r.ais.messages, r.ais.skipID = opt.Messages, opt.SkipIDBlocks
		r.ais.text = &r.text
		r.ais.run(&in, &r.cls, &r.acct, res, &tok)
	case SSE:
		r.sse.run(&in, &r.cls, &r.acct, res, &tok)
	case VLLM:
		r.vllm.run(&in, &r.cls, &r.acct, res, &r.text)
		clientTimePoints(req, res)
	case SGLang:
		r.sglang.run(&in, &r.cls, &r.acct, res, &r.text)
		clientTimePoints(req, res)
	case EvalScope:
		r.evalscope.run(&in, &r.cls, &r.acct, res, &r.text)
		clientTimePoints(req, res)
	case AIPerf:
		r.aiperf.run(&in, &r.cls, &r.acct, res, &r.text)
		clientTimePoints(req, res)
	case GenAIPerf:
		genaiperfFramer{}.run(&in, &r.acct, res, &r.text)
		clientTimePoints(req, res)
	case GuideLLM:
		r.guidellm.run(&in, &r.cls, &r.acct, res, &r.text)
		clientTimePoints(req, res)
	}
	r.text.finish(res)
	if r.cls.over > 0 {
		return nil, fmt.Errorf("replay: request %q: an event of %d bytes, more than %d (limit --max-event-bytes): %w",
			req.RequestID, r.cls.over, r.cls.maxBytes, trace.ErrLimit)
	}
	if err := r.acct.finish(); err != nil {
		return nil, fmt.Errorf("replay: request %q (%s framer): %w", req.RequestID, framer, err)
	}
	res.Bytes = r.acct.counts
	for _, e := range res.Events {
		res.Counts[e.Class]++
	}
	res.TimePointsS = make([]float64, len(res.TimePointsNs))
	for i, ns := range res.TimePointsNs {
		res.TimePointsS[i] = float64(ns) / 1e9
	}
	tok.resolve(req, res)
	return res, nil
}

// input is one request's body prepared for a framer.
type input struct {
	req       *trace.Request
	body      []byte
	chunkEnds []int64 // end offset of every chunk in body
	endNs     int64   // when the body ended: leftovers are delivered then
	// timePoints is memory for the time points (length 0), reused from a
	// recycled result; nil for none.
	timePoints []int64
}

// endTime is when the body ended, as the oracle's FakeSession has it: end_ns
// when set (and not 0, Python's `or`), else the last chunk's time, else t0.
func endTime(req *trace.Request) int64 {
	if req.EndNs != nil && *req.EndNs != 0 {
		return *req.EndNs
	}
	if n := len(req.Chunks); n > 0 {
		return req.Chunks[n-1].TNs
	}
	return req.T0Ns
}

// chunkClock gives the time of the read that delivered a body offset; the
// offsets asked for never go back.
type chunkClock struct {
	in *input
	i  int
}

// at returns the t_ns of the chunk holding body offset off.
func (c *chunkClock) at(off int64) int64 {
	for c.i < len(c.in.chunkEnds) && c.in.chunkEnds[c.i] <= off {
		c.i++
	}
	if c.i >= len(c.in.chunkEnds) {
		return c.in.endNs
	}
	return c.in.req.Chunks[c.i].TNs
}

// replayTimePoints handles a trace made from recorded time points.
func replayTimePoints(req *trace.Request, res *Result, share bool) {
	if share && req.TimePointsS != nil {
		res.TimePointsS = slices.Clip(req.TimePointsS)
	} else {
		res.TimePointsS = append([]float64{}, req.TimePointsS...)
	}
	res.Success = true
	switch {
	case req.Error != nil:
		res.Success, res.ErrorInfo = false, *req.Error
	case req.HTTPStatus != nil && *req.HTTPStatus != 200:
		res.Success, res.ErrorInfo = false, statusReason(*req.HTTPStatus)
	case len(req.TimePointsS) <= 1:
		res.Success, res.ErrorInfo = false, errChunkSize
	}
	var tok tokens
	tok.resolve(req, res)
}

// errChunkSize is what RequestOutput.get_metrics writes when a successful
// request has one time point or none.
const errChunkSize = "chunk size is less than 2"

// tokens tracks AISBench's output.input_tokens / output_tokens: every truthy
// usage overwrites both.
type tokens struct {
	seen          bool
	input, output int64
}

func (t *tokens) apply(u *Usage) {
	t.seen = true
	t.input, t.output = u.PromptTokens, u.CompletionTokens
}

// resolve fills the token counts of res: AISBench's value when non-zero (its
// summarizer treats 0 as missing), else the trace's column, else unknown.
func (t *tokens) resolve(req *trace.Request, res *Result) {
	var fromUsage, fromTrace int
	pick := func(usage int64, column *int64) *int64 {
		if t.seen && usage != 0 {
			fromUsage++
			v := usage
			return &v
		}
		if column != nil {
			fromTrace++
			v := *column
			return &v
		}
		return nil
	}
	res.InputTokens = pick(t.input, req.InputTokens)
	res.OutputTokens = pick(t.output, req.OutputTokens)
	switch {
	case fromUsage > 0 && fromTrace > 0:
		res.TokenSource = "mixed"
	case fromUsage > 0:
		res.TokenSource = "usage"
	case fromTrace > 0:
		res.TokenSource = "trace"
	default:
		res.TokenSource = "unknown"
	}
}

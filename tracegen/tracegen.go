// Package tracegen makes synthetic traces whose truth is known: every event,
// its class, the read that carries it and the time it arrives are decided
// here, from a seed, before any client or server sees them.
//
// Generate builds one request at a time and hands it to a writer, so a trace
// of any size (gigabytes, for benchmarks) never sits in memory whole. The
// same Options give the same requests, byte for byte.
//
// Time model: a closed loop of Concurrency clients, as AISBench drives a
// server. Each client sends its next request as soon as its previous one
// ended (plus a small client overhead); requests are numbered, and written,
// in the order they are sent. Within a request the first read arrives after
// a time to first token drawn around Options.TTFT, then one read an
// inter-token gap drawn around Options.ITL, never less than Options.MinGap.
package tracegen

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sseaudit/sseaudit/trace"
)

// Profile is one kind of stream Generate can make.
type Profile struct {
	Name        string
	Description string
}

var profiles = []Profile{
	{"chat", "plain chat completions: role-only first event, one token an event, finish event, usage-only tail, [DONE]"},
	{"reasoning", "delta.reasoning_content events first, then delta.content"},
	{"speculative", "speculative decoding: 1-4 tokens an event, usage on every event (continuous usage stats)"},
	{"network", "network habits: several events in one read, one event split over two reads, ': keep-alive' comments"},
	{"crlf", "every line ends in CRLF, events end in CRLF CRLF"},
	{"cr", "CR-only framing (AISBench's client sees nothing until the body ends)"},
	{"failures", "a quarter HTTP 500 with a JSON error body, a quarter cut mid-stream (error, no [DONE]), an eighth with no response at all"},
	{"aisbench-breakers", "framings that break AISBench's client: a comment line inside a block, an 'event:' line, data over two 'data:' lines"},
	{"mixed", "each request drawn from every other profile"},
}

// Profiles lists the profiles, in a fixed order.
func Profiles() []Profile { return append([]Profile(nil), profiles...) }

// Options say what to generate. Zero durations and counts take the defaults
// noted.
type Options struct {
	Profile     string
	Requests    int
	Concurrency int
	Seed        uint64
	// API is "chat" (chat.completion.chunk, delta.content; default) or
	// "completions" (text_completion, choices[].text).
	API          string
	OutputTokens int           // mean completion tokens a request (64)
	InputTokens  int           // prompt words a request, reported as prompt_tokens (128)
	TTFT         time.Duration // mean time to first read (120ms)
	ITL          time.Duration // mean gap between reads (20ms)
	// MinGap is the smallest gap between two reads of a request (1ms), so
	// that a server replaying the trace can keep its read boundaries.
	MinGap time.Duration
	// StartNs is the first request's t0_ns (1e9 when 0).
	StartNs int64
}

func (o *Options) defaults() error {
	if o.Profile == "" {
		o.Profile = "chat"
	}
	if profileIndex(o.Profile) < 0 {
		var names []string
		for _, p := range profiles {
			names = append(names, p.Name)
		}
		return fmt.Errorf("unknown profile %q: want one of %s", o.Profile, strings.Join(names, ", "))
	}
	if o.API == "" {
		o.API = "chat"
	}
	if o.API != "chat" && o.API != "completions" {
		return fmt.Errorf("unknown api %q: want chat or completions", o.API)
	}
	if o.Requests < 0 {
		return fmt.Errorf("requests %d: want 0 or more", o.Requests)
	}
	if o.Concurrency == 0 {
		o.Concurrency = 1
	}
	if o.Concurrency < 0 {
		return fmt.Errorf("concurrency %d: want 1 or more", o.Concurrency)
	}
	if o.OutputTokens == 0 {
		o.OutputTokens = 64
	}
	if o.InputTokens == 0 {
		o.InputTokens = 128
	}
	if o.OutputTokens < 1 || o.InputTokens < 1 {
		return fmt.Errorf("output tokens %d, input tokens %d: want 1 or more", o.OutputTokens, o.InputTokens)
	}
	if o.TTFT == 0 {
		o.TTFT = 120 * time.Millisecond
	}
	if o.ITL == 0 {
		o.ITL = 20 * time.Millisecond
	}
	if o.MinGap == 0 {
		o.MinGap = time.Millisecond
	}
	if o.TTFT < 0 || o.ITL < 0 || o.MinGap < 0 {
		return fmt.Errorf("ttft %v, itl %v, min gap %v: want positive durations", o.TTFT, o.ITL, o.MinGap)
	}
	if o.StartNs == 0 {
		o.StartNs = 1e9
	}
	return nil
}

func profileIndex(name string) int {
	for i, p := range profiles {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// ExtraPrompt is the extra column that holds each request's prompt (what
// `audit serve --match` matches on).
const ExtraPrompt = "prompt"

// Extra is the extra columns a generated trace has.
func Extra() []trace.ExtraColumn {
	return []trace.ExtraColumn{{Name: ExtraPrompt, Kind: trace.ExtraString}}
}

// Meta is the run metadata of a generated trace.
func Meta(o Options) (trace.Meta, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	var m trace.Meta
	m.Set(trace.KeySource, "audit gen")
	m.Set(trace.KeyMaxConcurrency, strconv.Itoa(o.Concurrency))
	m.Set(trace.KeyRunPrefix+"profile", o.Profile)
	m.Set(trace.KeyRunPrefix+"seed", strconv.FormatUint(o.Seed, 10))
	m.Set(trace.KeyRunPrefix+"requests", strconv.Itoa(o.Requests))
	m.Set(trace.KeyRunPrefix+"api", o.API)
	m.Set(trace.KeyRunPrefix+"output_tokens", strconv.Itoa(o.OutputTokens))
	m.Set(trace.KeyRunPrefix+"input_tokens", strconv.Itoa(o.InputTokens))
	m.Set(trace.KeyRunPrefix+"ttft_ns", strconv.FormatInt(int64(o.TTFT), 10))
	m.Set(trace.KeyRunPrefix+"itl_ns", strconv.FormatInt(int64(o.ITL), 10))
	m.Set(trace.KeyRunPrefix+"min_gap_ns", strconv.FormatInt(int64(o.MinGap), 10))
	return m, nil
}

// Writer takes the generated requests; *trace.Writer is one.
type Writer interface {
	Write(*trace.Request) error
}

// Stats sum up what Generate wrote.
type Stats struct {
	Requests  int
	Failed    int
	Chunks    int64
	BodyBytes int64
}

// Generate writes o.Requests requests to w, in the order they are sent.
// The *trace.Request handed to w is reused: w must not keep it.
func Generate(o Options, w Writer) (Stats, error) {
	var st Stats
	if err := o.defaults(); err != nil {
		return st, err
	}
	g := &gen{o: o, rng: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))}
	slots := make(slotHeap, o.Concurrency)
	for i := range slots {
		slots[i] = o.StartNs
	}
	heap.Init(&slots)
	var req trace.Request
	var last int64
	for i := 0; i < o.Requests; i++ {
		// Client overhead 50-500µs; requests leave one after another.
		t0 := max(slots[0], last) + g.between(50_000, 500_000)
		last = t0
		g.request(i, t0, &req)
		end := t0
		if req.EndNs != nil {
			end = *req.EndNs
		}
		slots[0] = end
		heap.Fix(&slots, 0)
		if err := w.Write(&req); err != nil {
			return st, err
		}
		st.Requests++
		if req.Failed() {
			st.Failed++
		}
		st.Chunks += int64(len(req.Chunks))
		st.BodyBytes += req.BodyBytes()
	}
	return st, nil
}

// slotHeap holds the time each client is free again, earliest first.
type slotHeap []int64

func (h slotHeap) Len() int           { return len(h) }
func (h slotHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h slotHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *slotHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *slotHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type gen struct {
	o   Options
	rng *rand.Rand
}

// between draws an int64 in [lo, hi).
func (g *gen) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + g.rng.Int64N(hi-lo)
}

// around draws a duration in [d/2, 3d/2), at least the minimum gap.
func (g *gen) around(d time.Duration) int64 {
	v := g.between(int64(d)/2, int64(d)*3/2+1)
	return max(v, int64(g.o.MinGap))
}

var vocab = strings.Fields(`the of and to in is that it for on with as was at by an be this
which from or had not are but have were they one all their there been has when who will more
no if out so said what up its about into than them can only other new some could time these two
may then do first any my now such like our over man me even most made after also did many before
must through back years where much your way well down should because each just those people how
too little state good very make world still own see men work long get here between both life
being under never day same another know while last might us great old year off come since against
go came right used take three`)

// token is one generated token's text (a word with a leading space, now
// and then with characters that need escaping in JSON).
func (g *gen) token() string {
	w := vocab[g.rng.IntN(len(vocab))]
	switch g.rng.IntN(32) {
	case 0:
		return w + "\n"
	case 1:
		return " \"" + w + "\""
	case 2:
		return " " + w + "é"
	}
	return " " + w
}

// Prompt is the prompt of request i of a run with the given seed and
// length; capture tests send it so that serve --match finds the stream.
func Prompt(seed uint64, i, words int) string {
	r := rand.New(rand.NewPCG(seed^uint64(i)*0x2545f4914f6cdd1d, uint64(i)))
	var b strings.Builder
	fmt.Fprintf(&b, "[%d]", i)
	for range words {
		b.WriteByte(' ')
		b.WriteString(vocab[r.IntN(len(vocab))])
	}
	return b.String()
}

// event is one SSE event of the body before it is cut into reads.
type event struct {
	text []byte // the whole event, terminator included
	gap  int64  // ns after the previous read (or t0 for the first)
	// how it is delivered: joinNext puts the next event in the same read;
	// splitAt > 0 cuts this event in two reads at that byte.
	joinNext bool
	splitAt  int
}

type streamKind int

const (
	kindChat streamKind = iota
	kindReasoning
	kindSpeculative
	kindNetwork
	kindCRLF
	kindCR
	kindFailures
	kindBreakers
)

func (g *gen) request(i int, t0 int64, req *trace.Request) {
	*req = trace.Request{
		RequestID: fmt.Sprintf("gen-%06d", i),
		T0Ns:      t0,
		Extra:     []trace.Value{{Str: Prompt(g.o.Seed, i, g.o.InputTokens)}},
	}
	kind := streamKind(profileIndex(g.o.Profile))
	if g.o.Profile == "mixed" {
		kind = streamKind(g.rng.IntN(int(kindBreakers) + 1))
	}
	n := max(1, int(g.between(int64(g.o.OutputTokens)/2, int64(g.o.OutputTokens)*3/2+1)))
	status := int32(200)
	var failure string
	cutAt := -1
	if kind == kindFailures {
		switch r := g.rng.IntN(8); {
		case r < 2:
			g.error500(req, t0)
			return
		case r < 4:
			failure = "cut"
		case r < 5:
			e := "dial tcp 127.0.0.1:8000: connect: connection refused"
			end := t0 + g.between(100_000, 2_000_000)
			req.Error, req.EndNs = &e, &end
			return
		}
	}
	evs := g.events(i, kind, n)
	if failure == "cut" {
		// Cut somewhere after the first event, inside an event.
		total := 0
		for _, e := range evs {
			total += len(e.text)
		}
		first := len(evs[0].text)
		cutAt = first + int(g.between(1, int64(max(2, total-first-len("data: [DONE]\n\n")))))
	}
	req.HTTPStatus = &status
	req.Chunks = g.reads(t0, evs, cutAt)
	end := t0
	if len(req.Chunks) > 0 {
		end = req.Chunks[len(req.Chunks)-1].TNs
	}
	if cutAt >= 0 {
		e := "unexpected EOF"
		req.Error = &e
		end += g.between(0, 200_000)
	}
	req.EndNs = &end
}

func (g *gen) error500(req *trace.Request, t0 int64) {
	status := int32(500)
	t := t0 + g.around(g.o.TTFT/4)
	req.HTTPStatus = &status
	req.Chunks = []trace.Chunk{{TNs: t, Data: []byte(`{"object":"error","message":"Internal Server Error","type":"InternalServerError","code":500}`)}}
	req.EndNs = &t
}

// reads cuts the events into reads with their arrival times. A cutAt >= 0
// ends the body at that byte.
func (g *gen) reads(t0 int64, evs []event, cutAt int) []trace.Chunk {
	var chunks []trace.Chunk
	t := t0
	off := 0
	var cur []byte
	emit := func(b []byte) {
		if len(b) == 0 {
			return
		}
		if cutAt >= 0 && off >= cutAt {
			return
		}
		if cutAt >= 0 && off+len(b) > cutAt {
			b = b[:cutAt-off]
		}
		off += len(b)
		chunks = append(chunks, trace.Chunk{TNs: t, Data: append([]byte(nil), b...)})
	}
	for k, e := range evs {
		if len(cur) == 0 {
			t += e.gap
		}
		if e.splitAt > 0 && e.splitAt < len(e.text) {
			cur = append(cur, e.text[:e.splitAt]...)
			emit(cur)
			cur = cur[:0]
			t += g.around(g.o.MinGap * 2)
			cur = append(cur, e.text[e.splitAt:]...)
		} else {
			cur = append(cur, e.text...)
		}
		if e.joinNext && k+1 < len(evs) {
			continue
		}
		emit(cur)
		cur = cur[:0]
	}
	return chunks
}

// events builds the events of one stream of the given kind with n tokens.
func (g *gen) events(i int, kind streamKind, n int) []event {
	c := chunker{api: g.o.API, id: "cmpl-" + strconv.Itoa(i), created: 1700000000 + int64(i)}
	nl := "\n"
	switch kind {
	case kindCRLF:
		nl = "\r\n"
	case kindCR:
		nl = "\r"
	}
	var evs []event
	add := func(payload string) {
		evs = append(evs, event{text: []byte("data: " + payload + nl + nl), gap: g.around(g.o.ITL)})
	}
	var reasoning int
	if kind == kindReasoning {
		reasoning = max(1, n/3)
	}
	if c.api == "chat" {
		add(c.chunk(`{"role":"assistant","content":""}`, "", nil))
	}
	done := 0
	for done < n {
		k := 1
		if kind == kindSpeculative {
			k = min(n-done, 1+g.rng.IntN(4))
		}
		var text strings.Builder
		for range k {
			text.WriteString(g.token())
		}
		done += k
		var u *usage
		if kind == kindSpeculative {
			u = &usage{g.o.InputTokens, done}
		}
		if done <= reasoning {
			add(c.chunk(`{"reasoning_content":`+jstr(text.String())+`}`, "", u))
		} else {
			add(c.content(text.String(), u))
		}
	}
	finish := "stop"
	if g.rng.IntN(4) == 0 {
		finish = "length"
	}
	if c.api == "chat" {
		add(c.chunk(`{}`, finish, nil))
	} else {
		add(c.textChunk("", finish, nil))
	}
	add(c.usageOnly(usage{g.o.InputTokens, n}))
	add("[DONE]")
	evs[0].gap = g.around(g.o.TTFT)

	switch kind {
	case kindNetwork:
		var out []event
		for k := 0; k < len(evs); k++ {
			e := evs[k]
			switch g.rng.IntN(6) {
			case 0: // a keep-alive comment of its own before the event
				out = append(out, event{text: []byte(": keep-alive\n\n"), gap: e.gap})
				e.gap = g.around(g.o.MinGap * 2)
			case 1: // this and the next event in one read
				e.joinNext = true
			case 2: // split over two reads
				e.splitAt = 1 + g.rng.IntN(len(e.text)-1)
			}
			out = append(out, e)
		}
		evs = out
	case kindBreakers:
		k := g.rng.IntN(len(evs) - 1) // never the [DONE]
		e := &evs[k]
		payload := strings.TrimSuffix(strings.TrimPrefix(string(e.text), "data: "), "\n\n")
		switch g.rng.IntN(3) {
		case 0:
			e.text = []byte(": ping\ndata: " + payload + "\n\n")
		case 1:
			e.text = []byte("event: message\ndata: " + payload + "\n\n")
		case 2:
			cut := 1 + g.rng.IntN(len(payload)-1)
			e.text = []byte("data: " + payload[:cut] + "\ndata: " + payload[cut:] + "\n\n")
		}
	}
	return evs
}

type usage struct{ prompt, completion int }

func (u usage) json() string {
	return fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`, u.prompt, u.completion, u.prompt+u.completion)
}

// chunker writes the JSON of one stream's chunks.
type chunker struct {
	api     string
	id      string
	created int64
}

func (c chunker) head() string {
	obj := "chat.completion.chunk"
	if c.api == "completions" {
		obj = "text_completion"
	}
	return `{"id":"` + c.id + `","object":"` + obj + `","created":` + strconv.FormatInt(c.created, 10) + `,"model":"sseaudit-gen"`
}

func usageJSON(u *usage) string {
	if u == nil {
		return "null"
	}
	return u.json()
}

func (c chunker) chunk(delta, finish string, u *usage) string {
	f := "null"
	if finish != "" {
		f = jstr(finish)
	}
	return c.head() + `,"choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}],"usage":` + usageJSON(u) + `}`
}

func (c chunker) textChunk(text, finish string, u *usage) string {
	f := "null"
	if finish != "" {
		f = jstr(finish)
	}
	return c.head() + `,"choices":[{"index":0,"text":` + jstr(text) + `,"finish_reason":` + f + `}],"usage":` + usageJSON(u) + `}`
}

func (c chunker) content(text string, u *usage) string {
	if c.api == "completions" {
		return c.textChunk(text, "", u)
	}
	return c.chunk(`{"content":`+jstr(text)+`}`, "", u)
}

func (c chunker) usageOnly(u usage) string {
	return c.head() + `,"choices":[],"usage":` + u.json() + `}`
}

// jstr is s as a JSON string.
func jstr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ProfileNames lists the profile names, sorted.
func ProfileNames() []string {
	var names []string
	for _, p := range profiles {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}

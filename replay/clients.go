package replay

import (
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/sseaudit/sseaudit/trace"
)

// Other tools' clients cut the same body differently from AISBench's. Their
// framers (vllm.go, sglang.go, evalscope.go) hand on what the client's framing hands its
// request function, as Messages: the request function itself, which decides
// which messages are timed, counted or fail the request, belongs to the
// tool's calculator (calc/vllm, calc/sglang). The aisbench framer hands on
// the payloads its client parsed too when Options.Messages is set, so that
// a tool's request function can be run on AISBench's framing.

const (
	// VLLM frames the body as vllm bench serve's client does: each read
	// stripped, StreamedResponseHandler's buffer (vllm.go).
	VLLM Framer = "vllm"
	// SGLang frames the body as SGLang's bench_serving client does: aiohttp's
	// lines, each stripped (sglang.go).
	SGLang Framer = "sglang"
)

// Framers lists every framer, in a fixed order.
var Framers = []Framer{AISBench, SSE, VLLM, SGLang, EvalScope}

// Message is one piece of a body a client's framing hands its request
// function, at the time of the read that completed it.
type Message struct {
	TNs int64
	// Text is the message: for the vllm framer a message of
	// StreamedResponseHandler (stripped), for the sglang framer a non-blank
	// line (stripped, valid UTF-8), for the evalscope framer "data: " and the
	// block's data lines joined (stripped), for the aisbench framer the payload its
	// client parsed (after "data:", stripped) or "[DONE]". It belongs to the
	// Result.
	Text  []byte
	Event int // its event, in Result.Events
}

// messageText gathers the messages' text while a framer runs; finish gives
// the Result its own copy.
type messageText struct {
	buf  []byte
	offs []int
}

func (m *messageText) reset() { m.buf, m.offs = m.buf[:0], m.offs[:0] }

func (m *messageText) add(res *Result, t int64, text []byte, event int) {
	res.Messages = append(res.Messages, Message{TNs: t, Event: event})
	m.offs = append(m.offs, len(m.buf))
	m.buf = append(m.buf, text...)
}

func (m *messageText) finish(res *Result) {
	if len(res.Messages) == 0 {
		return
	}
	own := append([]byte(nil), m.buf...)
	for i := range res.Messages {
		end := len(own)
		if i+1 < len(m.offs) {
			end = m.offs[i+1]
		}
		res.Messages[i].Text = own[m.offs[i]:end:end]
	}
}

// transportFailure is why a client gets no body to read, "" when it gets
// one: no response at all, or a status other than 200 (whose body the
// request functions do not parse).
func transportFailure(req *trace.Request) string {
	switch {
	case req.HTTPStatus == nil:
		if req.Error != nil && *req.Error != "" {
			return *req.Error
		}
		return "no response"
	case *req.HTTPStatus != 200:
		return "HTTP " + strconv.Itoa(int(*req.HTTPStatus)) + " " + statusReason(*req.HTTPStatus)
	}
	return ""
}

// JSONParser parses a payload as Python's json.loads accepts it (valid
// UTF-8, NaN and Infinity allowed, the last of duplicate keys winning): the
// replay's own rule, for the tools' request functions. The value is valid
// until the next Parse.
type JSONParser struct{ c classifier }

// Parse reports whether json.loads accepts payload, and its value.
func (p *JSONParser) Parse(payload []byte) (*fastjson.Value, bool) { return p.c.parse(payload) }

// clientTimePoints sets, for a framer of Messages, the time points (t0,
// then every message's time) and the success flag (the body was read to
// its end).
func clientTimePoints(req *trace.Request, res *Result) {
	tp := append(res.TimePointsNs[:0], req.T0Ns)
	for _, m := range res.Messages {
		tp = append(tp, m.TNs)
	}
	res.TimePointsNs = tp
	res.Success, res.ErrorInfo = res.Transport == "", res.Transport
}

func framerList() string {
	names := make([]string, len(Framers))
	for i, f := range Framers {
		names[i] = strconv.Quote(string(f))
	}
	return strings.Join(names, ", ")
}

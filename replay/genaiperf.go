package replay

import "bytes"

// GenAIPerf frames the body as perf_analyzer's OpenAI client hands it to
// GenAI-Perf: every read is one response, its bytes as they came
// (genaiperf.go).
const GenAIPerf Framer = "genai-perf"

// doneSignal is what ChatCompletionClient::ResponseHandler looks for in a
// read to make its response the final one.
var doneSignal = []byte("data: [DONE]")

// genaiperfFramer is the framing of perf_analyzer's OpenAI client
// (src/client_backend/openai/openai_client.cc at
// triton-inference-server/perf_analyzer
// 263c5f6e0c7a6c15472a54409174981f67930cfe, ChatCompletionClient::
// ResponseHandler, the CURLOPT_WRITEFUNCTION callback, l. 115), replayed on
// a recorded body: each curl write (a recorded read, taken whole) appends
// to the request's buffer, which SendResponse moves into a response at
// once (l. 64): one response a non-empty read, timed then
// (InferContext::AsyncCallbackFuncImpl, src/infer_context.cc l. 319), its
// text the read's bytes. The first read holding "data: [DONE]" is the
// final response; the request is then done and later reads reach no
// response. Without one, the completion callback sends a final empty
// response (l. 181), which GenAI-Perf drops as empty: not handed on. A
// status other than 200 or a transport error stops perf_analyzer
// (cb_status_): the request's Transport.
//
// Each response is handed on as a Result.Message whose Text is the read's
// bytes, with Event -1: the messages are reads, not events. The bytes of
// the reads handed on are framing, the rest ignored.
type genaiperfFramer struct{}

func (genaiperfFramer) run(in *input, acct *accountant, res *Result, text *messageText) {
	req := in.req
	if res.Transport = transportFailure(req); res.Transport != "" {
		acct.upTo(BucketIgnored, int64(len(in.body)))
		return
	}
	if req.Error != nil {
		res.Transport = *req.Error // curl's error: perf_analyzer stops
		acct.upTo(BucketIgnored, int64(len(in.body)))
		return
	}
	for k, c := range req.Chunks {
		if len(c.Data) == 0 {
			continue
		}
		text.add(res, c.TNs, c.Data, -1)
		acct.upTo(BucketFraming, in.chunkEnds[k])
		if bytes.Contains(c.Data, doneSignal) {
			break
		}
	}
	acct.upTo(BucketIgnored, int64(len(in.body)))
}

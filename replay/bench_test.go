package replay

import (
	"fmt"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// benchRequest is a vLLM-like stream: role, n content events of about 250
// bytes one a read, finish, usage, [DONE].
func benchRequest(n int) *trace.Request {
	var chunks []string
	chunks = append(chunks, "data: "+pRole+"\n\n")
	for i := range n {
		chunks = append(chunks, fmt.Sprintf(`data: {"id":"chatcmpl-0123456789abcdef","object":"chat.completion.chunk","created":1700000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"role":"assistant","content":" token%d"},"logprobs":null,"finish_reason":null}]}`+"\n\n", i))
	}
	chunks = append(chunks, "data: "+pUsage+"\n\n", "data: [DONE]\n\n")
	return mkReq(chunks...)
}

func BenchmarkReplay(b *testing.B) {
	req := benchRequest(2000)
	for _, f := range []Framer{AISBench, SSE} {
		b.Run(string(f), func(b *testing.B) {
			var r Replayer
			b.SetBytes(req.BodyBytes())
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Replay(req, Options{Framer: f}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

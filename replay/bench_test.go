package replay

import (
	"fmt"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// benchTokens are the texts of benchRequest's content events: plain words,
// words with the escapes a tokenizer's newlines and quotes give, non-ASCII.
var benchTokens = []string{" the", " token", `had\n`, " über", ` \"quoted\"`, "\\tx", " 東京", "."}

// benchContent is a vLLM-like content payload carrying token i.
func benchContent(i int) string {
	return `{"id":"chatcmpl-0123456789abcdef","object":"chat.completion.chunk","created":1700000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":"` +
		benchTokens[i%len(benchTokens)] + fmt.Sprint(i) + `"},"logprobs":null,"finish_reason":null}]}`
}

// benchRequest is a vLLM-like stream: role, n content events one a read,
// finish, usage, [DONE].
func benchRequest(n int) *trace.Request {
	var chunks []string
	chunks = append(chunks, "data: "+pRole+"\n\n")
	for i := range n {
		chunks = append(chunks, "data: "+benchContent(i)+"\n\n")
	}
	chunks = append(chunks, "data: "+benchFinish+"\n\n", "data: "+pUsage+"\n\n", "data: [DONE]\n\n")
	return mkReq(chunks...)
}

const benchFinish = `{"id":"chatcmpl-0123456789abcdef","object":"chat.completion.chunk","created":1700000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`

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
	// What audit report does: both framers, one memo.
	b.Run("both-memo", func(b *testing.B) {
		var ais, sse Replayer
		var memo VerdictMemo
		b.SetBytes(req.BodyBytes())
		b.ReportAllocs()
		for b.Loop() {
			memo.Reset()
			if _, err := ais.Replay(req, Options{Framer: AISBench, Memo: &memo}); err != nil {
				b.Fatal(err)
			}
			if _, err := sse.Replay(req, Options{Framer: SSE, Memo: &memo}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkClassify classifies payloads of one kind in turn, without a memo.
func BenchmarkClassify(b *testing.B) {
	var contents []string
	for i := range 64 {
		contents = append(contents, benchContent(i))
	}
	for _, kind := range []struct {
		name     string
		payloads []string
	}{
		{"content", contents},
		{"role", []string{pRole}},
		{"usage-only", []string{pUsage}},
		{"finish", []string{benchFinish}},
		{"malformed", []string{benchContent(1)[:150]}},
	} {
		b.Run(kind.name, func(b *testing.B) {
			var payloads [][]byte
			var size int64
			for _, p := range kind.payloads {
				payloads = append(payloads, []byte(p))
				size += int64(len(p))
			}
			b.SetBytes(size / int64(len(payloads)))
			b.ReportAllocs()
			var c classifier
			i := 0
			for b.Loop() {
				c.classify(payloads[i%len(payloads)])
				i++
			}
		})
	}
}

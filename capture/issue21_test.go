package capture_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/trace"
)

const sseBody = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n"

// encoders write a body in each Content-Encoding capture decodes.
var encoders = map[string]func(w io.Writer) io.WriteCloser{
	"gzip":    func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) },
	"deflate": func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) },
	"br":      func(w io.Writer) io.WriteCloser { return brotli.NewWriter(w) },
	"zstd": func(w io.Writer) io.WriteCloser {
		z, _ := zstd.NewWriter(w)
		return z
	},
}

// TestIssue21EncodedAnswers: a server that encodes its answer though the
// client asked for none had its bytes stored raw (every event later
// malformed, no warning). The body is stored as a decoding client reads it,
// with a warning; an encoding capture does not know is stored as sent and
// the request marked failed.
func TestIssue21EncodedAnswers(t *testing.T) {
	for enc, newEncoder := range encoders {
		t.Run(enc, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				w.Header().Set("Content-Encoding", enc)
				e := newEncoder(w)
				io.WriteString(e, sseBody)
				e.Close()
			}))
			defer ts.Close()
			var warnings []string
			var got collect
			sum, err := capture.Run(context.Background(), capture.Options{URL: ts.URL, Requests: 2, Concurrency: 1,
				Warnf: func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }}, &got)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range got.reqs {
				if r.Failed() || string(joined(r)) != sseBody {
					t.Errorf("%s: failed %v (%v), body %q: want the decoded stream", r.RequestID, r.Failed(), r.Error, joined(r))
				}
			}
			if sum.Encoded[enc] != 2 || len(warnings) != 1 || !strings.Contains(warnings[0], "Content-Encoding: "+enc) || !strings.Contains(warnings[0], "decoded") {
				t.Errorf("summary %v, warnings %q", sum.Encoded, warnings)
			}
		})
	}
	t.Run("unknown", func(t *testing.T) {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", "compress")
			io.WriteString(w, "\x1f\x9d raw bytes")
		}))
		defer ts.Close()
		var got collect
		sum, err := capture.Run(context.Background(), capture.Options{URL: ts.URL, Requests: 1, Concurrency: 1}, &got)
		if err != nil {
			t.Fatal(err)
		}
		r := got.reqs[0]
		if !r.Failed() || r.Error == nil || !strings.Contains(*r.Error, `Content-Encoding "compress"`) || string(joined(r)) != "\x1f\x9d raw bytes" || sum.Encoded["compress"] != 1 {
			t.Errorf("error %v, body %q, summary %v: want the bytes as sent and the request failed", r.Error, joined(r), sum.Encoded)
		}
	})
}

// TestIssue21BodyLimit: a body without end (1 GB without a newline killed
// the capture) is cut at MaxBodyBytes, the request marked failed.
func TestIssue21BodyLimit(t *testing.T) {
	var served atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		block := bytes.Repeat([]byte("x"), 32<<10)
		for range 256 { // 8 MiB
			n, err := w.Write(block)
			served.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer ts.Close()
	var got collect
	var warnings []string
	sum, err := capture.Run(context.Background(), capture.Options{URL: ts.URL, Requests: 1, Concurrency: 1, MaxBodyBytes: 1 << 20,
		Warnf: func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }}, &got)
	if err != nil {
		t.Fatal(err)
	}
	r := got.reqs[0]
	n := len(joined(r))
	if !r.Failed() || r.Error == nil || !strings.Contains(*r.Error, "the body passed 1048576 bytes (limit --max-body-bytes)") || n <= 1<<20 || n > 1<<20+64<<10 {
		t.Errorf("error %v, %d body bytes: want the body cut just past 1 MiB", r.Error, n)
	}
	if sum.CutBodies != 1 || len(warnings) != 1 {
		t.Errorf("cut bodies %d, warnings %q", sum.CutBodies, warnings)
	}
}

// rawServer answers every connection with the bytes of answer, then
// closes it.
func rawServer(t *testing.T, answer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				io.WriteString(c, answer)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestIssue21ErrorNotUTF8: an error answer in Latin-1, or cut inside a
// UTF-8 character, or with a Latin-1 status line, made a file nothing can
// read ("4 written", the whole capture lost). The error column holds valid
// UTF-8 (the bytes that are not as \xNN); the chunks hold the bytes.
func TestIssue21ErrorNotUTF8(t *testing.T) {
	cut := strings.Repeat("a", 2047) + "é" // the error column keeps 2048 bytes
	for name, tc := range map[string]struct{ status, body, want string }{
		"latin-1 body":   {"500 Internal Server Error", "erreur: caf\xe9", `erreur: caf\xe9`},
		"cut character":  {"500 Internal Server Error", cut, strings.Repeat("a", 2047) + `\xc3`},
		"latin-1 status": {"500 Erreur du serveur (r\xe9essayez)", "{}", `Erreur du serveur (r\xe9essayez)`},
	} {
		t.Run(name, func(t *testing.T) {
			url := rawServer(t, fmt.Sprintf("HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", tc.status, len(tc.body), tc.body))
			out := filepath.Join(t.TempDir(), "cap.arrows")
			f, err := capture.CreateFile(out, trace.WriteOptions{Extra: capture.Extra()}, 2)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := capture.Run(context.Background(), capture.Options{URL: url, Requests: 4, Concurrency: 2}, f)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			reqs, err := readAll(out)
			if err != nil || len(reqs) != 4 || sum.Written != 4 || f.Requests() != 4 {
				t.Fatalf("the capture reads back %d requests (%v); %d written, %d on disk: want 4", len(reqs), err, sum.Written, f.Requests())
			}
			for _, r := range reqs {
				if r.Error == nil || !utf8.ValidString(*r.Error) || !strings.Contains(*r.Error, tc.want) || string(joined(r)) != tc.body {
					t.Errorf("%s: error %q, body %q: want %q in the error, the bytes in the body", r.RequestID, *r.Error, joined(r), tc.want)
				}
			}
		})
	}
}

// TestIssue21Redirect: a redirect to another host was followed with the
// request's headers (an api-key among them), and the trace showed the
// other host's 200 under the URL asked. No redirect is followed: it is the
// answer recorded, with where it pointed (without user, password or query).
func TestIssue21Redirect(t *testing.T) {
	var leaked atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseBody)
	}))
	defer other.Close()
	target := strings.Replace(other.URL, "http://", "http://user:pass@", 1) + "/v1/chat/completions?api-key=secret"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	}))
	defer ts.Close()
	var got collect
	var warnings []string
	sum, err := capture.Run(context.Background(), capture.Options{URL: ts.URL, Requests: 2, Concurrency: 1,
		Headers: http.Header{"Api-Key": {"secret-key"}},
		Warnf:   func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }}, &got)
	if err != nil {
		t.Fatal(err)
	}
	if leaked.Load() != 0 {
		t.Fatalf("the redirect was followed %d times", leaked.Load())
	}
	want := other.URL + "/v1/chat/completions"
	for _, r := range got.reqs {
		if r.HTTPStatus == nil || *r.HTTPStatus != 307 || r.Error == nil || !strings.Contains(*r.Error, "a redirect to "+want+", not followed") {
			t.Errorf("%s: status %v, error %v: want the 307 recorded, pointing to %s", r.RequestID, r.HTTPStatus, r.Error, want)
		}
		if strings.Contains(*r.Error, "secret") || strings.Contains(*r.Error, "pass") {
			t.Errorf("%s: the error column holds a credential: %s", r.RequestID, *r.Error)
		}
	}
	if sum.Redirects != 2 || len(warnings) != 1 || !strings.Contains(warnings[0], "not followed") {
		t.Errorf("redirects %d, warnings %q", sum.Redirects, warnings)
	}
	meta, err := capture.Meta(capture.Options{URL: "http://u:p@host:1/v1?api-key=k", Requests: 1, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := meta.Get(trace.KeyRunPrefix + "url"); u != "http://host:1/v1/chat/completions" {
		t.Errorf("run url %q: want no user, password or query", u)
	}
}

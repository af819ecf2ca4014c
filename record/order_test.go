package record

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/tracegen"
)

// genTrace writes a chat trace of n requests (JSON Lines) into dir.
func genTrace(t *testing.T, dir string, n int) string {
	t.Helper()
	o := tracegen.Options{Profile: "chat", Requests: n, Concurrency: 8, Seed: 3, OutputTokens: 8}
	meta, err := tracegen.Meta(o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "t.jsonl")
	w, err := trace.Create(path, "", io.Discard, trace.WriteOptions{Meta: meta, Extra: tracegen.Extra()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tracegen.Generate(o, w); err != nil {
		w.Abort()
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMapOrdered: results come back in trace order whatever the number of
// workers, each request intact after later Scans, and the first error in
// trace order, from work or fn, is the one returned, with nothing after it
// handed on; from a file and from a memory reader (whose requests go to the
// workers in batches: errors at a batch's first, inner and last request).
func TestMapOrdered(t *testing.T) {
	path := genTrace(t, t.TempDir(), 300)
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var held []trace.Request  // deep copies, for the memory reader
	index := map[string]int{} // request ID → position
	for r.Scan() {
		q := r.Request()
		var c requestCopy
		c.copyFrom(q)
		held = append(held, c.req)
		if _, dup := index[q.RequestID]; dup {
			t.Fatalf("request ID %q twice", q.RequestID)
		}
		index[q.RequestID] = len(want)
		want = append(want, fmt.Sprintf("%s/%d/%d", q.RequestID, len(q.Chunks), q.BodyBytes()))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if len(want) != 300 {
		t.Fatalf("%d requests, want 300", len(want))
	}
	errAt, errFn := errors.New("work failed"), errors.New("fn failed")
	for _, procs := range []int{1, 2, 4} {
		for _, failAt := range []int{-1, 0, 63, 64, 137, 299} {
			for _, kind := range []string{"file", "memory", "fn/file", "fn/memory"} {
				t.Run(fmt.Sprintf("procs%d/fail%d/%s", procs, failAt, kind), func(t *testing.T) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					var r trace.Reader = &memReader{reqs: held}
					if strings.HasSuffix(kind, "file") {
						f, err := trace.Open(path, trace.OpenOptions{})
						if err != nil {
							t.Fatal(err)
						}
						defer f.Close()
						r = f
					}
					inFn, wantErr := strings.HasPrefix(kind, "fn/"), errAt
					if inFn {
						wantErr = errFn
					}
					newWork := func() func(*trace.Request) (string, error) {
						return func(q *trace.Request) (string, error) {
							if index[q.RequestID] == failAt && !inFn {
								return "", errAt
							}
							return fmt.Sprintf("%s/%d/%d", q.RequestID, len(q.Chunks), q.BodyBytes()), nil
						}
					}
					var got []string
					err := mapOrdered(r, newWork, func(s string) error {
						if inFn && len(got) == failAt {
							return errFn
						}
						got = append(got, s)
						return nil
					})
					n := len(want)
					if failAt >= 0 {
						n = failAt
						if !errors.Is(err, wantErr) {
							t.Fatalf("err = %v, want %v", err, wantErr)
						}
					} else if err != nil {
						t.Fatal(err)
					}
					if len(got) != n {
						t.Fatalf("%d results, want %d", len(got), n)
					}
					for k := range got {
						if got[k] != want[k] {
							t.Fatalf("result %d = %s, want %s", k, got[k], want[k])
						}
					}
				})
			}
		}
	}
}

// A requestCopy reused for a second request is a deep copy of it, with nil
// and empty slices and pointers kept apart as in the request, and shares no
// memory with it.
func TestRequestCopyReused(t *testing.T) {
	end, status, in := int64(9), int32(200), int64(3)
	msg := "boom"
	first := trace.Request{RequestID: "a", T0Ns: 1, EndNs: &end, HTTPStatus: &status, Error: &msg, InputTokens: &in,
		Chunks:      []trace.Chunk{{TNs: 2, Data: []byte("data: one\n\n")}, {TNs: 3, Data: []byte("data: two, longer\n\n")}},
		TimePointsS: []float64{1, 2},
		Extra:       []trace.Value{{Bytes: []byte("xyz")}, {Str: "s"}, {Bytes: []byte{}}}}
	second := trace.Request{RequestID: "b", T0Ns: 4, Chunks: []trace.Chunk{{TNs: 5, Data: []byte{}}, {TNs: 6, Data: []byte("x")}},
		TimePointsS: []float64{}, Extra: []trace.Value{{Bytes: []byte("q")}, {}}}
	var c requestCopy
	for _, src := range []trace.Request{first, second, first} {
		c.copyFrom(&src)
		got := c.req
		if fmt.Sprintf("%#v", deref(got)) != fmt.Sprintf("%#v", deref(src)) {
			t.Fatalf("copy\n%#v\nwant\n%#v", deref(got), deref(src))
		}
		for i, ch := range got.Chunks {
			if ch.Data == nil || (len(ch.Data) > 0 && &ch.Data[0] == &src.Chunks[i].Data[0]) {
				t.Fatalf("chunk %d: nil or shared with the request", i)
			}
		}
		for i, v := range got.Extra {
			if (v.Bytes == nil) != (src.Extra[i].Bytes == nil) || (len(v.Bytes) > 0 && &v.Bytes[0] == &src.Extra[i].Bytes[0]) {
				t.Fatalf("extra %d: nil-ness changed or bytes shared with the request", i)
			}
		}
		if (got.TimePointsS == nil) != (src.TimePointsS == nil) {
			t.Fatalf("time points nil %v, want %v", got.TimePointsS == nil, src.TimePointsS == nil)
		}
		if src.EndNs != nil && got.EndNs == src.EndNs {
			t.Fatal("end_ns shared with the request")
		}
	}
}

// deref is a request with its pointers replaced by what they point to, for
// comparing copies.
func deref(r trace.Request) []any {
	val := func(p any) any {
		switch p := p.(type) {
		case *int64:
			if p != nil {
				return *p
			}
		case *int32:
			if p != nil {
				return *p
			}
		case *string:
			if p != nil {
				return *p
			}
		}
		return nil
	}
	return []any{r.RequestID, r.T0Ns, val(r.EndNs), val(r.HTTPStatus), val(r.Error), val(r.InputTokens), val(r.OutputTokens),
		r.Chunks, r.TimePointsS, r.Extra}
}

// memReader holds its requests: a trace.MemoryReader.
type memReader struct {
	reqs []trace.Request
	i    int
}

func (m *memReader) Scan() bool              { m.i++; return m.i <= len(m.reqs) }
func (m *memReader) Request() *trace.Request { return &m.reqs[m.i-1] }
func (m *memReader) Err() error              { return nil }
func (m *memReader) Info() trace.Info        { return trace.Info{Path: "mem"} }
func (m *memReader) Close() error            { return nil }
func (m *memReader) Len() int                { return len(m.reqs) }
func (m *memReader) InMemory()               {}

// copyReader hands out each request in one reused buffer, as file readers
// do; it is not a MemoryReader.
type copyReader struct {
	m   *memReader
	buf trace.Request
	tp  []float64
}

func (c *copyReader) Scan() bool       { return c.m.Scan() }
func (c *copyReader) Err() error       { return nil }
func (c *copyReader) Info() trace.Info { return c.m.Info() }
func (c *copyReader) Close() error     { return nil }
func (c *copyReader) Request() *trace.Request {
	c.buf = *c.m.Request()
	c.tp = append(c.tp[:0], c.buf.TimePointsS...)
	c.buf.TimePointsS = c.tp
	return &c.buf
}

// TestMemoryReaderShares: the records of a MemoryReader's time-point
// requests share its arrays (no copy), are the records a reader that
// reuses its buffer gives, and do not change when an append to one of them
// follows.
func TestMemoryReaderShares(t *testing.T) {
	var reqs []trace.Request
	for i := range 500 {
		tp := make([]float64, 2+i%7, 16)
		for j := range tp {
			tp[j] = float64(i) + float64(j)/8
		}
		reqs = append(reqs, trace.Request{RequestID: fmt.Sprint(i), T0Ns: int64(i) * 1e9, TimePointsS: tp})
	}
	for _, procs := range []int{1, 2, 8} {
		t.Run(fmt.Sprint(procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			shared, err := Records(&memReader{reqs: reqs}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			copied, err := Records(&copyReader{m: &memReader{reqs: reqs}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(shared) != len(reqs) || len(copied) != len(reqs) {
				t.Fatalf("%d and %d records of %d", len(shared), len(copied), len(reqs))
			}
			for i := range reqs {
				s, c := shared[i].TimePoints, copied[i].TimePoints
				if &s[0] != &reqs[i].TimePointsS[0] {
					t.Fatalf("request %d: time points copied from a MemoryReader", i)
				}
				if &c[0] == &reqs[i].TimePointsS[0] {
					t.Fatalf("request %d: time points shared from a reader that reuses its buffer", i)
				}
				if fmt.Sprint(shared[i]) != fmt.Sprint(copied[i]) {
					t.Fatalf("request %d: %v shared, %v copied", i, shared[i], copied[i])
				}
				if cap(s) != len(s) {
					t.Fatalf("request %d: shared time points of capacity %d > length %d: an append would write into the reader's array", i, cap(s), len(s))
				}
			}
		})
	}
}

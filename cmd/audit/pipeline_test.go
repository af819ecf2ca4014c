package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
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
// trace order is the one returned, with nothing after it handed on.
func TestMapOrdered(t *testing.T) {
	path := genTrace(t, t.TempDir(), 300)
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	index := map[string]int{} // request ID → position
	for r.Scan() {
		q := r.Request()
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
	errAt := errors.New("request 137")
	for _, procs := range []int{1, 2, 4} {
		for _, failAt := range []int{-1, 0, 137} {
			t.Run(fmt.Sprintf("procs%d/fail%d", procs, failAt), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				r, err := trace.Open(path, trace.OpenOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				newWork := func() func(*trace.Request) (string, error) {
					return func(q *trace.Request) (string, error) {
						if index[q.RequestID] == failAt {
							return "", errAt
						}
						return fmt.Sprintf("%s/%d/%d", q.RequestID, len(q.Chunks), q.BodyBytes()), nil
					}
				}
				var got []string
				err = mapOrdered(r, newWork, func(s string) error {
					got = append(got, s)
					return nil
				})
				n := len(want)
				if failAt >= 0 {
					n = failAt
					if !errors.Is(err, errAt) {
						t.Fatalf("err = %v, want %v", err, errAt)
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

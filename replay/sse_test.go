package replay

import (
	"bytes"
	"testing"
)

// TestLineEnds: lineEnds finds what bytes.IndexAny finds, walking every
// body of up to 8 bytes of 'a', CR and LF the way the sse framer does (on
// from each line end, one byte or both of a CRLF).
func TestLineEnds(t *testing.T) {
	alphabet := []byte("a\r\n")
	for n := range 9 {
		total := 1
		for range n {
			total *= len(alphabet)
		}
		body := make([]byte, n)
		for code := range total {
			for i, c := 0, code; i < n; i, c = i+1, c/len(alphabet) {
				body[i] = alphabet[c%len(alphabet)]
			}
			for _, skipLF := range []bool{false, true} {
				ends := lineEnds{cr: -1, lf: -1}
				for pos := 0; pos < n; {
					want := bytes.IndexAny(body[pos:], "\r\n")
					if want >= 0 {
						want += pos
					}
					got := ends.next(body, pos)
					if got != want {
						t.Fatalf("%q from %d: %d, IndexAny %d", body, pos, got, want)
					}
					if got < 0 {
						break
					}
					pos = got + 1
					if skipLF && body[got] == '\r' && pos < n && body[pos] == '\n' {
						pos++
					}
				}
			}
		}
	}
}

// The event stream is decoded as UTF-8 with replacement: each maximal
// invalid subsequence becomes its own U+FFFD (WHATWG Encoding, as Python's
// errors="replace"), so "\xff\xfe" is two U+FFFD, six bytes of content.
func TestSSEInvalidUTF8ReplacedPerSubpart(t *testing.T) {
	res := mustReplay(t, mkReq("data: {\"choices\":[{\"delta\":{\"content\":\"\xff\xfe\"}}]}\n\n"), SSE)
	if e := res.Events[0]; e.Class != ClassContent || e.ContentBytes != 6 {
		t.Errorf("class %s, content bytes %d; want content, 6 (two U+FFFD)", e.Class, e.ContentBytes)
	}
	res = mustReplay(t, mkReq("data: {\"choices\":[{\"delta\":{\"content\":\"\xe2\x82\xff\"}}]}\n\n"), SSE)
	if e := res.Events[0]; e.ContentBytes != 6 {
		t.Errorf("content bytes %d; want 6 (U+FFFD for \\xe2\\x82, another for \\xff)", e.ContentBytes)
	}
}

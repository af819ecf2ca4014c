package serve

import (
	"errors"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// listReader hands out reqs, then failErr (if any) instead of the rest, and
// counts its Scans.
type listReader struct {
	reqs    []*trace.Request
	failAt  int // the index whose Scan fails; -1: none
	failErr error
	next    int
	scans   int
	err     error
}

func (l *listReader) Scan() bool {
	l.scans++
	if l.next == l.failAt {
		l.err = l.failErr
		return false
	}
	if l.next >= len(l.reqs) {
		return false
	}
	l.next++
	return true
}
func (l *listReader) Request() *trace.Request { return l.reqs[l.next-1] }
func (l *listReader) Err() error              { return l.err }
func (l *listReader) Info() trace.Info        { return trace.Info{Path: "list"} }
func (l *listReader) Close() error            { return nil }

func streams(n int) []*trace.Request {
	out := make([]*trace.Request, n)
	for i := range out {
		out[i] = &trace.Request{RequestID: string(rune('a' + i)), Chunks: []trace.Chunk{{TNs: 1, Data: make([]byte, 1000)}}}
	}
	return out
}

func exhausted(s *Server) bool {
	select {
	case <-s.Exhausted():
		return true
	default:
		return false
	}
}

// A trace that fits the read-ahead is read whole before the first request:
// no stream is decoded while others are written. One past it is read a
// stream as one is handed out, at least one ahead. Either way the streams
// come out in order, and the end is told as the last is handed out.
func TestReadAhead(t *testing.T) {
	for _, c := range []struct {
		name      string
		readAhead int64
		scansNew  int // after New
		scansEach int // more for each stream handed out before the last ones held
	}{
		{"fits", 0, 6, 0},
		{"one at a time", 1, 1, 1},
		{"three held", 3 * streamBytes(streams(1)[0]), 3, 1},
	} {
		l := &listReader{reqs: streams(5), failAt: -1}
		s, err := New(l, Options{ReadAhead: c.readAhead})
		if err != nil {
			t.Fatal(err)
		}
		if l.scans != c.scansNew {
			t.Errorf("%s: %d scans after New, want %d", c.name, l.scans, c.scansNew)
		}
		for i := range 5 {
			before := l.scans
			req, err := s.nextStream()
			if err != nil || req == nil || req.RequestID != string(rune('a'+i)) {
				t.Fatalf("%s: stream %d: %v, %v", c.name, i, req, err)
			}
			if i < 5-c.scansNew && l.scans-before != c.scansEach {
				t.Errorf("%s: stream %d: %d scans, want %d", c.name, i, l.scans-before, c.scansEach)
			}
			if exhausted(s) != (i == 4) {
				t.Errorf("%s: after stream %d: exhausted %v", c.name, i, exhausted(s))
			}
		}
		if req, err := s.nextStream(); req != nil || err != nil || s.Err() != nil {
			t.Errorf("%s: after the end: %v, %v, %v", c.name, req, err, s.Err())
		}
	}
}

// An error reading the trace ahead is told when every stream before it has
// been handed out, as when streams were read one at a time: not before.
func TestReadAheadErrorInOrder(t *testing.T) {
	bad := errors.New("row 3: bad chunk")
	l := &listReader{reqs: streams(5), failAt: 2, failErr: bad}
	s, err := New(l, Options{})
	if err != nil {
		t.Fatalf("New: %v (the first streams are good)", err)
	}
	for i := range 2 {
		if s.Err() != nil || exhausted(s) {
			t.Fatalf("before stream %d: error %v, exhausted %v", i, s.Err(), exhausted(s))
		}
		if req, err := s.nextStream(); req == nil || err != nil {
			t.Fatalf("stream %d: %v, %v", i, req, err)
		}
	}
	if !errors.Is(s.Err(), bad) || !exhausted(s) {
		t.Fatalf("after the good streams: error %v, exhausted %v", s.Err(), exhausted(s))
	}
	if req, err := s.nextStream(); req != nil || !errors.Is(err, bad) {
		t.Fatalf("past them: %v, %v", req, err)
	}
	l = &listReader{reqs: streams(5), failAt: 0, failErr: bad}
	if _, err := New(l, Options{}); !errors.Is(err, bad) {
		t.Fatalf("first stream unreadable: New %v", err)
	}
}

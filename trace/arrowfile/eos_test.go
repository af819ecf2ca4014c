package arrowfile

import (
	"bytes"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sseaudit/sseaudit/trace"
)

// TestStreamWithoutEOSIsNoted: a stream without its end-of-stream marker
// (a capture stopped, or a file cut at a batch boundary) is read, and says
// so in Info.Notes, in both layouts; a finished stream says nothing.
func TestStreamWithoutEOSIsNoted(t *testing.T) {
	stream := format{"arrows", true, false}
	eos := []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}
	for _, layout := range []trace.Layout{trace.Nested, trace.Flat} {
		data := writeTrace(t, stream, trace.WriteOptions{Extra: sampleExtra, Layout: layout, RowGroupRequests: 2}, sampleRequests(), nil)
		if !bytes.HasSuffix(data, eos) {
			t.Fatalf("%s: the writer's stream does not end with the end-of-stream marker", layout)
		}
		reqs, info, err := readAll(t, stream, "full.arrows", data, memory.NewGoAllocator())
		if err != nil || slices.Contains(info.Notes, noteNoEOS) {
			t.Fatalf("%s, finished stream: %v, notes %q", layout, err, info.Notes)
		}
		cut, cutInfo, err := readAll(t, stream, "cut.arrows", data[:len(data)-len(eos)], memory.NewGoAllocator())
		if err != nil {
			t.Fatalf("%s, stream without the marker: %v", layout, err)
		}
		if len(cut) != len(reqs) || !slices.Contains(cutInfo.Notes, noteNoEOS) {
			t.Errorf("%s, stream without the marker: %d requests (want %d), notes %q", layout, len(cut), len(reqs), cutInfo.Notes)
		}
	}
}

package replay

import (
	"fmt"
	"net/http"
)

// accountant assigns every body byte to one bucket. Framers hand it spans in
// body order; a span that does not start where the previous one ended is a
// bug, reported by finish.
type accountant struct {
	size   int64
	pos    int64 // bytes assigned so far
	counts ByteCounts
	// afterDone, once >= 0, sends every byte from there on to the after_done
	// bucket, whatever the framer says.
	afterDone int64
	err       error
}

func (a *accountant) reset(size int64) {
	*a = accountant{size: size, afterDone: -1}
}

// span assigns [start, end) to bucket b.
func (a *accountant) span(b Bucket, start, end int64) {
	if a.err != nil || start == end {
		return
	}
	if start != a.pos || end < start || end > a.size {
		a.err = fmt.Errorf("byte accounting: span %s [%d,%d) does not follow %d (body %d bytes)", b, start, end, a.pos, a.size)
		return
	}
	if a.afterDone >= 0 {
		if start < a.afterDone {
			cut := min(end, a.afterDone)
			a.counts[b] += cut - start
			start = cut
		}
		a.counts[ClassBucket(ClassAfterDone)] += end - start
	} else {
		a.counts[b] += end - start
	}
	a.pos = end
}

// upTo assigns the bytes from the current position to end to bucket b.
func (a *accountant) upTo(b Bucket, end int64) {
	if end > a.pos {
		a.span(b, a.pos, end)
	}
}

// startAfterDone sends every byte from off on to after_done.
func (a *accountant) startAfterDone(off int64) {
	if a.afterDone < 0 {
		a.afterDone = off
	}
}

func (a *accountant) finish() error {
	if a.err != nil {
		return a.err
	}
	if a.pos != a.size {
		return fmt.Errorf("byte accounting: %d of %d body bytes assigned", a.pos, a.size)
	}
	if s := a.counts.Sum(); s != a.size {
		return fmt.Errorf("byte accounting: buckets sum to %d, body is %d bytes", s, a.size)
	}
	return nil
}

// statusReason is the reason phrase aiohttp reports for a status, which
// AISBench stores as error_info.
func statusReason(status int32) string {
	if s := http.StatusText(int(status)); s != "" {
		return s
	}
	return fmt.Sprintf("HTTP status %d", status)
}

package arrowfile

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sseaudit/sseaudit/trace"
)

// boundedAllocator refuses allocations beyond a budget of live bytes, so that
// a record batch claiming an absurd decompressed size ends in an error, not
// in an out-of-memory kill. Arrow-go allocates inside its own recover, so
// the panic becomes an error there.
type boundedAllocator struct {
	mem   memory.Allocator
	limit int64
	live  atomic.Int64
}

type allocLimitError struct{ size, live, limit int64 }

func (e *allocLimitError) Error() string {
	return fmt.Sprintf("decoding needs %d more bytes of memory with %d in use, over the limit of %d", e.size, e.live, e.limit)
}

func newBoundedAllocator(mem memory.Allocator, limit int64) *boundedAllocator {
	return &boundedAllocator{mem: mem, limit: limit}
}

// memoryBudget is what a reader may hold at once: a record batch's body (at
// most the file) and its decompressed buffers. Those may well be larger than
// the file, so the budget is generous, but a batch claiming terabytes is an
// error, not an out-of-memory kill.
func memoryBudget(src trace.Source) int64 {
	maxChunk := src.Limits.MaxChunkBytes
	if maxChunk <= 0 {
		maxChunk = trace.DefaultLimits.MaxChunkBytes
	}
	return 16*src.Size + 4*maxChunk + 64<<20
}

func (a *boundedAllocator) reserve(n int64) {
	if n < 0 {
		panic(&allocLimitError{n, a.live.Load(), a.limit})
	}
	if live := a.live.Add(n); live > a.limit {
		a.live.Add(-n)
		panic(&allocLimitError{n, live - n, a.limit})
	}
}

func (a *boundedAllocator) Allocate(size int) []byte {
	a.reserve(int64(size))
	b := a.mem.Allocate(size)
	a.live.Add(int64(len(b)) - int64(size))
	return b
}

func (a *boundedAllocator) Reallocate(size int, b []byte) []byte {
	if size < 0 {
		a.reserve(-1)
	}
	old := int64(len(b))
	reserved := max(int64(size)-old, 0)
	a.reserve(reserved)
	nb := a.mem.Reallocate(size, b)
	a.live.Add(int64(len(nb)) - old - reserved)
	return nb
}

func (a *boundedAllocator) Free(b []byte) {
	a.live.Add(-int64(len(b)))
	a.mem.Free(b)
}

func panicError(p any) error {
	if f, ok := p.(interface{ Addr() uintptr }); ok && f.Addr() >= 4096 {
		// A fault away from nil: a mapped page the file no longer has.
		return fmt.Errorf("a page of the mapped file could not be read: was the file cut short while it was read? (%v)", p)
	}
	if err, ok := p.(error); ok {
		return err
	}
	return fmt.Errorf("%v", p)
}

// recoverCorrupt turns a panic of arrow-go on corrupt input into a
// *trace.Error in *errp.
func recoverCorrupt(file string, batch int, errp *error) {
	if p := recover(); p != nil {
		*errp = corruptError(file, batch, panicError(p))
	}
}

func corruptError(file string, batch int, err error) *trace.Error {
	var lim *allocLimitError
	if errors.As(err, &lim) {
		e := trace.FileError(file, fmt.Errorf("%w: %w", trace.ErrLimit, err),
			"record batch too large to decode (limit: 16 × the file size plus 4 × --max-chunk-bytes plus 64 MiB): corrupt Arrow IPC data?")
		e.RowGroup = batch
		return e
	}
	e := trace.FileError(file, err, "corrupt Arrow IPC data")
	e.RowGroup = batch
	return e
}

// arrowError reports an error arrow-go returned: a limit or corrupt data.
func arrowError(file string, batch int, msg string, err error) *trace.Error {
	var lim *allocLimitError
	if errors.As(err, &lim) {
		return corruptError(file, batch, err)
	}
	e := trace.FileError(file, err, "%s", msg)
	e.RowGroup = batch
	return e
}

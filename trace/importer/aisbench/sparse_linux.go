package aisbench

import (
	"errors"
	"os"
	"syscall"
)

// lseek's whence values for the extents of a sparse file (Linux).
const (
	seekData = 3
	seekHole = 4
)

// dataExtent is the next extent of data of f at or after off: its start
// and the start of the hole after it (lseek SEEK_DATA and SEEK_HOLE); the
// whole rest of the file where the file system cannot tell.
func dataExtent(f *os.File, off, size int64) (data, hole int64) {
	data, err := f.Seek(off, seekData)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) { // no data after off
			return size, size
		}
		return off, size
	}
	hole, err = f.Seek(data, seekHole)
	if err != nil {
		return data, size
	}
	return data, min(hole, size)
}

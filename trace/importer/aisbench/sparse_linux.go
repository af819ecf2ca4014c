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

// storedBytes is about the bytes of the file at path that are stored: its
// size, but for a sparse file the blocks it takes (a file of 1 TB on paper
// and a few KB on disk is a few KB to read); 0 when it cannot be told.
func storedBytes(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return min(fi.Size(), st.Blocks*512)
	}
	return fi.Size()
}

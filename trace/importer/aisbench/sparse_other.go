//go:build !linux

package aisbench

import "os"

// dataExtent is the rest of the file: holes are not told from data here.
func dataExtent(_ *os.File, off, size int64) (data, hole int64) { return off, size }

// storedBytes is the size of the file at path (0 when it cannot be told):
// holes are not told from data here.
func storedBytes(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

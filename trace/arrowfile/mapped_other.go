//go:build !linux && !darwin

package arrowfile

import "github.com/sseaudit/sseaudit/trace"

// mapFile maps nothing where this package has no mmap: files are read into
// the heap.
func mapFile(trace.Source) *mapping { return nil }

func (m *mapping) drop() {}

func (m *mapping) close() error { return nil }

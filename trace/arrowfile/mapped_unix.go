//go:build linux || darwin

package arrowfile

import (
	"golang.org/x/sys/unix"

	"github.com/sseaudit/sseaudit/trace"
)

// mapFile maps src read-only, or returns nil when it cannot be mapped.
func mapFile(src trace.Source) *mapping {
	if src.File == nil || src.Size <= 0 || int64(int(src.Size)) != src.Size {
		return nil
	}
	if fi, err := src.File.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() < src.Size {
		return nil
	}
	data, err := unix.Mmap(int(src.File.Fd()), 0, int(src.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil
	}
	return &mapping{data: data}
}

func (m *mapping) drop() { unix.Madvise(m.data, unix.MADV_DONTNEED) }

func (m *mapping) close() error {
	if m == nil || m.data == nil {
		return nil
	}
	data := m.data
	m.data = nil
	return unix.Munmap(data)
}

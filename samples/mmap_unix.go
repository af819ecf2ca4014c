//go:build linux || darwin || freebsd

package samples

import (
	"syscall"
	"unsafe"
)

// mapSteps maps n zeroed entries of anonymous memory outside the Go heap
// and the function that unmaps them; ok is false when the mapping fails
// (the caller takes heap memory then).
func mapSteps(n int) (mem []uint32, free func(), ok bool) {
	b, err := syscall.Mmap(-1, 0, 4*n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, false
	}
	// Page-aligned, so aligned for uint32.
	mem = unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
	return mem, func() { _ = syscall.Munmap(b) }, true
}

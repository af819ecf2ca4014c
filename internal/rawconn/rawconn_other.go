//go:build !linux

package rawconn

import "net"

// Wrap returns c: raw system calls are Linux's only here.
func Wrap(c net.Conn) net.Conn { return c }

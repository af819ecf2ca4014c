//go:build !linux

package serve

import "net"

// ArrivalListener returns l: the kernel's receive times are read on Linux
// only, elsewhere a request arrives when the handler starts.
func ArrivalListener(l net.Listener) net.Listener { return l }

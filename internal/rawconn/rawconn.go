// Package rawconn gives TCP connections reads and writes made as raw
// system calls (syscall.RawSyscall: the Go scheduler is not told), on
// Linux; elsewhere connections are left as they are.
//
// Why: the runtime treats every read and write of a socket as a system
// call that may block. Entering one wakes its sysmon thread when every Go
// thread was idle, and a thread in one for more than 20 µs has its P
// taken away by sysmon, which keeps sysmon polling every 20 µs while they
// come. A server that streams small events (a replay, a recording proxy)
// idles between nearly every two, so those wakes and polls were half of
// audit serve's CPU at 64 streams (docs/performance.md). Reads and writes
// made with MSG_DONTWAIT never block, even on a socket someone made
// blocking: with nothing to read, or no room, they return EAGAIN at once,
// and the connection's RawConn then waits on the network poller, deadlines
// kept, as net's own Read and Write do. So the scheduler need not be told.
package rawconn

import "net"

// Listener wraps l's connections with Wrap.
func Listener(l net.Listener) net.Listener { return listener{l} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	return Wrap(c), nil
}

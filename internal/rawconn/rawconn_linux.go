package rawconn

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Conn is a *net.TCPConn whose Read and Write are raw system calls.
type Conn struct {
	*net.TCPConn
	raw syscall.RawConn
}

// Wrap returns c as a *Conn when it is a *net.TCPConn, else c itself.
func Wrap(c net.Conn) net.Conn {
	if w := New(c); w != nil {
		return w
	}
	return c
}

// New returns c as a *Conn, or nil when c is not a *net.TCPConn.
func New(c net.Conn) *Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return &Conn{TCPConn: tc, raw: raw}
}

// NetConn is the connection wrapped.
func (c *Conn) NetConn() net.Conn { return c.TCPConn }

// Raw is the connection's RawConn.
func (c *Conn) Raw() syscall.RawConn { return c.raw }

// Read reads as net.TCPConn's Read does: what is there, waiting for
// something when nothing is; io.EOF at the peer's close.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var e unix.Errno
	err := c.raw.Read(func(fd uintptr) bool {
		for {
			// MSG_DONTWAIT: never blocks, even on a socket made blocking
			// behind the connection's back (File, then Fd), where read(2)
			// would hold the thread unknown to the runtime and hang the
			// next stop-the-world.
			r, _, errno := unix.RawSyscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), unix.MSG_DONTWAIT, 0, 0)
			n, e = int(r), errno
			if e != unix.EINTR {
				return e != unix.EAGAIN
			}
		}
	})
	if err == nil && e != 0 {
		err = os.NewSyscallError("read", e)
	}
	if err != nil {
		return 0, c.OpError("read", err)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// Write writes p whole, as net.TCPConn's Write does, waiting for room
// when the socket's buffer is full.
func (c *Conn) Write(p []byte) (int, error) {
	n := 0
	var e unix.Errno
	err := c.raw.Write(func(fd uintptr) bool {
		for n < len(p) {
			// MSG_DONTWAIT as in Read; MSG_NOSIGNAL: EPIPE, no SIGPIPE.
			r, _, errno := unix.RawSyscall6(unix.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n), unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, 0, 0)
			switch errno {
			case 0:
				n += int(r)
			case unix.EINTR:
			case unix.EAGAIN:
				return false
			default:
				e = errno
				return true
			}
		}
		return true
	})
	if err == nil && e != 0 {
		err = os.NewSyscallError("write", e)
	}
	if err != nil {
		return n, c.OpError("write", err)
	}
	return n, nil
}

// OpError shapes err, from the RawConn ("raw-read", "raw-write") or a
// system call, as net.TCPConn's errors are: a *net.OpError of op with the
// connection's addresses, so that callers (net/http) tell a timeout or a
// closed connection from them as they would.
func (c *Conn) OpError(op string, err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

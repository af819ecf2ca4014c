package serve

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ArrivalListener returns l with the kernel's receive time (SO_TIMESTAMPNS)
// on each of its TCP connections, which then know when each request
// arrived (see arrivalOf). A connection whose socket refuses it is
// returned as it is.
func ArrivalListener(l net.Listener) net.Listener { return &arrivalListener{l} }

type arrivalListener struct{ net.Listener }

func (l *arrivalListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	var serr error
	err = raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	})
	if err != nil || serr != nil {
		return c, nil
	}
	return &stampConn{TCPConn: tc, raw: raw}, nil
}

// A stampConn reads with recvmsg to get the kernel's receive time of what
// it reads. TCP gives the time of the last segment a read takes: the first
// read of a request takes one byte alone, so that the time is its first
// byte's (a client may send a request's body a while after its headers).
type stampConn struct {
	*net.TCPConn
	raw syscall.RawConn

	mu    sync.Mutex
	first int64 // see arrivalConn.arrival
}

func (c *stampConn) arrival() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.first
}

func (c *stampConn) forget() {
	c.mu.Lock()
	c.first = 0
	c.mu.Unlock()
}

func (c *stampConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.mu.Lock()
	stamped := c.first != 0
	c.mu.Unlock()
	if stamped {
		n, _, err := c.recv(p)
		return n, err
	}
	n, at, err := c.recv(p[:1])
	if n == 1 && at != 0 {
		c.mu.Lock()
		if c.first == 0 {
			c.first = at
		}
		c.mu.Unlock()
	}
	if n == 1 && err == nil && len(p) > 1 {
		// The rest, if it is there: a read does not wait for more than
		// it has.
		m, _, err := c.recvNow(p[1:])
		if err == nil {
			n += m
		}
	}
	return n, err
}

// recv waits for bytes and reads them into p, with their receive time (0:
// none came with them).
func (c *stampConn) recv(p []byte) (n int, at int64, err error) {
	var oob [64]byte
	var oobn int
	var rerr error
	err = c.raw.Read(func(fd uintptr) bool {
		n, oobn, rerr = recvmsg(fd, p, oob[:], 0)
		return rerr != unix.EAGAIN
	})
	return c.result(n, oob[:oobn], err, rerr)
}

// recvNow reads what is there into p, without waiting (0 bytes: none).
func (c *stampConn) recvNow(p []byte) (n int, at int64, err error) {
	var oob [64]byte
	var oobn int
	var rerr error
	err = c.raw.Read(func(fd uintptr) bool {
		n, oobn, rerr = recvmsg(fd, p, oob[:], unix.MSG_DONTWAIT)
		return true
	})
	if rerr == unix.EAGAIN {
		return 0, 0, nil
	}
	return c.result(n, oob[:oobn], err, rerr)
}

// result turns a recvmsg's outcome into Read's, with the errors shaped as
// net.TCPConn's (net/http tells a closed connection or a deadline from
// them).
func (c *stampConn) result(n int, oob []byte, err, rerr error) (int, int64, error) {
	var oe *net.OpError
	switch {
	case errors.As(err, &oe):
		err = oe.Err // RawConn's "raw-read", made a "read" below
	case err == nil && rerr != nil:
		err = os.NewSyscallError("recvmsg", rerr)
	}
	if err != nil {
		return 0, 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	if n == 0 {
		return 0, 0, io.EOF
	}
	return n, receiveTime(oob), nil
}

func recvmsg(fd uintptr, p, oob []byte, flags int) (n, oobn int, err error) {
	for {
		n, oobn, _, _, err = unix.Recvmsg(int(fd), p, oob, flags)
		if err != unix.EINTR {
			return n, oobn, err
		}
	}
}

// receiveTime is the SCM_TIMESTAMPNS of a recvmsg's control messages, in
// ns on the wall clock (0: none).
func receiveTime(oob []byte) int64 {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return 0
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS &&
			len(m.Data) >= int(unsafe.Sizeof(unix.Timespec{})) {
			ts := (*unix.Timespec)(unsafe.Pointer(&m.Data[0]))
			return ts.Nano()
		}
	}
	return 0
}

// Write writes p whole, as net.TCPConn's Write does, but with write(2)
// made raw (syscall.RawSyscall: no entersyscall). The socket does not
// block: when it is full the write returns EAGAIN and RawConn waits for
// room on the poller, deadlines kept.
//
// Why: the runtime wakes its sysmon thread at the first system call after
// every Go thread was idle, and sysmon then sleeps and wakes again. A
// replay server idles between nearly every two writes (64 streams: about
// 3,200 writes a second), so those wakes were half of its CPU
// (docs/performance.md). A non-blocking write never blocks the thread, so
// it need not tell the scheduler.
func (c *stampConn) Write(p []byte) (int, error) {
	n := 0
	var werr error
	err := c.raw.Write(func(fd uintptr) bool {
		for n < len(p) {
			m, e := rawWrite(fd, p[n:])
			switch e {
			case 0:
				n += m
			case unix.EINTR:
			case unix.EAGAIN:
				return false
			default:
				werr = e
				return true
			}
		}
		return true
	})
	var oe *net.OpError
	switch {
	case errors.As(err, &oe):
		err = oe.Err // RawConn's "raw-write", made a "write" below
	case err == nil && werr != nil:
		err = os.NewSyscallError("write", werr)
	}
	if err != nil {
		return n, &net.OpError{Op: "write", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	return n, nil
}

func rawWrite(fd uintptr, p []byte) (int, unix.Errno) {
	if len(p) == 0 {
		return 0, 0
	}
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(r), e
}

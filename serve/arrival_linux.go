package serve

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"github.com/sseaudit/sseaudit/internal/rawconn"
	"golang.org/x/sys/unix"
)

// ArrivalListener returns l with the kernel's receive time (SO_TIMESTAMPNS)
// on each of its TCP connections, which then know when each request
// arrived (see arrivalOf). A connection whose socket refuses it is
// returned as it is.
//
// The listening socket asks for the times too, at once. The kernel stamps
// what it receives only while some socket of the machine wants stamps,
// and starts a moment after the first asks (net_enable_timestamp defers
// it to a work queue). A segment that came unstamped is given the time it
// is read instead ("race occurred between timestamp enabling and packet
// receiving", __sock_recv_timestamp). So with only accepted sockets
// asking, a request on a new connection while no other socket asked (the
// first of a run, one of a client that connects for each) was read as
// arriving when the server got to it, its whole stream late by that
// delay (TestArrivalOfFirstRequest). A listener that asks keeps the kernel
// stamping from before the first client to its close, and its connections
// inherit the option (sk_clone_lock).
func ArrivalListener(l net.Listener) net.Listener {
	if sc, ok := l.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) {
				unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
			})
		}
	}
	return &arrivalListener{l}
}

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
	rc := rawconn.New(tc)
	if rc == nil {
		return c, nil
	}
	var serr error
	err = rc.Raw().Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	})
	if err != nil || serr != nil {
		return c, nil
	}
	return &stampConn{Conn: rc}, nil
}

// A stampConn reads with recvmsg to get the kernel's receive time of what
// it reads, and writes with rawconn's raw writes (a replay server idles
// between nearly every two writes: see package rawconn). TCP gives the time of the last segment a read takes: the first
// read of a request takes one byte alone, so that the time is its first
// byte's (a client may send a request's body a while after its headers).
type stampConn struct {
	*rawconn.Conn

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
	err = c.Raw().Read(func(fd uintptr) bool {
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
	err = c.Raw().Read(func(fd uintptr) bool {
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
	if err == nil && rerr != nil {
		err = os.NewSyscallError("recvmsg", rerr)
	}
	if err != nil {
		return 0, 0, c.OpError("read", err)
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

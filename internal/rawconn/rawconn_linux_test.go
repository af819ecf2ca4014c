package rawconn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pair is a connected pair: the wrapped end accepted, and the client's.
func pair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Listener(ln).Accept()
	if err != nil {
		t.Fatal(err)
	}
	rc, ok := c.(*Conn)
	if !ok {
		t.Fatalf("accepted a %T, want a *Conn", c)
	}
	t.Cleanup(func() { rc.Close(); client.Close() })
	return rc, client
}

// TestReadWrite: a Conn reads and writes as net.TCPConn does: a write
// larger than the socket's buffers goes out whole and in order as the peer
// reads; a read returns what is there, waiting when nothing is; a write
// deadline gives a timeout with the count written; the peer gone gives
// EPIPE or ECONNRESET; io.EOF at the peer's close; net.ErrClosed once
// closed. Errors are *net.OpError of "read" or "write".
func TestReadWrite(t *testing.T) {
	c, client := pair(t)
	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = byte(i * 7 / 3)
	}
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(client, int64(len(big))))
		got <- b
	}()
	if n, err := c.Write(big); n != len(big) || err != nil {
		t.Fatalf("write of 8 MiB: %d, %v", n, err)
	}
	if b := <-got; !bytes.Equal(b, big) {
		t.Fatalf("the peer read %d bytes, not the 8 MiB written", len(b))
	}

	go func() {
		time.Sleep(20 * time.Millisecond)
		client.Write([]byte("hello"))
	}()
	buf := make([]byte, 64)
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("read of what came after a wait: %q, %v", buf[:n], err)
	}
	if n, err := c.Read(nil); n != 0 || err != nil {
		t.Errorf("read into nothing: %d, %v", n, err)
	}

	c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	_, err := c.Read(buf)
	var ne net.Error
	var oe *net.OpError
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &oe) || oe.Op != "read" {
		t.Errorf("read past the deadline: %#v, want a read timeout", err)
	}
	c.SetReadDeadline(time.Time{})

	c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	n, err := c.Write(make([]byte, 64<<20))
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) || n <= 0 || n >= 64<<20 || !errors.As(err, &oe) || oe.Op != "write" {
		t.Errorf("write past the deadline: %d, %#v; want part written and a write timeout", n, err)
	}
	c.SetWriteDeadline(time.Time{})

	client.Close()
	for { // what the peer never read, then its close
		if _, err = c.Read(buf); err != nil {
			break
		}
	}
	if err != io.EOF && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("read after the peer closed: %v, want io.EOF or ECONNRESET", err)
	}
	for i := 0; ; i++ {
		if _, err = c.Write([]byte("data: x\n\n")); err != nil || i > 1000 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if !errors.As(err, &oe) || oe.Op != "write" || !(errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) {
		t.Errorf("write after the peer closed: %v, want a write error with EPIPE or ECONNRESET", err)
	}
	c.Close()
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write after close: %v, want net.ErrClosed", err)
	}
	if _, err := c.Read(buf); !errors.Is(err, net.ErrClosed) {
		t.Errorf("read after close: %v, want net.ErrClosed", err)
	}
}

// TestWrapOthers: what is not a *net.TCPConn is left as it is.
func TestWrapOthers(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if Wrap(a) != a {
		t.Error("a net.Pipe end was wrapped")
	}
}

// TestBlockingSocket: a socket made blocking behind the connection's back
// (File, then Fd: the file description is shared) still never blocks a raw
// read unknown to the runtime: while a Read waits, a stop-the-world
// (runtime.GC) completes. With read(2) the child process hung. Run in a
// child, with a time limit, since the failure is a hang.
func TestBlockingSocket(t *testing.T) {
	if os.Getenv("RAWCONN_BLOCKING_CHILD") == "1" {
		c, _ := pair(t)
		f, err := c.TCPConn.File()
		if err != nil {
			t.Fatal(err)
		}
		f.Fd() // makes the shared file description blocking
		go c.Read(make([]byte, 16))
		time.Sleep(100 * time.Millisecond)
		runtime.GC()
		fmt.Println("GC OK")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBlockingSocket$", "-test.v")
	cmd.Env = append(os.Environ(), "RAWCONN_BLOCKING_CHILD=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "GC OK") {
			t.Errorf("child: %v\n%s", err, out.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Error("the child hung: a read on a blocking socket held its thread through a stop-the-world")
	}
}

package serve

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// acceptStamped is a connected pair: the server's end from ArrivalListener,
// with its context, and the client's.
func acceptStamped(t *testing.T) (server net.Conn, ctx context.Context, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	al := ArrivalListener(ln)
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = al.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := server.(*stampConn); !ok {
		t.Fatalf("accepted a %T, want a *stampConn", server)
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	// The kernel starts stamping what it receives a moment after the
	// first socket asks for it (and stops after the last is closed):
	// bytes before then come without a time.
	for start := time.Now(); server.(*stampConn).arrival() == 0; {
		if time.Since(start) > liveness {
			t.Fatal("the kernel never stamped a byte received")
		}
		send(t, client, "w")
		readOnce(t, server, "w")
		time.Sleep(time.Millisecond)
	}
	server.(*stampConn).forget()
	// As LimitListener would wrap it.
	return server, ConnContext(context.Background(), &limitConn{Conn: server}), client
}

// send writes s from the client and returns the times around the write.
func send(t *testing.T, c net.Conn, s string) (before, after time.Time) {
	t.Helper()
	before = time.Now()
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatal(err)
	}
	return before, time.Now()
}

// readOnce reads want from c in one read.
func readOnce(t *testing.T, c net.Conn, want string) {
	t.Helper()
	buf := make([]byte, 256)
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != want {
		t.Fatalf("read %q, %v; want %q in one read", buf[:n], err, want)
	}
}

// TestArrivalIsWhenBytesCame: a request's arrival is when its first byte
// reached the machine, not when the server read it (issue 22); bytes read
// later (its body) do not move it; after forget, the next request's first
// byte sets it again. A read returns every byte there, not only the one
// it stamps.
func TestArrivalIsWhenBytesCame(t *testing.T) {
	server, ctx, client := acceptStamped(t)
	const slow = 50 * time.Millisecond // the server is late to read
	// The wall clock (the kernel's stamps) and the monotonic one (Go's)
	// are compared: allow for their drift over the test.
	const slack = time.Millisecond

	before, after := send(t, client, "POST / HTTP/1.1\r\n")
	time.Sleep(slow)
	readOnce(t, server, "POST / HTTP/1.1\r\n")
	first := arrivalOf(ctx, time.Now())
	stamp := server.(*stampConn).arrival()
	if first.Before(before.Add(-slack)) || first.After(after.Add(slack)) {
		t.Fatalf("arrival %v after the write began, want within the write (%v)", first.Sub(before), after.Sub(before))
	}

	send(t, client, "body")
	time.Sleep(slow)
	readOnce(t, server, "body")
	if got := server.(*stampConn).arrival(); got != stamp {
		t.Errorf("after the body's read, arrival moved by %v, want the request's first byte's still", time.Duration(got-stamp))
	}

	forgetArrival(ctx)
	if got, now := arrivalOf(ctx, time.Now()), time.Now(); got.After(now) {
		t.Errorf("with nothing read since forget, arrival is later than now")
	}
	before, after = send(t, client, "next")
	time.Sleep(slow)
	readOnce(t, server, "next")
	next := arrivalOf(ctx, time.Now())
	if next.Before(before.Add(-slack)) || next.After(after.Add(slack)) {
		t.Errorf("next request: arrival %v after the write began, want within the write (%v)", next.Sub(before), after.Sub(before))
	}
}

// TestArrivalOfFirstRequest: the first request of a connection, sent
// before the server accepts it, arrives when its bytes came, even when no
// other socket of the machine asked the kernel for receive times. Before
// the listener asked for them, such bytes came unstamped and the kernel
// gave them the time they were read: the first streams of a run were late
// as a whole by the server's delay in reading them (issue 22).
func TestArrivalOfFirstRequest(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	al := ArrivalListener(ln)
	const slow = 50 * time.Millisecond // the server is late to accept and read
	// The wall clock against Go's monotonic one, and a busy machine's
	// kernel, which stamps a segment over loopback as it takes it in, up to
	// a millisecond or so after it was sent (docs/performance.md): far
	// under slow, which a stamp taken at the read would be late by.
	const slack = slow / 5
	// The kernel starts stamping a moment after it is asked; when only an
	// accepted socket asks, it stops a moment after that one closes. A
	// connection before, closed, leaves time for both.
	for start := time.Now(); ; {
		if time.Since(start) > liveness {
			t.Fatal("the kernel never stamped a byte received before the server read it")
		}
		if firstLate(t, ln, al, "probe", slow) < slack {
			break
		}
	}
	time.Sleep(slow)
	for i := range 3 { // each on a new connection, none open meanwhile
		if late := firstLate(t, ln, al, "POST / HTTP/1.1\r\n", slow); late > slack {
			t.Errorf("connection %d: arrival %v after the bytes were sent (read %v after), want when they came", i, late, slow)
		}
		time.Sleep(slow)
	}
}

// firstLate dials al, sends s, waits wait, accepts and reads s, and says
// how long after the write's end the connection says s arrived.
func firstLate(t *testing.T, ln net.Listener, al net.Listener, s string, wait time.Duration) time.Duration {
	t.Helper()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	_, after := send(t, client, s)
	time.Sleep(wait)
	server, err := al.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if _, ok := server.(*stampConn); !ok {
		t.Fatalf("accepted a %T, want a *stampConn", server)
	}
	readOnce(t, server, s)
	ctx := ConnContext(context.Background(), server)
	return arrivalOf(ctx, time.Now()).Sub(after)
}

// TestArrivalConnErrors: the stamping connection fails as net.TCPConn
// does, which net/http relies on: io.EOF at the client's close, a timeout
// at the read deadline, net.ErrClosed once closed.
func TestArrivalConnErrors(t *testing.T) {
	server, _, client := acceptStamped(t)
	server.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	_, err := server.Read(make([]byte, 8))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read past the deadline: %v, want a timeout", err)
	}
	server.SetReadDeadline(time.Time{})
	client.Close()
	if _, err := server.Read(make([]byte, 8)); err != io.EOF {
		t.Errorf("read after the client closed: %v, want io.EOF", err)
	}
	server.Close()
	if _, err := server.Read(make([]byte, 8)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("read after close: %v, want net.ErrClosed", err)
	}
}

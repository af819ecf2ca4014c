package serve

import (
	"context"
	"net"
	"time"
)

// A request's writes are due at times counted from its arrival. Read from
// the clock as the handler starts, the arrival is as late as the server
// was slow to see the request: a few hundred µs on a busy machine, which
// every write of the stream would carry (issue 22). ArrivalListener's
// connections (on Linux) keep the kernel's receive time of the first byte
// of each request instead; ConnContext hands them to the handler.

// maxArrivalAge bounds how long before the handler starts a kernel receive
// time is believed: one older is from a wall clock that stepped since.
const maxArrivalAge = time.Second

// An arrivalConn knows when the bytes of the request being read reached
// the machine.
type arrivalConn interface {
	// arrival is the kernel's receive time of the first byte read since
	// the last call of forget, on the wall clock, in ns (0: unknown).
	arrival() int64
	// forget starts the next request: bytes read after it are its.
	forget()
}

type connKey struct{}

// ConnContext is the http.Server.ConnContext hook that lets the handler
// find a connection of ArrivalListener's, under any wrapper of it that
// has a NetConn method (as LimitListener's and tls.Conn have).
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	for {
		if ac, ok := c.(arrivalConn); ok {
			return context.WithValue(ctx, connKey{}, ac)
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return ctx
		}
		c = u.NetConn()
	}
}

// arrivalOf is when the request read on ctx's connection arrived, taking
// now (read as the handler starts) when the connection does not know.
func arrivalOf(ctx context.Context, now time.Time) time.Time {
	ac, ok := ctx.Value(connKey{}).(arrivalConn)
	if !ok {
		return now
	}
	ns := ac.arrival()
	if ns == 0 {
		return now
	}
	// now's monotonic reading is kept: the arrival is now less the
	// time since, on the wall clock.
	age := time.Duration(now.UnixNano() - ns)
	if age < 0 || age > maxArrivalAge {
		return now
	}
	return now.Add(-age)
}

// forgetArrival starts the next request on ctx's connection.
func forgetArrival(ctx context.Context) {
	if ac, ok := ctx.Value(connKey{}).(arrivalConn); ok {
		ac.forget()
	}
}

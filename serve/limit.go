package serve

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Listener accepts at most n connections at once: a client opening more
// waits until one closes. It keeps a replay server's memory and file
// descriptors bounded however many clients connect.
//
// Connections that sit idle between requests (HTTP keep-alive) would hold
// their slots for as long as their clients keep them open: with ConnState
// as the http.Server's ConnState hook, a client waiting for a slot gets
// the one of the connection idle longest (at least minIdleToClose), which
// is closed, as an idle keep-alive connection may be at any time.
type Listener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once

	mu   sync.Mutex
	idle map[*limitConn]time.Time // connections idle since
}

// minIdleToClose is how long a connection must have been idle before a
// waiting client's connection takes its slot: a client about to send its
// next request on it is left alone.
const minIdleToClose = 100 * time.Millisecond

// LimitListener returns l limited to n connections at once.
func LimitListener(l net.Listener, n int) *Listener {
	return &Listener{Listener: l, sem: make(chan struct{}, n), done: make(chan struct{}), idle: map[*limitConn]time.Time{}}
}

// Accept accepts the next connection, then waits for a slot for it,
// closing an idle connection to make one.
func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tick := time.NewTicker(minIdleToClose / 2)
	defer tick.Stop()
	for {
		select {
		case l.sem <- struct{}{}:
			return &limitConn{Conn: c, l: l}, nil
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		default:
		}
		l.closeIdle()
		select {
		case l.sem <- struct{}{}:
			return &limitConn{Conn: c, l: l}, nil
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		case <-tick.C:
		}
	}
}

// closeIdle closes the connection idle longest, if it has been idle long
// enough.
func (l *Listener) closeIdle() {
	l.mu.Lock()
	var oldest *limitConn
	var since time.Time
	for c, t := range l.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	if oldest == nil || time.Since(since) < minIdleToClose {
		l.mu.Unlock()
		return
	}
	delete(l.idle, oldest)
	l.mu.Unlock()
	oldest.Close()
}

// ConnState is the http.Server.ConnState hook that tells the listener
// which connections are idle.
func (l *Listener) ConnState(c net.Conn, s http.ConnState) {
	lc, ok := c.(*limitConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if s == http.StateIdle {
		l.idle[lc] = time.Now()
	} else {
		delete(l.idle, lc)
	}
}

func (l *Listener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

type limitConn struct {
	net.Conn
	l    *Listener
	once sync.Once
}

// NetConn is the connection c limits (as tls.Conn's NetConn is).
func (c *limitConn) NetConn() net.Conn { return c.Conn }

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.idle, c)
		c.l.mu.Unlock()
		<-c.l.sem
	})
	return err
}

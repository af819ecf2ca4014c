// Package rawhttp is tests' own HTTP/1.1 client: one POST over a fresh TCP
// connection, the answer decoded by hand, chunk by chunk, so that a test
// sees a server's framing as it was sent (net/http's client hides it) and
// an answer cut short as cut.
package rawhttp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// Response is what came back.
type Response struct {
	Status   int               // 0: no status line came
	Header   map[string]string // names lower-cased
	Body     []byte
	Pieces   [][]byte // a chunked body's chunks, as sent
	Chunked  bool
	Complete bool // the chunked body's last chunk came, or a Content-Length body whole
	TimedOut bool // the deadline passed before the connection ended
}

// Cut says whether a chunked body ended without its last chunk.
func (r *Response) Cut() bool { return r.Chunked && !r.Complete }

// Post sends body to path at addr with Connection: close and reads the
// answer until the connection ends or within has passed. The error is
// for a connection that could not be made or an answer that is not
// HTTP/1.1 framing.
func Post(addr, path, body string, within time.Duration) (Response, error) {
	var res Response
	c, err := net.DialTimeout("tcp", addr, within)
	if err != nil {
		return res, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(within))
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", path, addr, len(body), body)
	br := bufio.NewReader(c)
	ended := func(err error) (Response, error) {
		var ne net.Error
		res.TimedOut = errors.As(err, &ne) && ne.Timeout()
		return res, nil
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return ended(err)
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return res, fmt.Errorf("status line %q", line)
	}
	if res.Status, err = strconv.Atoi(f[1]); err != nil {
		return res, fmt.Errorf("status line %q", line)
	}
	res.Header = map[string]string{}
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return ended(err)
		}
		l = strings.TrimRight(l, "\r\n")
		if l == "" {
			break
		}
		k, v, _ := strings.Cut(l, ":")
		res.Header[strings.ToLower(k)] = strings.TrimSpace(v)
	}
	res.Chunked = res.Header["transfer-encoding"] == "chunked"
	if !res.Chunked {
		res.Body, err = io.ReadAll(br)
		length, lerr := strconv.Atoi(res.Header["content-length"])
		res.Complete = lerr == nil && len(res.Body) == length
		return ended(err)
	}
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return ended(err)
		}
		n, err := strconv.ParseInt(strings.TrimRight(l, "\r\n"), 16, 64)
		if err != nil {
			return res, fmt.Errorf("chunk size line %q", l)
		}
		if n == 0 {
			res.Complete = true
			return res, nil
		}
		p := make([]byte, n+2)
		if _, err := io.ReadFull(br, p); err != nil {
			return ended(err)
		}
		res.Pieces = append(res.Pieces, p[:n])
		res.Body = append(res.Body, p[:n]...)
	}
}

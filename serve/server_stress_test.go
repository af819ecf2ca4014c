package serve

import (
	"bufio"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestServerStress(t *testing.T) {
	const streams = 96
	var lines []string
	for i := range streams {
		var ch []string
		for k := range 8 {
			ch = append(ch, fmt.Sprintf(`{"t_ns": %d, "data": "s%d-%d|"}`, 1000+k*(i%4)*400_000, i, k))
		}
		lines = append(lines, fmt.Sprintf(`{"request_id": "r%d", "t0_ns": 1000, "end_ns": 9000000, "http_status": 200, "chunks": [%s]}`, i, strings.Join(ch, ",")))
	}
	g0 := runtime.NumGoroutine()
	s, ts := rawServer(t, Options{}, lines...)
	addr := ts.Listener.Addr().String()
	var wg sync.WaitGroup
	var mu sync.Mutex
	bodies := map[string]string{}
	for c := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(30 * time.Second))
			fmt.Fprintf(conn, "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
			br := bufio.NewReader(conn)
			if c%3 == 0 {
				br.ReadString('|')
				return // client goes away mid-stream
			}
			var all strings.Builder
			buf := make([]byte, 4096)
			for {
				n, err := br.Read(buf)
				all.Write(buf[:n])
				if err != nil {
					break
				}
			}
			out := all.String()
			id := out[strings.Index(out, "X-Sseaudit-Request-Id: ")+len("X-Sseaudit-Request-Id: "):]
			id = id[:strings.Index(id, "\r")]
			mu.Lock()
			bodies[id] = out
			mu.Unlock()
		}()
	}
	wg.Wait()
	done := make(chan struct{})
	go func() { s.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("handlers still running 30s after every client ended")
	}
	for id, out := range bodies {
		var i int
		fmt.Sscanf(id, "r%d", &i)
		for k := range 8 {
			if !strings.Contains(out, fmt.Sprintf("s%d-%d|", i, k)) {
				t.Errorf("%s: read %d missing", id, k)
			}
		}
		if !strings.HasSuffix(out, "0\r\n\r\n") {
			t.Errorf("%s: not complete", id)
		}
	}
	s.pacer.mu.Lock()
	left := len(s.pacer.h)
	s.pacer.mu.Unlock()
	if left != 0 {
		t.Errorf("%d streams left on the pacer", left)
	}
	ts.Close()
	time.Sleep(200 * time.Millisecond)
	if g := runtime.NumGoroutine(); g > g0+3 {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines %d -> %d\n%s", g0, g, buf[:runtime.Stack(buf, true)])
	}
}

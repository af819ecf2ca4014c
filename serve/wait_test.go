package serve

import (
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestWaitWhileRequestsArrive: `audit serve --once` calls Wait once
// every stream is handed out, while clients may still send requests (they
// get 503). Each such request does inFlight.Add(1) from zero while Wait
// waits: sync.WaitGroup forbids it ("calls with a positive delta that
// occur when the counter is zero must happen before a Wait"), and Wait
// panics "WaitGroup is reused before previous Wait has returned" when the
// Add comes between the last Done and Wait's return.
func TestWaitWhileRequestsArrive(t *testing.T) {
	s, _ := rawServer(t, Options{},
		`{"request_id": "r", "t0_ns": 0, "end_ns": 0, "http_status": 200, "chunks": [{"t_ns": 0, "data": "a"}]}`)
	post := func() int {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("POST", "/v1/completions", strings.NewReader(`{"prompt":"x"}`)))
		return w.Code
	}
	if c := post(); c != 200 {
		t.Fatalf("first request: %d", c)
	}
	<-s.Exhausted()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 3 { // clients that keep sending after the trace is spent
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				post()
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		s.Wait() // what --once does, many times over to meet the window
	}
}

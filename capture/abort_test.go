package capture_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sseaudit/sseaudit/capture"
)

// TestAbortSendsNoMore: once the requests in flight are canceled (Abort,
// or an interrupt), no more are sent. A client of the closed loop went on
// sending while its context was canceled but sending not yet stopped, each
// request canceled at once: an interrupted capture under load said "65 of
// 100 requests sent" of a server that had seen one.
func TestAbortSendsNoMore(t *testing.T) {
	arrived := make(chan struct{}, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		io.Copy(io.Discard, r.Body) // then a client gone ends the context
		<-r.Context().Done()        // answers nothing until the client goes
	}))
	defer ts.Close()
	abort := make(chan struct{})
	go func() {
		<-arrived
		close(abort)
	}()
	var got collect
	sum, err := capture.Run(context.Background(), capture.Options{URL: ts.URL, Requests: 100, Concurrency: 1, Abort: abort}, &got)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sent != 1 || sum.Canceled != 1 || sum.Written != 0 {
		t.Errorf("sent %d, canceled %d, written %d: want the one in flight sent and canceled, no other", sum.Sent, sum.Canceled, sum.Written)
	}
}

package capture_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/trace"
)

// TestEndpointAPIMismatch: api chat with a url of the completions endpoint
// (or the other way round) was accepted: the body built for one API was
// posted to the other's endpoint, every request answered 400 or misread,
// and the trace said api=chat beside run.url .../v1/completions. It is
// refused, naming both and what to change; so is a url of an endpoint
// capture does not drive (which got /v1/chat/completions appended). Only
// the path counts: a query (Azure's api-version) is kept and not looked at.
func TestEndpointAPIMismatch(t *testing.T) {
	const azure = "https://r.openai.azure.com/openai/deployments/d"
	for _, c := range []struct{ base, api, want string }{
		{"http://h:1/v1/chat/completions/", "chat", "http://h:1/v1/chat/completions"},
		{"http://h:1/v1/completions/", "completions", "http://h:1/v1/completions"},
		{"http://h:1/v1//", "chat", "http://h:1/v1/chat/completions"},
		{azure + "/chat/completions?api-version=2024-06-01", "chat", azure + "/chat/completions?api-version=2024-06-01"},
		{azure + "/completions?api-version=2024-06-01", "completions", azure + "/completions?api-version=2024-06-01"},
		{azure + "/chat/completions/?api-version=2024-06-01", "chat", azure + "/chat/completions?api-version=2024-06-01"},
		{"http://h:1/v1?next=/completions", "chat", "http://h:1/v1/chat/completions?next=/completions"},
		{"http://h:1/v1/completions?x=/chat/completions", "completions", "http://h:1/v1/completions?x=/chat/completions"},
	} {
		got, err := capture.Endpoint(c.base, c.api)
		if err != nil || got != c.want {
			t.Errorf("Endpoint(%q, %q) = %q, %v; want %q", c.base, c.api, got, err, c.want)
		}
	}
	for _, c := range []struct {
		base, api string
		want      []string // in the error
	}{
		{"http://h:1/v1/completions", "chat", []string{`url "http://h:1/v1/completions" is the completions endpoint but api is chat`, "use api completions", "/chat/completions", "base URL"}},
		{"http://h:1/v1/completions/", "chat", []string{"the completions endpoint but api is chat", "use api completions"}},
		{"http://h:1/v1/chat/completions", "completions", []string{`url "http://h:1/v1/chat/completions" is the chat endpoint but api is completions`, "use api chat", "/completions", "base URL"}},
		{"http://h:1/v1/chat/completions/", "completions", []string{"the chat endpoint but api is completions", "use api chat"}},
		{azure + "/chat/completions?api-version=2024-06-01", "completions", []string{`url "` + azure + `/chat/completions" is the chat endpoint but api is completions`}},
		{azure + "/completions?api-version=2024-06-01", "chat", []string{"the completions endpoint but api is chat"}},
		{"http://u:secret@h:1/v1/completions?api-key=k", "chat", []string{`url "http://h:1/v1/completions" is the completions endpoint`}},
		{"http://h:1/v1/embeddings", "chat", []string{`url "http://h:1/v1/embeddings" is the embeddings endpoint`, "chat or completions"}},
		{"http://h:1/v1/embeddings/", "completions", []string{"the embeddings endpoint"}},
		{"http://h:1/v1/responses", "chat", []string{`url "http://h:1/v1/responses" is the responses endpoint`, "base URL"}},
		{"http://h:1/v1/responses/", "completions", []string{"the responses endpoint"}},
		{azure + "/embeddings?api-version=2024-06-01", "chat", []string{"the embeddings endpoint"}},
	} {
		got, err := capture.Endpoint(c.base, c.api)
		if err == nil {
			t.Errorf("Endpoint(%q, %q) = %q: want an error", c.base, c.api, got)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Endpoint(%q, %q): error %q: want %q in it", c.base, c.api, err, w)
			}
		}
		if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "api-key") {
			t.Errorf("Endpoint(%q, %q): error %q holds a credential", c.base, c.api, err)
		}
	}
}

// TestMetaAPIMismatch: the trace's metadata never says one API beside the
// other's endpoint: Meta refuses the pair, Run refuses it before sending a
// request, and an empty API takes the endpoint's when the url names one.
func TestMetaAPIMismatch(t *testing.T) {
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
	}))
	defer ts.Close()
	o := capture.Options{URL: ts.URL + "/v1/completions", API: "chat", Requests: 2, Concurrency: 1}
	if m, err := capture.Meta(o); err == nil {
		api, _ := m.Get(trace.KeyRunPrefix + "api")
		u, _ := m.Get(trace.KeyRunPrefix + "url")
		t.Errorf("Meta: no error; it records api %q with url %q", api, u)
	}
	var got collect
	if _, err := capture.Run(context.Background(), o, &got); err == nil || !strings.Contains(err.Error(), "api is chat") {
		t.Errorf("Run: error %v, want the mismatch", err)
	}
	if n := hits.Load(); n != 0 || len(got.reqs) != 0 {
		t.Errorf("%d requests reached the server, %d written: want none", n, len(got.reqs))
	}
	for _, c := range []struct{ path, api string }{
		{"/v1/completions", "completions"}, {"/v1/chat/completions/", "chat"}, {"/v1", "chat"}, {"", "chat"},
	} {
		m, err := capture.Meta(capture.Options{URL: ts.URL + c.path, Requests: 1, Concurrency: 1})
		if err != nil {
			t.Errorf("url %s, no api: %v", c.path, err)
			continue
		}
		if api, _ := m.Get(trace.KeyRunPrefix + "api"); api != c.api {
			t.Errorf("url %s, no api: run api %q, want %q", c.path, api, c.api)
		}
	}
}

// TestEndpointOtherSuggestion: the path suggested for a url of another
// endpoint keeps the url's prefix, and /v1 of /v1/models.
func TestEndpointOtherSuggestion(t *testing.T) {
	for _, c := range []struct{ base, api, want string }{
		{"http://h:1/v1/models", "chat", "the path /v1/chat/completions (api chat)"},
		{"http://h:1/x/v1/embeddings", "completions", "the path /x/v1/completions (api completions)"},
		{"https://r.openai.azure.com/openai/deployments/d/embeddings?api-version=2024-06-01", "chat", "the path /openai/deployments/d/chat/completions (api chat)"},
		{"http://h:1/generate", "chat", "the path /v1/chat/completions (api chat)"},
	} {
		if _, err := capture.Endpoint(c.base, c.api); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Endpoint(%q, %q): error %v, want %q in it", c.base, c.api, err, c.want)
		}
	}
}

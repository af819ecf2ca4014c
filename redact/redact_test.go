package redact

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

const key = "sk-proj-0123456789abcdef"

func TestFromHeader(t *testing.T) {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+key)
	h.Set("Api-Key", "azure-key-abcdefgh")
	h.Set("X-Custom-Token", "short")            // under MinLen: left out
	h.Set("Content-Type", "application/json-x") // not a credential
	s := FromHeader(h)
	var got []string
	for _, v := range s {
		got = append(got, string(v))
	}
	want := []string{"Bearer " + key, key, "azure-key-abcdefgh"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("secrets %q, want %q (longest first)", got, want)
	}
}

// A key a server echoes, whole in one read or split over two, in the error
// and in the request body: masked byte for byte, the reads' lengths kept.
func TestRequest(t *testing.T) {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+key)
	s := FromHeader(h)
	body := `data: {"error":"Incorrect API key provided: ` + key + `"}` + "\n\n" + `data: {"echo":"` + key + `"}` + "\n\n"
	cut := strings.LastIndex(body, key) + 5 // the second key split over two reads
	errText := "401: " + key
	r := &trace.Request{
		Chunks: []trace.Chunk{{TNs: 1, Data: []byte(body[:cut])}, {TNs: 2, Data: []byte(body[cut:])}},
		Error:  &errText,
		Extra:  []trace.Value{{Str: "prompt " + key}, {Bytes: []byte(`{"k":"` + key + `"}`)}, {Null: true}},
	}
	if n := s.Request(r); n != 5 {
		t.Errorf("masked %d, want 5", n)
	}
	var got []byte
	for _, c := range r.Chunks {
		got = append(got, c.Data...)
	}
	mask := strings.Repeat("*", len(key))
	if want := strings.ReplaceAll(body, key, mask); string(got) != want || len(r.Chunks[0].Data) != cut {
		t.Errorf("body %q, want %q", got, want)
	}
	if *r.Error != "401: "+mask || r.Extra[0].Str != "prompt "+mask || bytes.Contains(r.Extra[1].Bytes, []byte(key)) {
		t.Errorf("error %q, extras %+v", *r.Error, r.Extra)
	}
	// Nothing to mask: nothing changed.
	clean := &trace.Request{Chunks: []trace.Chunk{{Data: []byte("data: {}\n\n")}}}
	if n := s.Request(clean); n != 0 || string(clean.Chunks[0].Data) != "data: {}\n\n" {
		t.Errorf("clean request: %d, %q", n, clean.Chunks[0].Data)
	}
}

func FuzzBytes(f *testing.F) {
	f.Add([]byte("xx"+key+"yy"+key), key)
	f.Add([]byte("aaaaaaaaaaaa"), "aaaaaaaa")
	f.Fuzz(func(t *testing.T, b []byte, secret string) {
		s := Secrets{}.add(secret)
		orig := bytes.Clone(b)
		s.Bytes(b)
		if len(b) != len(orig) {
			t.Fatal("length changed")
		}
		if len(s) > 0 && bytes.Contains(b, s[0]) && !bytes.Contains(s[0], []byte{Mask}) {
			t.Fatalf("secret %q left in %q", s[0], b)
		}
		for i := range b { // only masked bytes differ
			if b[i] != orig[i] && b[i] != Mask {
				t.Fatalf("byte %d: %q became %q", i, orig[i], b[i])
			}
		}
	})
}

// TestFromRequest: a key in the query string is a secret as one in a
// header is; other parameters and short values are not.
func TestFromRequest(t *testing.T) {
	r := httptest.NewRequest("POST", "/v1/chat/completions?key=AIzaSy-QUERY-KEY-0123&api-key=short&model=a-long-model-name", nil)
	r.Header.Set("Authorization", "Bearer sk-header-key-0123456789")
	got := FromRequest(r)
	want := Secrets{[]byte("Bearer sk-header-key-0123456789"), []byte("sk-header-key-0123456789"), []byte("AIzaSy-QUERY-KEY-0123")}
	if !slices.EqualFunc(got, want, bytes.Equal) {
		t.Errorf("secrets %q, want %q", got, want)
	}
	if h := FromHeader(r.Header); len(h) != 2 {
		t.Errorf("FromHeader took %q: the query is not a header", h)
	}
	u := httptest.NewRequest("POST", "http://user:url-password-0123@host/v1", nil)
	if got := FromRequest(u); len(got) != 1 || string(got[0]) != "url-password-0123" {
		t.Errorf("secrets of a URL with a password: %q", got)
	}
}

// Package redact masks credentials in what a trace records. A recorder
// (audit capture, audit tap) never stores a request's headers, but a server
// may echo a key back: "Incorrect API key provided: sk-…" in a 401 body, a
// debug field of an event. The header values that are credentials are the
// secrets; each occurrence in a recorded body, error or request body is
// masked byte for byte ('*' for each byte), so the read boundaries, the
// byte counts and the framing stay as received.
//
// A body recorded encoded (gzip, br, …) is masked as its bytes are, not as
// they decode: a key inside compressed bytes is not found.
package redact

import (
	"bytes"
	"net/http"
	"slices"
	"strings"

	"github.com/sseaudit/sseaudit/trace"
)

// MinLen is the shortest value taken as a secret: masking shorter strings
// would hit innocent bytes.
const MinLen = 8

// Mask is the byte each byte of a secret becomes.
const Mask = '*'

// Secrets are the values to mask, longest first (a key that contains
// another is masked whole).
type Secrets [][]byte

// credential says whether a header or query parameter carries a credential.
func credential(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"authorization", "key", "token", "secret", "auth", "cookie", "password", "signature"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// FromHeader are the credentials among h's values: every value of a header
// whose name says credential (Authorization, api-key, X-Api-Key, Cookie,
// …), and for an Authorization-like value "Scheme token" the token alone
// too. Values shorter than MinLen are left out.
func FromHeader(h http.Header) Secrets { return Secrets(nil).fromNamed(h) }

// FromRequest are FromHeader's credentials of r's header, those of its
// query parameters named as credentials (?key=, ?api-key=) and its URL's
// password: a server may echo a key from the URL as it may one from a
// header.
func FromRequest(r *http.Request) Secrets {
	var s Secrets
	if p, ok := r.URL.User.Password(); ok {
		s = s.add(p)
	}
	return s.fromNamed(r.Header, r.URL.Query())
}

// fromNamed adds the credentials among the named values of sets.
func (s Secrets) fromNamed(sets ...map[string][]string) Secrets {
	for _, set := range sets {
		for name, vs := range set {
			if !credential(name) {
				continue
			}
			for _, v := range vs {
				s = s.add(v)
				if _, token, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
					s = s.add(strings.TrimSpace(token))
				}
			}
		}
	}
	slices.SortFunc(s, func(a, b []byte) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return bytes.Compare(a, b)
	})
	return s
}

func (s Secrets) add(v string) Secrets {
	if len(v) < MinLen || slices.ContainsFunc(s, func(x []byte) bool { return string(x) == v }) {
		return s
	}
	return append(s, []byte(v))
}

// MaxLen is the length of the longest secret (0 when none).
func (s Secrets) MaxLen() int {
	if len(s) == 0 {
		return 0
	}
	return len(s[0])
}

// Bytes masks every secret in b, in place; it returns how many it masked.
func (s Secrets) Bytes(b []byte) int {
	n := 0
	for _, sec := range s {
		for i := 0; ; {
			j := bytes.Index(b[i:], sec)
			if j < 0 {
				break
			}
			for k := i + j; k < i+j+len(sec); k++ {
				b[k] = Mask
			}
			i += j + len(sec)
			n++
		}
	}
	return n
}

// String is s with every secret masked, and how many were.
func (s Secrets) String(v string) (string, int) {
	if len(s) == 0 || len(v) < MinLen {
		return v, 0
	}
	b := []byte(v)
	n := s.Bytes(b)
	if n == 0 {
		return v, 0
	}
	return string(b), n
}

// Request masks every secret in r: its body across its reads (a key split
// over two reads is masked in both), its error, and its extra string and
// binary cells. It returns how many it masked. The chunks' bytes are
// changed in place.
func (s Secrets) Request(r *trace.Request) int {
	if len(s) == 0 {
		return 0
	}
	n := 0
	var body []byte
	for _, c := range r.Chunks {
		body = append(body, c.Data...)
	}
	if m := s.Bytes(body); m > 0 {
		n += m
		off := 0
		for i := range r.Chunks {
			d := r.Chunks[i].Data
			copy(d, body[off:off+len(d)])
			off += len(d)
		}
	}
	if r.Error != nil {
		v, m := s.String(*r.Error)
		if m > 0 {
			r.Error = &v
			n += m
		}
	}
	for i := range r.Extra {
		x := &r.Extra[i]
		if x.Null {
			continue
		}
		if v, m := s.String(x.Str); m > 0 {
			x.Str, n = v, n+m
		}
		if len(x.Bytes) >= MinLen {
			n += s.Bytes(x.Bytes)
		}
	}
	return n
}

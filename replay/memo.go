package replay

import (
	"bytes"
	"hash/maphash"
)

// VerdictMemo remembers how payloads were classified, so that replaying one
// request with both framers parses each payload the two cut alike once. The
// classification of a payload depends on its bytes only, so a remembered
// verdict is the one classifying again would give. Reset it between
// requests; the zero value is ready to use. Not safe for concurrent use.
type VerdictMemo struct {
	seed    maphash.Seed
	index   map[uint64]int // payload hash → entries index (first of that hash)
	entries []memoEntry
	arena   []byte // the remembered payloads, back to back
}

type memoEntry struct {
	start, end int // the payload in arena
	v          verdict
	next       int // the next entry of the same hash, or -1
}

// Reset forgets every payload, keeping the memory for the next request.
func (m *VerdictMemo) Reset() {
	clear(m.index)
	m.entries = m.entries[:0]
	m.arena = m.arena[:0]
}

func (m *VerdictMemo) get(payload []byte) (verdict, bool) {
	if m.index == nil {
		return verdict{}, false
	}
	i, ok := m.index[maphash.Bytes(m.seed, payload)]
	for ok && i >= 0 {
		e := &m.entries[i]
		if bytes.Equal(m.arena[e.start:e.end], payload) {
			v := e.v
			if v.usage != nil { // each event its own Usage, as classify gives
				u := *v.usage
				v.usage = &u
			}
			return v, true
		}
		i = e.next
	}
	return verdict{}, false
}

func (m *VerdictMemo) put(payload []byte, v verdict) {
	if m.index == nil {
		m.seed = maphash.MakeSeed()
		m.index = map[uint64]int{}
	}
	h := maphash.Bytes(m.seed, payload)
	next := -1
	if i, ok := m.index[h]; ok {
		next = i
	}
	if v.usage != nil {
		u := *v.usage
		v.usage = &u
	}
	start := len(m.arena)
	m.arena = append(m.arena, payload...)
	m.entries = append(m.entries, memoEntry{start: start, end: len(m.arena), v: v, next: next})
	m.index[h] = len(m.entries) - 1
}

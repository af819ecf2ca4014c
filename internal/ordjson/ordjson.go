// Package ordjson holds the two JSON helpers sseaudit's reports share: an
// object that keeps its keys in the order they were set (reports read in
// AISBench's order and are byte-stable), and a float that spells the
// non-finite values as Python does.
package ordjson

import (
	"bytes"
	"encoding/json"
	"math"
)

// Object is a JSON object that keeps its keys in the order they were set.
type Object []Member

// Member is one key and value of an Object.
type Member struct {
	Key   string
	Value any
}

// Set appends key (keys are not checked for repeats: callers set each once).
func (o *Object) Set(key string, value any) { *o = append(*o, Member{key, value}) }

// MarshalJSON writes the members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Number is a float64 that JSON cannot always hold: non-finite values become
// the strings "Infinity", "-Infinity" and "NaN" (Python's spelling).
type Number float64

// MarshalJSON writes finite values as numbers, the others as strings.
func (n Number) MarshalJSON() ([]byte, error) {
	x := float64(n)
	switch {
	case math.IsNaN(x):
		return []byte(`"NaN"`), nil
	case math.IsInf(x, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(x, -1):
		return []byte(`"-Infinity"`), nil
	}
	return json.Marshal(x)
}

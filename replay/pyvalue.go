package replay

import "github.com/valyala/fastjson"

// Python's view of a parsed JSON value, for the tools' request functions
// (calc/vllm, calc/sglang): what json.loads made of it, its truth, a dict's
// member.

// Truthy is Python's truth value of v as json.loads builds it.
func Truthy(v *fastjson.Value) bool {
	if v == nil {
		return false
	}
	var c classifier
	return c.truthy(v)
}

// Member is dict.get(key) for a JSON object v: the last member of that name
// (json.loads keeps the last of duplicate keys), nil when absent.
func Member(v *fastjson.Value, key string) *fastjson.Value {
	return lastMember(v, key)
}

// PyTypeName is the name of the Python type json.loads gives v.
func PyTypeName(v *fastjson.Value) string { return pyTypeName(v) }

// PyInt is v as a Python int when json.loads makes one of it (an integer
// literal within int64).
func PyInt(v *fastjson.Value) (int64, bool) {
	if v == nil || v.Type() != fastjson.TypeNumber || pyTypeName(v) != "int" {
		return 0, false
	}
	n, err := v.Int64()
	return n, err == nil
}

// PyStrip is str.strip() of the valid UTF-8 text s: Python's notion of
// whitespace at both ends removed.
func PyStrip(s []byte) []byte {
	i, j := pyStrStrip(s)
	return s[i:j]
}

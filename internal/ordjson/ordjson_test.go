package ordjson

import (
	"encoding/json"
	"math"
	"testing"
)

func TestObjectKeepsOrder(t *testing.T) {
	var o Object
	o.Set("z", 1)
	o.Set("a", Number(math.Inf(-1)))
	o.Set("m", Object{{"x", Number(math.NaN())}, {"y", Number(0.1)}})
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":1,"a":"-Infinity","m":{"x":"NaN","y":0.1}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

package pynum

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"os"
	"strconv"
	"testing"
)

// TestSpreadAgainstNumpy checks NumpyStd and NumpyMedian bit for bit
// against numpy 1.24 (testdata/spread/gen.py).
func TestSpreadAgainstNumpy(t *testing.T) {
	f, err := os.Open("testdata/spread/spread.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Arrays []struct {
			Values      []string `json:"values"`
			Std, Median string
		} `json:"arrays"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	parse := func(s string) float64 {
		if s == "nan" {
			return math.NaN()
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for i, a := range g.Arrays {
		xs := make([]float64, len(a.Values))
		for k, v := range a.Values {
			xs[k] = parse(v)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"std", NumpyStd(xs), parse(a.Std)}, {"median", NumpyMedian(xs), parse(a.Median)}} {
			if math.Float64bits(c.got) != math.Float64bits(c.want) && !(math.IsNaN(c.got) && math.IsNaN(c.want)) {
				t.Errorf("array %d (%d values): %s %v, numpy %v", i, len(xs), c.name, c.got, c.want)
			}
		}
	}
	if !math.IsNaN(NumpyStd(nil)) || !math.IsNaN(NumpyMedian(nil)) {
		t.Error("std and median of nothing: want NaN")
	}
}

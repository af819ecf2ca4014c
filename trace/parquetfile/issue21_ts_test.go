package parquetfile

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestIssue21TimestampUnits: DuckDB writes a timestamp as TIMESTAMP(MICROS);
// such a column was read as nanoseconds (a TTFT of 0.1 ms instead of
// 100 ms). A time column is now read in its unit, nested or flat; a unit
// that cannot be nanoseconds (TIME, an unsigned integer) is refused.
func TestIssue21TimestampUnits(t *testing.T) {
	type chunk struct {
		TNs  int64  `parquet:"t_ns,timestamp(microsecond)"`
		Data []byte `parquet:"data"`
	}
	type row struct {
		RequestID string  `parquet:"request_id"`
		T0        int64   `parquet:"t0_ns,timestamp(millisecond)"`
		End       *int64  `parquet:"end_ns,optional,timestamp(microsecond)"`
		Chunks    []chunk `parquet:"chunks,list"`
	}
	end := int64(1_300_000)
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	if _, err := w.Write([]row{{RequestID: "r0", T0: 1_000, End: &end, Chunks: []chunk{{TNs: 1_100_000, Data: []byte("x")}}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, reqs, err := readAll(t, "ts.parquet", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	r := reqs[0]
	if r.T0Ns != 1_000_000_000 || *r.EndNs != 1_300_000_000 || r.Chunks[0].TNs != 1_100_000_000 {
		t.Errorf("nested: t0 %d, end %d, chunk %d: want 1e9, 1.3e9, 1.1e9 ns", r.T0Ns, *r.EndNs, r.Chunks[0].TNs)
	}

	// Flat, MICROS; then a value too large for nanoseconds.
	micros := parquet.Timestamp(parquet.Microsecond)
	flat := func(t0 int64) []byte {
		return writeRaw(t, []rawColumn{
			{"request_id", parquet.String(), []any{"r0", "r0"}},
			{"t0_ns", micros, []any{t0, t0}},
			{"t_ns", parquet.Optional(micros), []any{int64(1_100_000), int64(1_200_000)}},
			{"data", parquet.Optional(parquet.Leaf(parquet.ByteArrayType)), []any{[]byte("a"), []byte("b")}},
		}, nil)
	}
	_, reqs, err = readAll(t, "flat.parquet", flat(1_000_000))
	if err != nil || len(reqs) != 1 || reqs[0].T0Ns != 1_000_000_000 || reqs[0].Chunks[1].TNs != 1_200_000_000 {
		t.Errorf("flat: %v, %+v", err, reqs)
	}
	_, _, err = readAll(t, "flat.parquet", flat(1<<60))
	if err == nil || !strings.Contains(err.Error(), `flat.parquet: row 0, request "r0", column t0_ns: 1152921504606846976 units of 1000 ns is out of the int64 range of nanoseconds`) {
		t.Errorf("overflow: %v", err)
	}

	for _, node := range []parquet.Node{parquet.Time(parquet.Microsecond), parquet.Uint(64)} {
		cols := []rawColumn{
			{"request_id", parquet.String(), []any{"r0"}},
			{"t0_ns", parquet.Int(64), []any{int64(1)}},
			{"t_ns", parquet.Optional(node), []any{int64(2)}},
			{"data", parquet.Optional(parquet.Leaf(parquet.ByteArrayType)), []any{[]byte("a")}},
		}
		if node.Type().Kind() != parquet.Int64 {
			t.Fatalf("%v is not INT64", node.Type())
		}
		_, _, err := readAll(t, "time.parquet", writeRaw(t, cols, nil))
		if err == nil || !strings.Contains(err.Error(), "column t_ns: has type INT64") || !strings.Contains(err.Error(), "want INT64 nanoseconds, or a TIMESTAMP (MILLIS, MICROS or NANOS)") {
			t.Errorf("%v: %v", node.Type(), err)
		}
	}
}

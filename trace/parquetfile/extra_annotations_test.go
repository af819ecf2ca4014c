package parquetfile

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/sseaudit/sseaudit/trace"
)

// TestExtraIntegerAnnotations: an INT32/INT64 extra column that is
// not a signed integer (a DECIMAL, whose stored integer is the value times
// 10^scale; an unsigned 32- or 64-bit integer, whose large values wrap to
// negative as int32/int64) was read as the stored signed integer: DuckDB's
// 1.5 (DECIMAL(2,1)) came back as 15, UINTEGER 4000000000 as -294967296,
// UBIGINT 2^64-1 as -1, without a word. Each column must either read as the
// number written or be refused with an error naming it.
//
// testdata/duckdb-decimal-uint.parquet was written by DuckDB 1.x
// (@duckdb/node-api), default COPY settings:
//
//	COPY (SELECT 'r0' AS request_id, 1000::BIGINT AS t0_ns,
//	  [{'t_ns': 2000::BIGINT, 'data': 'x'::BLOB}] AS chunks, 1.5 AS cost,
//	  4000000000::UINTEGER AS u32, 18446744073709551615::UBIGINT AS u64)
//	TO 'duckdb-decimal-uint.parquet' (FORMAT parquet)
func TestExtraIntegerAnnotations(t *testing.T) {
	duck, err := os.ReadFile("testdata/duckdb-decimal-uint.parquet")
	if err != nil {
		t.Fatal(err)
	}
	u32 := uint32(4_000_000_000)
	u64 := ^uint64(0)
	raw := func(name string, node parquet.Node, stored any) []byte {
		return writeRaw(t, []rawColumn{
			{"request_id", parquet.String(), []any{"r0"}},
			{"t0_ns", parquet.Leaf(parquet.Int64Type), []any{int64(1000)}},
			{"t_ns", parquet.Optional(parquet.Leaf(parquet.Int64Type)), []any{nil}},
			{"data", parquet.Optional(parquet.Leaf(parquet.ByteArrayType)), []any{nil}},
			{name, node, []any{stored}},
		}, map[string]string{trace.KeySchemaVersion: "1"})
	}
	type col struct{ name, written string }
	for _, tc := range []struct {
		name string
		data []byte
		cols []col // the value each holds as written
	}{
		{"duckdb", duck, []col{{"cost", "1.5"}, {"u32", "4000000000"}, {"u64", "18446744073709551615"}}},
		{"DECIMAL(18,2) INT64", raw("price", parquet.Decimal(2, 18, parquet.Int64Type), int64(1234)), []col{{"price", "12.34"}}},
		{"UINT_32", raw("n", parquet.Uint(32), int32(u32)), []col{{"n", "4000000000"}}},
		{"UINT_64", raw("n", parquet.Uint(64), int64(u64)), []col{{"n", "18446744073709551615"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, reqs, err := readAll(t, "x.parquet", tc.data)
			if err != nil {
				for _, c := range tc.cols {
					if strings.Contains(err.Error(), "column "+c.name+":") {
						return // refused, naming the column
					}
				}
				t.Fatalf("error %q names none of the columns %v", err, tc.cols)
			}
			for _, c := range tc.cols {
				found := false
				for i, x := range info.Extra {
					if x.Name != c.name {
						continue
					}
					found = true
					v := reqs[0].Extra[i]
					var got string
					switch x.Kind {
					case trace.ExtraInt64:
						got = formatInt(v.Int)
					case trace.ExtraFloat64:
						got = formatFloat(v.Float)
					default:
						got = v.Str
					}
					if got != c.written {
						t.Errorf("column %s (%v): read %s, written %s", c.name, x.Kind, got, c.written)
					}
				}
				if !found {
					t.Errorf("no extra column %s in %v", c.name, info.Extra)
				}
			}
		})
	}
}

func formatInt(v int64) string     { return strconv.FormatInt(v, 10) }
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

package parquetedit_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/format"

	"github.com/sseaudit/sseaudit/trace/parquetfile/parquetedit"
)

func TestEditsKeepTheFileReadable(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/traces/basic.parquet")
	if err != nil {
		t.Fatal(err)
	}
	same, err := parquetedit.EditFooter(data, func(*format.FileMetaData) {})
	if err != nil || !bytes.Equal(same, data) {
		t.Fatalf("an empty edit changed the file (err %v)", err)
	}
	inflated, err := parquetedit.InflateFirstPage(data, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	md, err := parquetedit.Footer(inflated)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := parquetedit.Footer(data)
	delta := len(inflated) - len(data)
	if delta == 0 || md.RowGroups[0].Columns[1].MetaData.DataPageOffset != before.RowGroups[0].Columns[1].MetaData.DataPageOffset+int64(delta) {
		t.Fatalf("offsets not shifted by the header's growth of %d bytes", delta)
	}
}

func TestNotParquet(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("PAR1"), []byte("not a parquet file at all"), []byte("PAR1\xff\xff\xff\x7fPAR1")} {
		if _, err := parquetedit.EditFooter(data, func(*format.FileMetaData) {}); err == nil || !strings.Contains(err.Error(), "parquetedit:") {
			t.Errorf("%q: err %v, want a parquetedit error", data, err)
		}
		if _, err := parquetedit.InflateFirstPage(data, 1); err == nil {
			t.Errorf("%q: InflateFirstPage accepted it", data)
		}
	}
}

// Command make writes the committed hostile inputs of testdata/hostile: small
// files that break the schema's rules, lie in their metadata or are cut
// short. Inputs that are large once read (a 100 MB chunk, a million
// requests, JSON nested millions deep) are not committed: the corpus test
// builds them in a temporary directory (cmd/audit/hostile_test.go).
//
//	go run ./testdata/hostile/make
//
// Every file is written the same way on every run; CASES.tsv says what the
// audit command must do with each.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/sseaudit/sseaudit/trace"
	_ "github.com/sseaudit/sseaudit/trace/arrowfile"
	_ "github.com/sseaudit/sseaudit/trace/parquetfile"
	"github.com/sseaudit/sseaudit/trace/parquetfile/parquetedit"
)

var dir = filepath.Join("testdata", "hostile")

func main() {
	log.SetFlags(0)
	for name, content := range jsonlFiles() {
		write(name, []byte(content))
	}
	binaries()
}

func write(name string, data []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		log.Fatal(err)
	}
}

const (
	content = `data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n`
	done    = `data: [DONE]\n\n`
	run     = `{"run": {"max_concurrency": 1, "schema_version": "1", "source": "testdata/hostile/make"}}` + "\n"
)

// req is one JSONL request line with a content event and [DONE].
func req(id string, t0 int64) string {
	return fmt.Sprintf(`{"request_id": %q, "t0_ns": %d, "end_ns": %d, "http_status": 200, "chunks": [{"t_ns": %d, "data": "%s"}, {"t_ns": %d, "data": "%s"}]}`+"\n",
		id, t0, t0+300, t0+100, content, t0+200, done)
}

func jsonlFiles() map[string]string {
	good := run + req("r0", 1000) + req("r1", 2000)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	return map[string]string{
		"jsonl-cut-mid-line.jsonl":        good + req("r2", 3000)[:60],
		"jsonl-no-final-newline.jsonl":    strings.TrimSuffix(good, "\n"),
		"jsonl-nul-raw.jsonl":             good + `{"request_id": "r` + "\x00" + `", "t0_ns": 1}` + "\n",
		"jsonl-nul-in-body.jsonl":         run + `{"request_id": "r0", "t0_ns": 1000, "end_ns": 1300, "http_status": 200, "chunks": [{"t_ns": 1100, "data": "data: \u0000{}\u0000\n\n"}, {"t_ns": 1200, "data": "` + done + `"}]}` + "\n",
		"jsonl-invalid-utf8.jsonl":        good + `{"request_id": "r` + "\xff\xfe" + `", "t0_ns": 1}` + "\n",
		"jsonl-invalid-utf8-body.jsonl":   run + fmt.Sprintf(`{"request_id": "r0", "t0_ns": 1000, "end_ns": 1300, "http_status": 200, "chunks": [{"t_ns": 1100, "data_b64": %q}]}`+"\n", b64("data: {\"choices\":[{\"delta\":{\"content\":\"\xff\xfe\"}}]}\n\n")),
		"jsonl-clock-back.jsonl":          run + `{"request_id": "r0", "t0_ns": 1000, "chunks": [{"t_ns": 1200, "data": "a"}, {"t_ns": 1100, "data": "b"}]}` + "\n",
		"jsonl-chunk-before-t0.jsonl":     run + `{"request_id": "r0", "t0_ns": 1000, "chunks": [{"t_ns": 900, "data": "a"}]}` + "\n",
		"jsonl-end-before-chunk.jsonl":    run + `{"request_id": "r0", "t0_ns": 1000, "end_ns": 1100, "chunks": [{"t_ns": 1200, "data": "a"}]}` + "\n",
		"jsonl-duplicate-id.jsonl":        good + req("r0", 3000),
		"jsonl-duplicate-key.jsonl":       run + `{"request_id": "r0", "t0_ns": 1000, "chunks": [{"t_ns": 1100, "data": "a"}], "chunks": []}` + "\n",
		"jsonl-duplicate-chunk-key.jsonl": run + `{"request_id": "r0", "t0_ns": 1000, "chunks": [{"t_ns": 1100, "data": "a", "data": "b"}]}` + "\n",
		"jsonl-empty-id.jsonl":            run + `{"request_id": "", "t0_ns": 1000}` + "\n",
		"jsonl-t0-overflow.jsonl":         run + `{"request_id": "r0", "t0_ns": 99999999999999999999}` + "\n",
		"jsonl-negative-tokens.jsonl":     run + `{"request_id": "r0", "t0_ns": 1000, "output_tokens": -5}` + "\n",
		"jsonl-inf-time-point.jsonl":      run + `{"request_id": "r0", "t0_ns": 1000, "time_points_s": [1.0, 1e999]}` + "\n",
		"jsonl-schema-v2.jsonl":           `{"run": {"schema_version": "2"}}` + "\n" + req("r0", 1000),
		"jsonl-run-twice.jsonl":           good + run,
		"jsonl-bad-base64.jsonl":          run + `{"request_id": "r0", "t0_ns": 1000, "chunks": [{"t_ns": 1100, "data_b64": "not base64!"}]}` + "\n",
		"jsonl-big-chunk.jsonl":           run + `{"request_id": "r0", "t0_ns": 1000, "chunks": [{"t_ns": 1100, "data": "` + strings.Repeat("x", 100) + `"}]}` + "\n",
		"jsonl-five-requests.jsonl":       run + req("r0", 1000) + req("r1", 2000) + req("r2", 3000) + req("r3", 4000) + req("r4", 5000),
		"jsonl-array-line.jsonl":          run + `[{"request_id": "r0", "t0_ns": 1000}]` + "\n",
		"jsonl-nested-400.jsonl":          run + `{"request_id": "r0", "t0_ns": 1000, "x": ` + strings.Repeat("[", 400) + strings.Repeat("]", 400) + "}\n",
		// What Python's surrogateescape writes for bytes that are not UTF-8
		// (issue 21): the bytes, or an error; a lone \ud800 is an error.
		"jsonl-surrogateescape-data.jsonl": run + `{"request_id": "r0", "t0_ns": 1000, "end_ns": 1300, "http_status": 200, "chunks": [{"t_ns": 1100, "data": "data: \udce9\udce9x\n\n"}]}` + "\n",
		"jsonl-surrogateescape-id.jsonl":   run + req("r0", 1000) + `{"request_id": "r\udce9", "t0_ns": 2000}` + "\n",
		"jsonl-lone-surrogate.jsonl":       run + `{"request_id": "r0", "t0_ns": 1000, "chunks": [{"t_ns": 1100, "data": "\ud800"}]}` + "\n",
		// Time points going back (issue 21): a negative TTFT, read silently.
		"jsonl-time-points-back.jsonl": run + `{"request_id": "r0", "t0_ns": 1000000000, "http_status": 200, "time_points_s": [1.0, 0.5, 0.6], "output_tokens": 2}` + "\n" +
			`{"request_id": "r1", "t0_ns": 2000000000, "http_status": 200, "time_points_s": [2.0, 2.1, 2.2], "output_tokens": 2}` + "\n",
		// Two requests 2^64-1 ns apart: inspect's time span said -0.000 s.
		"jsonl-span-int64.jsonl": run + fmt.Sprintf(`{"request_id": "r0", "t0_ns": %d, "end_ns": %d, "http_status": 200}`+"\n", int64(math.MinInt64), int64(math.MinInt64)+1000) +
			fmt.Sprintf(`{"request_id": "r1", "t0_ns": %d, "end_ns": %d, "http_status": 200}`+"\n", int64(math.MaxInt64)-1000, int64(math.MaxInt64)),
		"jsonl-long-id.jsonl": run + req("r0", 1000) + req("r"+strings.Repeat("x", 5000), 2000),
	}
}

func ptr[T any](v T) *T { return &v }

// requests is a small valid trace.
func requests(n int) []trace.Request {
	var rs []trace.Request
	for i := range n {
		t0 := int64(1_000_000_000 + i*1_000_000)
		rs = append(rs, trace.Request{
			RequestID: fmt.Sprintf("r%d", i), T0Ns: t0, EndNs: ptr(t0 + 300_000), HTTPStatus: ptr(int32(200)),
			Chunks: []trace.Chunk{
				{TNs: t0 + 100_000, Data: []byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n")},
				{TNs: t0 + 200_000, Data: []byte("data: [DONE]\n\n")},
			},
		})
	}
	return rs
}

// encode writes reqs in a format and layout, without the checks a reader
// makes (the writers do not check).
func encode(format string, layout trace.Layout, reqs []trace.Request, groupRequests int) []byte {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("hostile-make-%d.%s", os.Getpid(), format))
	defer os.Remove(path)
	meta := trace.Meta{}
	meta.Set(trace.KeyMaxConcurrency, "1")
	meta.Set(trace.KeySource, "testdata/hostile/make")
	w, err := trace.Create(path, format, nil, trace.WriteOptions{Meta: meta, Layout: layout, RowGroupRequests: groupRequests})
	if err != nil {
		log.Fatal(err)
	}
	for i := range reqs {
		if err := w.Write(&reqs[i]); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	return b
}

func binaries() {
	good := encode("parquet", trace.Nested, requests(4), 2)
	write("pq-truncated.parquet", good[:len(good)/2])
	write("pq-empty.parquet", nil)
	write("pq-named-arrow.arrow", good)

	footerLen := bytes.Clone(good)
	binary.LittleEndian.PutUint32(footerLen[len(footerLen)-8:], math.MaxUint32-16)
	write("pq-footer-4gb.parquet", footerLen)

	write("pq-rows-1t.parquet", rewriteFooter(good, func(md *format.FileMetaData) {
		md.RowGroups[0].NumRows = 1 << 40
		md.NumRows = 1 << 40
	}))
	write("pq-column-1tb.parquet", rewriteFooter(good, func(md *format.FileMetaData) {
		md.RowGroups[0].Columns[0].MetaData.TotalCompressedSize = 1 << 40
	}))
	write("pq-values-1t.parquet", rewriteFooter(good, func(md *format.FileMetaData) {
		md.RowGroups[0].Columns[0].MetaData.NumValues = 1 << 40
	}))
	write("pq-children-1g.parquet", rewriteFooter(good, func(md *format.FileMetaData) {
		md.Schema[0].NumChildren = thrift.New(int32(1 << 30))
	}))
	write("pq-page-2gb.parquet", inflatePageHeader(good, 2_000_000_000))
	// The last row group's bytes are gone but the footer still lists it.
	write("pq-row-group-cut.parquet", cutLastRowGroup(good))

	dup := requests(3)
	dup[2].RequestID = "r0"
	write("pq-duplicate-id.parquet", encode("parquet", trace.Nested, dup, 0))
	back := requests(2)
	back[1].Chunks[1].TNs = back[1].Chunks[0].TNs - 1
	write("pq-clock-back.parquet", encode("parquet", trace.Nested, back, 0))
	bad := requests(2)
	bad[1].RequestID = "r\xff\xfe"
	write("pq-invalid-utf8-id.parquet", encode("parquet", trace.Nested, bad, 0))
	nul := requests(2)
	nul[1].RequestID = "r\x00nul"
	write("pq-nul-id.parquet", encode("parquet", trace.Nested, nul, 0))
	write("pq-flat-noncontiguous.parquet", nonContiguousFlat("parquet"))
	write("arrow-flat-noncontiguous.arrow", nonContiguousFlat("arrow"))

	file := encode("arrow", trace.Nested, requests(4), 2)
	write("arrow-truncated.arrow", file[:len(file)*2/3])
	write("arrow-footer-junk.arrow", corruptFooter(file))
	write("arrow-dup-id.arrow", encode("arrow", trace.Nested, dup, 0))
	stream := encode("arrows", trace.Nested, requests(4), 2)
	write("arrows-metadata-2gb.arrows", patchStreamMetaLength(stream))
	write("arrows-body-1tb.arrows", patchStreamBodyLength(stream))
	write("arrows-decompressed-1tb.arrows", patchDecompressedLength(stream))
	_, _, _, body := firstBatch(stream)
	write("arrows-cut-mid-batch.arrows", stream[:body+8])
	_, _, lenAt, _ := firstBatch(stream)
	end := body + int(binary.LittleEndian.Uint64(stream[lenAt:]))
	write("arrows-no-eos.arrows", stream[:end])
	// Two streams one after the other: the second was never read.
	write("arrows-after-eos.arrows", append(encode("arrows", trace.Nested, requests(5), 0), encode("arrows", trace.Nested, requests(5), 0)...))
	write("pq-timestamp-micros.parquet", timestampMicros())
	write("arrow-dictionary-id.arrow", dictionaryIDs())
	// One id of 1 MiB, a few hundred bytes once compressed.
	long := requests(3)
	long[1].RequestID = strings.Repeat("x", 1<<20)
	write("arrows-id-1mib.arrows", encode("arrows", trace.Nested, long, 0))
}

// nonContiguousFlat is a flat trace whose requests' rows interleave:
// r0 r1 r0 r1 r2 r2 (6 rows).
func nonContiguousFlat(format string) []byte {
	reqs := requests(3)
	a, b := reqs[0], reqs[1]
	a1, a2, b1, b2 := a, a, b, b
	a1.Chunks, a2.Chunks = a.Chunks[:1], a.Chunks[1:]
	b1.Chunks, b2.Chunks = b.Chunks[:1], b.Chunks[1:]
	// Written as separate requests in the flat layout, the rows of r0 and r1
	// interleave; the writer does not check ids.
	return encode(format, trace.Flat, []trace.Request{a1, b1, a2, b2, reqs[2]}, 0)
}

func rewriteFooter(data []byte, edit func(*format.FileMetaData)) []byte {
	out, err := parquetedit.EditFooter(data, edit)
	if err != nil {
		log.Fatal(err)
	}
	return out
}

func footerOf(data []byte) format.FileMetaData {
	md, err := parquetedit.Footer(data)
	if err != nil {
		log.Fatal(err)
	}
	return md
}

// inflatePageHeader makes the first page header of the file claim
// uncompressed bytes, shifting the offsets in the footer to match.
func inflatePageHeader(data []byte, uncompressed int32) []byte {
	out, err := parquetedit.InflateFirstPage(data, uncompressed)
	if err != nil {
		log.Fatal(err)
	}
	return out
}

// cutLastRowGroup removes the data bytes of the last row group, keeping the
// footer that lists it.
func cutLastRowGroup(data []byte) []byte {
	md := footerOf(data)
	last := md.RowGroups[len(md.RowGroups)-1]
	start := int64(math.MaxInt64)
	for _, c := range last.Columns {
		off := c.MetaData.DataPageOffset
		if d := c.MetaData.DictionaryPageOffset; d > 0 && d < off {
			off = d
		}
		start = min(start, off)
	}
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	footer := data[len(data)-8-n:]
	return append(bytes.Clone(data[:start]), footer...)
}

// The helpers below patch Arrow IPC bytes as trace/arrowfile's tests do.

func corruptFooter(file []byte) []byte {
	out := bytes.Clone(file)
	n := len(out)
	size := int(binary.LittleEndian.Uint32(out[n-10:]))
	for i := n - 10 - size; i < n-10; i++ {
		out[i] = 0xa5
	}
	return out
}

func streamMessage(stream []byte, off int) (metaStart, metaLen int) {
	return off + 8, int(binary.LittleEndian.Uint32(stream[off+4:]))
}

func patchStreamMetaLength(stream []byte) []byte {
	out := bytes.Clone(stream)
	binary.LittleEndian.PutUint32(out[4:], math.MaxInt32)
	return out
}

func firstBatch(stream []byte) (metaStart, metaLen, bodyLenAt, bodyStart int) {
	s, l := streamMessage(stream, 0)
	metaStart, metaLen = streamMessage(stream, s+l)
	bodyStart = metaStart + metaLen
	for at := metaStart; at+8 <= bodyStart; at++ {
		b := int(binary.LittleEndian.Uint64(stream[at:]))
		if b > 0 && b%8 == 0 && bodyStart+b+4 <= len(stream) && binary.LittleEndian.Uint32(stream[bodyStart+b:]) == 0xFFFFFFFF {
			return metaStart, metaLen, at, bodyStart
		}
	}
	log.Fatal("cannot find the body length of the first record batch")
	return
}

func patchStreamBodyLength(stream []byte) []byte {
	out := bytes.Clone(stream)
	_, _, at, _ := firstBatch(out)
	binary.LittleEndian.PutUint64(out[at:], 1<<40)
	return out
}

func patchDecompressedLength(stream []byte) []byte {
	out := bytes.Clone(stream)
	_, _, _, body := firstBatch(out)
	binary.LittleEndian.PutUint64(out[body:], 1<<40)
	return out
}

// timestampMicros is a nested trace whose time columns are TIMESTAMP(MICROS),
// as DuckDB writes a timestamp: each was read as nanoseconds (issue 21).
func timestampMicros() []byte {
	type chunk struct {
		TNs  int64  `parquet:"t_ns,timestamp(microsecond)"`
		Data []byte `parquet:"data"`
	}
	type row struct {
		RequestID  string  `parquet:"request_id"`
		T0         int64   `parquet:"t0_ns,timestamp(microsecond)"`
		End        int64   `parquet:"end_ns,timestamp(microsecond)"`
		HTTPStatus int32   `parquet:"http_status"`
		Chunks     []chunk `parquet:"chunks,list"`
	}
	var rows []row
	for i := range 2 {
		t0 := int64(1_000_000 + i*1_000_000)
		rows = append(rows, row{RequestID: fmt.Sprintf("r%d", i), T0: t0, End: t0 + 300_000, HTTPStatus: 200, Chunks: []chunk{
			{TNs: t0 + 100_000, Data: []byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n")},
			{TNs: t0 + 200_000, Data: []byte("data: [DONE]\n\n")},
		}})
	}
	var b bytes.Buffer
	w := parquet.NewGenericWriter[row](&b, parquet.KeyValueMetadata(trace.KeyMaxConcurrency, "1"))
	if _, err := w.Write(rows); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	return b.Bytes()
}

// dictionaryIDs is an Arrow file whose request_id is dictionary-encoded, as
// pandas writes a categorical column: it was refused (issue 21).
func dictionaryIDs() []byte {
	mem := memory.NewGoAllocator()
	dict := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	chunk := arrow.StructOf(arrow.Field{Name: "t_ns", Type: arrow.PrimitiveTypes.Int64}, arrow.Field{Name: "data", Type: arrow.BinaryTypes.Binary})
	md := arrow.NewMetadata([]string{trace.KeyMaxConcurrency}, []string{"1"})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "request_id", Type: dict},
		{Name: "t0_ns", Type: arrow.PrimitiveTypes.Int64},
		{Name: "http_status", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "chunks", Type: arrow.ListOf(chunk), Nullable: true},
	}, &md)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i, r := range requests(3) {
		if err := b.Field(0).(*array.BinaryDictionaryBuilder).AppendString(r.RequestID); err != nil {
			log.Fatal(err)
		}
		b.Field(1).(*array.Int64Builder).Append(r.T0Ns)
		b.Field(2).(*array.Int32Builder).Append(200)
		lb := b.Field(3).(*array.ListBuilder)
		lb.Append(true)
		sb := lb.ValueBuilder().(*array.StructBuilder)
		for _, c := range r.Chunks {
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Int64Builder).Append(c.TNs + int64(i))
			sb.FieldBuilder(1).(*array.BinaryBuilder).Append(c.Data)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var out bytes.Buffer
	w, err := ipc.NewFileWriter(&out, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	return out.Bytes()
}

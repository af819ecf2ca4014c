package parquetfile

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/sseaudit/sseaudit/trace"
)

// issue18Requests are requests whose bodies vary in size (from nothing to
// 40 KB, so that values cross the windows of a streamed page), some
// failed, some with time points.
func issue18Requests() []trace.Request {
	reqs := sampleRequests()
	for i := range 60 {
		r := trace.Request{RequestID: fmt.Sprintf("gen-%03d", i), T0Ns: int64(1_000 * i), HTTPStatus: ptr[int32](200),
			Extra: []trace.Value{{Str: "m"}, {Int: int64(i % 3)}, {Float: 0.5}, {Bool: i%2 == 0}, {Null: true}, {Str: "{}"}}}
		if i%11 == 3 {
			r.HTTPStatus, r.Error = nil, ptr("connection reset")
		}
		for j := range i % 9 {
			size := (i*j*37)%200 + 1
			if i%13 == 0 && j == 1 {
				size = 40_000
			}
			r.Chunks = append(r.Chunks, trace.Chunk{TNs: int64(1_000*i + 10*j), Data: bytes.Repeat([]byte{byte('a' + j)}, size)})
		}
		if i%5 == 0 {
			r.TimePointsS = []float64{float64(i), float64(i) + 0.25}
		}
		reqs = append(reqs, r)
	}
	return reqs
}

// TestIssue18OneRowGroup checks that the same requests written as one row
// group, and as many, read back as the same records.
func TestIssue18OneRowGroup(t *testing.T) {
	reqs := issue18Requests()
	for _, layout := range []trace.Layout{trace.Nested, trace.Flat} {
		t.Run(string(layout), func(t *testing.T) {
			var first []trace.Request
			for _, groupRequests := range []int{len(reqs), 7, 1} {
				data := writeTrace(t, reqs, trace.WriteOptions{Extra: allExtras, Layout: layout, RowGroupRequests: groupRequests})
				_, got, err := readAll(t, "rowgroups.parquet", data)
				if err != nil {
					t.Fatal(err)
				}
				checkRequests(t, got, reqs, layout)
				if first == nil {
					first = got
				} else if !reflect.DeepEqual(got, first) {
					t.Errorf("row groups of %d requests read otherwise than one row group", groupRequests)
				}
			}
		})
	}
}

// streamEverything makes every data page a streamed one, cut into windows
// of a few values, for the rest of the test; with snappyWindow > 0, snappy
// matches beyond that many bytes back make the decoder decode the page
// whole.
func streamEverything(t *testing.T, snappyWindow int) {
	t.Helper()
	saved := []int{int(wholePageBytes), streamBlock, streamSlots, snappyHistory}
	wholePageBytes, streamBlock, streamSlots = 0, 100, 5
	if snappyWindow > 0 {
		snappyHistory = snappyWindow
	}
	t.Cleanup(func() {
		wholePageBytes, streamBlock, streamSlots, snappyHistory = int64(saved[0]), saved[1], saved[2], saved[3]
	})
}

// TestIssue18StreamedPages reads files whose column chunks are one large
// page each (as DuckDB writes them) through the streamed path, with every
// codec, both page versions and the encodings other writers use, and
// checks the records against those read with every page held whole.
func TestIssue18StreamedPages(t *testing.T) {
	reqs := issue18Requests()
	codecs := []struct {
		name  string
		codec compress.Codec
	}{
		{"uncompressed", &parquet.Uncompressed}, {"snappy", &parquet.Snappy}, {"gzip", &parquet.Gzip},
		{"brotli", &parquet.Brotli}, {"zstd", &parquet.Zstd}, {"lz4raw", &parquet.Lz4Raw},
	}
	encodings := []struct {
		name    string
		options []parquet.WriterOption
	}{
		{"plain", nil},
		{"dictionary", []parquet.WriterOption{parquet.DefaultEncoding(&parquet.RLEDictionary)}},
		{"delta", []parquet.WriterOption{parquet.DefaultEncodingFor(parquet.Int64, &parquet.DeltaBinaryPacked),
			parquet.DefaultEncodingFor(parquet.Int32, &parquet.DeltaBinaryPacked),
			parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.DeltaLengthByteArray)}},
		{"delta byte array", []parquet.WriterOption{parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.DeltaByteArray),
			parquet.DefaultEncodingFor(parquet.Double, &parquet.ByteStreamSplit)}},
	}
	for _, codec := range codecs {
		for _, enc := range encodings {
			for _, version := range []int{1, 2} {
				for _, layout := range []trace.Layout{trace.Nested, trace.Flat} {
					name := fmt.Sprintf("%s/%s/v%d/%s", codec.name, enc.name, version, layout)
					options := append([]parquet.WriterOption{parquet.Compression(codec.codec), parquet.DataPageVersion(version),
						parquet.PageBufferSize(64 << 20)}, enc.options...)
					data := writeTraceWith(t, reqs, trace.WriteOptions{Extra: allExtras, Layout: layout, RowGroupRequests: len(reqs)}, options...)
					_, whole, err := readAll(t, "whole.parquet", data)
					if err != nil {
						t.Fatalf("%s: read whole: %v", name, err)
					}
					checkRequests(t, whole, reqs, layout)
					t.Run(name, func(t *testing.T) {
						snappyWindow := 0
						if codec.name == "snappy" {
							snappyWindow = 64 // matches reach further: decoded whole
						}
						streamEverything(t, snappyWindow)
						_, got, err := readAll(t, "streamed.parquet", data)
						if err != nil {
							t.Fatal(err)
						}
						if !reflect.DeepEqual(got, whole) {
							checkRequests(t, got, reqs, layout)
							t.Error("the streamed pages read otherwise than the pages held whole")
						}
					})
				}
			}
		}
	}
}

// TestIssue18DamagedStreams reads streamed pages with a byte flipped here
// and there: each read ends in records or an error, never a panic.
func TestIssue18DamagedStreams(t *testing.T) {
	reqs := issue18Requests()
	for _, codec := range []compress.Codec{&parquet.Uncompressed, &parquet.Snappy, &parquet.Zstd, &parquet.Lz4Raw, &parquet.Gzip} {
		data := writeTraceWith(t, reqs, trace.WriteOptions{Extra: allExtras, RowGroupRequests: len(reqs)},
			parquet.Compression(codec), parquet.PageBufferSize(64<<20))
		t.Run(codec.CompressionCodec().String(), func(t *testing.T) {
			streamEverything(t, 0)
			// Flip bytes through the data area, one file at a time: every
			// read must end in records or an error.
			for off := 4; off < len(data)-8 && off < 20_000; off += 97 {
				bad := bytes.Clone(data)
				bad[off] ^= 0x5a
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("byte %d flipped: panic %v", off, p)
						}
					}()
					_, _, _ = readAll(t, "flipped.parquet", bad)
				}()
			}
		})
	}
}

// FuzzStreamedPages feeds damaged files to the reader with every data page
// streamed in windows of a few values (the path DuckDB's large pages take):
// it must end in requests or a *trace.Error, never a panic, whatever the
// codec and encoding.
func FuzzStreamedPages(f *testing.F) {
	reqs := issue18Requests()[:12]
	for _, codec := range []compress.Codec{&parquet.Uncompressed, &parquet.Snappy, &parquet.Zstd, &parquet.Lz4Raw, &parquet.Gzip} {
		for _, options := range [][]parquet.WriterOption{
			nil,
			{parquet.DefaultEncoding(&parquet.RLEDictionary), parquet.DataPageVersion(1)},
			{parquet.DefaultEncodingFor(parquet.Int64, &parquet.DeltaBinaryPacked),
				parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.DeltaByteArray)},
		} {
			options = append([]parquet.WriterOption{parquet.Compression(codec), parquet.PageBufferSize(64 << 20)}, options...)
			f.Add(writeTraceWith(f, reqs, trace.WriteOptions{Extra: allExtras, RowGroupRequests: len(reqs)}, options...))
		}
	}
	saved := []int{int(wholePageBytes), streamBlock, streamSlots, snappyHistory}
	// Windows of 64 slots, not 5: a damaged page may claim up to 2^24 slots
	// of levels alone, and windows of 5 made each such input take minutes.
	wholePageBytes, streamBlock, streamSlots, snappyHistory = 0, 100, 64, 64
	f.Cleanup(func() {
		wholePageBytes, streamBlock, streamSlots, snappyHistory = int64(saved[0]), saved[1], saved[2], saved[3]
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := openReader("fuzz.parquet", bytes.NewReader(data), int64(len(data)), trace.Limits{}, nil)
		if err == nil {
			for r.Scan() {
			}
			err = r.Err()
			r.Close()
		}
		if err == nil {
			return
		}
		var te *trace.Error
		if !errors.As(err, &te) {
			t.Fatalf("error %T %v: want a *trace.Error", err, err)
		}
		if strings.Contains(err.Error(), "the parquet library failed") {
			t.Fatalf("recovered panic: %v", err)
		}
	})
}

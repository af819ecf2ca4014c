package parquetfile

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestZstdContentSize checks the sizes zstd frames declare, and that the
// decoder the parquet library uses stops at a declared size that lies: the
// guard skips its trial decompression on the strength of it.
func TestZstdContentSize(t *testing.T) {
	big := bytes.Repeat([]byte("data: {}\n\n"), 100_000)
	frame, err := parquet.Zstd.Encode(nil, big)
	if err != nil {
		t.Fatal(err)
	}
	second, err := parquet.Zstd.Encode(nil, bytes.Repeat([]byte("y"), 300))
	if err != nil {
		t.Fatal(err)
	}
	unsized, err := parquet.Zstd.Encode(nil, []byte("x")) // too short to declare a size
	if err != nil {
		t.Fatal(err)
	}
	skippable := []byte{0x5a, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 'h', 'i'}
	for _, tc := range []struct {
		name string
		data []byte
		want uint64
		ok   bool
	}{
		{"one frame", frame, uint64(len(big)), true},
		{"two frames and a skippable one", append(append(append([]byte{}, frame...), skippable...), second...), uint64(len(big)) + 300, true},
		{"a frame without a size", append(append([]byte{}, frame...), unsized...), 0, false},
		{"cut short", frame[:len(frame)-1], 0, false},
		{"trailing byte", append(append([]byte{}, frame...), 0), 0, false},
		{"not zstd", []byte("data: {}\n\n"), 0, false},
	} {
		got, ok := zstdContentSize(tc.data)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}

	// The frame of 1 MB, its 4-byte content size rewritten to 1000.
	if frame[4]>>6 != 2 || frame[4]&0x20 == 0 || frame[4]&3 != 0 {
		t.Fatalf("frame descriptor %#x: want a single-segment frame with a 4-byte content size", frame[4])
	}
	lying := append([]byte{}, frame...)
	binary.LittleEndian.PutUint32(lying[5:], 1000)
	if got, ok := zstdContentSize(lying); !ok || got != 1000 {
		t.Fatalf("lying frame: %d, %v; want 1000, true", got, ok)
	}
	out, err := parquet.Zstd.Decode(nil, lying)
	if err == nil || len(out) > 1000+128<<10 {
		t.Errorf("decoding a frame that holds more than it declares: %d bytes, error %v; want an error within a block of the declared size", len(out), err)
	}
}

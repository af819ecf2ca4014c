package aisbench

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// npyV1 builds a version-1 .npy blob with the given minor version, header
// dict text (padded as np.save pads it) and float64 data.
func npyV1(minor byte, dict string, vals ...float64) []byte {
	hdr := dict + strings.Repeat(" ", 63-(10+len(dict))%64) + "\n"
	b := append([]byte("\x93NUMPY\x01"), minor)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(hdr)))
	b = append(b, hdr...)
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint64(b, uint64FromFloat(v))
	}
	return b
}

// TestNpyRefusedByNumpy: blobs np.load refuses (numpy's _check_version
// allows only (1,0), (2,0), (3,0); its header is ast.literal_eval'd, which
// refuses a decimal literal with leading zeros) must not decode.
func TestNpyRefusedByNumpy(t *testing.T) {
	canon := "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"
	if _, err := decodeTimePoints(npyV1(0, canon, 1, 2)); err != nil {
		t.Fatalf("np.save's own blob refused: %v", err)
	}
	for name, blob := range map[string][]byte{
		"version 1.1":            npyV1(1, canon, 1, 2),
		"version 1.255":          npyV1(255, canon, 1, 2),
		"shape with a leading 0": npyV1(0, "{'descr': '<f8', 'fortran_order': False, 'shape': (02,), }", 1, 2),
	} {
		if tp, err := decodeTimePoints(blob); err == nil {
			t.Errorf("%s: decoded %v; numpy's np.load refuses this blob", name, tp)
		}
	}
}

func uint64FromFloat(v float64) uint64 { return math.Float64bits(v) }

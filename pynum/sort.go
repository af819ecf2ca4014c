package pynum

import (
	"math"
	"slices"
	"unsafe"
)

// RadixMinLen is the length from which SortFloats sorts by radix, turning
// -0 into +0 and every NaN into math.NaN().
const RadixMinLen = 512

// SortFloats sorts xs ascending with NaN last, as numpy's sort orders them.
// Percentiles only read values at positions, so any order among equal values
// gives the same results. Large slices (ITL pools run to millions of
// intervals) go through an LSD radix sort on the float bits, which is several
// times faster than a comparison sort and needs no comparator calls.
func SortFloats(xs []float64) {
	if len(xs) < RadixMinLen {
		slices.SortFunc(xs, CompareNaNLast)
		return
	}
	// NaNs to the end; the rest sorts by key.
	n := 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			xs[n] = x
			n++
		}
	}
	for i := n; i < len(xs); i++ {
		xs[i] = math.NaN()
	}
	radixSortFloats(xs[:n])
}

// FloatKey maps a float64 that is not NaN to a uint64 whose unsigned
// order is the float order; -0 and +0 map alike (they compare equal).
// Without a branch: x + 0 is x but for -0, which it makes +0; a negative
// float's bits are all flipped, a positive float's sign bit set.
func FloatKey(x float64) uint64 {
	b := math.Float64bits(x + 0)
	return b ^ (uint64(int64(b)>>63) | 1<<63)
}

// KeyFloat is the float FloatKey maps to k (+0 for -0).
func KeyFloat(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// radixSortFloats sorts NaN-free xs with four passes of 16-bit digits,
// skipping passes whose digit is the same for every value. The keys are
// made in xs's own memory (a float64 and its uint64 key have the same size),
// so only one buffer of len(xs) is allocated.
func radixSortFloats(xs []float64) {
	if len(xs) == 0 {
		return
	}
	keys := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(xs))), len(xs))
	for i, x := range xs {
		keys[i] = FloatKey(x)
	}
	buf := make([]uint64, len(keys))
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&0xffff]++
		}
		if count[(keys[0]>>shift)&0xffff] == len(keys) {
			continue // one digit for all: the pass would not move anything
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, k := range keys {
			d := (k >> shift) & 0xffff
			buf[count[d]] = k
			count[d]++
		}
		keys, buf = buf, keys
	}
	for i, k := range keys {
		xs[i] = KeyFloat(k)
	}
}

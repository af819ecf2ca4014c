// Package pynum reproduces, bit for bit, the arithmetic AISBench's
// calculators run on numpy 1.24 and CPython 3.11, and how Python spells the
// numbers and strings of the files AISBench writes: numpy's pairwise and
// chunked sum and mean, min and max with NaN first, the linear percentile,
// Python's sum, round and repr, numpy's round, json.dump's floats and
// strings. Nothing here may be "equivalent up to rounding": AISBench's
// figures are reproduced to the last digit.
//
// Besides the one-array functions (NumpyMean, NumpyPercentile, ...), Sum and
// MinMax take values piece by piece in order and give what the function
// gives for all of them at once, so that a pool of samples spread over many
// requests is never gathered into one array; SortFloats sorts as numpy does
// (NaN last), by radix for long slices, and FloatKey orders floats as
// unsigned integers for radix selection.
//
// The golden values in testdata/numerics come from numpy and CPython
// themselves (gen.py there).
package pynum

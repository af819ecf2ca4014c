#!/usr/bin/python3
"""Regenerate numerics.json: expected numpy 1.24 / CPython results for pynum.go.

Run: /usr/bin/python3 pynum/testdata/numerics/gen.py # writes pynum/testdata/numerics/numerics.json.gz
Floats are written as repr() strings (shortest round trip, exact); the file is
gzipped with mtime 0 so regeneration is byte-stable.
"""
import gzip
import json
import os
import random
import sys

import numpy as np

assert np.__version__.startswith("1.24"), np.__version__
rng = random.Random(20261130)
H = repr


def random_array():
    n = rng.choice([rng.randint(1, 10), rng.randint(1, 200), rng.randint(1, 1000)])
    kind = rng.randrange(6)
    if kind == 0:  # latencies in seconds
        return [rng.uniform(0.001, 30.0) for _ in range(n)]
    if kind == 1:  # ties: few distinct values
        pool = [rng.uniform(0, 5) for _ in range(rng.randint(1, 4))]
        return [rng.choice(pool) for _ in range(n)]
    if kind == 2:  # differences of perf_counter-like absolute times near 1e9
        base = 1e9 + rng.uniform(0, 1e6)
        pts = sorted(base + rng.uniform(0, 100) for _ in range(n + 1))
        return list(np.diff(pts))
    if kind == 3:  # wide magnitudes, with zeros
        return [0.0 if rng.random() < 0.2 else rng.uniform(0, 10) * 10 ** rng.randint(-9, 12) for _ in range(n)]
    if kind == 4:  # token counts (integers as floats)
        return [float(rng.randint(1, 4096)) for _ in range(n)]
    return [rng.gauss(0, 1) * 10 ** rng.randint(-6, 6) for _ in range(n)]


def formula_array(n):
    # Same formula in pynum_test.go: large arrays without storing them.
    return [float((i * 2654435761) % 1000003) / 7.0 / float(10 ** (i % 13)) for i in range(n)]


arrays = [random_array() for _ in range(220)]
arrays += [[1.0], [0.0, 0.0], [2.5, 2.5, 2.5], [1e-300, 1e300, -1e300], [0.1] * 7, [0.1] * 8, [0.1] * 129]
cases = []
for a in arrays:
    arr = np.array(a, dtype=np.float64)
    cases.append({
        "values": [H(float(x)) for x in a],
        "mean": H(float(arr.mean())),
        "sum": H(float(np.sum(arr))),
        "pysum": H(float(sum(float(x) for x in a))),
        "min": H(float(arr.min())),
        "max": H(float(arr.max())),
        "percentiles": [H(float(np.percentile(arr, p))) for p in range(1, 100)],
        "diff": [H(float(x)) for x in np.diff(arr)],
    })
big = []
for n in (8191, 8192, 8193, 16384, 16385, 30001):
    arr = np.array(formula_array(n))
    big.append({"n": n, "mean": H(float(arr.mean())), "sum": H(float(arr.sum())),
                "p50": H(float(np.percentile(arr, 50))), "p99": H(float(np.percentile(arr, 99)))})

rounds = []
for _ in range(4000):
    k = rng.randint(0, 10 ** 9)
    x = (k + 0.5) / 1e4  # near-ties at the 4th decimal
    for y in (x, float(np.nextafter(x, 0)), float(np.nextafter(x, np.inf)), rng.uniform(-1e3, 1e3), k / 2 ** 15):
        rounds.append({"x": H(y), "py4": H(round(y, 4)), "np4": H(float(round(np.float64(y), 4)))})
for y in (0.03125, 0.00005, -0.00005, 2.675, 1e300, -1e-300, 0.0, -0.0, 123456789.12345):
    rounds.append({"x": H(y), "py4": H(round(y, 4)), "np4": H(float(round(np.float64(y), 4)))})

reprs = []
specials = [0.0, -0.0, 1.0, 100.0, 1e-4, 1e-5, 9.999999999999999e-05, 1e15, 1e16, 9999999999999998.0,
            1.5e16, 1e22, 1e-300, 5e-324, 1.7976931348623157e308, 0.1, 1 / 3, 123456789012345.6, -2.5e-7]
for _ in range(3000):
    specials.append(rng.uniform(0, 10) * 10 ** rng.randint(-12, 20) * rng.choice([1, -1]))
    specials.append(round(rng.uniform(0, 1e5), rng.randint(0, 6)))
for y in specials:
    r = repr(y)
    assert r == str(np.float64(y)), (r, str(np.float64(y)))
    reprs.append({"x": H(y), "repr": r})

ns_seconds = []
for ns in [0, 1, 999999999, 10 ** 18, 2 ** 53 + 1, 2 ** 62 + 12345] + [rng.randint(0, 2 ** 63 - 1) for _ in range(500)]:
    ns_seconds.append({"ns": ns, "s": repr(ns / 1e9)})  # a captured t_ns as AISBench's float seconds

doc = json.dumps({"ns_seconds": ns_seconds, "numpy": np.__version__, "python": sys.version.split()[0], "arrays": cases, "big": big,
                  "rounds": rounds, "reprs": reprs}, separators=(",", ":"))
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "numerics.json.gz")
with open(out, "wb") as f:
    f.write(gzip.compress(doc.encode(), mtime=0))

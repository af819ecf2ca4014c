#!/usr/bin/env python3
"""Writes scipy.json: the goldens the statistics of package stattest are
tested against (stattest/scipy_test.go), made by SciPy itself.

Run with Debian's python3-scipy (SciPy 1.10, NumPy 1.24), from this folder:

    /usr/bin/python3 scipy_goldens.py > scipy.json

Every case is drawn from a fixed seed, so the file is the same on every run.
Floats are written as Python's repr (json.dumps), which Go reads back to the
same bits.
"""
import json
import warnings

import numpy as np
import scipy
from scipy import special, stats

rng = np.random.default_rng(20240617)


def sample(n, kind):
    """n values: "cont" (no ties), "ties" (few distinct values), "lat"
    (latency-like, rounded to 0.1 ms: some ties)."""
    if kind == "cont":
        return list(rng.normal(0, 1, n))
    if kind == "ties":
        return [float(v) for v in rng.integers(0, 5, n)]
    return [float(v) for v in np.round(rng.lognormal(3, 0.3, n), 1)]


def mwu_case(x, y):
    r = stats.mannwhitneyu(x, y, alternative="two-sided")
    return {"x": x, "y": y, "statistic": float(r.statistic), "pvalue": float(r.pvalue)}


def wilcoxon_case(x, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = stats.wilcoxon(x, y)
    return {"x": x, "y": y, "statistic": float(r.statistic), "pvalue": float(r.pvalue)}


mwu = []
# Exact: one sample of 8 or fewer, no ties.
for n1, n2 in [(1, 1), (1, 5), (2, 3), (3, 3), (4, 7), (5, 5), (7, 8), (8, 8), (8, 20),
               (20, 8), (3, 50), (2, 120), (6, 300), (8, 400), (3, 600)]:
    mwu.append(mwu_case(sample(n1, "cont"), sample(n2, "cont")))
# Exact, shifted far apart (the smallest p-values).
for n1, n2 in [(5, 5), (8, 8), (4, 200)]:
    mwu.append(mwu_case(sample(n1, "cont"), [v + 10 for v in sample(n2, "cont")]))
# Asymptotic: both samples over 8, or ties.
for n1, n2, kind in [(3, 4, "ties"), (8, 8, "ties"), (9, 9, "cont"), (9, 12, "ties"), (30, 25, "cont"),
                     (30, 25, "lat"), (60, 60, "ties"), (200, 1000, "cont"), (200, 1000, "lat"),
                     (1000, 1000, "lat"), (500, 700, "ties")]:
    mwu.append(mwu_case(sample(n1, kind), sample(n2, kind)))
# Shifted: small p-values, asymptotic.
for n, shift in [(40, 0.5), (100, 1.0), (400, 3.0)]:
    mwu.append(mwu_case(sample(n, "cont"), [v + shift for v in sample(n, "cont")]))
# Identical samples, and a sample against itself.
mwu.append(mwu_case([2.0] * 10, [2.0] * 12))
same = sample(50, "lat")
mwu.append(mwu_case(same, list(same)))
small = sample(5, "cont")
mwu.append(mwu_case(small, list(small)))

wil = []
# Exact: 50 differences or fewer, none zero.
for n in [1, 2, 5, 9, 10, 20, 33, 50]:
    x = sample(n, "cont")
    wil.append(wilcoxon_case(x, [v + d for v, d in zip(x, sample(n, "cont"))]))
# Exact with ties among |d| (scipy truncates r_plus to an int).
for n in [6, 15, 40]:
    x = sample(n, "ties")
    y = [v + d for v, d in zip(x, [1.0, -1.0, 2.0, 3.0, -2.0, 1.0] * (n // 6 + 1))]
    wil.append(wilcoxon_case(x, y))
# The center of the exact distribution.
wil.append(wilcoxon_case([1.0, 2.0, 3.0, 4.0], [2.5, 0.5, 2.0, 5.5]))
# Approximate: over 50, or zeros among the differences.
for n, kind in [(51, "cont"), (100, "lat"), (500, "lat"), (300, "ties")]:
    x = sample(n, kind)
    y = sample(n, kind)
    wil.append(wilcoxon_case(x, y))
for n in [12, 30, 80]:
    x = sample(n, "ties")
    y = sample(n, "ties")
    wil.append(wilcoxon_case(x, y))
# A shift every pair shares: small p-values.
for n, shift in [(30, 0.3), (200, 0.2), (1000, 0.05)]:
    x = sample(n, "cont")
    wil.append(wilcoxon_case(x, [v + shift + 0.5 * e for v, e in zip(x, sample(n, "cont"))]))

zs = [-40.0, -9.5, -5.0, -1.0, -0.7071, -0.5, -1e-9, 0.0, 1e-9, 0.3, 0.7072, 1.0, 1.959963984540054,
      3.0, 6.5, 8.3, 12.0, 30.0, 38.0]
ndtr = [{"x": z, "ndtr": float(special.ndtr(z)), "sf": float(stats.norm.sf(z))} for z in zs]

binom = [{"n": n, "k": k, "binom": float(special.binom(n, k))}
         for n, k in [(2, 1), (10, 3), (16, 8), (28, 8), (128, 8), (308, 8), (603, 3), (1000, 8), (3000, 7)]]

json.dump({"scipy": scipy.__version__, "numpy": np.__version__, "mannwhitneyu": mwu, "wilcoxon": wil,
           "ndtr": ndtr, "binom": binom}, __import__("sys").stdout, indent=None, separators=(",", ":"))
print()

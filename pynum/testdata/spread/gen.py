#!/usr/bin/python3
"""Writes spread.json.gz: np.std and np.median of arrays (numpy 1.24, Debian's
python3-numpy), floats as Python reprs. Run from this directory."""
import gzip
import json
import random
import numpy as np

rng = random.Random(16)
arrays = [[0.0], [1.5, 2.5], [0.1, 0.2, 0.3], [1e-3] * 7, [3.0, 1.0, 2.0, 4.0]]
for n in (2, 3, 8, 9, 127, 128, 129, 1000, 8193):
    arrays.append([rng.uniform(0.001, 0.5) for _ in range(n)])
for n in (2, 3, 8, 9, 127, 128, 129, 1000):
    arrays.append([rng.choice([0.0, 0.025, 0.026, 0.0029999999999998916]) + rng.random() * 1e-9 for _ in range(n)])
arrays.append([1e308, -1e308, 5.0])
arrays.append([float("nan"), 1.0])
out = []
for a in arrays:
    x = np.array(a)
    out.append({"values": [repr(v) for v in a], "std": repr(float(np.std(x))), "median": repr(float(np.median(x)))})
with gzip.GzipFile("spread.json.gz", "wb", mtime=0) as f:
    f.write((json.dumps({"numpy": np.__version__, "arrays": out}) + "\n").encode())

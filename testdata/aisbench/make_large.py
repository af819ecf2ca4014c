#!/usr/bin/python3
"""Make a large AISBench work_dir to time `audit import --from aisbench` and
`audit check` on (docs/check.md records the figures). Not committed: 100,000
requests make a few hundred MB.

    AISB_SRC=SRC_DIR /usr/bin/python3 testdata/aisbench/make_large.py N WORK_DIR [--summarize]

The records and arrays are written by AISBench's own output handler (the
oracle's write_workdir: RequestOutput.get_metrics -> np.save into SQLite ->
<ds>_details.jsonl), with a 2 KB prompt and a 1 KB prediction per request as a
real perf run keeps them. C = 64 clients in a closed loop, 50 to 400 events a
request. With --summarize, AISBench's DefaultPerfSummarizer then writes
<ds>.csv and <ds>.json (and the time it took is printed): the check compares
against AISBench's own report of the large run.
"""
import os
import random
import sys
import time

ORACLE = os.environ.get("ORACLE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "oracle")
sys.path.insert(0, ORACLE)
import aisb_env  # noqa: E402
import oracle  # noqa: E402


def main():
    n, wd = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(7)
    c = 64
    free = [1000.0 + 0.001 * i for i in range(c)]
    prompt = "lorem ipsum " * 170
    reqs = []
    for i in range(n):
        k = min(range(c), key=lambda j: free[j])
        t0 = free[k]
        events = rng.randint(50, 400)
        tp = [t0, t0 + rng.uniform(0.05, 0.8)]
        for _ in range(events - 1):
            tp.append(tp[-1] + rng.uniform(0.005, 0.06))
        r = {"time_points": tp, "input_tokens": rng.randint(500, 2000), "output_tokens": events,
             "input": prompt, "prediction": "x" * 1024}
        if rng.random() < 0.002:
            r = {"time_points": [t0], "success": False, "error_info": "Internal Server Error", "input": prompt}
            tp = [t0, t0 + 0.01]
        free[k] = tp[-1]
        reqs.append(r)
    L = aisb_env.load()
    t = time.time()
    oracle.write_workdir(L, wd, "model", "ds", reqs)
    print(f"wrote {n} requests in {time.time() - t:.1f} s", file=sys.stderr)
    if "--summarize" in sys.argv:
        t = time.time()
        res = oracle.run_one(L, wd, "default", c, True, ["Average", "Min", "Max", "Median", "P75", "P90", "P99"])
        print(f"AISBench summarizer (default calculator): {time.time() - t:.1f} s, {'error ' + res['error'] if 'error' in res else 'ok'}", file=sys.stderr)


if __name__ == "__main__":
    main()

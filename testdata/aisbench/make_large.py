#!/usr/bin/python3
"""Make a large AISBench work_dir to time `audit import --from aisbench` and
`audit check` on (docs/check.md records the figures). Not committed: 100,000
requests make a few hundred MB.

    AISB_SRC=SRC_DIR /usr/bin/python3 testdata/aisbench/make_large.py N WORK_DIR [--summarize]
    AISB_SRC=SRC_DIR /usr/bin/python3 testdata/aisbench/make_large.py --summarize-only WORK_DIR

The records and arrays are written by AISBench's own output handler (the
oracle's write_workdir: RequestOutput.get_metrics -> np.save into SQLite ->
<ds>_details.jsonl), with a 2 KB prompt and a 1 KB prediction per request as a
real perf run keeps them. C = 64 clients in a closed loop, 50 to 400 events a
request, each time point whole nanoseconds over 1e9 as time.perf_counter()
returns them. With --summarize, AISBench's DefaultPerfSummarizer then writes
<ds>.csv and <ds>.json (and the time its summarize() took is printed): the
check compares against AISBench's own report of the large run.
--summarize-only runs and times that summarize() alone, on a work_dir made
before (bench/check-speed.sh alternates it with `audit check`).
"""
import contextlib
import io
import os
import random
import sys
import time

ORACLE = os.environ.get("ORACLE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "oracle")
sys.path.insert(0, ORACLE)
import aisb_env  # noqa: E402
import oracle  # noqa: E402


def main():
    c = 64
    if sys.argv[1] == "--summarize-only":
        L, wd = aisb_env.load(), sys.argv[2]
        t = time.time()
        summarize(L, wd, c)
        print(f"AISBench summarizer (DefaultPerfSummarizer.summarize(), default calculator): {time.time() - t:.1f} s", file=sys.stderr)
        return
    n, wd = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(7)
    free = [1000.0 + 0.001 * i for i in range(c)]
    prompt = "lorem ipsum " * 170
    reqs = []
    for i in range(n):
        k = min(range(c), key=lambda j: free[j])
        t0 = free[k]
        events = rng.randint(50, 400)
        # Whole nanoseconds over 1e9, as time.perf_counter() returns them
        # (CPython's _PyTime_AsSecondsDouble): the values a real run records.
        ns = [round(t0 * 1e9)]
        ns.append(ns[-1] + round(rng.uniform(0.05, 0.8) * 1e9))
        for _ in range(events - 1):
            ns.append(ns[-1] + round(rng.uniform(0.005, 0.06) * 1e9))
        tp = [x / 1e9 for x in ns]
        r = {"time_points": tp, "input_tokens": rng.randint(500, 2000), "output_tokens": events,
             "input": prompt, "prediction": "x" * 1024}
        if rng.random() < 0.002:
            r = {"time_points": [t0], "success": False, "error_info": "Internal Server Error", "input": prompt}
            tp = [t0, (round(t0 * 1e9) + 10_000_000) / 1e9]
        free[k] = tp[-1]
        reqs.append(r)
    L = aisb_env.load()
    t = time.time()
    oracle.write_workdir(L, wd, "model", "ds", reqs)
    print(f"wrote {n} requests in {time.time() - t:.1f} s", file=sys.stderr)
    if "--summarize" in sys.argv:
        t = time.time()
        summarize(L, wd, c)
        print(f"AISBench summarizer (DefaultPerfSummarizer.summarize(), default calculator): {time.time() - t:.1f} s", file=sys.stderr)


def summarize(L, wd, c):
    """AISBench's own summarize() of the work_dir, as `ais_bench` runs it
    after a perf run: it writes <ds>.csv and <ds>.json and nothing else is
    timed (the oracle's run_one also loads the details a second time)."""
    model_cfg = {"abbr": "model", "attr": "service", "batch_size": c, "stream": True, "path": "stub"}
    ds_cfg = {"type": "synthetic.Dataset", "abbr": "ds", "infer_cfg": {"inferencer": "GenInferencer"}}
    calc_cfg = {"type": L["default_calc"].DefaultPerfMetricCalculator,
                "stats_list": ["Average", "Min", "Max", "Median", "P75", "P90", "P99"]}
    config = {"models": [model_cfg], "datasets": [ds_cfg], "work_dir": wd, "cli_args": {}}
    with contextlib.redirect_stdout(io.StringIO()):
        L["summarizer"].DefaultPerfSummarizer(config, calc_cfg).summarize()

if __name__ == "__main__":
    main()

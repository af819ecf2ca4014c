#!/usr/bin/python3
"""Add "numpy_raw" to an oracle output: the unrounded statistics behind
AISBench's rounded metrics_raw, recomputed with numpy from the oracle's own
per-request values and selected indices, as repr strings (exact).

Usage: numpy_raw.py ORACLE_OUTPUT.json STATS_CSV > CASE.oracle.json
"""
import json
import sys

import numpy as np

np.seterr(all="ignore")  # inf and nan statistics are expected data here


def stat(arr, name):
    if name == "Average":
        return arr.mean()
    if name == "Min":
        return arr.min()
    if name == "Max":
        return arr.max()
    if name == "Median":
        return np.percentile(arr, 50)
    return np.percentile(arr, int(name[1:]))


def main():
    doc = json.load(open(sys.argv[1]))
    for res in doc["results"]:
        if "error" in res:
            continue
        pr = res["per_request"]
        (stage, ids), = res["selected_request_indices"].items()
        pick = lambda key: [pr[key][i] for i in ids]
        ttft, inp = pick("ttft"), pick("input_tokens")
        values = {
            "E2EL": pick("latency"), "TTFT": ttft, "TPOT": pick("tpot"),
            "ITL": [x for i in ids for x in pr["itl"][i]],
            "InputTokens": inp, "OutputTokens": pick("output_tokens"),
            "OutputTokenThroughput": pick("generate_tokens_speed"),
            "PrefillTokenThroughput": [n / t if t and t > 0 else 0.0 for n, t in zip(inp, ttft)],
        }
        raw = {}
        for metric, by_stage in res["metrics_raw"].items():
            arr = np.array(values[metric], dtype=np.float64)
            raw[metric] = {k: repr(float(stat(arr, k))) for k in by_stage[stage] if k != "N"}
            raw[metric]["samples"] = len(arr)
        T = np.float64(res["infer_time_s"][stage])
        raw["concurrency_raw"] = repr(float(sum(np.float64(x) for x in values["E2EL"]) / T)) if T != 0 else None
        res["numpy_raw"] = raw
    json.dump(doc, sys.stdout, ensure_ascii=False, separators=(",", ":"))
    sys.stdout.write("\n")


main()

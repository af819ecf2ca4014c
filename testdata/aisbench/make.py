#!/usr/bin/python3
"""Make the AISBench work_dirs the importer and `audit check` are tested on.

Every work_dir is written by AISBench's own code through the project's oracle
(../shared/oracle: RequestOutput.get_metrics -> BaseInferencerOutputHandler
.get_result -> np.save into SQLite numpy_store -> <ds>_details.jsonl), and its
<ds>.csv/<ds>.json by AISBench's DefaultPerfSummarizer (the Default calculator,
then the Stable one, as the oracle runs them: the files left are the last
calculator's that succeeded). What each calculator wrote is also kept in
CASE/expected/<stage>.csv, .json (or .error) for the byte-for-byte tests.

    AISB_SRC=SRC_DIR /usr/bin/python3 testdata/aisbench/make.py

(SRC_DIR: the AISBench source extracted as ../shared/oracle/README.md says.)

Cases:
  basic      C=2, 12 requests, both stages; tampered/ holds three reports of
             its total stage that do not follow from its data (see tamper)
  failures   C=4, 40 requests, 6 failed (HTTP error, retries exhausted, a
             successful request with one time point), <ds>_failed.jsonl as
             AISBench's write_to_json writes it; the stable failure quirk
  no-stable  C=4, requests never 4 in flight twice: no stable stage (the
             folder keeps the total stage's files)
  dangling   basic with one array deleted from its database after the run
  killed     cut-short with a writer killed mid-transaction after it: a hot
             rollback journal beside the database (see killed)
  from-trace C=2, the time points and tokens AISBench's client recorded from
             testdata/traces/basic.jsonl's bytes, so that the work_dir and the raw
             trace are two records of one run
  cached.*   a raw trace whose usage carries cached prompt tokens, and
             AISBench's report of it (see make_cached)
  cut-short  C=2, the run killed before write_to_json: records only in
             tmp/tmp_<db>.jsonl and tmp/tmp_<db>.db, the last 3 arrays never
             committed (AISBench's summarizer counts them failed), no csv/json
             in the folder (expected/ holds what the summarizer then writes)
"""
import json
import os
import random
import shutil
import sqlite3
import sys

ORACLE = os.environ.get("ORACLE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "oracle")
sys.path.insert(0, ORACLE)
import aisb_env  # noqa: E402
import oracle  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
STATS = ["Average", "Min", "Max", "Median", "P75", "P90", "P99"]


def stream(rng, t0, n_events, ttft, itl):
    tp = [t0, t0 + ttft]
    for _ in range(n_events - 1):
        tp.append(tp[-1] + itl * rng.uniform(0.3, 1.7))
    return tp


def closed_loop(rng, n, c, base=51234.5678901, think=0.0, fail=()):
    """n requests, c clients each sending the next when the last ends."""
    free = [base + 0.013 * i for i in range(c)]
    reqs = []
    for i in range(n):
        k = min(range(c), key=lambda j: free[j])
        t0 = free[k] + think
        events = rng.randint(4, 24)
        tp = stream(rng, t0, events, rng.uniform(0.08, 0.4), rng.uniform(0.01, 0.05))
        r = {"time_points": tp, "input_tokens": rng.randint(200, 1200), "output_tokens": events + rng.randint(0, 3)}
        kind = fail[i] if i in fail else None
        if kind == "http":
            r = {"time_points": [t0], "success": False, "error_info": "Internal Server Error"}
            tp = [t0, t0 + 0.02]
        elif kind == "retry":
            r = {"time_points": [], "success": False, "error_info": "Expecting value: line 1 column 1 (char 0)"}
            tp = [t0, t0 + 0.5]
        elif kind == "short":
            r = {"time_points": [t0], "success": True}
            tp = [t0, t0 + 0.05]
        free[k] = tp[-1]
        reqs.append(r)
    return reqs


def write_failed(wd, requests):
    """<ds>_failed.jsonl as run_cache_consumer + write_to_json write it."""
    path = os.path.join(wd, "performances", "model", "ds_failed.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for i, r in enumerate(requests):
            ok = r.get("success", True) and len(r.get("time_points", [])) > 1
            if not ok:
                info = r.get("error_info") or "chunk size is less than 2"
                f.write(json.dumps({"data_abbr": "ds", "id": i, "input": "", "error_info": info}, ensure_ascii=False) + "\n")


def cut_short(wd):
    """Move the finished files back into tmp/ as a killed run leaves them, and
    drop the last 3 arrays (inserted, never committed)."""
    d = os.path.join(wd, "performances", "model")
    tmp = os.path.join(d, "tmp")
    os.makedirs(tmp, exist_ok=True)
    shutil.move(os.path.join(d, "ds_details.jsonl"), os.path.join(tmp, "tmp_0123abcd.jsonl"))
    db = os.path.join(tmp, "tmp_0123abcd.db")
    shutil.move(os.path.join(d, "db_data", "0123abcd.db"), db)
    os.rmdir(os.path.join(d, "db_data"))
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM numpy_store WHERE id > (SELECT max(id) - 3 FROM numpy_store)")
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


KILL = """
import io, os, sqlite3, sys
import numpy as np
conn = sqlite3.connect(sys.argv[1])
conn.execute("PRAGMA cache_size=1")
conn.execute("BEGIN")
for _ in range(40):
    buf = io.BytesIO()
    np.save(buf, np.arange(60, dtype=np.float64))
    conn.execute("INSERT INTO numpy_store (arr_blob) VALUES (?)", (buf.getvalue(),))
conn.execute("UPDATE numpy_store SET arr_blob = x'00' WHERE id = 1")
os._exit(0)
"""


def dangling():
    """dangling: basic's work_dir whose database lost row 5 after the report
    was written (record ds/4's time points): an error to import, a failed
    request with --allow-dangling, and a report that counts more requests
    than the files now hold."""
    src, dst = os.path.join(HERE, "basic"), os.path.join(HERE, "dangling")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("expected", "tampered"))
    db = os.path.join(dst, "performances", "model", "db_data", "0123abcd.db")
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM numpy_store WHERE id = 5")
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


def killed():
    """killed: cut-short's files, then a writer killed mid-transaction: its
    inserts and an overwrite of row 1 spilled into the database file, with
    the rollback journal left beside it (a hot journal). SQLite rolls it
    back on the next read-write open, as AISBench's summarizer does: the
    expected files are cut-short's."""
    import subprocess
    src, dst = os.path.join(HERE, "cut-short"), os.path.join(HERE, "killed")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    db = os.path.join(dst, "performances", "model", "tmp", "tmp_0123abcd.db")
    subprocess.run([sys.executable, "-c", KILL, db], check=True)
    assert os.path.getsize(db + "-journal") > 0, "no hot journal"


def make(L, name, c, requests, post=None, keep_report=True):
    wd = os.path.join(HERE, name)
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    oracle.write_workdir(L, wd, "model", "ds", requests)
    if post:
        post(wd)
    exp = os.path.join(wd, "expected")
    os.makedirs(exp)
    d = os.path.join(wd, "performances", "model")
    for calc, stage in (("default", "total"), ("stable", "stable")):
        res = oracle.run_one(L, wd, calc, c, True, STATS)
        if "error" in res:
            with open(os.path.join(exp, stage + ".error"), "w") as f:
                f.write(res["error"] + "\n")
            continue
        for ext in ("csv", "json"):
            with open(os.path.join(exp, f"{stage}.{ext}"), "w", encoding="utf-8", newline="") as f:
                f.write(res[ext])
    if not keep_report:
        for ext in ("csv", "json"):
            p = os.path.join(d, "ds." + ext)
            if os.path.exists(p):
                os.remove(p)
    for p in ("ds_plot.html",):
        if os.path.exists(os.path.join(d, p)):
            os.remove(os.path.join(d, p))


def tamper(L, wd, c, requests):
    """Three reports of the basic run's total stage that do not follow from
    its data, in CASE/tampered/: one cell edited by hand, two cells rounded
    another way, and one computed by AISBench on the first 9 requests only."""
    import numpy as np
    d = os.path.join(wd, "tampered")
    os.makedirs(d)
    exp = os.path.join(wd, "expected")
    csv_text = open(os.path.join(exp, "total.csv"), newline="").read()
    json_text = open(os.path.join(exp, "total.json")).read()

    def put(name, c_text, j_text):
        with open(os.path.join(d, name + ".csv"), "w", newline="") as f:
            f.write(c_text)
        with open(os.path.join(d, name + ".json"), "w") as f:
            f.write(j_text)

    # edited: TTFT P90 lowered by hand.
    rows = csv_text.split("\r\n")
    i = next(k for k, r in enumerate(rows) if r.startswith("TTFT,total,"))
    cells = rows[i].split(",")
    v = float(cells[7].split()[0])
    cells[7] = f"{round(v * 0.8, 1)} ms"
    rows[i] = ",".join(cells)
    put("edited", "\r\n".join(rows), json_text)

    # rounded: E2EL Average rounded once, in ms, to 2 decimals; Output Token
    # Throughput to 2 decimals.
    ok = [r for r in requests if r.get("success", True) and len(r["time_points"]) > 1]
    lat = [r["time_points"][-1] - r["time_points"][0] for r in ok]
    avg_ms = round(float(np.mean(lat)) * 1000, 2)
    rows = csv_text.split("\r\n")
    i = next(k for k, r in enumerate(rows) if r.startswith("E2EL,total,"))
    cells = rows[i].split(",")
    assert cells[2] != f"{avg_ms} ms", "pick another cell: the roundings agree"
    cells[2] = f"{avg_ms} ms"
    rows[i] = ",".join(cells)
    dur = max(r["time_points"][-1] for r in ok) - min(r["time_points"][0] for r in ok)
    otp = round(sum(r["output_tokens"] for r in ok) / dur, 2)
    doc = json.loads(json_text)
    assert doc["Output Token Throughput"]["total"] != f"{otp} token/s"
    doc["Output Token Throughput"]["total"] = f"{otp} token/s"
    put("rounded", "\r\n".join(rows), json.dumps(doc, indent=4, ensure_ascii=False))

    # subset: AISBench's own report of the first 9 requests.
    sub = os.path.join(d, "subset-workdir")
    oracle.write_workdir(L, sub, "model", "ds", requests[:9])
    res = oracle.run_one(L, sub, "default", c, True, STATS)
    shutil.rmtree(sub)
    put("subset", res["csv"], res["json"])


def edit_trace():
    """from-trace/edited-trace.jsonl: testdata/traces/basic.jsonl with req-02's
    body 40 ms later and req-07's completion_tokens one higher: a trace that
    disagrees with the details AISBench wrote."""
    src = os.path.join(HERE, "..", "traces", "basic.jsonl")
    out = []
    with open(src) as f:
        for line in f:
            r = json.loads(line)
            if r.get("request_id") == "req-02":
                for c in r["chunks"]:
                    c["t_ns"] += 40_000_000
                r["end_ns"] += 40_000_000
                line = json.dumps(r, ensure_ascii=False) + "\n"
            elif r.get("request_id") == "req-07":
                line = line.replace('\\"completion_tokens\\":', '\\"completion_tokens\\":1', 1)
                assert line != "", "no usage in req-07"
            out.append(line)
    with open(os.path.join(HERE, "from-trace", "edited-trace.jsonl"), "w") as f:
        f.writelines(out)


def make_cached():
    """cached.jsonl: a raw trace of 8 chat requests at C=2 whose last usage
    carries prompt_tokens_details.cached_tokens (a shared 600-token prefix),
    and cached.{total,stable}.{csv,json}: what AISBench makes of its bytes
    (replay_oracle.py)."""
    import subprocess
    rng = random.Random(5)
    lines = [json.dumps({"run": {"max_concurrency": 2, "source": "testdata/aisbench/make.py"}})]
    free = [10_000_000_000, 10_020_000_000]
    for i in range(8):
        k = 0 if free[0] <= free[1] else 1
        t0 = free[k]
        t = t0 + rng.randint(150, 300) * 1_000_000
        chunks = [{"t_ns": t, "data": 'data: {"choices":[{"delta":{"role":"assistant","content":""}}]}\n\n'}]
        n = rng.randint(5, 12)
        for j in range(n):
            t += rng.randint(15, 40) * 1_000_000
            chunks.append({"t_ns": t, "data": 'data: {"choices":[{"delta":{"content":"w%d "}}]}\n\n' % j})
        t += 2_000_000
        prompt = 800 + rng.randint(0, 200)
        usage = {"prompt_tokens": prompt, "completion_tokens": n, "total_tokens": prompt + n,
                 "prompt_tokens_details": {"cached_tokens": 600 if i > 0 else 0}}
        chunks.append({"t_ns": t, "data": "data: " + json.dumps({"choices": [], "usage": usage}) + "\n\ndata: [DONE]\n\n"})
        free[k] = t
        lines.append(json.dumps({"request_id": f"c{i}", "t0_ns": t0, "end_ns": t, "http_status": 200, "chunks": chunks}))
    path = os.path.join(HERE, "cached.jsonl")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    subprocess.run([sys.executable, os.path.join(ORACLE, "replay_oracle.py"), path, os.path.join(HERE, "cached")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.remove(os.path.join(HERE, "cached.timepoints.json"))


def main():
    L = aisb_env.load()
    basic = closed_loop(random.Random(1), 12, 2)
    make(L, "basic", 2, basic)
    tamper(L, os.path.join(HERE, "basic"), 2, basic)
    dangling()
    fails = {3: "http", 9: "retry", 17: "short", 18: "http", 30: "retry", 36: "http"}
    reqs = closed_loop(random.Random(2), 40, 4, fail=fails)
    make(L, "failures", 4, reqs, post=lambda wd: write_failed(wd, reqs))
    make(L, "no-stable", 4, sequential(random.Random(3), 8))
    make(L, "cut-short", 2, closed_loop(random.Random(4), 14, 2), post=cut_short, keep_report=False)
    killed()
    # The run AISBench's own client recorded from testdata/traces/basic.jsonl's
    # bytes (testdata/oracle/traces/basic.timepoints.json, made by
    # replay_oracle.py): `audit check --trace` compares the two.
    with open(os.path.join(HERE, "..", "oracle", "traces", "basic.timepoints.json")) as f:
        rec = json.load(f)
    reqs = [{k: r[k] for k in ("time_points", "success", "input_tokens", "output_tokens", "error_info")} for r in rec["requests"]]
    make(L, "from-trace", rec["max_concurrency"], reqs)
    edit_trace()
    make_cached()


def sequential(rng, n):
    """One request at a time: in-flight never reaches 4."""
    t = 7000.25
    reqs = []
    for _ in range(n):
        events = rng.randint(4, 12)
        tp = stream(rng, t, events, 0.2, 0.03)
        reqs.append({"time_points": tp, "input_tokens": 300, "output_tokens": events})
        t = tp[-1] + 0.01
    return reqs


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What `evalscope perf` reports for a raw-SSE trace, from its own code at a
pinned commit.

usage: oracle_evalscope.py API SRC_DIR TRACE.jsonl OUT.json
  API      chat | completions
  SRC_DIR  EvalScope's files at the pinned commit (extract.sh evalscope)

Needs aiohttp (Debian's python3-aiohttp 3.8) and pydantic 2 (EvalScope's
perf_models builds the saved files' models with it): regen.sh runs it with a
Python that has pydantic 2 and Debian's packages on its path.

Each request of the trace goes, offline, through EvalScope's real request
function, DefaultApiPlugin.process_request of its openai API plugin
(OpenaiPlugin), with oracle.py's fake aiohttp session: a real aiohttp
StreamReader fed the recorded reads, one feed_data a read, each once the
client waits for more, time.perf_counter patched to the read's time. The
response's Content-Type is text/event-stream (a trace holds no headers).
The BenchmarkData then go, in the order the requests ended (end_ns: the
order EvalScope's queue hands them on), through its real
MetricsAccumulator.update and to_result, and into a real SQLite result
table (create_result_table, insert_benchmark_data) that its real
get_percentile_results reads; create_message goes through its real
BenchmarkSummary (pydantic 2) as benchmark_summary.json is written, and the
percentiles through PercentileResult.to_list as benchmark_percentile.json
is. `round` is made the identity in benchmark_util and db_util: the
goldens hold the values unrounded.

Without usage in a successful request's stream, OpenaiPlugin counts tokens
with the tokenizer of --tokenizer-path and raises without one: the golden
says so ("without_tokenizer"), and the keys are made with two stand-in
tokenizers (word counts, then 1009, 1012, ... for its successive calls): a
key that differs between them depends on the tokenizer (null, under
"depends"). Only the logger, tqdm, tabulate, the tokenizer and what the
saved files' imports pull in but these functions never call are stubbed.
"""
import asyncio
import contextlib
import importlib.util
import io
import itertools
import json
import logging
import os
import sqlite3
import sys
import tempfile
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (patches time.perf_counter; the fake HTTP layer)

SOURCE = {"repo": "modelscope/evalscope", "commit": "fde259d2a32ab8a4cdb3af44dc8b18f504f1e277",
          "files": ["evalscope/perf/plugin/api/default_api.py", "evalscope/perf/plugin/api/openai_api.py",
                    "evalscope/perf/plugin/api/base.py", "evalscope/perf/utils/benchmark_util.py",
                    "evalscope/perf/utils/db_util.py", "evalscope/perf/utils/perf_models.py",
                    "evalscope/perf/utils/perf_constants.py", "evalscope/perf/utils/body_meta.py"]}

# benchmark_summary.json's keys that are the run's arguments (--parallel,
# --rate), not anything the bytes hold.
ARGUMENTS = ["Concurrency", "Request Rate (req/s)"]


def identity_round(x, ndigits=None):
    return x


def load(src):
    mod = oracle._mod
    quiet = logging.getLogger("evalscope-oracle")
    quiet.disabled = True
    mod("evalscope.utils.logger", get_logger=lambda *a, **k: quiet)
    mod("evalscope.utils.import_utils", check_import=lambda *a, **k: False)
    mod("evalscope.utils.io_utils", base64_to_PIL=oracle._stub, current_time=oracle._stub)
    mod("evalscope.perf.arguments", Arguments=object)
    mod("evalscope.perf.multi_turn_args", _sample_int_or_range=oracle._stub)
    mod("evalscope.perf.plugin.datasets.utils", load_tokenizer=oracle._stub,
        tokenize_chat_messages=lambda tok, messages: tok.encode(" ".join(m["content"] for m in messages)))
    mod("evalscope.perf.plugin.registry", register_api=lambda names: (lambda cls: cls))
    mod("evalscope.metrics.semantics", format_perf_value=oracle._stub)
    mod("evalscope.perf.utils.trace_metrics", TraceLevelSummary=object)
    mod("evalscope.perf.utils.workload_timeline", WorkloadThroughput=object, WorkloadTimeline=object)
    mod("tabulate", tabulate=oracle._stub)
    ld = lambda name: oracle._load(name, os.path.join(src, name.replace(".", "/") + ".py"))  # noqa: E731
    ld("evalscope.perf.utils.perf_constants")
    bu = ld("evalscope.perf.utils.benchmark_util")
    ld("evalscope.perf.utils.body_meta")
    ld("evalscope.perf.plugin.api.base")
    ld("evalscope.perf.plugin.api.default_api")
    api = ld("evalscope.perf.plugin.api.openai_api")
    pm = ld("evalscope.perf.utils.perf_models")
    db = ld("evalscope.perf.utils.db_util")
    bu.round = identity_round
    db.round = identity_round
    return types.SimpleNamespace(bu=bu, api=api, pm=pm, db=db)


class Response(oracle.Response):
    headers = {"Content-Type": "text/event-stream"}


class Post(oracle.Post):
    async def __aenter__(self):
        if self.req.get("http_status") is None:
            import aiohttp
            raise aiohttp.ClientConnectionError(self.req.get("error") or "no response")
        self.resp = Response(self.req, self.limit)
        return await self.resp.__aenter__()


class Session(oracle.Session):
    def post(self, url=None, data=None, headers=None, **kw):
        return Post(self.req, self.limit)


def args_for():
    return types.SimpleNamespace(tokenizer_path=None, image_patch_size=28, api="openai")


def body_for(api):
    if api == "chat":
        return {"messages": [{"role": "user", "content": "hi there"}], "stream": True,
                "stream_options": {"include_usage": True}}
    return {"prompt": "hi there", "stream": True, "stream_options": {"include_usage": True}}


class Tokenizer:
    def __init__(self, count):
        self.count = count

    def encode(self, text, add_special_tokens=False):
        return [0] * self.count(text)


TOKENIZERS = [lambda text: len(text.split()), lambda text, calls=itertools.count(): 1009 + 3 * next(calls)]


def send(m, api, reqs, tokenizer):
    """Every request through the request function: the plugin and the
    BenchmarkData, in trace order."""
    plugin = m.api.OpenaiPlugin(args_for())
    plugin.tokenizer = tokenizer
    url = "http://127.0.0.1:8000/v1/" + ("chat/completions" if api == "chat" else "completions")
    datas = []
    for req in reqs:
        oracle.CLOCK[0] = req["t0_ns"] / 1e9
        datas.append(asyncio.run(plugin.process_request(Session(req, 2 ** 16), url, {}, body_for(api))))
    return plugin, datas


def metrics(m, plugin, datas, reqs):
    """The accumulator, the database and the saved files' keys."""
    order = sorted(range(len(reqs)), key=lambda i: oracle.end_of(reqs[i]))
    acc = m.bu.MetricsAccumulator(concurrency=4, rate=-1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "benchmark_data.db")
        with sqlite3.connect(path) as con:
            cur = con.cursor()
            m.db.create_result_table(cur)
            for i in order:
                acc.update(datas[i], plugin)
                m.db.insert_benchmark_data(cur, datas[i])
            con.commit()
        summary = m.pm.BenchmarkSummary.from_dict(acc.to_result().create_message(api_type="openai")).to_dict()
        rows = m.db.get_percentile_results(path, api_type="openai").to_list()
    result = dict(summary)
    for row in rows:
        label = row["Percentiles"]
        for k, v in row.items():
            if k != "Percentiles":
                result[k + " " + label] = v
    return result


def per_request(datas):
    return [{"success": d.success, "start_time": d.start_time, "completed_time": d.completed_time,
             "ttft": d.first_chunk_latency, "itl": d.inter_chunk_latency, "latency": d.query_latency,
             "output_tokens": d.completion_tokens, "prompt_len": d.prompt_tokens,
             "error": oracle.last_line(d.error)} for d in datas]


def run(m, api, reqs, tokenizer):
    plugin, datas = send(m, api, reqs, tokenizer)
    try:
        return metrics(m, plugin, datas, reqs), per_request(datas), None
    except ValueError as e:
        if tokenizer is None and "usage information" in str(e):
            raise
        return None, per_request(datas), f"{type(e).__name__}: {e}"
    except Exception as e:
        return None, per_request(datas), f"{type(e).__name__}: {e}"


def main():
    api, src, trace, out = sys.argv[1:5]
    lines = open(trace, encoding="utf-8").read().splitlines()
    reqs = [json.loads(l) for l in lines[1:] if l.strip()]
    m = load(src)
    golden = {"tool": "evalscope", "api": api, "source": SOURCE, "requests": len(reqs)}
    depends = {}
    with contextlib.redirect_stdout(io.StringIO()), oracle.warnings_off():
        try:
            result, per, error = run(m, api, reqs, None)
        except ValueError as e:
            golden["without_tokenizer"] = f"ValueError: {str(e).strip().splitlines()[0]}"
            (result, per, error), (other, _, _) = [run(m, api, reqs, Tokenizer(t)) for t in TOKENIZERS]
            if error is None:
                depends = {k: "tokenizer" for k, v in result.items() if not oracle.same(v, other.get(k))}
    if error is not None:
        golden["error"] = error
    else:
        for k in ARGUMENTS:
            depends[k] = "argument"
        golden["result"] = {k: None if k in depends else oracle.plain(v) for k, v in result.items()}
        golden["depends"] = depends
    golden["per_request"] = [{k: oracle.plain(v) for k, v in p.items()} for p in per]
    with open(out, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

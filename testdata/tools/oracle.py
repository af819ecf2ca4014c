#!/usr/bin/python3
"""What `vllm bench serve` and SGLang's bench_serving report for a raw-SSE
trace, from their own code at a pinned commit.

usage: oracle.py TOOL API SRC_DIR TRACE.jsonl OUT.json
  TOOL     vllm | sglang
  API      chat | completions
  SRC_DIR  the tool's files at the pinned commit (extract.sh)

Each request of the trace (the JSONL interchange: request_id, t0_ns, end_ns,
http_status, error, chunks[{t_ns, data | data_b64}]) goes, offline, through
the tool's real request function (vLLM: async_request_openai_chat_completions
or async_request_openai_completions; SGLang: the same names, its vllm-chat and
vllm backends) with a fake aiohttp session whose response body is a real
aiohttp StreamReader fed the recorded chunks, one feed_data a recorded read,
each fed only once the client waits for more: the reads the client's
iter_any or readline sees are the recorded ones. time.perf_counter is patched:
float(t0_ns)/1e9 when the request is sent, the read's float(t_ns)/1e9 while
the client handles it, float(end)/1e9 at the end of the body (end_ns, else
the last chunk's time, else t0). The outputs go through the tool's real
calculate_metrics, with dur_s the trace's span (the first t0 to the last
end), and the tool's own code assembles the result keys (vLLM: benchmark()'s
result dict and process_one_metric, with --percentile-metrics
ttft,tpot,itl,e2el and --metric-percentiles 99, without --save-detailed;
SGLang: benchmark()'s result dict).

What the bytes lack is stubbed, then changed one at a time: the tokenizer
(word counts, then 1009, 1012, 1015, ... for its successive calls) and the dataset's prompt and output lengths (1000
and 100, then 1237 and 137). A key whose value changes with one of them
depends on it: the golden holds it as null, under "depends" with "tokenizer"
or "dataset". Only
tqdm, argparse set-up, the tokenizer, the dataset and the server (model,
metrics, server_info) are stubbed; nothing of the tools is copied here.
"""
import argparse
import asyncio
import base64
import contextlib
import dataclasses
import importlib.util
import io
import itertools
import json
import math
import os
import sys
import textwrap
import time
import traceback
import types

CLOCK = [0.0]
time.perf_counter = lambda: CLOCK[0]

import aiohttp  # noqa: E402
from aiohttp.streams import StreamReader  # noqa: E402

SOURCES = {
    "vllm": {"repo": "vllm-project/vllm", "commit": "2f41c894e320a07a46a360ee72149dd84d6f4bec",
             "files": ["vllm/benchmarks/lib/endpoint_request_func.py", "vllm/benchmarks/serve.py"]},
    "sglang": {"repo": "sgl-project/sglang", "commit": "db570fe619ae15d8bd4ee04f146bc8234c52a20d",
               "files": ["python/sglang/benchmark/serving.py", "python/sglang/benchmark/utils.py",
                         "python/sglang/benchmark/datasets/common.py"]},
}

# The stubbings of what the bytes lack: a base, then the tokenizer changed,
# then the dataset's lengths changed.
VARIANTS = [
    {"prompt_len": 1000, "output_len": 100, "tokens": lambda text: len(text.split())},
    {"prompt_len": 1000, "output_len": 100, "tokens": lambda text, calls=itertools.count(): 1009 + 3 * next(calls)},
    {"prompt_len": 1237, "output_len": 137, "vision_prompt_len": 11, "tokens": lambda text: len(text.split())},
]

# SGLang's result keys that are its arguments or the server's answers, not
# anything the bytes hold.
SGLANG_ARGUMENTS = ["tag", "backend", "dataset_name", "request_rate", "max_concurrency", "sharegpt_output_len",
                    "random_input_len", "random_output_len", "random_range_ratio", "server_info", "accept_length"]


def _mod(name, **attrs):
    m = sys.modules.get(name)
    if m is None:
        m = types.ModuleType(name)
        m.__path__ = []
        sys.modules[name] = m
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(_mod(parent), child, m)
    for k, v in attrs.items():
        setattr(m, k, v)
    return m


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    sys.modules[name] = m
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(_mod(parent), child, m)
    spec.loader.exec_module(m)
    return m


def _stub(*a, **k):
    raise RuntimeError("stub called")


class Tokenizer:
    """A tokenizer stand-in: the bytes carry no tokenizer."""

    def __init__(self, count):
        self.count = count

    def __bool__(self):
        return True

    def __call__(self, text, add_special_tokens=False):
        return types.SimpleNamespace(input_ids=[0] * self.count(text))

    def encode(self, text, add_special_tokens=False):
        return [0] * self.count(text)


def load_vllm(src):
    _mod("vllm.benchmarks.lib")
    epf = _load("vllm.benchmarks.lib.endpoint_request_func", os.path.join(src, "vllm/benchmarks/lib/endpoint_request_func.py"))
    _mod("vllm.benchmarks.datasets", SampleRequest=object, add_dataset_parser=_stub, get_samples=_stub)
    _mod("vllm.benchmarks.lib.ready_checker", wait_for_endpoint=_stub)
    _mod("vllm.benchmarks.lib.utils", convert_to_pytorch_benchmark_format=_stub, write_to_json=_stub)
    _mod("vllm.tokenizers", TokenizerLike=object, get_tokenizer=_stub)
    _mod("vllm.utils.argparse_utils", FlexibleArgumentParser=argparse.ArgumentParser)
    _mod("vllm.utils.gc_utils", freeze_gc_heap=lambda: None)
    _mod("vllm.utils.network_utils", join_host_port=_stub)
    serve = _load("vllm.benchmarks.serve", os.path.join(src, "vllm/benchmarks/serve.py"))
    serve.TERM_PLOTLIB_AVAILABLE = False
    return epf, serve


def load_sglang(src):
    py = os.path.join(src, "python")

    class _Tok:  # transformers' names, for the imports only
        pass
    _mod("transformers", AutoTokenizer=_Tok, PreTrainedTokenizerBase=_Tok, AutoProcessor=_Tok,
         PreTrainedTokenizer=_Tok, PreTrainedTokenizerFast=_Tok)
    _mod("requests", get=_stub, post=_stub)
    _mod("orjson", loads=json.loads, dumps=lambda o: json.dumps(o).encode())
    _mod("sglang.benchmark")
    utils = _load("sglang.benchmark.utils", os.path.join(py, "sglang/benchmark/utils.py"))
    common = _load("sglang.benchmark.datasets.common", os.path.join(py, "sglang/benchmark/datasets/common.py"))
    _mod("sglang.benchmark.datasets", DatasetRow=common.DatasetRow, get_dataset=_stub)
    _mod("sglang.benchmark.datasets.mooncake", get_mooncake_request_over_time=_stub)
    _mod("sglang.srt.disaggregation.utils", FAKE_BOOTSTRAP_HOST="fake")
    _mod("sglang.srt.utils.network", resolve_base_url=_stub, resolve_host_port=_stub)
    serving = _load("sglang.benchmark.serving", os.path.join(py, "sglang/benchmark/serving.py"))
    serving.TERM_PLOTLIB_AVAILABLE = False
    serving.args = argparse.Namespace(
        disable_stream=False, disable_ignore_eos=False, return_logprob=False, top_logprobs_num=0,
        cache_report=False, print_requests=False, header=None, output_details=False,
        backend=None, dataset_name="random", sharegpt_output_len=None, random_input_len=None,
        random_output_len=None, random_range_ratio=None, tag=None)
    return utils, common, serving


# --- the fake HTTP layer ---------------------------------------------------

class Protocol:
    """What a StreamReader asks of its protocol."""
    _reading_paused = False

    def pause_reading(self):
        self._reading_paused = True

    def resume_reading(self):
        self._reading_paused = False


class Response:
    def __init__(self, req, limit):
        self.req = req
        self.status = req.get("http_status") or 200
        self.reason = _reason(self.status)
        self.content = StreamReader(Protocol(), limit, loop=asyncio.get_running_loop())
        self.feeder = None

    async def __aenter__(self):
        if self.status == 200:
            self.feeder = asyncio.ensure_future(feed(self.content, self.req))
        return self

    async def __aexit__(self, *a):
        if self.feeder is not None:
            self.feeder.cancel()
        return False

    async def text(self):
        return b"".join(data for _, data in chunks_of(self.req)).decode("utf-8", "replace")

    async def json(self):
        return json.loads(await self.text())


class Post:
    def __init__(self, req, limit):
        self.req, self.limit = req, limit
        self.resp = None

    async def __aenter__(self):
        if self.req.get("http_status") is None:
            raise aiohttp.ClientConnectionError(self.req.get("error") or "no response")
        self.resp = Response(self.req, self.limit)
        return await self.resp.__aenter__()

    async def __aexit__(self, *a):
        return await self.resp.__aexit__(*a)


class Session:
    def __init__(self, req, limit):
        self.req, self.limit = req, limit

    def post(self, url=None, json=None, headers=None, **kw):
        return Post(self.req, self.limit)

    async def __aenter__(self):
        return self

    async def __aexit__(self, *a):
        return False

    async def close(self):
        pass


def _reason(status):
    import http
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return ""


def chunks_of(req):
    out = []
    for c in req.get("chunks") or []:
        data = c["data"].encode("utf-8") if "data" in c else base64.b64decode(c["data_b64"])
        out.append((c["t_ns"] / 1e9, data))
    return out


def end_of(req):
    chunks = req.get("chunks") or []
    return req.get("end_ns") or (chunks[-1]["t_ns"] if chunks else req["t0_ns"])


async def settle(reader):
    """Runs the loop until the client waits for more of the body (or left)."""
    for _ in range(100000):
        await asyncio.sleep(0)
        if reader._waiter is not None:
            return
    raise RuntimeError("the client neither reads nor ends")


async def feed(reader, req):
    try:
        await settle(reader)
        for t, data in chunks_of(req):
            CLOCK[0] = t
            reader.feed_data(data)
            await settle(reader)
        CLOCK[0] = end_of(req) / 1e9
        if req.get("error"):
            reader.set_exception(aiohttp.ClientPayloadError(req["error"]))
        else:
            reader.feed_eof()
    except asyncio.CancelledError:
        pass


# --- one tool over a trace -------------------------------------------------

def last_line(err):
    lines = [l for l in (err or "").strip().splitlines() if l.strip()]
    return lines[-1] if lines else ""


def run_vllm(mods, api, reqs, variant):
    epf, serve = mods
    func = epf.async_request_openai_chat_completions if api == "chat" else epf.async_request_openai_completions
    url = "http://127.0.0.1:8000/v1/" + ("chat/completions" if api == "chat" else "completions")
    outputs = []
    for req in reqs:
        inp = epf.RequestFuncInput(prompt="hi", api_url=url, prompt_len=variant["prompt_len"],
                                   output_len=variant["output_len"], model="m")
        CLOCK[0] = req["t0_ns"] / 1e9
        outputs.append(asyncio.run(func(inp, Session(req, 2 ** 16))))
    dur = span(reqs)
    tok = Tokenizer(variant["tokens"])
    with contextlib.redirect_stdout(io.StringIO()), warnings_off():
        metrics, actual_output_lens = serve.calculate_metrics(
            input_requests=[], outputs=outputs, dur_s=dur, tokenizer=tok,
            selected_percentiles=[99.0], goodput_config_dict={})
        result = benchmark_tail(serve.benchmark, "    result: dict[str, Any]\n", "    if diffusion_stats is not None:\n        print(", {
            "metrics": metrics, "BenchmarkMetrics": serve.BenchmarkMetrics, "benchmark_duration": dur,
            "outputs": outputs, "actual_output_lens": actual_output_lens, "goodput_config_dict": {},
            "probe_stats": None, "rps_change_events": [], "spec_decode_stats": None, "diffusion_stats": None,
            "selected_percentile_metrics": ["ttft", "tpot", "itl", "e2el"], "task_type": serve.TaskType.GENERATION,
            "TaskType": serve.TaskType, "tokenizer": tok, "Any": object})
    # main_async without --save-detailed.
    for field in ["input_lens", "output_lens", "start_times", "ttfts", "itls", "generated_texts", "errors"]:
        result.pop(field, None)
    per = [{"success": o.success, "start_time": o.start_time, "ttft": o.ttft, "itl": o.itl, "latency": o.latency,
            "output_tokens": o.output_tokens, "prompt_len": o.prompt_len, "error": last_line(o.error)} for o in outputs]
    return result, per


def run_sglang(mods, api, reqs, variant):
    utils, common, serving = mods
    func = serving.async_request_openai_chat_completions if api == "chat" else serving.async_request_openai_completions
    url = "http://127.0.0.1:8000/v1/" + ("chat/completions" if api == "chat" else "completions")
    outputs = []
    for req in reqs:
        inp = serving.RequestFuncInput(prompt="hi", api_url=url, prompt_len=variant["prompt_len"],
                                       output_len=variant["output_len"], model="m", lora_name="",
                                       image_data=None, extra_request_body={})
        serving._create_bench_client_session = lambda req=req: Session(req, 10 * 1024 ** 2)
        CLOCK[0] = req["t0_ns"] / 1e9
        outputs.append(asyncio.run(func(inp)))
    dur = span(reqs)
    tok = Tokenizer(variant["tokens"])
    rows = [common.DatasetRow(prompt="hi", prompt_len=variant["prompt_len"], output_len=variant["output_len"],
                              vision_prompt_len=variant.get("vision_prompt_len")) for _ in reqs]
    backend = "vllm-chat" if api == "chat" else "vllm"
    serving.args.backend = backend
    with contextlib.redirect_stdout(io.StringIO()), warnings_off():
        try:
            metrics, output_lens = serving.calculate_metrics(
                input_requests=rows, outputs=outputs, dur_s=dur, tokenizer=tok, backend=backend,
                accept_length=None, plot_throughput=False)
        except Exception as e:
            return {"__error__": f"{type(e).__name__}: {e}"}, per_sglang(outputs)
        result = benchmark_tail(serving.benchmark, "    if (\n        metrics.median_ttft_ms is not None", "    # Determine output file name", {
            "metrics": metrics, "benchmark_duration": dur, "args": serving.args, "use_trace_timestamps": False,
            "request_rate": float("inf"), "max_concurrency": None, "server_info": None, "accept_length": None,
            "outputs": outputs})
    return result, per_sglang(outputs)


def per_sglang(outputs):
    return [{"success": o.success, "start_time": o.start_time, "ttft": o.ttft, "itl": o.itl, "latency": o.latency,
             "output_tokens": o.output_len, "prompt_len": o.prompt_len, "error": last_line(o.error)} for o in outputs]


def benchmark_tail(func, start, end, namespace):
    """Runs the part of the tool's benchmark() between two markers of its
    source (where it assembles the result dict) in namespace, and returns
    namespace["result"]."""
    import inspect
    src = inspect.getsource(func)
    i = src.index(start)
    j = src.index(end, i)
    code = textwrap.dedent(src[i:j])
    ns = dict(vars(sys.modules[func.__module__]))
    ns.update(namespace)
    exec(compile(code, func.__code__.co_filename, "exec"), ns)
    return ns["result"]


@contextlib.contextmanager
def warnings_off():
    import warnings
    import numpy as np
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def span(reqs):
    if not reqs:
        return 0.0
    return max(end_of(r) for r in reqs) / 1e9 - min(r["t0_ns"] for r in reqs) / 1e9


def plain(v):
    """A value as JSON holds it: non-finite floats spelled as strings."""
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    if isinstance(v, list):
        return [plain(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (list, dict, str)):  # numpy scalars
        return plain(v.item())
    return v


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def main():
    tool, api, src, trace, out = sys.argv[1:6]
    lines = open(trace, encoding="utf-8").read().splitlines()
    reqs = [json.loads(l) for l in lines[1:] if l.strip()]
    mods = load_vllm(src) if tool == "vllm" else load_sglang(src)
    runner = run_vllm if tool == "vllm" else run_sglang
    runs = [runner(mods, api, reqs, v) for v in VARIANTS]
    (res_a, per), (res_tok, _), (res_ds, _) = runs
    golden = {"tool": tool, "api": api, "source": SOURCES[tool], "requests": len(reqs), "duration_s": span(reqs)}
    if "__error__" in res_a:
        golden["error"] = res_a["__error__"]
    else:
        result, depends = {}, {}
        for k, v in res_a.items():
            if tool == "sglang" and k in SGLANG_ARGUMENTS:
                result[k] = None
                depends[k] = "argument"
                continue
            why = [name for name, other in (("tokenizer", res_tok), ("dataset", res_ds)) if not same(v, other.get(k))]
            if why:
                result[k] = None
                depends[k] = " and ".join(why)
            else:
                result[k] = plain(v)
        golden["result"] = result
        golden["depends"] = depends
    golden["per_request"] = [{k: plain(v) for k, v in p.items()} for p in per]
    with open(out, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What `guidellm benchmark` reports for a raw-SSE trace, from its own code at
a pinned commit.

usage: oracle_guidellm.py API SRC_DIR HTTPX_DIR TRACE.jsonl OUT.json
  API        chat | completions
  SRC_DIR    guidellm's src/ at the pinned commit (extract.sh guidellm)
  HTTPX_DIR  httpx 0.28.1's package (extract.sh httpx): guidellm asks for
             httpx<1.0, and Debian's 0.23 splits lines differently

Needs pydantic 2 (guidellm's schemas), pydantic-settings, numpy and httpx's
imports (Debian's python3-httpx pulls in httpcore, anyio, sniffio, h11):
regen.sh runs it with the Python that has pydantic 2 and Debian's packages
on its path.

Each request of the trace goes, offline, through guidellm's real streaming
client, OpenAIHTTPBackend._resolve_streaming and its _aiter_lines
(src/guidellm/backends/openai/http.py), with its real request handler
(ChatCompletionsRequestHandler or TextCompletionsRequestHandler,
request_handlers.py). The HTTP client is a stand-in whose response is a real
httpx.Response (0.28.1) over a byte stream that hands on the recorded reads,
one a read, each only when httpx asks for more: aiter_lines' decoders see the
recorded read boundaries. time.time is patched: float(t0_ns)/1e9 when the
request starts, the read's float(t_ns)/1e9 while its lines are handled,
float(end)/1e9 at the end of the body. As the worker does
(scheduler/worker.py), an exception errors the request and resolve_end is
taken then. The stats come from the real GenerationResponse.compile_stats
(prefer_response, the default) and GenerativeRequestStats; the metrics from
the real GenerativeMetrics.compile (benchmark/schemas/metrics.py) over a
stand-in accumulator holding the requests, its measured window (the
scheduler's start of requests to its end of processing, without warmup or
cooldown) the trace's span: the first t0 to the last end. The golden keeps
duration (GenerativeBenchmark.duration), request_totals, then the successful
requests' DistributionSummary of every other metric but the domain-specific
ones: mean, median, mode, variance, std_dev, min, max, count, total_sum and
percentiles p001 ... p999.

What the bytes lack is the dataset: a request's prompt and output token
counts when the stream carries no usage. The oracle runs twice, with a
dataset that gives none, then one that gives 1000 and 100: a key that
differs depends on the dataset (null, under "depends"). orjson is hidden:
guidellm parses with the standard json module unless its perf extras are
installed. Only the logger, the scheduler's types, more_itertools and the
audio helpers are stubbed: they are imported but never called here.
"""
import asyncio
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (time.perf_counter patch; helpers)

CLOCK = oracle.CLOCK
time.time = lambda: CLOCK[0]

SOURCE = {"repo": "vllm-project/guidellm", "commit": "ee7a77457ba668b4b5ccb40f110518829893b36a",
          "files": ["src/guidellm/backends/openai/http.py", "src/guidellm/backends/openai/request_handlers.py",
                    "src/guidellm/schemas/response.py", "src/guidellm/schemas/request_stats.py",
                    "src/guidellm/schemas/request.py", "src/guidellm/schemas/statistics.py",
                    "src/guidellm/benchmark/schemas/metrics.py"]}

# The metrics of GenerativeMetrics kept, in its field order: every one but
# request_totals and the domain-specific summaries (text, image, ...).
METRICS = ["requests_per_second", "request_concurrency", "request_latency", "request_streaming_iterations_count",
           "prompt_token_count", "output_token_count", "total_token_count", "time_to_first_token_ms",
           "time_to_first_output_token_ms", "time_per_output_token_ms", "inter_token_latency_ms",
           "prompt_tokens_per_second", "output_tokens_per_second", "tokens_per_second",
           "output_tokens_per_iteration", "iter_tokens_per_iteration"]
FIELDS = ["mean", "median", "mode", "variance", "std_dev", "min", "max", "count", "total_sum"]
PERCENTILES = ["p001", "p01", "p05", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p999"]


def load(src, httpx_dir):
    sys.path.insert(0, httpx_dir)
    sys.modules["orjson"] = None  # the perf extras are optional: json then
    mod = oracle._mod
    for pkg in ["guidellm", "guidellm.utils", "guidellm.backends", "guidellm.backends.openai",
                "guidellm.benchmark", "guidellm.benchmark.schemas"]:
        mod(pkg).__path__ = [os.path.join(src, pkg.replace(".", "/"))]
    import logging
    quiet = logging.getLogger("guidellm-oracle")
    quiet.disabled = True
    mod("guidellm.logger", logger=quiet)
    mod("guidellm.scheduler", HistoryT=list, SchedulerState=object)
    mod("guidellm.utils.audio", pcm16_append_b64_chunks=oracle._stub)
    mod("more_itertools", roundrobin=oracle._stub)
    mod("guidellm.backends.backend", Backend=type("Backend", (), {"register": classmethod(lambda c, *a: (lambda k: k))}),
        BackendArgs=type("BackendArgs", (), {"register": classmethod(lambda c, *a: (lambda k: k))}))
    ld = lambda name: oracle._load(name, os.path.join(src, name.replace(".", "/") + ".py"))  # noqa: E731
    import guidellm.schemas as schemas
    handlers = ld("guidellm.backends.openai.request_handlers")
    http = ld("guidellm.backends.openai.http")
    mod("guidellm.benchmark.schemas.accumulator", GenerativeBenchmarkAccumulator=object)
    metrics = ld("guidellm.benchmark.schemas.metrics")
    import httpx
    assert httpx.__version__ == "0.28.1", httpx.__version__
    return schemas, handlers, http, metrics, httpx


class Stream:
    """The body: each recorded read when httpx asks for more."""

    def __init__(self, httpx, req):
        self.httpx, self.req = httpx, req

    async def __aiter__(self):
        for t, data in oracle.chunks_of(self.req):
            CLOCK[0] = t
            yield data
        CLOCK[0] = oracle.end_of(self.req) / 1e9
        if self.req.get("error"):
            raise self.httpx.ReadError(self.req["error"])

    async def aclose(self):
        pass


class Client:
    def __init__(self, httpx, req):
        self.httpx, self.req = httpx, req

    def stream(self, url=None, method=None, **kw):
        httpx, req = self.httpx, self.req

        class Ctx:
            async def __aenter__(ctx):
                if req.get("http_status") is None:
                    raise httpx.ConnectError(req.get("error") or "no response")
                return httpx.Response(req["http_status"], stream=_Async(Stream(httpx, req)),
                                      request=httpx.Request(method, url))

            async def __aexit__(ctx, *a):
                return False

        return Ctx()


def _Async(stream):
    import httpx

    class S(httpx.AsyncByteStream):
        async def __aiter__(self):
            async for b in stream.__aiter__():
                yield b

        async def aclose(self):
            pass

    return S()


def resolve(m, api, req, dataset):
    """One request as the worker runs it: the backend's streaming resolve,
    then the stats."""
    schemas, handlers, http, _, httpx = m
    inp, out = schemas.UsageMetrics(), schemas.UsageMetrics()
    if dataset:
        inp.text_tokens, out.text_tokens = dataset
    request = schemas.GenerationRequest(request_id=req["request_id"], input_metrics=inp, output_metrics=out)
    info = schemas.RequestInfo(request_id=req["request_id"])
    handler = (handlers.ChatCompletionsRequestHandler if api == "chat" else handlers.TextCompletionsRequestHandler)()
    arguments = schemas.GenerationRequestArguments(body={"stream": True}, stream=True)
    url = "http://127.0.0.1:8000/v1/" + ("chat/completions" if api == "chat" else "completions")
    backend = http.OpenAIHTTPBackend.__new__(http.OpenAIHTTPBackend)
    backend._async_client = Client(httpx, req)
    backend._args = type("Args", (), {"tool_call_missing_behavior": "ignore_continue"})()
    CLOCK[0] = req["t0_ns"] / 1e9
    info.timings.resolve_start = CLOCK[0]
    response = None

    async def go():
        nonlocal response
        async for resp, _ in backend._resolve_streaming(request, info, handler, arguments,
                                                         {"url": url, "method": "POST"}):
            response = resp

    try:
        asyncio.run(go())
        info.status = "completed"
    except Exception as e:  # the worker's _handle_node_error
        info.status = "errored"
        info.error = repr(e)
    info.timings.resolve_end = CLOCK[0]
    if response is None:
        response = schemas.GenerationResponse(request_id=req["request_id"], request_args=None)
    return response.compile_stats(request=request, info=info, prefer_response=True)


class Group(list):
    def get_within_range(self, start, end):
        return list(self)


def compile_metrics(m, stats, reqs):
    metrics = m[3]
    acc = type("Acc", (), {})()
    acc.timings = type("T", (), {})()
    acc.timings.finalized_measure_start = min(r["t0_ns"] for r in reqs) / 1e9
    acc.timings.finalized_measure_end = max(oracle.end_of(r) for r in reqs) / 1e9
    acc.completed = Group(s for s in stats if s.info.status == "completed")
    acc.errored = Group(s for s in stats if s.info.status == "errored")
    acc.incomplete = Group()
    gm = metrics.GenerativeMetrics.compile(acc)
    # GenerativeBenchmark.duration: end_time - start_time, the measured window.
    result = {"duration": acc.timings.finalized_measure_end - acc.timings.finalized_measure_start}
    for k in ["successful", "incomplete", "errored", "total"]:
        result["request_totals." + k] = getattr(gm.request_totals, k)
    for name in METRICS:
        d = getattr(gm, name).successful
        for f in FIELDS:
            result[name + ".successful." + f] = getattr(d, f)
        for p in PERCENTILES:
            result[name + ".successful.percentiles." + p] = getattr(d.percentiles, p)
    return result


def per_request(stats):
    out = []
    for s in stats:
        t = s.info.timings
        out.append({"success": s.info.status == "completed", "start_time": t.request_start,
                    "error": oracle.last_line(s.info.error or ""), "first_token": t.first_token_iteration,
                    "first_output_token": t.first_output_token_iteration, "last_token": t.last_token_iteration,
                    "request_end": t.request_end, "resolve_end": t.resolve_end,
                    "request_iterations": t.request_iterations, "token_iterations": t.token_iterations,
                    "output_tokens": s.output_tokens, "prompt_len": s.prompt_tokens})
    return out


def main():
    api, src, httpx_dir, trace, out = sys.argv[1:6]
    lines = open(trace, encoding="utf-8").read().splitlines()
    reqs = [json.loads(l) for l in lines[1:] if l.strip()]
    m = load(src, httpx_dir)
    golden = {"tool": "guidellm", "api": api, "source": SOURCE, "requests": len(reqs)}
    with oracle.warnings_off():
        runs = []
        for dataset in [None, (1000, 100)]:
            stats = [resolve(m, api, r, dataset) for r in reqs]
            runs.append((compile_metrics(m, stats, reqs) if reqs else {}, stats))
    (result, stats), (other, _) = runs
    depends = {k: "dataset" for k, v in result.items() if not oracle.same(v, other.get(k))}
    golden["result"] = {k: None if k in depends else oracle.plain(v) for k, v in result.items()}
    golden["depends"] = depends
    golden["per_request"] = [{k: oracle.plain(v) for k, v in p.items()} for p in per_request(stats)]
    with open(out, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

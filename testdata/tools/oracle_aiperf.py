#!/usr/bin/env python3
"""What AIPerf reports for a raw-SSE trace, from its own code at a pinned
commit.

usage: oracle_aiperf.py API AIPERF_SRC AIOHTTP_SRC TRACE.jsonl OUT.json
  API          chat | completions
  AIPERF_SRC   AIPerf's files at the pinned commit (extract.sh aiperf)
  AIOHTTP_SRC  aiohttp's streams.py at the version AIPerf asks for
               (extract.sh aiohttp: aiohttp~=3.12.14)

Needs pydantic 2 and orjson (AIPerf's models and its JSON parser) and
Debian's numpy and aiohttp on the path: regen.sh runs it with the Python
3.11 that has them (AIPERF_PYTHON) and Debian's dist-packages.

Each request of the trace goes, offline, through AIPerf's real client,
OpenAIClientAioHttp.send_request (aiperf/clients/openai/openai_aiohttp.py)
over AioHttpClientMixin._request and AioHttpSSEStreamReader
(aiperf/clients/http/aiohttp_client.py), with a fake aiohttp session whose
response body is aiohttp 3.12's own StreamReader (loaded from AIOHTTP_SRC:
Debian's 3.8 reads readuntil's separator differently) fed the recorded
reads, one feed_data a read, each once the client waits for more, the
response's Content-Type text/event-stream (a trace holds no headers).
time.perf_counter_ns is patched to the read's t_ns (t0_ns when the request
is sent, the body's end at its end) and time.time_ns to the same clock plus
an origin. The RequestRecord then goes, as the worker fills it in (model,
turn, profiling phase), through the real InferenceResultParser
(parse_request_record, process_valid_record, OpenAIResponseExtractor),
MetricRecordProcessor.process_record (every metric the registry applies to
a streaming chat or completions endpoint), and, in the order the requests
ended (end_ns: the order the records reach the RecordsManager),
MetricResultsProcessor.process_result and summarize; the JsonExporter
writes profile_export_aiperf.json, whose metrics are the result keys
("<metric>.<stat>", in the file's order; each metric's "unit" left out:
its display unit, fixed by the metric).

What the bytes lack is stubbed, then changed one at a time: the tokenizer
(word counts, then 1009, 1012, ... for its successive calls), the dataset's
prompt (its token count), and the wall clock's origin (time.time_ns). A key
whose value changes, or that is present in one run and not the other,
depends on it: the golden holds it as null, under "depends". Only the
third-party packages AIPerf imports but these paths never call (zmq,
cyclopts, rich, transformers, ...) are stubbed by an import hook; nothing of
AIPerf is copied here.
"""
import asyncio
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import itertools
import json
import logging
import os
import sys
import tempfile
import types

CLOCK_NS = [0]
ORIGIN_NS = [0]
import time  # noqa: E402

# Before AIPerf's models bind time.perf_counter_ns and time.time_ns as
# default factories.
time.perf_counter_ns = lambda: CLOCK_NS[0]
time.time_ns = lambda: CLOCK_NS[0] + ORIGIN_NS[0]

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (trace reading, end_of, plain, same, last_line)

SOURCE = {"repo": "ai-dynamo/aiperf", "commit": "db4f6397d11ee2d4cfbb41f70b2327315163dcf0",
          "files": ["aiperf/clients/http/aiohttp_client.py", "aiperf/clients/openai/openai_aiohttp.py",
                    "aiperf/parsers/inference_result_parser.py", "aiperf/parsers/openai_parsers.py",
                    "aiperf/common/models/record_models.py", "aiperf/metrics/types/",
                    "aiperf/metrics/metric_dicts.py", "aiperf/post_processors/metric_record_processor.py",
                    "aiperf/post_processors/metric_results_processor.py", "aiperf/exporters/json_exporter.py"],
          "aiohttp": "aio-libs/aiohttp v3.12.15 aiohttp/streams.py"}

# The third-party packages AIPerf imports that these paths never call.
STUBBED = {"zmq", "cyclopts", "ruamel", "rich", "textual", "psutil", "setproctitle", "soundfile",
           "transformers", "uvloop", "aiofiles", "openai", "tqdm", "PIL"}


class _Meta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub()


class _Stub(metaclass=_Meta):
    """Whatever a stubbed package's name is used as: a base class, a
    decorator, a value."""

    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return _Stub()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub()

    def __class_getitem__(cls, key):
        return cls


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        m = types.ModuleType(spec.name)
        m.__path__ = []
        m.__getattr__ = lambda name: _Stub
        return m

    def exec_module(self, m):
        pass


def load_streams(src):
    """aiohttp 3.12's StreamReader, from its streams.py, with the few
    helpers it imports from its package given here."""
    pkg = types.ModuleType("aiohttp312")
    pkg.__path__ = []
    sys.modules["aiohttp312"] = pkg

    def set_result(fut, result):
        if not fut.done():
            fut.set_result(result)

    def set_exception(fut, exc, exc_cause=None):
        if not fut.done():
            fut.set_exception(exc)

    class TimerNoop:  # helpers.TimerNoop: no timeout
        def assert_timeout(self):
            return None

        def __enter__(self):
            return None

        def __exit__(self, *a):
            return None

    oracle._mod("aiohttp312.base_protocol", BaseProtocol=object)
    oracle._mod("aiohttp312.helpers", _EXC_SENTINEL=BaseException(), BaseTimerContext=object, TimerNoop=TimerNoop,
                set_exception=set_exception, set_result=set_result)
    oracle._mod("aiohttp312.log", internal_logger=logging.getLogger("aiohttp312"))
    return oracle._load("aiohttp312.streams", os.path.join(src, "aiohttp/streams.py"))


def load(src):
    sys.meta_path.insert(0, _StubFinder())
    sys.path.insert(0, src)
    logging.disable(logging.CRITICAL)
    oracle._mod("aiofiles", open=AsyncFile)  # the exporter writes its file through it
    m = types.SimpleNamespace()
    import aiperf.clients.http.aiohttp_client as client
    import aiperf.clients.openai.openai_aiohttp as openai_aiohttp
    import aiperf.parsers.inference_result_parser as irp
    import aiperf.parsers.openai_parsers as parsers
    import aiperf.metrics.metric_registry as registry
    import aiperf.post_processors.metric_record_processor as mrp
    import aiperf.post_processors.metric_results_processor as mres
    import aiperf.exporters.json_exporter as jexp
    from aiperf.common.models import dataset_models, export_models
    from aiperf.common.enums import CreditPhase, EndpointType
    m.client, m.openai_aiohttp, m.irp, m.parsers = client, openai_aiohttp, irp, parsers
    m.registry, m.mrp, m.mres, m.jexp = registry, mrp, mres, jexp
    m.dataset_models, m.export_models = dataset_models, export_models
    m.CreditPhase, m.EndpointType = CreditPhase, EndpointType
    return m


class AsyncFile:
    """aiofiles.open, for the exporter: a plain file behind async with."""

    def __init__(self, path, mode="r"):
        self.f = open(path, mode)

    async def __aenter__(self):
        return self

    async def __aexit__(self, *a):
        self.f.close()
        return False

    async def write(self, data):
        return self.f.write(data)


# --- the fake HTTP layer ---------------------------------------------------

class Protocol:
    """What aiohttp 3.12's StreamReader asks of its protocol."""
    _reading_paused = False
    connected = True

    def pause_reading(self):
        self._reading_paused = True

    def resume_reading(self):
        self._reading_paused = False


class Response:
    content_type = "text/event-stream"

    def __init__(self, streams, req):
        self.req = req
        self.status = req.get("http_status") or 200
        self.reason = oracle._reason(self.status)
        # ClientSession's default read_bufsize, 2**16: StreamReader(limit=2**16).
        self.content = streams.StreamReader(Protocol(), 2 ** 16, loop=asyncio.get_running_loop())
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
        return b"".join(data for _, data in oracle.chunks_of(self.req)).decode("utf-8", "replace")


class Request:
    def __init__(self, streams, req):
        self.streams, self.req = streams, req

    async def __aenter__(self):
        if self.req.get("http_status") is None:
            raise ConnectionError(self.req.get("error") or "no response")
        self.resp = Response(self.streams, self.req)
        return await self.resp.__aenter__()

    async def __aexit__(self, *a):
        return await self.resp.__aexit__(*a)


def session_class(streams, req):
    class Session:
        def __init__(self, **kw):
            pass

        async def __aenter__(self):
            return self

        async def __aexit__(self, *a):
            return False

        def request(self, method, url, data=None, headers=None, **kw):
            return Request(streams, req)
    return Session


async def feed(reader, req):
    """Each recorded read fed once the client waits for more, the clock at
    the read's time; then the end of the body (or its transport error)."""
    try:
        await oracle.settle(reader)
        for c in req.get("chunks") or []:
            data = oracle.chunks_of({"chunks": [c]})[0][1]
            CLOCK_NS[0] = c["t_ns"]
            reader.feed_data(data)
            await oracle.settle(reader)
        CLOCK_NS[0] = oracle.end_of(req)
        if req.get("error"):
            reader.set_exception(ConnectionResetError(req["error"]))
        else:
            reader.feed_eof()
    except asyncio.CancelledError:
        pass


# --- AIPerf over a trace ---------------------------------------------------

class Tokenizer:
    def __init__(self, count):
        self.count = count

    def encode(self, text, **kw):
        return [0] * self.count(text)


TOKENIZERS = [lambda text: len(text.split()), lambda text, calls=itertools.count(): 1009 + 3 * next(calls)]
PROMPTS = ["hi there", "a longer prompt of seven words"]
ORIGINS = [0, 1_700_000_000_000_000_000]


def endpoint(m, api):
    ep = types.SimpleNamespace(streaming=True, api_key=None, headers=None, timeout=600.0, extra=None,
                               type=m.EndpointType.CHAT if api == "chat" else m.EndpointType.COMPLETIONS)
    return types.SimpleNamespace(endpoint=ep, url="http://127.0.0.1:8000/v1/" + (
        "chat/completions" if api == "chat" else "completions"), primary_model_name="m")


def user_config(m, api):
    ep = types.SimpleNamespace(type=m.EndpointType.CHAT if api == "chat" else m.EndpointType.COMPLETIONS,
                               streaming=True)
    return types.SimpleNamespace(endpoint=ep, input=types.SimpleNamespace(goodput=None))


def send(m, streams, api, req, prompt):
    """The worker's part: send_request, then the record filled in as
    Worker._build_response_record and _call_inference_api_internal do."""
    model_endpoint = endpoint(m, api)
    m.client.aiohttp = types.SimpleNamespace(ClientTimeout=lambda **kw: None,
                                             ClientSession=session_class(streams, req))
    m.client.create_tcp_connector = lambda **kw: None
    cl = m.openai_aiohttp.OpenAIClientAioHttp(model_endpoint)
    turn = m.dataset_models.Turn(texts=[m.dataset_models.Text(contents=[prompt])])
    CLOCK_NS[0] = req["t0_ns"]
    record = asyncio.run(cl.send_request(model_endpoint, {"messages": [], "stream": True}))
    record.turn = turn
    record.model_name = "m"
    record.conversation_id = req.get("request_id")
    record.turn_index = 0
    record.credit_phase = m.CreditPhase.PROFILING
    return record


class Parser:
    """InferenceResultParser without its communication: its own methods on
    the extractor it creates and the tokenizer given."""

    def __init__(self, m, api, tokenizer):
        cls = m.irp.InferenceResultParser
        self.extractor = m.parsers.OpenAIResponseExtractor(endpoint(m, api))
        self.tokenizer = tokenizer
        for name in ["parse_request_record", "process_valid_record", "get_turn", "compute_input_token_count"]:
            setattr(self, name, types.MethodType(getattr(cls, name), self))

    async def get_tokenizer(self, model):
        return self.tokenizer

    def __getattr__(self, name):  # the logger's methods
        return lambda *a, **k: None


def run(m, streams, api, reqs, tokenizer, prompt, origin):
    ORIGIN_NS[0] = origin
    m.registry.MetricRegistry._instances_map.clear()  # a new AIPerf process: fresh aggregates
    uc = user_config(m, api)
    parser = Parser(m, api, tokenizer)
    recproc = m.mrp.MetricRecordProcessor(user_config=uc)
    resproc = m.mres.MetricResultsProcessor(user_config=uc)
    per, datas = [], []
    for req in reqs:
        record = send(m, streams, api, req, prompt)
        parsed = asyncio.run(parser.parse_request_record(record))
        metrics = asyncio.run(recproc.process_record(parsed))
        datas.append(metrics)
        per.append(per_request(req, record, parsed))
    order = sorted(range(len(reqs)), key=lambda i: oracle.end_of(reqs[i]))
    for i in order:
        asyncio.run(resproc.process_result(types.SimpleNamespace(metrics=datas[i])))
    results = asyncio.run(resproc.summarize())
    return export(m, results), per


def export(m, records):
    """JsonExporter.export of these results: profile_export_aiperf.json."""
    with tempfile.TemporaryDirectory() as tmp:
        import pathlib
        results = types.SimpleNamespace(records=records, start_ns=None, end_ns=None, was_cancelled=False,
                                        error_summary=[])
        cfg = types.SimpleNamespace(results=results, user_config=types.SimpleNamespace(
            output=types.SimpleNamespace(artifact_directory=pathlib.Path(tmp))))
        ex = m.jexp.JsonExporter(cfg)
        ex._input_config = None  # the run's UserConfig: not a result key
        asyncio.run(ex.export())
        with open(ex._file_path) as f:
            doc = json.load(f)
    out = {}
    for tag, v in doc.items():
        if isinstance(v, dict) and "unit" in v:
            for stat, x in v.items():
                if stat != "unit":  # the metric's display unit: fixed by its tag
                    out[tag + "." + stat] = x
    return out


def per_request(req, record, parsed):
    return {"success": bool(parsed.valid), "start_time": record.start_perf_ns,
            "responses": [r.perf_ns for r in parsed.responses],
            "raw_responses": [r.perf_ns for r in record.responses],
            "end_perf_ns": record.end_perf_ns,
            "error": "" if parsed.request.error is None else
            f"{parsed.request.error.type}: {oracle.last_line(parsed.request.error.message)}"}


def key_order(m):
    tags = list(m.export_models.JsonExportData.model_fields)
    stats = list(m.export_models.JsonMetricResult.model_fields)
    return lambda k: (tags.index(k.split(".")[0]) if k.split(".")[0] in tags else len(tags),
                      stats.index(k.split(".", 1)[1]))


def main():
    api, src, aiohttp_src, trace, out = sys.argv[1:6]
    lines = open(trace, encoding="utf-8").read().splitlines()
    reqs = [json.loads(l) for l in lines[1:] if l.strip()]
    m = load(src)
    streams = load_streams(aiohttp_src)
    variants = [("tokenizer", 1, 0, 0), ("dataset", 0, 1, 0), ("clock", 0, 0, 1)]
    with contextlib.redirect_stdout(io.StringIO()), oracle.warnings_off():
        base, per = run(m, streams, api, reqs, Tokenizer(TOKENIZERS[0]), PROMPTS[0], ORIGINS[0])
        others = {name: run(m, streams, api, reqs, Tokenizer(TOKENIZERS[t]), PROMPTS[p], ORIGINS[o])[0]
                  for name, t, p, o in variants}
    keys = sorted(set(base).union(*others.values()), key=key_order(m))
    result, depends = {}, {}
    for k in keys:
        why = [name for name, other in others.items()
               if k not in base or k not in other or not oracle.same(base[k], other[k])]
        if why:
            result[k] = None
            depends[k] = " and ".join(why)
        else:
            result[k] = oracle.plain(base[k])
    golden = {"tool": "aiperf", "api": api, "source": SOURCE, "requests": len(reqs), "result": result,
              "depends": depends, "per_request": per}
    with open(out, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

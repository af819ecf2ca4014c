#!/usr/bin/env python3
"""What GenAI-Perf reports for a raw-SSE trace, from its own Python code at
a pinned commit.

usage: oracle_genaiperf.py API GENAI_PERF_SRC TRACE.jsonl OUT.json
  API             chat | completions
  GENAI_PERF_SRC  perf_analyzer's genai-perf directory at the pinned commit
                  (extract.sh genai-perf)

Needs numpy and orjson: regen.sh runs it with the Python 3.11 that has
orjson (GENAI_PERF_PYTHON) and Debian's dist-packages (numpy, tqdm).

GenAI-Perf's requests are sent and timed by perf_analyzer, in C++, which
cannot run here (it needs its build and Triton's client libraries): its
client is reproduced from its code, read at the pinned commit
(src/client_backend/openai/openai_client.cc, ChatCompletionClient::
ResponseHandler and the completion callback; src/infer_context.cc,
AsyncCallbackFuncImpl; src/profile_data_exporter.cc): every curl write (a
recorded read) is one response, timed then, its text the read's bytes;
the first read holding "data: [DONE]" is the final one and nothing after it
is kept; without one, the request's completion adds a final empty response
at the body's end; a status other than 200 or a transport error stops
perf_analyzer, which then exports nothing. load_json reads the export with
errors="ignore": invalid UTF-8 bytes are dropped. This script writes that
profile export (profile_export.json) and runs GenAI-Perf's own
LLMProfileDataParser on it (its _preprocess_response, the metrics of
_parse_requests, Statistics and scale_data), as `genai-perf profile` does
for `--service-kind openai --endpoint-type chat|completions --streaming`.
The result keys are profile_export_genai_perf.json's metrics as
"<metric>.<stat>" (their order; each metric's "unit" left out).

The tokenizer (word counts, then 1009, 1012, ... for its successive calls)
and the dataset's prompts (one for all, then one for each request) are
stubbed, then changed one at a time: a key
whose value changes, or that is present in one run and not the other,
depends on it: the golden holds it as null, under "depends". Only the
third-party packages GenAI-Perf imports but these paths never call
(transformers, pandas, plotly, ...) are stubbed by an import hook; nothing
of GenAI-Perf is copied here.
"""
import contextlib
import importlib.abc
import importlib.machinery
import io
import itertools
import json
import logging
import os
import sys
import tempfile
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (end_of, plain, same, last_line, chunks_of)

SOURCE = {"repo": "triton-inference-server/perf_analyzer", "commit": "263c5f6e0c7a6c15472a54409174981f67930cfe",
          "files": ["genai-perf/genai_perf/profile_data_parser/llm_profile_data_parser.py",
                    "genai-perf/genai_perf/profile_data_parser/profile_data_parser.py",
                    "genai-perf/genai_perf/metrics/statistics.py", "genai-perf/genai_perf/metrics/llm_metrics.py",
                    "src/client_backend/openai/openai_client.cc", "src/infer_context.cc"]}

STUBBED = {"transformers", "pandas", "plotly", "optuna", "statsmodels", "fastparquet", "kaleido", "soundfile", "PIL",
           "rich", "pyarrow", "responses", "jinja2"}


class _Stub:
    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return _Stub()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub()


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


def load(src):
    sys.meta_path.insert(0, _StubFinder())
    sys.path.insert(0, src)
    logging.disable(logging.CRITICAL)
    import genai_perf.profile_data_parser.llm_profile_data_parser as p
    return p


class Tokenizer:
    """genai_perf.tokenizer.Tokenizer's calls: encode(text), and
    __call__(texts) giving input_ids."""

    def __init__(self, count):
        self.count = count

    def encode(self, text, **kw):
        return [0] * self.count(text)

    def __call__(self, texts, **kw):
        return {"input_ids": [[0] * self.count(t) for t in texts]}


TOKENIZERS = [lambda text: len(text.split()), lambda text, calls=itertools.count(): 1009 + 3 * next(calls)]
# The dataset's prompts: one for every request, then a different one for
# each (its token count is cached by text: the same prompt has the same count).
PROMPTS = [lambda i: "hi there", lambda i: "a longer prompt of seven words" + " more" * i]


def responses(req):
    """perf_analyzer's responses of a request: (t_ns, text) a non-empty read
    up to the first holding "data: [DONE]", else a final empty one at the
    body's end; None when perf_analyzer stops (a status other than 200, a
    transport error)."""
    if req.get("http_status") != 200 or req.get("error"):
        return None
    out = []
    for c in req.get("chunks") or []:
        data = oracle.chunks_of({"chunks": [c]})[0][1]
        if not data:
            continue
        out.append((c["t_ns"], data.decode("utf-8", "ignore")))
        if b"data: [DONE]" in data:
            return out
    out.append((oracle.end_of(req), ""))
    return out


def export(api, reqs, prompt):
    endpoint = "v1/chat/completions" if api == "chat" else "v1/completions"
    body = {"model": "m", "stream": True}
    out = []
    for i, req in enumerate(reqs):
        rs = responses(req)
        if api == "chat":
            body["messages"] = [{"role": "user", "content": prompt(i)}]
        else:
            body["prompt"] = [prompt(i)]
        out.append({"timestamp": req["t0_ns"], "request_inputs": {"payload": json.dumps(body)},
                    "response_timestamps": [t for t, _ in rs], "response_outputs": [{"response": x} for _, x in rs]})
    return {"service_kind": "openai", "endpoint": endpoint,
            "experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": out}]}


def run(p, api, reqs, tokenizer, prompt):
    """The keys, the per-request responses kept, or the exception raised."""
    doc = export(api, reqs, prompt)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "profile_export.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        seen = []

        class Parser(p.LLMProfileDataParser):
            def _parse_requests(self, requests):
                seen.append(requests)  # _preprocess_response drops responses in place
                return super()._parse_requests(requests)
        try:
            parser = Parser(path, tokenizer)
        except Exception as e:  # noqa: BLE001  (what GenAI-Perf raises stops it)
            return None, None, f"{type(e).__name__}: {oracle.last_line(str(e))}"
    stats = parser.get_statistics("concurrency", "1")
    stats.scale_data()
    keys = {}
    for metric, st in stats.stats_dict.items():
        for stat, x in st.items():
            if stat != "unit":
                keys[metric + "." + stat] = x
    kept = [r["response_timestamps"] for r in seen[0]]
    return keys, kept, ""


def main():
    api, src, trace, out = sys.argv[1:5]
    lines = open(trace, encoding="utf-8").read().splitlines()
    reqs = [json.loads(l) for l in lines[1:] if l.strip()]
    p = load(src)
    golden = {"tool": "genai-perf", "api": api, "source": SOURCE, "requests": len(reqs)}
    stop = next((r for r in reqs if responses(r) is None), None)
    if stop is not None:
        golden["error"] = "perf_analyzer stops: request %s: %s" % (
            stop.get("request_id"), stop.get("error") or "HTTP %s" % stop.get("http_status"))
    else:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
                oracle.warnings_off():
            base, kept, err = run(p, api, reqs, Tokenizer(TOKENIZERS[0]), PROMPTS[0])
            others = {name: run(p, api, reqs, Tokenizer(TOKENIZERS[t]), PROMPTS[q])
                      for name, t, q in [("tokenizer", 1, 0), ("dataset", 0, 1)]}
        if err:
            golden["error"] = err
        else:
            result, depends = {}, {}
            order = list(base)
            for o, _, _ in others.values():
                order += [k for k in (o or {}) if k not in order]
            for k in order:
                why = [name for name, (o, _, e) in others.items()
                       if e or k not in base or k not in o or not oracle.same(base[k], o[k])]
                if why:
                    result[k] = None
                    depends[k] = " and ".join(why)
                else:
                    result[k] = oracle.plain(base[k])
            golden.update(result=result, depends=depends,
                          per_request=[{"start_time": r["t0_ns"], "responses": k} for r, k in zip(reqs, kept)])
    with open(out, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

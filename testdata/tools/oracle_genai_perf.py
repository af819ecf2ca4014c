#!/usr/bin/env python3
"""What GenAI-Perf reports for a raw-SSE trace, from its own Python code at a
pinned commit: groundwork for a GenAI-Perf calculator (there is none yet, and
no golden is made from this; docs/tools.md, "Other tools").

usage: oracle_genai_perf.py API SRC_DIR TRACE.jsonl OUT.json
  API      chat | completions
  SRC_DIR  genai-perf's Python files at the pinned commit (extract.sh genai-perf:
           its genai-perf/ directory)

GenAI-Perf's requests are sent and timed by perf_analyzer (C++, libcurl),
which cannot be built here (its CMakeLists.txt fetches Triton's client
libraries over the network). Its part is written here from its code
(triton-inference-server/perf_analyzer 263c5f6e0c7a6c15472a54409174981f67930cfe),
as the profile export it would have written from the trace:

  - ChatCompletionClient::ResponseHandler (src/client_backend/openai/openai_client.cc,
    l. 114): each read is one response holding that read's bytes; a read
    holding "data: [DONE]" is the final (null) response; without one, the
    request's completion sends an empty final response (l. 180), here at
    end_ns. InferContext::AsyncCallbackFuncImpl (src/infer_context.cc, l. 299)
    stamps every response, the null one too, with system_clock::now(): here
    the read's t_ns. Reads after the final response are dropped.
  - ChatCompletionResult::RequestStatus (openai_client.h): an HTTP 4xx or
    5xx is an error that stops perf_analyzer: no result at all. A request
    without a response is taken as stopping it too.
  - The bytes become a JSON string: invalid UTF-8 is replaced here.

Then genai-perf's own LLMProfileDataParser (preprocessing, _parse_requests)
and Statistics (scale_data, stats_dict) run on that export. Token counts are
always its tokenizer's: it runs with two stand-in tokenizers (word counts,
then 1009 + 3 x its calls) and a key that differs depends on the tokenizer
(null, under "depends"). Only its logger, its tokenizer module and PIL are
stubbed.
"""
import base64
import itertools
import json
import logging
import os
import sys
import tempfile
import types

SOURCE = {"repo": "triton-inference-server/perf_analyzer", "commit": "263c5f6e0c7a6c15472a54409174981f67930cfe",
          "files": ["src/client_backend/openai/openai_client.cc", "src/infer_context.cc",
                    "genai-perf/genai_perf/profile_data_parser/llm_profile_data_parser.py",
                    "genai-perf/genai_perf/metrics/statistics.py"]}


def load(src):
    sys.path.insert(0, src)

    def mod(name, **attrs):
        m = types.ModuleType(name)
        m.__path__ = []
        for k, v in attrs.items():
            setattr(m, k, v)
        sys.modules[name] = m
        return m
    quiet = logging.getLogger("genai-perf-oracle")
    quiet.disabled = True
    mod("genai_perf.logging", logging=types.SimpleNamespace(getLogger=lambda *a: quiet), getLogger=lambda *a: quiet)
    mod("genai_perf.tokenizer", Tokenizer=object)
    mod("PIL", Image=object)
    from genai_perf.profile_data_parser.llm_profile_data_parser import LLMProfileDataParser
    return LLMProfileDataParser


def export(reqs, api):
    """The profile export perf_analyzer would have written."""
    out = []
    for r in reqs:
        status = r.get("http_status")
        if status is None or 400 <= status <= 599:
            return None, "perf_analyzer stops: " + ("no response" if status is None else
                                                    "OpenAI response returns HTTP code %d" % status)
        ts, outs, final = [], [], False
        for c in r.get("chunks") or []:
            data = c["data"].encode("utf-8") if "data" in c else base64.b64decode(c["data_b64"])
            if not data or final:
                continue
            text = data.decode("utf-8", "replace")
            ts.append(c["t_ns"])
            outs.append({"response": text})
            final = "data: [DONE]" in text
        if not final:
            ts.append(r.get("end_ns") or r["t0_ns"])
            outs.append({"response": ""})
        if api == "chat":
            payload = {"messages": [{"role": "user", "content": "hi there"}], "stream": True}
        else:
            payload = {"prompt": ["hi there"], "stream": True}
        out.append({"timestamp": r["t0_ns"], "request_inputs": {"payload": json.dumps(payload)},
                    "response_timestamps": ts, "response_outputs": outs})
    endpoint = "v1/chat/completions" if api == "chat" else "v1/completions"
    return {"service_kind": "openai", "endpoint": endpoint,
            "experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": out}]}, None


class Tokenizer:
    def __init__(self, count):
        self.count = count

    def encode(self, text):
        return [0] * self.count(text)

    def __call__(self, texts):
        return {"input_ids": [[0] * (1 + self.count(t[1:])) for t in texts]}


TOKENIZERS = [lambda text: len(text.split()), lambda text, calls=itertools.count(): 1009 + 3 * next(calls)]


def run(parser, data, tok):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(data, f)
    try:
        p = parser(f.name, tok)
    finally:
        os.unlink(f.name)
    stats = list(p._profile_results.values())[0]
    stats.scale_data()
    return {m + "." + k: v for m, d in stats.stats_dict.items() for k, v in d.items() if k != "unit"}


def main():
    api, src, trace, out = sys.argv[1:5]
    lines = open(trace, encoding="utf-8").read().splitlines()
    reqs = [json.loads(l) for l in lines[1:] if l.strip()]
    parser = load(src)
    golden = {"tool": "genai-perf", "api": api, "source": SOURCE, "requests": len(reqs)}
    data, err = export(reqs, api)
    if err is not None:
        golden["error"] = err
    else:
        a, b = [run(parser, data, Tokenizer(t)) for t in TOKENIZERS]
        depends = {k: "tokenizer" for k in a if a[k] != b.get(k)}
        golden["result"] = {k: None if k in depends else v for k, v in a.items()}
        golden["depends"] = depends
    with open(out, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

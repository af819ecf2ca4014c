"""Writes the importer fixtures in testdata/import/ from the field names the
tools document (GenAI-Perf profile_export.json, AIPerf --export-level raw,
vllm bench serve --save-result --save-detailed, sglang.bench_serving
--output-details). Values are made up; shapes follow the tools. Run from the
repository root: python3 testdata/import/make.py"""
import json, os

D = "testdata/import"

def chunk(content=None, role=None, reasoning=None, finish=None, usage=None, choices=True):
    delta = {}
    if role: delta["role"] = role
    if content is not None: delta["content"] = content
    if reasoning is not None: delta["reasoning_content"] = reasoning
    o = {"id": "chatcmpl-7", "object": "chat.completion.chunk", "created": 1718000000, "model": "llama-3-8b"}
    o["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}] if choices else []
    o["usage"] = usage
    return json.dumps(o, separators=(",", ":"))

def sse(*events):
    return "".join("data: " + e + "\n\n" for e in events)

def payload(prompt):
    return json.dumps({"messages": [{"role": "user", "content": prompt}], "model": "llama-3-8b", "stream": True,
                       "stream_options": {"include_usage": True}, "max_tokens": 16})

os.makedirs(D + "/genai-perf", exist_ok=True)
T = 1718000000000000000
def gp_request(t0, prompt, outs):
    # outs: list of (offset_ns, text)
    return {"timestamp": t0, "request_inputs": {"payload": payload(prompt)},
            "response_timestamps": [t0 + o for o, _ in outs],
            "response_outputs": [{"response": s} for _, s in outs]}
usage = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
reqs = [
    gp_request(T + 0, "What is tea?", [
        (180_000_000, sse(chunk("", role="assistant"))),
        (205_000_000, sse(chunk("Tea"))),
        (231_000_000, sse(chunk(" is"))),
        (256_000_000, sse(chunk(" a drink"), chunk(None, finish="stop"))),  # two events in one read
        (281_000_000, sse(chunk(None, usage=usage, choices=False)) + "data: [DONE]\n\n"),
    ]),
    gp_request(T + 400_000_000, "Why is the sky blue?", [  # sent later, listed first below
        (150_000_000, sse(chunk("", role="assistant"))),
        (170_000_000, sse(chunk(None, reasoning="Rayleigh"))),
        (190_000_000, 'data: {"id":"chatcmpl-7","object":"chat.completion.chunk","created":1718000000,"model":"llama-3-8b","choices":[{"index":0,"delta":{"content":"Scatte'),  # one event split over two reads
        (195_000_000, 'ring"},"finish_reason":"stop"}],"usage":null}\n\n'),
        (215_000_000, sse(chunk(None, usage={"prompt_tokens": 14, "completion_tokens": 2, "total_tokens": 16}, choices=False)) + "data: [DONE]\n\n"),
    ]),
    gp_request(T + 20_000_000, "Name a river.", []),  # nothing came back
    gp_request(T + 300_000_000, "Say hi.", [
        (120_000_000, sse(chunk("Hi", role="assistant"))),
        (140_000_000, sse(chunk("!", finish="stop", usage={"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}))),
        (160_000_000, "data: [DONE]\n\n"),
    ]),
]
export = {"experiments": [{"experiment": {"mode": "concurrency", "value": 2},
                           "requests": [reqs[1], reqs[0], reqs[2], reqs[3]],
                           "window_boundaries": [T, T + 800_000_000]}],
          "version": "2.41.0", "service_kind": "openai", "endpoint": "v1/chat/completions"}
json.dump(export, open(D + "/genai-perf/profile_export.json", "w"), indent=2)
two = {"experiments": [export["experiments"][0],
                       {"experiment": {"mode": "request_rate", "value": 4.0}, "requests": [reqs[3]]}],
       "service_kind": "openai", "endpoint": "v1/chat/completions"}
json.dump(two, open(D + "/genai-perf/two-experiments.json", "w"), indent=2)
bad = json.loads(json.dumps(export))
bad["experiments"][0]["requests"][1]["response_timestamps"].pop()
json.dump(bad, open(D + "/genai-perf/bad-lengths.json", "w"), indent=2)

os.makedirs(D + "/aiperf", exist_ok=True)
S = 52_000_000_000
def packets(*events):
    return [{"name": "data", "value": e} for e in events]
recs = [
    {"metadata": {"x_request_id": "8c1f0a52-aa01", "conversation_id": "c-1", "turn_index": 0, "worker_id": "worker-0"},
     "start_perf_ns": S + 300_000_000, "end_perf_ns": S + 520_000_000, "status": 200,
     "payload": json.loads(payload("Say hi.")),
     "responses": [
         {"perf_ns": S + 420_000_000, "packets": [{"name": "comment", "value": "keep-alive"}]},
         {"perf_ns": S + 440_000_000, "packets": packets(chunk("Hi", role="assistant"))},
         {"perf_ns": S + 440_000_000, "packets": [{"name": "event", "value": "message"}] + packets(chunk("!", finish="stop"))},
         {"perf_ns": S + 510_000_000, "packets": packets("[DONE]")},
     ], "error": None},
    {"metadata": {"x_request_id": "8c1f0a52-aa00", "conversation_id": "c-0", "turn_index": 0, "worker_id": "worker-1"},
     "start_perf_ns": S, "end_perf_ns": S + 290_000_000, "status": 200,
     "payload": json.loads(payload("What is tea?")),
     "responses": [
         {"perf_ns": S + 180_000_000, "packets": packets(chunk("", role="assistant"))},
         {"perf_ns": S + 205_000_000, "packets": packets(chunk("Tea"))},
         {"perf_ns": S + 231_000_000, "packets": packets(chunk(" is", finish="stop"))},
         {"perf_ns": S + 281_000_000, "packets": packets(chunk(None, usage=usage, choices=False))},
         {"perf_ns": S + 282_000_000, "packets": packets("[DONE]")},
     ], "error": None},
    {"metadata": {"x_request_id": "8c1f0a52-aa02", "worker_id": "worker-0"},
     "start_perf_ns": S + 530_000_000, "end_perf_ns": S + 560_000_000, "status": 500,
     "payload": json.loads(payload("Name a river.")),
     "responses": [], "error": {"code": 500, "type": "InternalServerError", "message": "Internal Server Error"}},
    {"metadata": {"x_request_id": "8c1f0a52-aa03", "worker_id": "worker-1"},
     "start_perf_ns": S + 600_000_000, "end_perf_ns": S + 700_000_000, "status": 200,
     "payload": {"prompt": "Count to two:", "model": "llama-3-8b", "stream": False},
     "responses": [{"perf_ns": S + 700_000_000, "text": "{\"choices\":[{\"text\":\" one two\"}]}"}], "error": None},
]
with open(D + "/aiperf/profile_export_raw.jsonl", "w") as f:
    for r in recs:
        f.write(json.dumps(r, separators=(",", ":")) + "\n")
with open(D + "/aiperf/bad-line.jsonl", "w") as f:
    f.write(json.dumps(recs[1], separators=(",", ":")) + "\n")
    r = dict(recs[0]); del r["start_perf_ns"]
    f.write(json.dumps(r, separators=(",", ":")) + "\n")

os.makedirs(D + "/vllm", exist_ok=True)

def pystats(xs):
    """numpy's mean, median, std and linear percentiles (0 for no values, as
    the tools' np.mean(xs or 0))."""
    if not xs:
        return {"mean": 0.0, "median": 0.0, "std": 0.0, "p99": 0.0, "p95": 0.0, "p90": 0.0, "max": 0.0}
    ys = sorted(xs)
    n = len(ys)
    def pct(p):
        v = (n - 1) * p / 100
        lo = int(v)
        return ys[-1] if lo >= n - 1 else ys[lo] + (ys[lo + 1] - ys[lo]) * (v - lo)
    m = sum(ys) / n
    return {"mean": m, "median": pct(50), "std": (sum((x - m) ** 2 for x in ys) / n) ** 0.5,
            "p90": pct(90), "p95": pct(95), "p99": pct(99), "max": ys[-1]}

def figures(lists, tool):
    """The run's own figures, computed from its lists as the tool computes
    them (vLLM: latency = ttft + sum(itls); SGLang: no latency in the lists)."""
    ok = [i for i, e in enumerate(lists["errors"]) if e == ""]
    ttft = [lists["ttfts"][i] * 1e3 for i in ok]
    itl = [d * 1e3 for i in ok for d in lists["itls"][i]]
    lat = [(lists["ttfts"][i] + sum(lists["itls"][i])) * 1e3 for i in ok]
    tpot = [(lat[k] - ttft[k]) / (lists["output_lens"][i] - 1) for k, i in enumerate(ok) if lists["output_lens"][i] > 1]
    out = {"completed": len(ok), "total_input_tokens": sum(lists["input_lens"][i] for i in ok),
           "total_output_tokens": sum(lists["output_lens"][i] for i in ok)}
    metrics = [("ttft", ttft), ("tpot", tpot), ("itl", itl), ("e2el", lat)] if tool == "vllm" else [("ttft", ttft), ("itl", itl)]
    stats_of = ("mean", "median", "std", "p99") if tool == "vllm" else ("mean", "median", "std", "p90", "p99")
    for name, xs in metrics:
        st = pystats(xs)
        for k in stats_of:
            out["%s_%s_ms" % (k, name)] = st[k]
    if tool == "vllm":
        out["failed"] = len(lists["errors"]) - len(ok)
    else:
        st = pystats(itl)
        out["p95_itl_ms"], out["max_itl_ms"] = st["p95"], st["max"]
        out["mean_e2e_latency_ms"] = sum(lat) / len(lat) + 1.5  # SGLang's latency ends after [DONE]
    return out

lists = {"start_times": [1000.0, 1000.0012, 1000.3105, 1000.3423, 1000.6571],
         "input_lens": [100, 100, 100, 100, 100],
         "output_lens": [4, 4, 0, 4, 4],
         "ttfts": [0.2, 0.1875, 0.0, 0.21, 0.19],
         "itls": [[0.03, 0.031, 0.029], [0.028, 0.0, 0.035], [], [0.03, 0.03, 0.031], [0.025, 0.026, 0.027]],
         "generated_texts": [" a b c", " d e f", "", " g h i", " j k l"],
         "errors": ["", "", "Bad Request: prompt too long", "", ""]}
res = {"date": "20250601-101500", "backend": "vllm", "model_id": "meta-llama/Llama-3.1-8B-Instruct",
       "tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct", "num_prompts": 5, "request_rate": "inf",
       "burstiness": 1.0, "max_concurrency": 2, "duration": 1.2, "request_throughput": 3.33, "output_throughput": 13.3}
res.update(figures(lists, "vllm"))
res.update(lists)
json.dump(res, open(D + "/vllm/result.json", "w"), indent=2)  # pretty-printed, as committed after json.tool
nostart = dict(res); del nostart["start_times"]
json.dump(nostart, open(D + "/vllm/no-start-times.json", "w"))  # before vLLM PR #32667, as vLLM writes it
# --append-result: one run a line, "\n" between runs, none at the end.
run2 = dict(nostart, max_concurrency=4, date="20250601-102000")
with open(D + "/vllm/appended.json", "w") as f:
    f.write(json.dumps(nostart) + "\n" + json.dumps(run2))
with open(D + "/vllm/appended-pretty.json", "w") as f:
    f.write(json.dumps(nostart, indent=4) + "\n" + json.dumps(run2, indent=4) + "\n")
summary = {k: v for k, v in res.items() if k not in lists}
json.dump(summary, open(D + "/vllm/summary-only.json", "w"), indent=4)

os.makedirs(D + "/sglang", exist_ok=True)
lists = {"input_lens": [100, 100, 100, 100], "output_lens": [4, 4, 4, 0],
         "ttfts": [0.2, 0.19, 0.21, 0.0],
         "itls": [[0.03, 0.031, 0.029], [0.028, 0.03, 0.035], [0.03, 0.0, 0.031], []],
         "generated_texts": [" a b c", " d e f", " g h i", ""],
         "errors": ["", "", "", "ClientConnectorError: Cannot connect to host 127.0.0.1:30000"]}
run1 = {"backend": "sglang", "dataset_name": "random", "request_rate": float("inf"), "max_concurrency": 2,
        "sharegpt_output_len": None, "random_input_len": 100, "random_output_len": 4, "duration": 1.1}
run1.update(figures(lists, "sglang"))
run1.update(lists)
run2 = dict(run1, max_concurrency=4)
with open(D + "/sglang/details.jsonl", "w") as f:
    f.write(json.dumps(run1) + "\n")
with open(D + "/sglang/two-runs.jsonl", "w") as f:
    f.write(json.dumps(run1) + "\n")
    f.write(json.dumps(run2) + "\n")
# Newer bench_serving: server_info, tag, accept_length; a first run without
# --output-details, then one with it.
newer = dict(run1, tag="spec-c2", accept_length=2.75, max_concurrency=2,
             server_info={"version": "0.5.19", "speculative_algorithm": "EAGLE3", "max_running_requests": 64})
with open(D + "/sglang/newer-schema.jsonl", "w") as f:
    f.write(json.dumps({k: v for k, v in newer.items() if k not in lists}) + "\n")
    f.write(json.dumps(newer) + "\n")
json.dump(run1, open(D + "/sglang/pretty.json", "w"), indent=2)

# AIPerf's records export (profile_export.jsonl) and its summary
# (profile_export_aiperf.json), in the two schemas in use. Times are on the
# epoch in ns, metrics in ms as AIPerf writes them (ns / 1e6, with the float
# noise of that division).
def stats(xs, pcts=(50, 90, 99)):
    xs = sorted(xs)
    n = len(xs)
    def pct(p):
        v = (n - 1) * p / 100
        lo = int(v)
        return xs[-1] if lo >= n - 1 else xs[lo] + (xs[lo + 1] - xs[lo]) * (v - lo)
    m = sum(xs) / n
    out = {"avg": m, "min": xs[0], "max": xs[-1], "std": (sum((x - m) ** 2 for x in xs) / n) ** 0.5}
    for p in pcts:
        out["p%d" % p] = pct(p)
    return out

def aiperf_records(schema, T, reqs):
    """reqs: (id, start offset ns, ttft ns, [icl ns], isl, osl, error, phase)."""
    lines, ok = [], []
    for rid, off, ttft, icl, isl, osl, err, phase in reqs:
        start = T + off
        md = {"x_request_id": rid, "x_correlation_id": rid + "-c", "conversation_id": "session_" + rid[-2:], "turn_index": 0}
        if schema == "2026":
            md = dict(session_num=int(rid[-2:]), **md)
            md["credit_issued_ns"] = start - 650_512
            md["request_start_ns"] = start
            md["request_ack_ns"] = None if err else start + ttft - 350_000
            md["request_end_ns"] = start + (30_000_000_000 if err and err.get("type") == "TimeoutError" else ttft + sum(icl))
            md["benchmark_phase"] = phase
            md["was_cancelled"] = bool(err and err.get("code") == 499)
        else:
            md["timestamp_ns"] = start
            md["credit_phase"] = phase
        md["worker_id"] = "worker_0"
        md["record_processor_id"] = "record_processor_0"
        if schema == "2026":
            md["agent_depth"] = 0
        if err:
            rec = {"metadata": md, "metrics": {"error_isl": {"value": isl, "unit": "tokens"}}, "error": err}
        else:
            ttft_key = "time_to_first_token" if schema == "2026" else "ttft"
            m = {"input_sequence_length": {"value": isl, "unit": "tokens"},
                 ttft_key: {"value": ttft / 1e6, "unit": "ms"},
                 "request_latency": {"value": (ttft + sum(icl)) / 1e6, "unit": "ms"},
                 "output_sequence_length": {"value": osl, "unit": "tokens"},
                 "inter_chunk_latency": {"value": [d / 1e6 for d in icl], "unit": "ms"}}
            if schema == "2026":  # metrics the import does not use
                m["time_to_second_token"] = {"value": icl[0] / 1e6, "unit": "ms"}
                m["http_req_chunks_received"] = {"value": len(icl) + 1, "unit": "count"}
                m["usage_prompt_tokens"] = {"value": isl, "unit": "tokens"}
            rec = {"metadata": md, "metrics": m, "error": None}
            if phase == "profiling":
                ok.append((start, ttft, icl, isl, osl))
        lines.append(rec)
    return lines, ok

def aiperf_summary(schema, ok, failures, concurrency):
    ms = lambda ns: ns / 1e6
    ttft = [ms(t) for _, t, _, _, _ in ok]
    lat = [ms(t + sum(i)) for _, t, i, _, _ in ok]
    icl = [ms(d) for _, _, i, _, _ in ok for d in i]
    ttst = [ms(i[0]) for _, _, i, _, _ in ok if i]
    osl = [o for *_, o in ok]
    isl = [i for _, _, _, i, _ in ok]
    first = min(s for s, *_ in ok)
    last = max(s + t + sum(i) for s, t, i, _, _ in ok)
    dur = (last - first) / 1e9
    names = {"ttft": "ttft", "ttst": "ttst"} if schema == "0.2" else {"ttft": "time_to_first_token", "ttst": "time_to_second_token"}
    metrics = {
        "request_count": {"unit": "requests", "avg": float(len(ok))},
        "error_request_count": {"unit": "requests", "avg": float(failures)},
        names["ttft"]: dict(stats(ttft), unit="ms"),
        names["ttst"]: dict(stats(ttst), unit="ms"),
        "request_latency": dict(stats(lat), unit="ms"),
        "inter_chunk_latency": dict(stats(icl), unit="ms"),
        "output_sequence_length": dict(stats(osl), unit="tokens"),
        "input_sequence_length": dict(stats(isl), unit="tokens"),
        "min_request_timestamp": {"unit": "ns", "avg": float(first)},
        "max_response_timestamp": {"unit": "ns", "avg": float(last)},
        "benchmark_duration": {"unit": "sec", "avg": dur},
        "request_throughput": {"unit": "requests/sec", "avg": len(ok) / dur},
        "output_token_throughput": {"unit": "tokens/sec", "avg": sum(osl) / dur},
        "total_osl": {"unit": "tokens", "avg": float(sum(osl))},
        "total_isl": {"unit": "tokens", "avg": float(sum(isl))},
    }
    cfg = {"endpoint": {"model_names": ["Qwen/Qwen3-0.6B"], "type": "chat", "streaming": True},
           "loadgen": {"concurrency": concurrency, "request_count": len(ok) + failures}}
    if schema == "0.2":
        for k, v in metrics.items():
            v.update(tag=k, count=len(icl) if k == "inter_chunk_latency" else (len(ok) if "p50" in v else 1))
        return {"records": metrics, "input_config": cfg, "was_cancelled": False}
    return dict(metrics, input_config=cfg)

cancel = {"code": 499, "type": "RequestCancellationError", "message": "Request was cancelled after 0.000 seconds"}
timeout = {"type": "TimeoutError", "message": "Request timed out after 30.000 seconds"}
for schema, T in (("2026", 1785359889_000_000_000), ("0.2", 1759522419_000_000_000)):
    reqs = [
        ("c087da26-0000", 0, 1_450_120_337, [100_112_030, 108_423_699, 101_056_314], 69, 4, None, "warmup"),
        ("c087da26-0001", 990_741_174, 1_968_883_269, [17_720_725_426, 100_112_030, 108_423_699, 13_264_997], 69, 5, None, "profiling"),
        ("c087da26-0002", 990_943_493, 19_637_089_505, [152_023_254, 108_405_043, 0, 101_265_114], 359, 4, None, "profiling"),
        ("c087da26-0003", 1_100_000_000, 0, [], 120, 0, timeout if schema == "2026" else dict(timeout, code=408), "profiling"),
        ("c087da26-0004", 1_150_000_000, 0, [], 88, 0, cancel, "profiling"),
        ("c087da26-0005", 21_000_000_000, 412_500_001, [22_745_035, 22_443_198], 550, 3, None, "profiling"),
    ]
    lines, ok = aiperf_records(schema, T, reqs)
    d = D + "/aiperf/records-" + schema
    os.makedirs(d, exist_ok=True)
    with open(d + "/profile_export.jsonl", "w") as f:
        for r in [lines[2], lines[0], lines[1]] + lines[3:]:  # not in start order, as AIPerf writes them
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    json.dump(aiperf_summary(schema, ok, 2, 2), open(d + "/profile_export_aiperf.json", "w"), indent=2)

# GenAI-Perf's summary (profile_export_genai_perf.json) beside the openai
# export above, and exports of the other service kinds. GenAI-Perf's
# definitions (LLMProfileDataParser): over the requests with a response left
# after its openai preprocessing (responses without text content dropped,
# split messages merged, several messages in one response joined), latency =
# last response - timestamp, TTFT = first response - timestamp, TTST =
# second - first; request_throughput = all requests / (last response - first
# timestamp); statistics in ms (np.mean, np.percentile, np.std).
def genai_stats(xs_ms):
    ys = sorted(xs_ms)
    n = len(ys)
    def pct(p):
        v = (n - 1) * p / 100
        lo = int(v)
        return ys[-1] if lo >= n - 1 else ys[lo] + (ys[lo + 1] - ys[lo]) * (v - lo)
    m = sum(ys) / n
    out = {"unit": "ms", "avg": m}
    for p in (1, 5, 10, 25, 50, 75, 90, 95, 99):
        out["p%d" % p] = pct(p)
    out.update(min=ys[0], max=ys[-1], std=(sum((x - m) ** 2 for x in ys) / n) ** 0.5)
    return out

def genai_summary(kept, n_requests):
    """kept: (t0 ns, [kept response ns]) of the requests GenAI-Perf counts."""
    lat = [(ts[-1] - t0) / 1e6 for t0, ts in kept]
    ttft = [(ts[0] - t0) / 1e6 for t0, ts in kept]
    ttst = [(ts[1] - ts[0]) / 1e6 for t0, ts in kept if len(ts) > 1]
    dur = (max(ts[-1] for _, ts in kept) - min(t0 for t0, _ in kept)) / 1e9
    return {"request_throughput": {"unit": "requests/sec", "avg": n_requests / dur},
            "request_latency": genai_stats(lat), "time_to_first_token": genai_stats(ttft),
            "time_to_second_token": genai_stats(ttst),
            "inter_token_latency": {"unit": "ms", "avg": 25.0},  # tokenizer's: not reproducible
            "output_sequence_length": {"unit": "tokens", "avg": 3.0},
            "input_config": {"model": ["llama-3-8b"], "endpoint_type": "chat", "service_kind": "openai"}}

# The openai export above, response by response (times after each t0, ms):
#  "What is tea?" (t0 0): 180 role only, no content: dropped; 205 "Tea",
#    231 " is": kept; 256 " a drink" + the finish message: joined, kept;
#    281 usage (choices []) + [DONE]: dropped.
#  "Why is the sky blue?" (t0 400): 150 role only, 170 reasoning only:
#    dropped; 190 "Scatte" + 195 'ring...' (not a data: field, merged into
#    190): kept at 190, 195 dropped; 215 usage + [DONE]: dropped.
#  "Name a river." (t0 20): no response: not counted, but in the requests.
#  "Say hi." (t0 300): 120 "Hi", 140 "!": kept; 160 [DONE]: dropped.
MS = 1_000_000
kept = [(T, [T + 205 * MS, T + 231 * MS, T + 256 * MS]),
        (T + 400 * MS, [T + 590 * MS]),
        (T + 300 * MS, [T + 420 * MS, T + 440 * MS])]
json.dump(genai_summary(kept, 4), open(D + "/genai-perf/profile_export_genai_perf.json", "w"), indent=2)

# Triton (service_kind "triton", the vLLM or TensorRT-LLM backend through
# Triton's generate stream): output tensors, no SSE text. TensorRT-LLM in
# process ("triton_c_api"): token ids.
TT = 1741134590_669919999
def triton_request(t0, text_input, outs):
    return {"timestamp": t0, "request_inputs": {"text_input": text_input, "max_tokens": 8, "stream": True},
            "response_timestamps": [t0 + o for o, _ in outs],
            "response_outputs": [{"text_output": s} for _, s in outs]}
treqs = [
    triton_request(TT, "What is tea?", [(41_000_000, "Tea"), (58_000_000, " is"), (75_000_000, " a drink"), (76_000_000, "")]),
    triton_request(TT + 90_000_000, "Say hi.", [(30_000_000, "Hi"), (47_500_001, "!")]),
    triton_request(TT + 95_000_000, "Name a river.", []),
]
os.makedirs(D + "/genai-perf/triton", exist_ok=True)
json.dump({"experiments": [{"experiment": {"mode": "concurrency", "value": 2}, "requests": treqs,
                            "window_boundaries": [TT, TT + 200_000_000]}],
           "version": "2.41.0", "service_kind": "triton", "endpoint": ""},
          open(D + "/genai-perf/triton/profile_export.json", "w"), indent=2)
# Triton's responses are all counted: the empty last one too.
tkept = [(q["timestamp"], q["response_timestamps"]) for q in treqs if q["response_timestamps"]]
json.dump(genai_summary(tkept, 3), open(D + "/genai-perf/triton/profile_export_genai_perf.json", "w"), indent=2)

def trtllm_request(t0, ids, outs):
    return {"timestamp": t0, "request_inputs": {"input_ids": ids, "input_lengths": len(ids), "request_output_len": 4, "streaming": True},
            "response_timestamps": [t0 + o for o, _ in outs],
            "response_outputs": [{"output_ids": v} for _, v in outs]}
os.makedirs(D + "/genai-perf/tensorrtllm", exist_ok=True)
json.dump({"experiments": [{"experiment": {"mode": "request_rate", "value": 2.0}, "requests": [
              trtllm_request(TT, [1, 3923, 374, 15600, 30], [(12_000_000, 17245), (19_000_000, [374, 264]), (26_000_000, [])]),
              trtllm_request(TT + 500_000_000, [1, 25083, 15960, 13], [(10_000_000, [13347]), (17_000_000, 0)])]}],
           "version": "2.41.0", "service_kind": "triton_c_api", "endpoint": ""},
          open(D + "/genai-perf/tensorrtllm/profile_export.json", "w"), indent=2)

# perf_analyzer's own --profile-export-file, without GenAI-Perf: response
# times only; "responses_timestamps" up to mid-2023, then
# "response_timestamps" with no "response_outputs".
def pa_export(key, mode_value):
    reqs = [{"timestamp": TT + 1_000_000 * i, "sequence_id": i + 1,
             key: [TT + 1_000_000 * i + 5_000_000 + 2_000_000 * k for k in range(n)]} for i, n in enumerate([3, 0, 2])]
    return {"experiments": [{"experiment": {"mode": "concurrency", "value": mode_value}, "requests": reqs,
                             "window_boundaries": [TT, TT + 50_000_000]}], "version": "2.36.0"}
json.dump(pa_export("responses_timestamps", 4), open(D + "/genai-perf/perf-analyzer-2023.json", "w"), indent=4)
json.dump(pa_export("response_timestamps", 4), open(D + "/genai-perf/perf-analyzer-no-outputs.json", "w"), indent=4)

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
res = {"date": "20250601-101500", "backend": "vllm", "model_id": "meta-llama/Llama-3.1-8B-Instruct",
       "tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct", "num_prompts": 5, "request_rate": "inf",
       "burstiness": 1.0, "max_concurrency": 2, "duration": 1.2, "completed": 4, "total_input_tokens": 400,
       "total_output_tokens": 16, "request_throughput": 3.33, "output_throughput": 13.3,
       "start_times": [1000.0, 1000.0012, 1000.3105, 1000.3423, 1000.6571],
       "input_lens": [100, 100, 100, 100, 100],
       "output_lens": [4, 4, 0, 4, 4],
       "ttfts": [0.2, 0.1875, 0.0, 0.21, 0.19],
       "itls": [[0.03, 0.031, 0.029], [0.028, 0.0, 0.035], [], [0.03, 0.03, 0.031], [0.025, 0.026, 0.027]],
       "generated_texts": [" a b c", " d e f", "", " g h i", " j k l"],
       "errors": ["", "", "Bad Request: prompt too long", "", ""]}
json.dump(res, open(D + "/vllm/result.json", "w"), indent=2)
nostart = dict(res); del nostart["start_times"]
json.dump(nostart, open(D + "/vllm/no-start-times.json", "w"), indent=2)

os.makedirs(D + "/sglang", exist_ok=True)
run1 = {"backend": "sglang", "dataset_name": "random", "request_rate": float("inf"), "max_concurrency": 2,
        "sharegpt_output_len": None, "random_input_len": 100, "random_output_len": 4, "duration": 1.1,
        "completed": 3, "total_input_tokens": 300, "total_output_tokens": 12,
        "input_lens": [100, 100, 100, 100], "output_lens": [4, 4, 4, 0],
        "ttfts": [0.2, 0.19, 0.21, 0.0],
        "itls": [[0.03, 0.031, 0.029], [0.028, 0.03, 0.035], [0.03, 0.0, 0.031], []],
        "generated_texts": [" a b c", " d e f", " g h i", ""],
        "errors": ["", "", "", "ClientConnectorError: Cannot connect to host 127.0.0.1:30000"]}
run2 = dict(run1, max_concurrency=4)
with open(D + "/sglang/details.jsonl", "w") as f:
    f.write(json.dumps(run1) + "\n")
with open(D + "/sglang/two-runs.jsonl", "w") as f:
    f.write(json.dumps(run1) + "\n")
    f.write(json.dumps(run2) + "\n")

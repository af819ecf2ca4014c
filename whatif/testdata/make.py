# Writes the hand-made what-if traces (python3 make.py). Times are in ms after
# 0 on the trace clock; every event sits in its own read unless grouped.
import json

def ev(obj):
    return "data: " + json.dumps(obj, separators=(",", ":")) + "\n\n"

def role():
    return ev({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]})

def content(t, finish=None, role=False):
    d = {"content": t}
    if role:
        d["role"] = "assistant"
    return ev({"choices": [{"index": 0, "delta": d, "finish_reason": finish}]})

def reasoning(t):
    return ev({"choices": [{"index": 0, "delta": {"reasoning_content": t}, "finish_reason": None}]})

def tool():
    return ev({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}, "finish_reason": None}]})

def finish():
    return ev({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})

def usage(out, prompt=50):
    return ev({"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out}})

def metadata():
    return ev({"id": "x", "object": "chat.completion.chunk"})

DONE = "data: [DONE]\n\n"
MS = 1_000_000

def req(rid, t0, chunks, status=200):
    cs = [{"t_ns": t * MS, "data": d} for t, d in chunks]
    end = cs[-1]["t_ns"] if cs else t0 * MS
    return {"request_id": rid, "t0_ns": t0 * MS, "end_ns": end, "http_status": status, "chunks": cs}

def write(path, c, reqs):
    with open(path, "w") as f:
        f.write(json.dumps({"run": {"max_concurrency": c, "schema_version": 1, "source": "whatif/testdata/make.py"}}) + "\n")
        for r in reqs:
            f.write(json.dumps(r) + "\n")

# shifts.jsonl: every policy moves some tm; see whatif_test.go's table.
write("shifts.jsonl", 2, [
    req("a", 1000, [(1100, role()), (1120, content("The ")), (1140, content("end")), (1150, finish()), (1160, usage(2)), (1160, DONE)]),
    req("b", 1010, [(1110, role()), (1130, reasoning("hm ")), (1150, reasoning("so ")), (1170, content("Yes ")), (1190, content("no")),
                    (1195, metadata()), (1200, usage(4)), (1200, DONE)]),
    req("c", 1020, [(1100, content("Hi ", role=True)), (1130, content("there", finish="stop")), (1140, usage(2)), (1140, DONE)]),
    req("d", 1030, [(1100, role()), (1120, usage(1)), (1120, DONE)]),
    req("e", 1040, [(1090, "Internal Server Error")], status=500),
    req("f", 1050, [(1100, role()), (1120, tool()), (1140, tool()), (1150, finish()), (1160, usage(3)), (1160, DONE)]),
    req("g", 1060, [(1100, role()), (1130, reasoning("hm ")), (1150, reasoning("so")), (1170, usage(2)), (1170, DONE)]),
    req("h", 1070, [(1100, ev({"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}],
                              "usage": {"prompt_tokens": 50, "completion_tokens": 1, "total_tokens": 51}}) + DONE)]),
    req("i", 1080, [(1100, role()), (1105, role()), (1120, content("Hi")), (1130, usage(1)), (1130, DONE)]),
    req("j", 1090, [(1100, metadata()), (1110, usage(1)), (1110, DONE)]),
])

# window.jsonl: the worked example's starts and ends (C = 2, seconds 10 + 0/3,
# 1/5, 3.1/7, 5.1/9, 7.1/12); only b's text ends early (2.9) and its usage
# arrives at 5: dropping the usage tail moves the stable window's start from
# 3.1 to 5.1 and its selection from c, d, e to d, e.
def wreq(rid, start, last_text, end):
    s = int(round((10 + start) * 1000))
    lt = int(round((10 + last_text) * 1000))
    e = int(round((10 + end) * 1000))
    first = s + 500
    chunks = [(first, content("a ")), (lt, content("b"))]
    if e == lt:
        chunks = [(first, content("a ")), (lt, content("b") + usage(10) + DONE)]
    else:
        chunks += [(e, usage(10) + DONE)]
    return req(rid, s, chunks)

write("window.jsonl", 2, [
    wreq("a", 0, 3, 3), wreq("b", 1, 2.9, 5), wreq("c", 3.1, 7, 7), wreq("d", 5.1, 9, 9), wreq("e", 7.1, 12, 12),
])

# time_points.jsonl: time points a client recorded, no bytes: nothing to filter.
with open("time_points.jsonl", "w") as f:
    f.write(json.dumps({"run": {"max_concurrency": 1, "schema_version": 1, "source": "whatif/testdata/make.py"}}) + "\n")
    f.write(json.dumps({"request_id": "t0", "t0_ns": 1000000000, "http_status": 200, "time_points_s": [1.0, 1.2, 1.3], "input_tokens": 10, "output_tokens": 2}) + "\n")

#!/usr/bin/python3
"""Writes cases.jsonl: raw traces covering every framing case of the replay
package, in the JSONL interchange (see schemas/trace-v1.md). Run from this
directory; testdata/oracle/replay/regen.sh turns the file into AISBench's own
results."""
import base64, json

def obj(**kw): return json.dumps(kw, separators=(",", ":"))
def delta(d, fin=None, **kw):
    c = {"index": 0, "delta": d}
    if fin: c["finish_reason"] = fin
    return obj(choices=[c], **kw)
def content(t): return delta({"content": t})
def role(): return delta({"role": "assistant", "content": ""})
def reasoning(t): return delta({"reasoning_content": t, "content": None})
def finish(): return delta({}, fin="stop")
def usage(p, c): return obj(choices=[], usage={"prompt_tokens": p, "completion_tokens": c})
def ev(p, nl="\n"): return "data: " + p + nl + nl

REQS = []
T0 = 5_000_000_123
STEP = 400_000_017
GAP = 95_000_011

def req(rid, chunks, status=200, error=None, end=None, **extra):
    k = len(REQS)
    t0 = T0 + k * STEP
    out, t = [], t0 + 120_000_007
    for c in chunks:
        if isinstance(c, tuple):  # (extra delay multiplier, data)
            t += GAP * c[0]; c = c[1]
        else:
            t += GAP
        if isinstance(c, bytes):
            out.append({"t_ns": t, "data_b64": base64.b64encode(c).decode()})
        else:
            out.append({"t_ns": t, "data": c})
    r = {"request_id": rid, "t0_ns": t0, "end_ns": (t + 1_000_003) if end is None else (None if end == "null" else end),
         "http_status": status, "error": error, "chunks": out}
    r.update(extra)
    REQS.append(r)

def stream(n, p=100, nl="\n"):
    """role, n content events, finish, usage, [DONE]: one event a read."""
    return [ev(role(), nl)] + [ev(content(f"tok{i} "), nl) for i in range(n)] + \
        [ev(finish(), nl), ev(usage(p, n), nl), "data: [DONE]" + nl + nl]

# failure first
req("http_500", ['{"error":{"message":"boom","type":"server_error"}}'], status=500, input_tokens=11, output_tokens=0)
req("lf_basic", stream(3))
req("crlf", stream(3, nl="\r\n"))
req("cr_only", stream(3, nl="\r"))
chunks = stream(2)
whole = "".join(chunks)
req("split_event_across_reads", [whole[:20], whole[20:61], whole[61:62], whole[62:150], whole[150:]])
req("split_blank_line", [ev(role())[:-1], "\n", ev(content("a"))[:-1], "\n" + ev(content("b")), ev(usage(7, 2))[:-1], "\ndata: [DONE]\n\n"])
req("several_events_one_read", [ev(role()) + ev(content("x")) + ev(content("y")) + ev(content("z")), ev(finish()) + ev(usage(9, 3)) + "data: [DONE]\n\n"])
req("keepalive_comments", [": ping\n\n", ev(role()), ": keep-alive\n\n", ev(content("a")), ": ping\n\n", ev(usage(5, 1)), "data: [DONE]\n\n"])
req("comment_inside_data_block", [ev(role()), ": note\ndata: " + content("lost") + "\n\n", ev(content("kept")), ev(usage(5, 2)), "data: [DONE]\n\n"])
req("event_field_lines", ["event: message\ndata: " + role() + "\n\n", "event: message\ndata: " + content("a") + "\n\n", ev(usage(5, 1)), "data: [DONE]\n\n"])
req("multiline_data", [ev(role()), 'data: {"choices":[{"index":0,\ndata: "delta":{"content":"a"}}]}\n\n', ev(usage(5, 1)), "data: [DONE]\n\n"])
req("empty_data_line", [ev(role()), "data:\n\n", ev(content("a")), ev(usage(5, 1)), "data: [DONE]\n\n"])
req("no_done", [ev(role()), ev(content("a")), ev(content("b")), ev(usage(6, 2))])
req("data_after_done", [ev(role()), ev(content("a")), ev(usage(6, 1)), "data: [DONE]\n\n", ev(content("late")), ": late comment\n\n"])
req("usage_only_tail", [ev(content("a")), ev(content("b")), ev(delta({"content": "c"}, fin="length")), ev(usage(12, 3)), "data: [DONE]\n\n"])
req("role_only_first", [ev(delta({"role": "assistant"})), ev(content("a")), ev(content("b")), ev(usage(4, 2)), "data: [DONE]\n\n"])
req("reasoning_then_content", [ev(role()), ev(reasoning("think")), ev(reasoning(" more")), ev(content("answer")), ev(finish()), ev(usage(8, 4)), "data: [DONE]\n\n"])
# failure in the middle
req("json_error_mid_stream", [ev(role()), ev(content("a")), 'data: {"choices":[{"delta":{"content":"b"}}\n\n', ev(usage(5, 2)), "data: [DONE]\n\n"])
req("one_event", [ev(delta({"content": "only"}, usage={"prompt_tokens": 3, "completion_tokens": 1})), "data: [DONE]\n\n"])
req("no_data_event", ["data: [DONE]\n\n"], input_tokens=3, output_tokens=0)
req("multi_token_events", [ev(content("several tokens here ")), ev(content("and more tokens ")), ev(delta({"content": "end"}, fin="stop")), ev(usage(20, 12)), "data: [DONE]\n\n"])
req("no_trailing_newline", [ev(role()), ev(content("a")), "data: " + usage(5, 1)], end=None)
req("done_without_newline", [ev(role()), ev(content("a")), ev(usage(5, 1)), "data: [DONE]"])
req("crlf_split_across_reads", ["data: " + role() + "\r", "\n\r", "\ndata: " + content("a") + "\r\n", "\r\ndata: " + usage(5, 1) + "\r\n\r\n", "data: [DONE]\r\n\r\n"])
req("lone_lf_then_crlf_blank", ["data: " + role() + "\n\r\n\r\n", ev(content("a")), ev(usage(5, 1)), "data: [DONE]\n\n"])
req("extra_blank_lines", ["\n\n" + ev(role()) + "\n", "\n\n\n" + ev(content("a")), ev(usage(5, 1)) + "\n\n\n\n", "data: [DONE]\n\n"])
req("unicode_whitespace_and_no_space", ["data:" + role() + "\n\n", "data:\u00a0" + content("a") + "\u3000\n\n", "data:\t" + usage(5, 1) + " \n\n", "data: [DONE]\n\n"])
req("content_null_mid_stream", [ev(role()), ev(content("a")), ev(delta({"role": "assistant", "content": None})), ev(content("b")), ev(usage(5, 2)), "data: [DONE]\n\n"])
req("completions_text", [ev(obj(choices=[{"index": 0, "text": "hi", "finish_reason": None}])), ev(usage(5, 1)), "data: [DONE]\n\n"])
req("error_object_event", [ev(role()), ev(content("a")), ev(obj(error={"message": "overloaded", "code": 503})), ev(usage(5, 1)), "data: [DONE]\n\n"])
req("tool_call_stream", [ev(role()), ev(delta({"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "f", "arguments": ""}}]})),
                         ev(delta({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]})), ev(delta({}, fin="tool_calls")), ev(usage(9, 5)), "data: [DONE]\n\n"])
req("invalid_utf8_in_comment", [ev(role()), b": bad \xff\xfe\n\n", ev(content("a")), ev(usage(5, 1)), "data: [DONE]\n\n"])
req("role_on_finish_and_tool_calls", [ev(delta({"role": "assistant", "content": None, "tool_calls": [{"index": 0, "function": {"name": "f"}}]})),
                                      ev(delta({"role": "assistant", "content": None}, fin="stop")), ev(usage(5, 2)), "data: [DONE]\n\n"])
req("usage_then_more_usage", [ev(delta({"content": "a"}, usage={"prompt_tokens": 5, "completion_tokens": 1})), ev(content("b")),
                              ev(delta({"content": "c"}, usage={"prompt_tokens": 5, "completion_tokens": 3})), ev(obj(choices=[], usage=None)), "data: [DONE]\n\n"])
req("many_reads_per_line", [c for c in ev(role())] + [ev(content("a")), ev(usage(5, 1)), "data: [DONE]\n\n"])
# failure last
req("transport_error_mid_stream", [ev(role()), ev(content("a")), ev(content("b"))[:15]], error="connection reset by peer")

with open("cases.jsonl", "w", encoding="utf-8") as f:
    f.write(json.dumps({"run": {"max_concurrency": 2, "source": "replay framing cases"}}) + "\n")
    for r in REQS:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")

# random_mix.jsonl: bodies assembled at random from framing pieces and cut
# into random reads (seeded), for a differential test against AISBench.
import random
rng = random.Random(20261130)
PIECES = ["data: ", "data:", "data:  ", content("a"), content("b c"), role(), reasoning("r"), finish(), usage(7, 3),
          obj(choices=[{"index": 0, "text": "t"}]), "[DONE]", "{", "\n", "\n", "\n\n", "\n\n", "\r", "\r\n", "\r\n\r\n",
          "\r\r", ": ping", ":", "event: x", " ", "\t", "\u00a0", "\u3000", "é"]
REQS.clear()
for i in range(160):
    parts = []
    if i % 2 == 0:  # well-formed events, random framing
        for _ in range(rng.randint(1, 10)):
            if rng.random() < 0.15:
                parts.append(rng.choice([": ping", ":", ": keep-alive\r"]) + rng.choice(["\n\n", "\r\n\r\n", "\r\r"]))
            parts.append(rng.choice(["data: ", "data:", "data:\u00a0", "data:\t", "\n", "\r\n", " data: "]) +
                         rng.choice([content("x"), content(" y\n"), role(), reasoning("z"), finish(), usage(rng.randint(1, 9), rng.randint(1, 9))]) +
                         rng.choice(["\n\n", "\r\n\r\n", "\r\r", "\n\r\n\r\n", "\n\n\n", " \n\n", "\r\n\n", "\n\r\r"]))
        # usage on every request: the oracle's tokenizer is a stub
        parts.append("data: " + usage(rng.randint(1, 9), rng.randint(1, 9)) + rng.choice(["\n\n", "\r\n\r\n", "\n", ""]))
        if rng.random() < 0.7:
            parts.append("\n\ndata: [DONE]" + rng.choice(["\n\n", "\r\n\r\n", "", "\n"]))
    for _ in range(0 if i % 2 == 0 else rng.randint(1, 14)):
        if rng.random() < 0.45:
            parts.append("data: " + rng.choice([content("x"), role(), usage(rng.randint(1, 9), rng.randint(1, 9)), reasoning("y")]) + rng.choice(["\n\n", "\r\n\r\n", "\r\r", "\n"]))
        else:
            parts.append(rng.choice(PIECES))
    if i % 2:
        parts.append("\n\ndata: " + usage(rng.randint(1, 9), rng.randint(1, 9)) + "\n\n")
    body = "".join(parts).encode()
    if rng.random() < 0.1:
        body += b"\xff"
    chunks, k = [], 0
    while k < len(body):
        n = rng.choice([1, 2, 3, 5, 8, 13, 40, 200])
        chunks.append((rng.choice([0, 1, 1, 2]), body[k:k + n]))
        k += n
    out = []
    for m, c in chunks:
        try:
            out.append((m, c.decode("utf-8")))
        except UnicodeDecodeError:
            out.append((m, c))
    kw = {}
    if rng.random() < 0.3:
        kw = {"input_tokens": 11, "output_tokens": 4}
    req(f"mix{i:03d}", out, error=("reset" if rng.random() < 0.08 else None), end=None if rng.random() < 0.8 else "null", **kw)

with open("random_mix.jsonl", "w", encoding="utf-8") as f:
    f.write(json.dumps({"run": {"max_concurrency": 4, "source": "replay random framing mix"}}) + "\n")
    for r in REQS:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")

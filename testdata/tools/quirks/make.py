#!/usr/bin/python3
"""Writes the quirk traces of issue 16 (JSONL interchange), one a quirk, each
read a chunk. Run from this directory; regen.sh goldens them."""
import json

MS = 1_000_000


def chunk(i, delta, finish=None, usage=None, choices=True):
    obj = {"id": "chatcmpl-%d" % i, "object": "chat.completion.chunk", "model": "m"}
    obj["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}] if choices else []
    obj["usage"] = usage
    return "data: " + json.dumps(obj, separators=(",", ":")) + "\n\n"


def stream(i, words, prompt=10):
    """role, one content event a word, finish, usage-only, [DONE]."""
    out = [chunk(i, {"role": "assistant", "content": ""})]
    out += [chunk(i, {"content": w}) for w in words]
    out.append(chunk(i, {}, finish="stop"))
    out.append(chunk(i, {}, usage={"prompt_tokens": prompt, "completion_tokens": len(words),
                                   "total_tokens": prompt + len(words)}, choices=False))
    out.append("data: [DONE]\n\n")
    return out


def request(rid, t0, reads):
    """reads: (offset_ms, data) pairs."""
    chunks = [{"t_ns": t0 + int(off * MS), "data": d} for off, d in reads]
    return {"request_id": rid, "t0_ns": t0, "end_ns": chunks[-1]["t_ns"], "http_status": 200, "chunks": chunks}


def write(name, reqs):
    with open(name + ".jsonl", "w") as f:
        f.write(json.dumps({"run": {"max_concurrency": 1, "schema_version": 1, "source": "testdata/tools/quirks/make.py"}}) + "\n")
        for r in reqs:
            f.write(json.dumps(r) + "\n")


def timed(events, first, step, tail=3):
    """The role-only event at first ms, the next 1 ms later (SGLang's first
    token), then step ms apart; the usage-only event and [DONE] tail ms after
    the finish, in one read."""
    reads, t = [], first
    for k, e in enumerate(events[:-2]):
        reads.append((t, e))
        t += 1 if k == 0 else step
    reads.append((t - step + tail, events[-2] + events[-1]))
    return reads


words = ["The ", "quick ", "brown ", "fox "]
T0 = 1_000_000_000

# The first token: AISBench and vLLM time the role-only chunk, SGLang the
# first with text, 1 ms later. ITL: AISBench keeps the finish -> usage gap,
# vLLM drops it, SGLang also the role -> first text and text -> finish gaps.
write("first_token", [request("ft-%d" % i, T0 + i * 400 * MS, timed(stream(i, words), 100 + 10 * i, 20)) for i in range(3)])

# ': keep-alive' in its own read between events: SGLang's json.loads fails the
# request; vLLM glues the comment to the next events, which it never parses,
# and still counts the request.
ev = stream(0, words)
ka = [(100, ev[0]), (101, ev[1]), (110, ": keep-alive\n\n"), (121, ev[2]), (141, ev[3]), (161, ev[4]),
      (181, ev[5]), (184, ev[6] + ev[7])]
write("keep_alive", [request("ka-0", T0, ka), request("ok-1", T0 + 400 * MS, timed(stream(1, words), 100, 20))])

# A read cut just after "data:": vLLM's strip of the next read takes the space
# and the "\n\n" away, "data:{...}" never starts with "data: ", and every
# later event joins it: lost, the request still a success (cut-0); when a
# later read holds a "\n\n" inside it, the joined text reaches json.loads and
# fails the request (cut-1).
ev = stream(0, words)
cut = [(100, ev[0]), (101, ev[1]), (121, "data:"), (122, ev[2][len("data:"):]), (141, ev[3]), (161, ev[4]),
       (181, ev[5]), (184, ev[6]), (185, ev[7])]
ev1 = stream(1, words)
cut1 = [(100, ev1[0]), (101, ev1[1]), (121, "data:"), (122, ev1[2][len("data:"):]), (141, ev1[3]), (161, ev1[4]),
        (181, ev1[5]), (184, ev1[6] + ev1[7])]
write("data_cut", [request("cut-0", T0, cut), request("cut-1", T0 + 400 * MS, cut1)])

# A comment block at the end of a read, after an event: vLLM's strip leaves
# ": ping" in its buffer, every later event joins it, and the joined message
# is skipped whole (it starts with ':'); AISBench skips the comment block
# only; SGLang's json.loads fails on the comment line.
ev = stream(0, words)
cb = [(100, ev[0]), (101, ev[1]), (121, ev[2] + ": ping\n\n"), (141, ev[3]), (161, ev[4]), (181, ev[5]),
      (184, ev[6] + ev[7])]
write("comment_block", [request("cb-0", T0, cb)])

# 'id:' lines, AISBench's pull request 481: an "id:" block of its own before
# each event (id-0) fails the released client's json.loads, and the PR skips
# it; an "id:" line in the event's own block (id-1) is skipped with its data
# by the PR. The usage-only event of every request gets no time point under
# pull request 479.
ev = stream(0, words)
ids = [(100, "id: 0\n\n" + ev[0]), (101, "id: 1\n\n" + ev[1]), (121, "id: 2\n\n" + ev[2]), (141, ev[3]), (161, ev[4]),
       (181, ev[5]), (184, ev[6] + ev[7])]
ev1 = stream(1, words)
ids1 = [(100, ev1[0]), (101, ev1[1]), (121, "id: 7\n" + ev1[2]), (141, ev1[3]), (161, ev1[4]), (181, ev1[5]),
        (184, ev1[6] + ev1[7])]
write("id_lines", [request("id-0", T0, ids), request("id-1", T0 + 400 * MS, ids1),
                   request("ok-2", T0 + 800 * MS, timed(stream(2, words), 100, 20))])

# Streams without the usage-only chunk (what a server sends a client that
# does not ask for stream_options.include_usage, as AIPerf does not): AIPerf
# raises IndexError on the usage-only chunk's empty choices and fails every
# request that has one. Here: a plain stream (nu-0); reasoning before the
# content (nu-1); a keep-alive comment between events (nu-2); a content
# event without "object" (nu-3), which AIPerf skips; one holding NaN
# (nu-4), which orjson refuses and json.loads accepts.
def plain(i, words, reasoning=()):
    out = [chunk(i, {"role": "assistant", "content": ""})]
    out += [chunk(i, {"reasoning_content": w}) for w in reasoning]
    out += [chunk(i, {"content": w}) for w in words]
    out.append(chunk(i, {}, finish="stop"))
    out.append("data: [DONE]\n\n")
    return out


def each_read(events, first, step):
    return [(first + k * step, e) for k, e in enumerate(events)]


nu = []
nu.append(request("nu-0", T0, each_read(plain(0, words), 100, 20)))
nu.append(request("nu-1", T0 + 400 * MS, each_read(plain(1, words, reasoning=["Hm ", "so "]), 100, 20)))
ev = plain(2, words)
nu.append(request("nu-2", T0 + 800 * MS, each_read(ev[:3] + [": keep-alive\n\n"] + ev[3:], 100, 20)))
ev = plain(3, words)
ev[1] = ev[1].replace('"object":"chat.completion.chunk",', "")
nu.append(request("nu-3", T0 + 1200 * MS, each_read(ev, 100, 20)))
ev = plain(4, words)
ev[2] = ev[2].replace('"usage":null', '"usage":null,"x":NaN')
nu.append(request("nu-4", T0 + 1600 * MS, each_read(ev, 100, 20)))
write("no_usage", nu)

# Events cut differently over reads, without usage: an event whose first
# bytes come a read before its end (rs-0: AIPerf times a message at its
# first byte); two events in one read (rs-1: a 0 ms interval, for which
# AIPerf drops the request's inter-chunk latencies); an event's blank line
# split over two reads (rs-2: aiohttp 3.12's readuntil looks for "\n\n"
# within one read, so AIPerf joins the two events into one message that is
# not JSON, and loses both); CRLF line ends (rs-3: no "\n\n" at all, the
# body is one message for AIPerf).
rs = []
ev = plain(0, words)
rs.append(request("rs-0", T0, [(100, ev[0]), (120, ev[1]), (140, ev[2] + ev[3][:20]), (150, ev[3][20:]),
                               (160, ev[4]), (180, ev[5]), (200, ev[6])]))
ev = plain(1, words)
rs.append(request("rs-1", T0 + 400 * MS, [(100, ev[0]), (120, ev[1]), (140, ev[2] + ev[3]), (160, ev[4]),
                                          (180, ev[5]), (200, ev[6])]))
ev = plain(2, words)
rs.append(request("rs-2", T0 + 800 * MS, [(100, ev[0]), (120, ev[1]), (140, ev[2][:-1]), (160, "\n" + ev[3]),
                                          (180, ev[4]), (200, ev[5]), (220, ev[6])]))
ev = [e.replace("\n", "\r\n") for e in plain(3, words)]
rs.append(request("rs-3", T0 + 1200 * MS, each_read(ev, 100, 20)))
write("read_splits", rs)

# A run of 40 requests without usage, each read one event but for some
# events sent two to a read, with seeded random gaps, one after another:
# AIPerf's statistics (np.mean, np.std, np.percentile over
# TTFT, latency, TTST, inter-chunk latency) on more than a handful of values.
import random  # noqa: E402

rng = random.Random(16)
many = []
for i in range(40):
    ev = plain(i, words[: rng.randint(1, 4)], reasoning=["Hm "] if i % 7 == 0 else ())
    reads, t = [], 60 + rng.random() * 120
    k = 0
    while k < len(ev):
        n = 2 if rng.random() < 0.15 and k + 1 < len(ev) else 1
        reads.append((round(t, 3), "".join(ev[k:k + n])))
        t += 1 + rng.random() * 40
        k += n
    many.append(request("nm-%d" % i, T0 + i * 500 * MS, reads))
write("no_usage_many", many)

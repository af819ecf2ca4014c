"""Small traces, each built to fire one finding of `audit report` (docs/metrics.md).

clean.jsonl fires none (with --min-window 1s --min-window-requests 2); every
other trace is clean.jsonl with one defect. Run: python3 make.py (writes here).

The shape of clean.jsonl, C = 2: one long request L (0 to 12 s, an event every
250 ms) and eleven short ones S0..S10 (start 0.5 s + i, four events 100 ms
apart), so in-flight is 2 while an S runs and AISBench's window runs from S1's
start to S10's.
"""
import json

S = 1_000_000_000  # ns a second
BASE = 1 * S


def chunk(t, data):
    return {"t_ns": int(t), "data": data}


def content(text, usage=None, finish=None):
    choice = {"index": 0, "delta": {"content": text}}
    if finish:
        choice["finish_reason"] = finish
    ev = {"choices": [choice]}
    if usage is not None:
        ev["usage"] = usage
    return "data: " + json.dumps(ev, separators=(",", ":")) + "\n\n"


def role():
    return 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n'


def usage_only(n):
    return 'data: {"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":%d}}\n\n' % n


DONE = "data: [DONE]\n\n"


def request(rid, t0, times, *, usage=True, per_event=None, role_first=None, usage_tail=None,
            status=200, mutate=None):
    """times: event offsets in seconds after t0; the last event carries the usage."""
    n = len(times)
    chunks = []
    if role_first is not None:
        chunks.append(chunk(t0 + role_first * S, role()))
    for i, dt in enumerate(times):
        u = None
        if per_event:
            u = {"prompt_tokens": 100, "completion_tokens": per_event * (i + 1)}
        elif usage and i == n - 1 and usage_tail is None:
            u = {"prompt_tokens": 100, "completion_tokens": n}
        last = i == n - 1
        chunks.append(chunk(t0 + dt * S, content("t%d " % i, u, "stop" if last else None)))
    if usage_tail is not None:
        chunks.append(chunk(t0 + (times[-1] + usage_tail) * S, usage_only(n)))
    chunks[-1]["data"] += DONE
    end = chunks[-1]["t_ns"]
    req = {"request_id": rid, "t0_ns": int(t0), "end_ns": end, "http_status": status, "chunks": chunks}
    if status != 200:
        req["chunks"] = [chunk(t0 + 0.05 * S, '{"error":"boom"}')]
        req["end_ns"] = req["chunks"][0]["t_ns"]
    if mutate:
        mutate(req)
    return req


def run(c=2, s_events=4, n_short=11, **kw):
    """The clean run; kw go to every request (role_first, usage_tail, ...)."""
    long_times = [0.2 + 0.25 * k for k in range(48)]  # 0.2 .. 11.95
    reqs = [request("L", BASE, long_times, **kw)]
    step = 0.4 / s_events
    for i in range(n_short):
        times = [step * (k + 1) for k in range(s_events)]
        reqs.append(request("S%d" % i, BASE + (0.5 + i) * S, times, **kw))
    return c, reqs


def write(name, c, reqs):
    with open(name + ".jsonl", "w") as f:
        f.write(json.dumps({"run": {"max_concurrency": c, "schema_version": 1, "source": "testdata/traces/findings/make.py " + name}}) + "\n")
        for r in reqs:
            f.write(json.dumps(r) + "\n")


def replace_event(req, k, fn):
    """Rewrite the k-th chunk's data with fn(data)."""
    req["chunks"][k]["data"] = fn(req["chunks"][k]["data"])


def main():
    write("clean", *run())

    # itl-n-counts-requests: forty events a short request.
    write("itl_n", *run(s_events=40))

    # tpot-below-itl: continuous usage, four tokens an event.
    write("tpot_below_itl", *run(per_event=4))

    # usage-tail-sets-end: a usage-only event 50 ms after the last content.
    write("usage_tail", *run(usage_tail=0.05))

    # role-only-sets-ttft: a role-only event 30 ms after t0, before the first text at 100 ms.
    c, reqs = run()
    reqs = [request(r["request_id"], r["t0_ns"], [(ch["t_ns"] - r["t0_ns"]) / S for ch in r["chunks"]], role_first=0.03)
            for r in reqs]
    write("role_only", c, reqs)

    # concurrency-capped: a closed loop of two workers, 1 s requests back to back.
    reqs = []
    for k in range(8):
        for w in range(2):
            t0 = BASE + (k + 0.5 * w) * S
            reqs.append(request("w%d-%d" % (w, k), t0, [0.25, 0.5, 0.75, 1.0]))
    reqs.sort(key=lambda r: r["t0_ns"])
    write("concurrency_capped", 2, reqs)

    # failure-index-quirk: an HTTP 500 between S0 and S1 (trace position 2).
    c, reqs = run()
    reqs.insert(2, request("F", BASE + 1.0 * S, [0.1], status=500))
    write("failure_quirk", c, reqs)

    # comment-in-block: S3's second event follows a comment line in its block.
    c, reqs = run()
    replace_event(reqs[4], 1, lambda d: ": keep-alive\n" + d)
    write("comment_in_block", c, reqs)

    # event-field-lines: the last request's events carry "event: message" lines.
    c, reqs = run()
    for k in range(len(reqs[-1]["chunks"])):
        replace_event(reqs[-1], k, lambda d: "event: message\n" + d)
    write("event_lines", c, reqs)

    # multiline-data: the last request's second event is spread over two data: lines.
    c, reqs = run()
    replace_event(reqs[-1], 1, lambda d: d.replace('"delta":', '\ndata: "delta":', 1))
    write("multiline_data", c, reqs)

    # zero-intervals: S5's second and third events arrive in one read.
    c, reqs = run()
    s5 = reqs[6]
    s5["chunks"][1]["data"] += s5["chunks"][2]["data"]
    del s5["chunks"][2]
    write("zero_intervals", c, reqs)

    # unknown-token-counts: no usage anywhere, no token columns.
    write("unknown_tokens", *run(usage=False))

    # buffered-stream: a buffering proxy hands each body over in one read at its end.
    c, reqs = run()
    for r in reqs:
        r["chunks"] = [chunk(r["end_ns"], "".join(ch["data"] for ch in r["chunks"]))]
    write("buffered", c, reqs)

    # buffered-stream through framing: CR-only line ends, every read at its time.
    c, reqs = run()
    for r in reqs:
        for ch in r["chunks"]:
            ch["data"] = ch["data"].replace("\n", "\r")
    write("cr_only", c, reqs)

    # concurrency-below-c: the clean run, configured for C = 3.
    write("below_c", 3, run()[1])

    # no-stable-window: C = 2 is reached once (L and S0), S1 runs after L.
    c, reqs = run(n_short=1)
    reqs.append(request("S1", BASE + 13 * S, [0.1, 0.2, 0.3, 0.4]))
    write("no_window", c, reqs)


main()

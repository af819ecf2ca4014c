#!/usr/bin/python3
"""Write the oracle inputs <case>.input.json for audit's stage tests.

Each input is the oracle's format ({"max_concurrency": C, "requests": [...]})
plus an optional "stats" list that regen.sh passes as --stats. Deterministic.
"""
import json
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = {}


def case(name, C, requests, stats=None):
    doc = {"max_concurrency": C, "requests": requests}
    if stats:
        doc["stats"] = stats
    CASES[name] = doc


def req(tp, inp=1000, out=100, success=True):
    return {"time_points": [float(t) for t in tp], "input_tokens": inp, "output_tokens": out, "success": success}


def spread(start, end, first=0.5, events=4):
    """start, start+first, then `events` points evenly spaced up to end."""
    a = start + first
    return [start, a] + [a + (end - a) * k / events for k in range(1, events + 1)]


# semantics section 6: the worked example.
WORKED = [(0, 3), (1, 5), (3.1, 7), (5.1, 9), (7.1, 12)]
case("worked_example", 2, [req(spread(s, e)) for s, e in WORKED])

# failures: first / middle / last / several (the stable stage's index quirk).
def with_failures(positions, n=12, seed=1):
    rng = random.Random(seed)
    out, t = [], 0.0
    for i in range(n):
        if i in positions:
            out.append(req([t + 0.01], success=False))
            continue
        start = t
        out.append(req(spread(start, start + rng.uniform(2.5, 4.0), first=rng.uniform(0.1, 0.6))))
        t += rng.uniform(0.3, 1.2)
    return out

case("failure_first", 5, with_failures({0}))
case("failure_middle", 5, with_failures({7}))
case("failure_last", 5, with_failures({11}))
case("failures_several", 5, with_failures({2, 6, 7, 9}, n=16, seed=2))
case("failure_http_t0_only", 2, [req([0.0, 0.4, 1.0, 2.0]), req([0.5], success=False), req([1.0, 1.3, 2.0, 3.0]),
                                 req([2.1, 2.2, 3.0, 4.0]), req([2.5, 2.6], success=False), req([3.2, 3.5, 4.0, 5.5])])
# successful with one time point: the client turns it into a failure.
case("too_few_time_points", 2, [req([0.0, 0.5, 1.0, 2.0]), req([0.2]), req([1.0, 1.5, 2.5, 3.0]),
                                req([2.1, 2.5, 3.5, 4.0]), req([3.1, 3.2, 4.5, 5.0])])

# ties at the window edges: an end and a start at the same instant, equal starts.
case("ties_window_edges", 2, [
    req([0.0, 0.5, 1.0, 2.0]),   # ends at 2.0
    req([1.0, 1.5, 2.5, 3.0]),   # reaches C=2 at 1.0 (warm-up)
    req([2.0, 2.2, 3.0, 4.0]),   # starts when #0 ends: start sorts after #0's end
    req([3.0, 3.1, 4.0, 5.0]),   # starts when #1 ends
    req([4.0, 4.1, 4.5, 5.0]),   # starts when #2 ends, ends with #3
    req([5.0, 5.5, 6.0, 7.0]),
])
case("ties_equal_starts", 3, [req([0.0, 0.5, 1.0, 3.0]), req([0.0, 0.4, 1.0, 3.0]), req([0.0, 0.6, 2.0, 3.0]),
                              req([1.0, 1.2, 2.0, 4.0]), req([3.0, 3.3, 4.0, 5.0]), req([3.0, 3.2, 4.5, 5.0]),
                              req([4.0, 4.5, 5.0, 6.0]), req([5.0, 5.1, 5.5, 6.0])])
# nextafter-adjacent times around the window edges.
up, down = (lambda x: math.nextafter(x, math.inf)), (lambda x: math.nextafter(x, -math.inf))
case("nextafter_edges", 2, [
    req([0.0, 0.5, 1.0, 2.0]),
    req([1.0, 1.5, 2.5, down(3.0)]),       # C reached at 1.0 (warm-up)
    req([up(2.0), 2.2, 3.0, 4.0]),         # starts just after #0 ends: window start
    req([3.0, 3.1, 4.0, up(5.0)]),         # starts just after #1 ends
    req([down(4.0), 4.1, 5.0, 6.0]),       # starts just before #2 ends
    req([5.0, 5.5, 6.0, 7.0]),             # starts just before #3 ends
    req([up(up(7.0)), 7.5, 8.0, 9.0]),     # after the window
])

# one-event requests (<= 1 interval): ITL has no data at all.
case("one_event_requests", 2, [req([s, s + 0.3 + 0.1 * i]) for i, s in enumerate([0, 0.1, 0.5, 0.6, 0.9, 1.0])])
case("mixed_event_counts", 2, [req([0.0, 0.3]), req([0.1, 0.4, 0.9]), req([0.35, 0.5, 0.8, 1.2]),
                               req([0.85, 0.9]), req([1.0, 1.1, 1.2, 1.3, 1.8]), req([1.3, 1.4, 1.9])])
# the first request with intervals has only zero intervals: ITL is removed.
case("itl_first_all_zero", 2, [req([0.0, 0.3]), req([0.1, 0.5, 0.5, 0.5]), req([0.4, 0.6, 0.9, 1.4]),
                               req([0.55, 0.7, 1.0, 1.6]), req([1.0, 1.2, 1.5, 2.2])])
case("itl_with_zeros", 2, [req([0.0, 0.3, 0.3, 0.7, 0.7]), req([0.1, 0.5, 0.9, 0.9]), req([0.75, 0.8, 0.8, 0.8]),
                           req([0.95, 1.0, 1.4, 1.4, 1.9]), req([1.5, 1.6, 1.6, 2.0])])
# multi-token events: few events, many tokens; and one-token outputs.
case("multi_token_events", 2, [req(spread(s, s + 2.0 + 0.1 * i, events=2), inp=512 + i, out=300 + 17 * i)
                               for i, s in enumerate([0.0, 0.5, 1.9, 2.7, 4.0, 4.6])])
case("tpot_all_one_token", 3, [req([s, s + 0.2, s + 0.9], out=1) for s in [0.0, 0.4, 0.8, 1.0, 1.5]])
case("ttft_all_zero", 3, [req([s, s, s + 0.5, s + 1.0]) for s in [0.0, 0.4, 0.8, 1.2, 1.5]])

# no stable stage; every request failed; C=1 sequential; zero-length window.
case("no_stable_stage", 3, [req(spread(s, s + 1.0)) for s in [0.0, 0.5, 2.0, 2.5, 4.0]])
case("all_failed", 2, [req([0.0], success=False), req([0.5], success=False)])
case("sequential_c1", 1, [req(spread(i * 1.0, i * 1.0 + 0.8)) for i in range(6)])
case("zero_length_window", 1, [req([0.0, 0.5, 1.0]), req([1.0, 1.5, 2.0])])
case("concurrency_capped_exactly", 2, [req([0.0, 0.5, 2.0]), req([1.0, 1.5, 3.0]), req([2.0, 2.5, 4.0]),
                                       req([3.0, 3.5, 5.0]), req([4.0, 4.5, 6.0])])

# the rounded concurrency equals C exactly: min(2.0, 2) keeps the float, "2.0".
case("concurrency_equals_c", 2, [req([0.0, 0.5, 2.0]), req([1.0, 1.5, 3.0]), req([2.0, 2.5, 3.5]), req([3.0, 3.2, 3.5])])
# a zero-latency request: E2EL 0, OutputTokenThroughput inf (numpy's x/0), Prefill 0.
case("zero_latency_request", 2, [req([0.0, 0.5, 1.0, 2.0]), req([1.0, 1.0]), req([1.0, 1.5, 2.5, 3.0]),
                                 req([2.0, 2.5, 3.0, 4.0]), req([3.1, 3.2, 4.5, 5.0])])

# custom statistics: duplicates, leading zeros, unknown names, Median and P50.
case("custom_stats", 2, [req(spread(s, e)) for s, e in WORKED],
     stats=["P05", "Median", "P50", "Average", "P50", "Bogus", "P1", "P100", "Max"])


# large random runs: a closed-loop client at concurrency C with random latencies.
def closed_loop(n, C, seed, base=0.0, scale=1.0, fail_rate=0.0):
    rng = random.Random(seed)
    slots = [base + rng.uniform(0, 0.05) * scale for _ in range(C)]
    out = []
    for i in range(n):
        k = min(range(C), key=lambda j: slots[j])
        start = slots[k] + rng.uniform(0, 0.002) * scale
        if rng.random() < fail_rate:
            out.append(req([start], success=False))
            slots[k] = start + rng.uniform(0.001, 0.01) * scale
            continue
        events = rng.randint(1, 40)
        t = start + rng.uniform(0.05, 0.8) * scale
        tp = [start, t]
        for _ in range(events - 1):
            t += rng.choice([0.0, rng.uniform(0.001, 0.08)]) * scale
            tp.append(t)
        out.append(req(tp, inp=rng.randint(1, 4000), out=rng.randint(1, 600)))
        slots[k] = t
    return out


case("random_c4", 4, closed_loop(220, 4, 11))
case("random_c8_failures", 8, closed_loop(260, 8, 12, fail_rate=0.05))
case("random_c16", 16, closed_loop(400, 16, 13))
case("random_c12_perf_counter_1e9", 12, closed_loop(240, 12, 14, base=1e9 + 0.123456789))
case("random_c5_tiny", 5, closed_loop(210, 5, 15, scale=1e-6))
case("random_c6_perf_counter_1e6", 6, closed_loop(230, 6, 16, base=987654.321))

for name, doc in CASES.items():
    with open(os.path.join(HERE, name + ".input.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
print(len(CASES), "inputs")

"""Golden windows of AISBench's earlier stable-stage selectors.

Runs _get_requests_id exactly as AISBench wrote it at 3774965 and 1242df6 (read
from AISBench's git history, never copied here) on random start/end times, and
writes what it selects: the request ids (positions among successful requests,
in its order) and stage_section, or the error.

    /usr/bin/python3 gen.py GIT_DIR > windows.json

GIT_DIR: AISBench's git directory (the search tool's `fetch github:AISBench/benchmark`
answers with its path).
"""
import ast
import json
import random
import subprocess
import sys

PATH = "ais_bench/benchmark/calculators/stable_perf_metric_calculator.py"
REVS = {"aisbench-3774965": "3774965778dd3419ce9f1b092d9eb252eeb28227",
        "aisbench-1242df6": "1242df6000502d906acbfced37f5d54d0cb5e31b"}


class NoStage(Exception):
    pass


class _Bar:
    def __init__(self, **kw):
        self.n = 0

    def update(self, k):
        self.n += k

    def close(self):
        pass


class _Log:
    def info(self, *a, **k):
        pass


def selector(git_dir, rev):
    src = subprocess.run(["git", "--git-dir", git_dir, "show", rev + ":" + PATH],
                         check=True, capture_output=True, text=True).stdout
    tree = ast.parse(src)
    consts = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            consts[node.targets[0].id] = ast.literal_eval(node.value)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    fn = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "_get_requests_id")
    mod = ast.Module(body=[fn], type_ignores=[])
    ns = dict(consts, tqdm=_Bar, AISBenchDataContentError=lambda code, msg: NoStage(msg),
              CALC_CODES=type("C", (), {"CAN_NOT_FIND_STABLE_STAGE": "x"}))
    exec(compile(mod, PATH + "@" + rev, "exec"), ns)
    return ns["_get_requests_id"], consts


def run(fn, c, starts, ends):
    self = type("S", (), {})()
    self.max_concurrency = c
    self.stage_section = [0, 0]
    self.logger = _Log()
    details = {"id": list(range(len(starts))), "start_time": starts, "end_time": ends}
    try:
        ids = fn(self, details)
    except NoStage as e:
        return {"error": str(e)}
    return {"ids": ids, "section": self.stage_section}


def cases():
    rng = random.Random(20261130)
    out = []
    for k in range(60):
        c = rng.choice([1, 2, 3, 4, 8, 50, 51, 100])
        n = rng.randint(1, 3 * c + 10)
        t = 0.0
        starts, ends = [], []
        # a closed loop of c workers with jitter, sometimes gaps and bursts
        free = [rng.uniform(0, 0.5) for _ in range(c)]
        for i in range(n):
            w = min(range(c), key=lambda j: free[j])
            s = free[w] + rng.choice([0.0, 0.0, 0.0005, rng.uniform(0, 0.05)])
            if rng.random() < 0.05:
                s += rng.uniform(0, 2)
            e = s + rng.uniform(0.2, 3.0)
            e = round(e, rng.choice([3, 6, 9]))
            s = round(s, rng.choice([3, 6, 9]))
            if e < s:
                e = s
            starts.append(s)
            ends.append(e)
            free[w] = e
        out.append({"max_concurrency": c, "start": starts, "end": ends})
    return out


def main():
    git_dir = sys.argv[1]
    sels = {name: selector(git_dir, rev) for name, rev in REVS.items()}
    docs = []
    for case in cases():
        res = {}
        for name, (fn, consts) in sels.items():
            res[name] = run(fn, case["max_concurrency"], case["start"], case["end"])
        docs.append(dict(case, selectors=res))
    json.dump({"revisions": REVS, "cases": docs}, sys.stdout, indent=None)
    sys.stdout.write("\n")


main()

#!/usr/bin/python3
"""Summarises govulncheck -format json: exit 1 when a vulnerability our code
reaches lives in a module (bump it). Standard-library ones are listed as
warnings, since only a newer Go toolchain fixes them, unless --strict is given
(the run made with the release toolchain, where any finding fails).

usage: vulnsummary.py [--strict] GOVULNCHECK.json
"""
import json
import sys


def messages(text):
    dec, i = json.JSONDecoder(), 0
    while i < len(text):
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        obj, i = dec.raw_decode(text, i)
        yield obj


def main():
    args = sys.argv[1:]
    strict = args[:1] == ["--strict"]
    if strict:
        args = args[1:]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    text = open(args[0], encoding="utf-8").read()
    osv, found = {}, {}
    for m in messages(text):
        if "osv" in m:
            osv[m["osv"]["id"]] = m["osv"]
        f = m.get("finding")
        if not f or not f.get("trace") or not f["trace"][0].get("function"):
            continue  # imported or required, not called
        frame = f["trace"][0]
        found.setdefault(f["osv"], (frame.get("module", "?"), f.get("fixed_version", "")))
    if not text.strip():
        print("govulncheck printed nothing", file=sys.stderr)
        return 1
    bad = 0
    for vid, (mod, fixed) in sorted(found.items()):
        summary = osv.get(vid, {}).get("summary", "")
        fails = strict or mod != "stdlib"
        kind = "VULNERABLE" if fails else "warning (standard library)"
        print(f"{kind}: {vid} in {mod}, fixed in {fixed or '?'}: {summary}")
        if fails:
            bad += 1
    print(f"govulncheck: {len(found)} reachable vulnerabilities, {bad} failing")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/bin/sh
# Remakes the tools' goldens (golden/NAME.TOOL.json) from the tools' own code
# at the pinned commits: vllm bench serve and SGLang's bench_serving (see
# oracle.py). Run from the repository root, with the tools' files extracted
# by extract.sh:
#   VLLM_SRC=DIR SGLANG_SRC=DIR testdata/tools/regen.sh
# Needs Debian's python3-aiohttp, python3-numpy, python3-regex, python3-tqdm.
# The traces: every bundled trace (testdata/traces, the external ones
# converted to JSONL first), the quirk traces of issue 16 (quirks/make.py)
# and a trace of every tracegen profile for both APIs (audit gen --requests 24 --concurrency 4 --output-tokens 24 --seed 1).
set -eu
: "${VLLM_SRC:?set VLLM_SRC to the extracted vLLM files}"
: "${SGLANG_SRC:?set SGLANG_SRC to the extracted SGLang files}"
here=testdata/tools
out=$here/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
rm -f "$out"/*.json
go build -o "$tmp/audit" ./cmd/audit

golden() { # NAME API TRACE.jsonl
	/usr/bin/python3 $here/oracle.py vllm "$2" "$VLLM_SRC" "$3" "$out/$1.vllm.json"
	/usr/bin/python3 $here/oracle.py sglang "$2" "$SGLANG_SRC" "$3" "$out/$1.sglang.json"
}

golden basic chat testdata/traces/basic.jsonl
(cd $here/quirks && /usr/bin/python3 make.py)
for t in $here/quirks/*.jsonl; do
	golden "quirks-$(basename "$t" .jsonl)" chat "$t"
done
for t in testdata/traces/findings/*.jsonl; do
	golden "findings-$(basename "$t" .jsonl)" chat "$t"
done
for t in testdata/traces/external/*.arrow testdata/traces/external/*.parquet; do
	name=external-$(basename "$t" | sed 's/\.[a-z]*$//')
	"$tmp/audit" convert "$t" -o "$tmp/$name.jsonl"
	golden "$name" chat "$tmp/$name.jsonl"
done
for api in chat completions; do
	for p in chat reasoning speculative network crlf cr failures aisbench-breakers mixed; do
		"$tmp/audit" gen --profile "$p" --api "$api" --requests 24 --concurrency 4 --output-tokens 24 --seed 1 -o "$tmp/gen.jsonl"
		golden "gen-$p-$api" "$api" "$tmp/gen.jsonl"
	done
done

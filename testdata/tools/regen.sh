#!/bin/sh
# Remakes the tools' goldens (golden/NAME.TOOL.json) from the tools' own code
# at the pinned commits: vllm bench serve and SGLang's bench_serving (see
# oracle.py), EvalScope perf (oracle_evalscope.py). Run from the repository
# root, with the tools' files extracted by extract.sh:
#   VLLM_SRC=DIR SGLANG_SRC=DIR EVALSCOPE_SRC=DIR testdata/tools/regen.sh
# TOOLS (default "vllm sglang evalscope") remakes only those tools' goldens.
# Needs Debian's python3-aiohttp, python3-numpy, python3-regex, python3-tqdm;
# EvalScope's also pydantic 2, which Debian 12 lacks: EVALSCOPE_PYTHON names
# a Python 3.11 that has it (default python3), run with Debian's packages on
# its path (DEBIAN_PY, default /usr/lib/python3/dist-packages).
# The traces: every bundled trace (testdata/traces, the external ones
# converted to JSONL first), the quirk traces of issue 16 (quirks/make.py)
# and a trace of every tracegen profile for both APIs (audit gen --requests 24 --concurrency 4 --output-tokens 24 --seed 1).
set -eu
TOOLS=${TOOLS:-vllm sglang evalscope}
for t in $TOOLS; do
	case $t in
	vllm) : "${VLLM_SRC:?set VLLM_SRC to the extracted vLLM files}" ;;
	sglang) : "${SGLANG_SRC:?set SGLANG_SRC to the extracted SGLang files}" ;;
	evalscope) : "${EVALSCOPE_SRC:?set EVALSCOPE_SRC to the extracted EvalScope files}" ;;
	*) echo "regen.sh: unknown tool $t" >&2; exit 2 ;;
	esac
done
EVALSCOPE_PYTHON=${EVALSCOPE_PYTHON:-python3}
DEBIAN_PY=${DEBIAN_PY:-/usr/lib/python3/dist-packages}
here=testdata/tools
out=$here/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
for t in $TOOLS; do
	rm -f "$out"/*."$t".json
done
go build -o "$tmp/audit" ./cmd/audit

golden() { # NAME API TRACE.jsonl
	for t in $TOOLS; do
		case $t in
		vllm) /usr/bin/python3 $here/oracle.py vllm "$2" "$VLLM_SRC" "$3" "$out/$1.vllm.json" ;;
		sglang) /usr/bin/python3 $here/oracle.py sglang "$2" "$SGLANG_SRC" "$3" "$out/$1.sglang.json" ;;
		evalscope) PYTHONPATH=$DEBIAN_PY "$EVALSCOPE_PYTHON" $here/oracle_evalscope.py "$2" "$EVALSCOPE_SRC" "$3" "$out/$1.evalscope.json" ;;
		esac
	done
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

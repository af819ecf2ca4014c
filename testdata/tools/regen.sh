#!/bin/sh
# Remakes the tools' goldens (golden/NAME.TOOL.json) from the tools' own code
# at the pinned commits: vllm bench serve and SGLang's bench_serving (see
# oracle.py), EvalScope perf (oracle_evalscope.py), AIPerf (oracle_aiperf.py),
# GenAI-Perf (oracle_genaiperf.py), guidellm benchmark (oracle_guidellm.py).
# Run from the repository root, with the tools' files extracted by extract.sh:
#   VLLM_SRC=DIR SGLANG_SRC=DIR EVALSCOPE_SRC=DIR AIPERF_SRC=DIR AIOHTTP_SRC=DIR \
#   GENAI_PERF_SRC=DIR GUIDELLM_SRC=DIR HTTPX_SRC=DIR testdata/tools/regen.sh
# (GENAI_PERF_SRC: the extracted files' genai-perf directory; GUIDELLM_SRC:
# extract.sh guidellm's OUTDIR/src; HTTPX_SRC: extract.sh httpx's OUTDIR.)
# TOOLS (default "vllm sglang evalscope aiperf genai-perf guidellm") remakes
# only those tools' goldens. guidellm's runs as EvalScope's does (pydantic 2,
# pydantic-settings) and needs Debian's python3-httpx for httpx's imports.
# Needs Debian's python3-aiohttp, python3-numpy, python3-regex, python3-tqdm;
# EvalScope's also pydantic 2, which Debian 12 lacks: EVALSCOPE_PYTHON names
# a Python 3.11 that has it (default python3), run with Debian's packages on
# its path (DEBIAN_PY, default /usr/lib/python3/dist-packages). AIPerf's too
# (pydantic 2 and orjson): AIPERF_PYTHON (default EVALSCOPE_PYTHON), with
# aiohttp 3.12's streams.py from AIOHTTP_SRC (extract.sh aiohttp); GenAI-Perf's
# (orjson) GENAI_PERF_PYTHON (default EVALSCOPE_PYTHON).
# The traces: every bundled trace (testdata/traces, the external ones
# converted to JSONL first), the quirk traces of issue 16 (quirks/make.py)
# and a trace of every tracegen profile for both APIs (audit gen --requests 24 --concurrency 4 --output-tokens 24 --seed 1).
set -eu
TOOLS=${TOOLS:-vllm sglang evalscope aiperf genai-perf guidellm}
for t in $TOOLS; do
	case $t in
	vllm) : "${VLLM_SRC:?set VLLM_SRC to the extracted vLLM files}" ;;
	sglang) : "${SGLANG_SRC:?set SGLANG_SRC to the extracted SGLang files}" ;;
	evalscope) : "${EVALSCOPE_SRC:?set EVALSCOPE_SRC to the extracted EvalScope files}" ;;
	aiperf)
		: "${AIPERF_SRC:?set AIPERF_SRC to the extracted AIPerf files}"
		: "${AIOHTTP_SRC:?set AIOHTTP_SRC to the extracted aiohttp files}" ;;
	genai-perf) : "${GENAI_PERF_SRC:?set GENAI_PERF_SRC to the extracted genai-perf directory}" ;;
	guidellm) : "${GUIDELLM_SRC:?set GUIDELLM_SRC to the extracted guidellm src}" "${HTTPX_SRC:?set HTTPX_SRC to the extracted httpx}" ;;
	*) echo "regen.sh: unknown tool $t" >&2; exit 2 ;;
	esac
done
EVALSCOPE_PYTHON=${EVALSCOPE_PYTHON:-python3}
AIPERF_PYTHON=${AIPERF_PYTHON:-$EVALSCOPE_PYTHON}
GENAI_PERF_PYTHON=${GENAI_PERF_PYTHON:-$EVALSCOPE_PYTHON}
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
		aiperf) PYTHONPATH=$DEBIAN_PY "$AIPERF_PYTHON" $here/oracle_aiperf.py "$2" "$AIPERF_SRC" "$AIOHTTP_SRC" "$3" "$out/$1.aiperf.json" ;;
		genai-perf) PYTHONPATH=$DEBIAN_PY "$GENAI_PERF_PYTHON" $here/oracle_genaiperf.py "$2" "$GENAI_PERF_SRC" "$3" "$out/$1.genai-perf.json" ;;
		guidellm) PYTHONPATH=$DEBIAN_PY "$EVALSCOPE_PYTHON" $here/oracle_guidellm.py "$2" "$GUIDELLM_SRC" "$HTTPX_SRC" "$3" "$out/$1.guidellm.json" ;;
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
# guidellm's own: bodies exercising each rule of its streaming client
# (guidellm/make.py).
case " $TOOLS " in
*" guidellm "*)
	(cd $here/guidellm && /usr/bin/python3 make.py)
	PYTHONPATH=$DEBIAN_PY "$EVALSCOPE_PYTHON" $here/oracle_guidellm.py chat "$GUIDELLM_SRC" "$HTTPX_SRC" \
		$here/guidellm/client.jsonl "$out/guidellm-client.guidellm.json" ;;
esac

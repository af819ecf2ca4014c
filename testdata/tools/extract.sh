#!/bin/sh
# Extracts the files the tools' oracle (oracle.py) loads, at the pinned
# commits, from git directories of the tools' repositories (the search
# tool's fetch of neuralmagic/vllm and bytedance-iaas/sglang, forks that carry
# these upstream commits). The source is read at run time, never committed.
#   extract.sh vllm   GIT_DIR OUTDIR
#   extract.sh sglang GIT_DIR OUTDIR
#   extract.sh evalscope GIT_DIR OUTDIR   (modelscope/evalscope)
#   extract.sh aiperf GIT_DIR OUTDIR      (ai-dynamo/aiperf: its aiperf package)
#   extract.sh aiohttp GIT_DIR OUTDIR     (aio-libs/aiohttp: the StreamReader
#                                          of the version AIPerf asks for)
#   extract.sh guidellm GIT_DIR OUTDIR    (vllm-project/guidellm: its src/guidellm)
#   extract.sh httpx GIT_DIR OUTDIR       (encode/httpx 0.28.1: guidellm's HTTP client)
#   extract.sh genai-perf GIT_DIR OUTDIR  (triton-inference-server/perf_analyzer:
#                                          genai-perf's Python files)
set -eu
tool=$1 git_dir=$2 out=$3
case $tool in
vllm)
	rev=2f41c894e320a07a46a360ee72149dd84d6f4bec
	files="vllm/benchmarks/lib/endpoint_request_func.py vllm/benchmarks/serve.py" ;;
sglang)
	rev=db570fe619ae15d8bd4ee04f146bc8234c52a20d
	files="python/sglang/benchmark/serving.py python/sglang/benchmark/utils.py python/sglang/benchmark/datasets/common.py" ;;
evalscope)
	rev=fde259d2a32ab8a4cdb3af44dc8b18f504f1e277
	files="evalscope/perf/plugin/api/default_api.py evalscope/perf/plugin/api/openai_api.py evalscope/perf/plugin/api/base.py evalscope/perf/utils/benchmark_util.py evalscope/perf/utils/db_util.py evalscope/perf/utils/perf_models.py evalscope/perf/utils/perf_constants.py evalscope/perf/utils/body_meta.py" ;;
aiperf)
	rev=db4f6397d11ee2d4cfbb41f70b2327315163dcf0
	files=$(git --git-dir="$git_dir" ls-tree -r --name-only "$rev" aiperf | grep '\.py$') ;;
aiohttp)
	rev=fbe830fe7d0cf45b476f4c986553c050bcecd669 # v3.12.15
	files="aiohttp/streams.py" ;;
guidellm | httpx)
	# A whole package: guidellm's imports reach across it.
	case $tool in
	guidellm) rev=ee7a77457ba668b4b5ccb40f110518829893b36a dir=src/guidellm ;;
	httpx) rev=26d48e0634e6ee9cdc0533996db289ce4b430177 dir=httpx ;;
	esac
	mkdir -p "$out"
	git --git-dir="$git_dir" archive "$rev" "$dir" | tar -x -C "$out"
	echo "$rev" >"$out/REVISION"
	echo "extracted $dir of $tool at $rev"
	exit 0 ;;
genai-perf)
	# Its Python files only: the mirror lacks some of its data files' blobs.
	rev=263c5f6e0c7a6c15472a54409174981f67930cfe
	files=$(git --git-dir="$git_dir" ls-tree -r --name-only "$rev" genai-perf/genai_perf | grep '\.py$') ;;
*)
	echo "extract.sh: unknown tool $tool (want vllm, sglang, evalscope, aiperf, aiohttp, guidellm, httpx or genai-perf)" >&2; exit 2 ;;
esac
for f in $files; do
	mkdir -p "$out/$(dirname "$f")"
	git --git-dir="$git_dir" show "$rev:$f" >"$out/$f"
done
echo "$rev" >"$out/REVISION"
echo "extracted $(echo $files | wc -w) files of $tool at $rev"

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
#   extract.sh genai-perf GIT_DIR OUTDIR  (triton-inference-server/perf_analyzer:
#                                          its genai-perf Python package)
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
genai-perf)
	rev=263c5f6e0c7a6c15472a54409174981f67930cfe
	files=$(git --git-dir="$git_dir" ls-tree -r --name-only "$rev" genai-perf/genai_perf | grep '\.py$') ;;
*)
	echo "extract.sh: unknown tool $tool (want vllm, sglang, evalscope, aiperf, aiohttp or genai-perf)" >&2; exit 2 ;;
esac
for f in $files; do
	mkdir -p "$out/$(dirname "$f")"
	git --git-dir="$git_dir" show "$rev:$f" >"$out/$f"
done
echo "$rev" >"$out/REVISION"
echo "extracted $(echo $files | wc -w) files of $tool at $rev"

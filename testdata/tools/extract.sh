#!/bin/sh
# Extracts the files the tools' oracle (oracle.py) loads, at the pinned
# commits, from git directories of the tools' repositories (the search
# tool's fetch of neuralmagic/vllm and bytedance-iaas/sglang, forks that carry
# these upstream commits). The source is read at run time, never committed.
#   extract.sh vllm   GIT_DIR OUTDIR
#   extract.sh sglang GIT_DIR OUTDIR
#   extract.sh evalscope GIT_DIR OUTDIR   (modelscope/evalscope)
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
*)
	echo "extract.sh: unknown tool $tool (want vllm, sglang or evalscope)" >&2; exit 2 ;;
esac
for f in $files; do
	mkdir -p "$out/$(dirname "$f")"
	git --git-dir="$git_dir" show "$rev:$f" >"$out/$f"
done
echo "$rev" >"$out/REVISION"
echo "extracted $(echo $files | wc -w) files of $tool at $rev"

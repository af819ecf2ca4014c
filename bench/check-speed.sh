#!/usr/bin/env bash
# check-speed.sh: audit check of a large AISBench work_dir beside AISBench's
# own summarizer of it (issue 18 wants check at least 50x faster).
#
#   AISB_SRC=SRC_DIR bench/check-speed.sh WORK_DIR
#
# WORK_DIR is made by testdata/aisbench/make_large.py N WORK_DIR --summarize
# (100,000 requests for the figures in docs/check.md). Each round runs
# AISBench's DefaultPerfSummarizer.summarize() on it (make_large.py
# --summarize-only: its own time, the process's start and imports left out),
# then `audit check --aisbench-dir WORK_DIR` under /usr/bin/time, which must
# exit 0 (every cell of AISBench's report agrees). It prints each round's
# figures, the medians, and the median summarize() over the median check.
#
# Environment:
#   RUNS     rounds (default 3)
#   AISB_SRC AISBench's source, extracted by ../shared/oracle/extract_aisbench.sh
#   PYTHON   a Python with numpy, pandas and tqdm (default /usr/bin/python3)
#   AUDIT    an audit binary to use instead of building ./cmd/audit
#   KEEP=1   keep the temporary directory
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/bench/lib.sh"
if [[ $# -ne 1 || ! -d $1 ]]; then
	echo "usage: AISB_SRC=SRC_DIR bench/check-speed.sh WORK_DIR (made by testdata/aisbench/make_large.py N WORK_DIR --summarize)" >&2
	exit 2
fi
wd=$1
if [[ -z ${AISB_SRC:-} || ! -d $AISB_SRC ]]; then
	echo "check-speed.sh: AISB_SRC=${AISB_SRC:-}: want AISBench's source (../shared/oracle/extract_aisbench.sh)" >&2
	exit 2
fi
python=${PYTHON:-/usr/bin/python3}
bench_setup check-speed.sh 3
: >"$tmp/check" >"$tmp/summarize"
for i in $(seq "$runs"); do
	"$python" "$repo/testdata/aisbench/make_large.py" --summarize-only "$wd" 2>"$tmp/summarize.err" >/dev/null
	s=$(sed -n 's/^AISBench summarizer .*: \([0-9.]*\) s$/\1/p' "$tmp/summarize.err")
	if [[ -z $s ]]; then
		echo "check-speed.sh: summarize() printed no time:" >&2
		tail -n 5 "$tmp/summarize.err" >&2
		exit 1
	fi
	echo "$s" >>"$tmp/summarize"
	if ! /usr/bin/time -f '%e %U %M' -a -o "$tmp/check" "$audit" check --aisbench-dir "$wd" >"$tmp/check.out" 2>&1; then
		echo "check-speed.sh: audit check did not exit 0:" >&2
		tail -n 20 "$tmp/check.out" >&2
		exit 1
	fi
	echo "round $i: summarize() $s s, audit check $(tail -n 1 "$tmp/check" | awk '{printf "%s s wall, %s s user, %d MiB", $1, $2, $3 / 1024}')"
done
sm=$(median "$tmp/summarize" 1)
cw=$(median "$tmp/check" 1)
echo "medians of $runs: summarize() $sm s; audit check $cw s wall, $(median "$tmp/check" 2) s user, peak $(($(peak_kib "$tmp/check") / 1024)) MiB"
awk -v s="$sm" -v c="$cw" 'BEGIN { printf "audit check is %.1fx faster than AISBench'"'"'s summarize()\n", s / c }'

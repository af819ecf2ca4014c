#!/usr/bin/env bash
# samebytes.sh OLD NEW: runs two audit binaries on the same inputs and fails
# unless every output is byte-identical: stdout, stderr, exit code and every
# file written, for every command and output format, on the bundled traces,
# the findings traces, the external (DuckDB, apache-arrow JS) files, one
# generated trace of every profile (chat and completions), the AISBench
# work_dirs and the replay tables. A refactor that must keep behaviour (issue
# 14) is checked with it against the binary of the commit before it:
#
#   git worktree add /tmp/before <commit> && (cd /tmp/before && go build -o /tmp/old ./cmd/audit)
#   go build -o /tmp/new ./cmd/audit && scripts/samebytes.sh /tmp/old /tmp/new
#
# Environment:
#   WORK       keep the outputs here (default: a temporary directory, removed)
#   REQUESTS   requests of each generated trace (default 300)
#   EXTRA      more trace files to run every report command on (space-separated;
#              the 1 GB benchmark trace, say)
#   HTML_PLUS  1: compare HTML with "&#43;" read as "+" (html/template escapes
#              "+", the hand-written escaping did not; the page is the same)
set -euo pipefail

old=$(realpath "$1")
new=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
requests=${REQUESTS:-300}
work=${WORK:-}
if [[ -z $work ]]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/in" "$work/old" "$work/new"
cd "$repo"

# The inputs: bundled and external traces, the findings traces, and one
# generated trace of each profile (made by the old binary, once).
traces=(testdata/traces/basic.parquet testdata/traces/basic.jsonl testdata/traces/basic.arrow
	testdata/traces/basic.arrows testdata/traces/basic-flat.parquet testdata/traces/basic-flat.arrow
	testdata/traces/external/duckdb-nested.parquet testdata/traces/external/duckdb-flat.parquet
	testdata/traces/external/arrowjs-nested.arrow)
traces+=(testdata/traces/findings/*.jsonl)
for p in chat reasoning speculative network crlf cr failures aisbench-breakers mixed; do
	f=$work/in/gen-$p.parquet
	[[ -f $f ]] || "$old" gen --profile "$p" --requests "$requests" --concurrency 8 --seed 3 -o "$f" 2>/dev/null
	traces+=("$f")
done
f=$work/in/gen-completions.arrows
[[ -f $f ]] || "$old" gen --profile mixed --api completions --requests "$requests" --concurrency 4 --seed 5 -o "$f"
traces+=("$f")
f=$work/in/gen-small-c.jsonl # C larger than the run reaches: no stable stage
[[ -f $f ]] || "$old" gen --profile chat --requests 20 --concurrency 3 --seed 9 -o "$f"
traces+=("$f")
# shellcheck disable=SC2206
traces+=(${EXTRA:-})

n=0
# run NAME ARGS...: runs both binaries in their own output folder (the
# placeholder @OUT@ in ARGS is that folder) and records stdout, stderr and
# the exit code there.
run() {
	local name=$1
	shift
	local side bin out
	for side in old new; do
		bin=${!side}
		out=$work/$side/$name
		mkdir -p "$out"
		local args=()
		for a in "$@"; do args+=("${a//@OUT@/$out}"); done
		set +e
		"$bin" "${args[@]}" >"$out/stdout" 2>"$out/stderr" </dev/null
		echo $? >"$out/exit"
		set -e
	done
	n=$((n + 1))
}

for t in "${traces[@]}"; do
	k=$(basename "$t" | tr '.' '_')
	c=()
	case $t in *external/*) c=(--max-concurrency 4) ;; esac
	run "$k/report-text" report --color never "${c[@]}" "$t"
	run "$k/report-color" report --color always "${c[@]}" "$t"
	run "$k/report-json" report --format json "${c[@]}" "$t"
	run "$k/report-csv" report --format csv "${c[@]}" "$t"
	run "$k/report-md" report --format markdown "${c[@]}" "$t"
	run "$k/report-html" report --format html -o @OUT@/report.html "${c[@]}" "$t"
	run "$k/report-aisbench" report --aisbench-out @OUT@/ais "${c[@]}" "$t"
	run "$k/report-stats" report --format json --stats Average,P50,P99,P99.9,Min --slo 'TPOT<20ms' --slo 'TTFT<=150ms' --slo 'OutputTokenThroughput>=30' "${c[@]}" "$t"
	run "$k/report-stats-text" report --color never --stats Median,P05,P99.99 --slo 'TTFContent<200ms' --min-window 1s --min-window-requests 2 "${c[@]}" "$t"
	run "$k/report-sse" report --format json --framer sse "${c[@]}" "$t"
	run "$k/report-noc" report --format json --max-concurrency 2 "$t"
	run "$k/itl" itl "${c[@]}" "$t"
	run "$k/itl-json" itl --format json --stats Average,P90 "${c[@]}" "$t"
	run "$k/whatif" whatif "${c[@]}" "$t"
	run "$k/whatif-json" whatif --format json --per-request --policy content --policy keep=content,reasoning "${c[@]}" "$t"
	run "$k/replay" replay "$t"
	run "$k/replay-sse" replay --framer sse "$t"
	run "$k/replay-tables" replay --format parquet --out-dir @OUT@/tables "${c[@]}" "$t"
	run "$k/merge" merge --format json --max-concurrency 4 "$work/old/$k/replay-tables/tables"
	run "$k/merge-text" merge --color never --max-concurrency 4 "$work/old/$k/replay-tables/tables"
	run "$k/merge-twice" merge --max-concurrency 4 "$work/old/$k/replay-tables/tables" "$work/old/$k/replay-tables/tables"
	run "$k/events" events "$t"
	run "$k/events-json" events --format json --per-request --framer sse "$t"
	run "$k/inspect" inspect "$t"
	run "$k/convert" convert "$t" -o @OUT@/converted.jsonl
done

for d in testdata/aisbench/*/; do
	[[ -d $d/performances || -d $d/tmp ]] || continue
	k=aisbench-$(basename "$d")
	run "$k/check" check --aisbench-dir "$d"
	run "$k/check-json" check --format json --aisbench-dir "$d" --cards P8+D8 --claim 'P90(TTFT)=100ms' --rate 2
	run "$k/import" import --from aisbench "$d" -o @OUT@/imported.jsonl
done
run check-from-trace check --aisbench-dir testdata/aisbench/from-trace --trace testdata/traces/basic.jsonl
run check-cached check --csv testdata/aisbench/cached.total.csv --json testdata/aisbench/cached.total.json testdata/aisbench/cached.jsonl

status=0
# The outputs differ only where a file differs; HTML_PLUS=1 reads &#43; as +.
while IFS= read -r -d '' f; do
	rel=${f#"$work/old/"}
	g=$work/new/$rel
	if [[ ! -e $g ]]; then
		echo "missing in new: $rel"
		status=1
		continue
	fi
	if cmp -s "$f" "$g"; then
		continue
	fi
	# Messages name the output folder: old/ and new/ read alike.
	if cmp -s <(sed "s|$work/old/|@OUT/|g" "$f") <(sed "s|$work/new/|@OUT/|g" "$g"); then
		continue
	fi
	if [[ ${HTML_PLUS:-} == 1 && $f == *.html ]] && cmp -s <(sed 's/&#43;/+/g' "$f") <(sed 's/&#43;/+/g' "$g"); then
		continue
	fi
	echo "differs: $rel"
	status=1
done < <(find "$work/old" -type f -print0 | sort -z)
while IFS= read -r -d '' g; do
	rel=${g#"$work/new/"}
	[[ -e $work/old/$rel ]] || { echo "only in new: $rel"; status=1; }
done < <(find "$work/new" -type f -print0 | sort -z)
files=$(find "$work/old" -type f | wc -l)
if [[ $status == 0 ]]; then
	echo "samebytes: $n runs, $files files, all identical"
else
	echo "samebytes: $n runs, $files files: DIFFERENCES above (outputs in $work)"
fi
exit $status

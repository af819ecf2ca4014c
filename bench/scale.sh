#!/usr/bin/env bash
# scale.sh: peak memory of audit report as the trace grows.
#
# Generates chat traces of 2,000, 5,000, 10,000 and 20,000 requests (about 0.1,
# 0.25, 0.5 and 1 GB of SSE body; the last is bench/compare.sh's trace) with
# `audit gen`, runs `audit report` on each RUNS times, and prints, per trace,
# the body size, the ITL samples (the report's metrics.ITL.total.samples), the
# median wall and user CPU, the largest peak RSS, and that peak less 8 bytes per
# ITL sample: issue 8 wants it flat, under 256 MiB, whatever the size. The
# last line says how far that column moves from the smallest trace to the
# largest, and what the peak grows by per added ITL sample.
#
# Environment:
#   RUNS       runs of each trace (default 3)
#   SIZES      request counts (default "2000 5000 10000 20000")
#   PROFILE    audit gen's profile (default chat; speculative has a usage and
#              a token count in every event)
#   OUTPUT_TOKENS  mean output tokens a request (default 256)
#   WRITER     ours (default): audit gen's row groups of 1,024 requests;
#              one-row-group: audit gen's writer, the whole trace one row group;
#              duckdb-one-row-group: that trace rewritten by DuckDB's COPY as one
#              row group (ROW_GROUP_SIZE 1000000, zstd: each column chunk one
#              page or a few of up to ~100 MB, as pyarrow's and DuckDB's row
#              groups of a table under a million rows are); needs node and
#              @duckdb/node-api in SSEAUDIT_NODE_MODULES (default
#              $HOME/.cache/sseaudit-node/node_modules)
#   AUDIT      an audit binary to use instead of building ./cmd/audit
#   KEEP=1     keep the temporary directory
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/bench/lib.sh"
profile=${PROFILE:-chat}
tokens=${OUTPUT_TOKENS:-256}
sizes=${SIZES:-2000 5000 10000 20000}
writer=${WRITER:-ours}
nm=${SSEAUDIT_NODE_MODULES:-$HOME/.cache/sseaudit-node/node_modules}
case $writer in
ours | one-row-group) ;;
duckdb-one-row-group)
	if [[ ! -d $nm/@duckdb/node-api ]]; then
		echo "scale.sh: no @duckdb/node-api in $nm (set SSEAUDIT_NODE_MODULES)" >&2
		exit 2
	fi
	;;
*)
	echo "scale.sh: WRITER=$writer: want ours, one-row-group or duckdb-one-row-group" >&2
	exit 2
	;;
esac
bench_setup scale.sh 3
if [[ $writer == duckdb-one-row-group ]]; then
	cat >"$tmp/onerg.cjs" <<'JS'
// node onerg.cjs IN OUT: IN rewritten by DuckDB as one row group, with its
// sseaudit.* key/value metadata (which COPY would otherwise drop).
const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
  const [inp, out] = process.argv.slice(2);
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const kv = (await c.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${inp}')`))
    .getRowObjectsJS().filter((r) => r.k.startsWith('sseaudit.')).map((r) => `'${r.k}': '${r.v}'`).join(', ');
  await c.run(`COPY (SELECT * FROM read_parquet('${inp}')) TO '${out}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000, KV_METADATA {${kv}})`);
})().catch((e) => { console.error(e); process.exit(1); });
JS
fi

printf '%9s %10s %12s %8s %8s %14s %22s\n' requests "body MB" "ITL samples" "wall s" "user s" "peak RSS MiB" "RSS - 8 B/sample MiB"
for n in $sizes; do
	trace=$tmp/trace-$n.parquet
	groups=()
	[[ $writer == ours ]] || groups=(--row-group-requests "$n")
	body=$("$audit" gen --profile "$profile" --requests "$n" --output-tokens "$tokens" --concurrency 64 --seed 1 \
		"${groups[@]}" -o "$trace" 2>&1 | sed -n 's/.* reads, \([0-9]*\) body bytes.*/\1/p')
	if [[ $writer == duckdb-one-row-group ]]; then
		NODE_PATH=$nm node "$tmp/onerg.cjs" "$trace" "$tmp/duckdb-$n.parquet"
		trace=$tmp/duckdb-$n.parquet
	fi
	samples=$("$audit" report --format json "$trace" | python3 -c 'import json, sys; print(json.load(sys.stdin)["metrics"]["ITL"]["total"]["samples"])')
	: >"$tmp/times"
	for ((i = 1; i <= runs; i++)); do
		/usr/bin/time -f '%e %U %M' -o "$tmp/time" "$audit" report --color never "$trace" >/dev/null
		tail -n 1 "$tmp/time" >>"$tmp/times"
	done
	wall=$(median "$tmp/times" 1)
	user=$(median "$tmp/times" 2)
	rss=$(peak_kib "$tmp/times")
	awk -v n="$n" -v b="$body" -v s="$samples" -v w="$wall" -v u="$user" -v r="$rss" 'BEGIN {
		printf "%9d %10.0f %12d %8.2f %8.2f %14.0f %22.0f\n", n, b / 1e6, s, w, u, r / 1024, (r * 1024 - 8 * s) / 1048576 }' |
		tee -a "$tmp/rows"
done
# How far the last column moves from the smallest trace to the largest, and
# the bytes the peak grows by per added ITL sample (8 is the allowance).
awk 'NR == 1 {s0 = $3; r0 = $6; e0 = $7} END {
	if (NR > 1 && $3 > s0)
		printf "\nRSS - 8 B/sample from %d to %d requests: %+.0f MiB (%+.0f%%); the peak grows %.1f B per added ITL sample\n",
			first, $1, $7 - e0, 100 * ($7 - e0) / e0, ($6 - r0) * 1048576 / ($3 - s0) }
	NR == 1 {first = $1}' "$tmp/rows"

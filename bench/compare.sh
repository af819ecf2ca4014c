#!/usr/bin/env bash
# compare.sh: audit report against DuckDB on the same generated trace.
#
# Generates a chat trace with `audit gen` into a temporary directory, then runs,
# alternating the tools, RUNS times each:
#   scan      DuckDB: count and summed size of every read (the unnested chunks)
#   classify  DuckDB: the body cut on blank lines, each data: event classified
#             in SQL (json_extract_string of delta.content, choices length)
#   report    audit report (text)
#   flat      audit report (text) of the same trace in the flat layout
#             (audit convert --layout flat, made once before the runs)
#   duckdb    audit report of the trace rewritten by DuckDB's COPY with its
#             default settings (snappy; a table under 122,880 rows is one row
#             group, each column chunk pages of up to ~100 MB)
#   onerg     audit report of the trace rewritten by DuckDB as one row group,
#             zstd (ROW_GROUP_SIZE 1000000: what pyarrow writes for a table
#             under a million rows)
#   dscan     DuckDB: duckq.mjs scan of the DuckDB-written file
#   dclassify DuckDB: duckq.mjs classify of the DuckDB-written file
# (COPY drops the sseaudit.* metadata: the two rewritten files are reported
# with --max-concurrency.) It prints the median wall and user CPU, the peak
# RSS, the ratios of audit report to each DuckDB query and of the flat layout
# to the nested one, and the peak RSS against 256 MiB + 8 B per ITL sample
# (the sample count read from the report's JSON). Measured with /usr/bin/time.
#
# Environment:
#   SSEAUDIT_NODE_MODULES  node_modules holding @duckdb/node-api
#                          (default $HOME/.cache/sseaudit-node/node_modules)
#   RUNS                   runs of each tool (default 5)
#   REQUESTS, OUTPUT_TOKENS, CONCURRENCY, SEED
#                          the trace (default 20000, 256, 64, 1: about 1 GB of body)
#   AUDIT                  an audit binary to use instead of building ./cmd/audit
#   DUCKQ                  the shared yardstick's duckq.mjs (default
#                          ../shared/bench/duckq.mjs beside the checkout); without
#                          it dscan and dclassify are left out
#   KEEP=1                 keep the temporary directory
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/bench/lib.sh"
nm=${SSEAUDIT_NODE_MODULES:-$HOME/.cache/sseaudit-node/node_modules}
requests=${REQUESTS:-20000}
tokens=${OUTPUT_TOKENS:-256}
concurrency=${CONCURRENCY:-64}
seed=${SEED:-1}

if [[ ! -d $nm/@duckdb/node-api ]]; then
	echo "compare.sh: no @duckdb/node-api in $nm (set SSEAUDIT_NODE_MODULES)" >&2
	exit 2
fi
bench_setup compare.sh 5

trace=$tmp/trace.parquet
"$audit" gen --profile chat --requests "$requests" --output-tokens "$tokens" \
	--concurrency "$concurrency" --seed "$seed" -o "$trace"

flat=$tmp/trace-flat.parquet
"$audit" convert --layout flat "$trace" -o "$flat"

cat >"$tmp/rewrite.cjs" <<'JS'
// node rewrite.cjs IN OUT [OPTIONS]: IN copied by DuckDB to OUT with COPY's
// default settings, or the options given.
const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
  const [inp, out, options] = process.argv.slice(2);
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run(`COPY (SELECT * FROM read_parquet('${inp}')) TO '${out}' (FORMAT parquet${options ? ', ' + options : ''})`);
})().catch((e) => { console.error(e); process.exit(1); });
JS
duckdb_file=$tmp/trace-duckdb.parquet
onerg_file=$tmp/trace-onerg.parquet
NODE_PATH=$nm node "$tmp/rewrite.cjs" "$trace" "$duckdb_file"
NODE_PATH=$nm node "$tmp/rewrite.cjs" "$trace" "$onerg_file" 'COMPRESSION zstd, ROW_GROUP_SIZE 1000000'

tools=(scan classify report flat duckdb onerg)
duckq=${DUCKQ:-$repo/../shared/bench/duckq.mjs}
if [[ -f $duckq ]]; then
	# An ES module does not read NODE_PATH: it runs beside a node_modules.
	mkdir "$tmp/duckq"
	cp "$duckq" "$tmp/duckq/duckq.mjs"
	ln -s "$nm" "$tmp/duckq/node_modules"
	tools+=(dscan dclassify)
else
	echo "compare.sh: no $duckq (set DUCKQ): dscan and dclassify left out" >&2
fi
samples=$("$audit" report --format json "$trace" | node -e '
let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).metrics.ITL.total.samples));')

cat >"$tmp/query.cjs" <<'JS'
// node query.cjs SQL: runs one query in an in-memory DuckDB, prints its rows.
const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const r = await con.runAndReadAll(process.argv[2]);
  console.log(JSON.stringify(r.getRowObjectsJS(), (k, v) => (typeof v === 'bigint' ? v.toString() : v)));
})().catch((e) => { console.error(e); process.exit(1); });
JS

scan_sql="SELECT count(*), sum(octet_length(ch.data)) FROM (SELECT unnest(chunks) AS ch FROM '$trace')"
classify_sql="WITH body AS (
  SELECT array_to_string(list_transform(chunks, c -> decode(c.data)), '') AS b FROM '$trace'),
blocks AS (SELECT unnest(string_split(b, chr(10) || chr(10))) AS blk FROM body),
ev AS (SELECT substr(blk, 7) AS p FROM blocks WHERE starts_with(blk, 'data: '))
SELECT CASE
  WHEN p = '[DONE]' THEN 'done'
  WHEN coalesce(json_array_length(p, '\$.choices'), 0) = 0 THEN 'no_choices'
  WHEN coalesce(json_extract_string(p, '\$.choices[0].delta.content'), '') <> '' THEN 'content'
  ELSE 'other' END AS class, count(*) AS events
FROM ev GROUP BY class ORDER BY class"

# measure TOOL RUN: one run, its wall, user and RSS appended to $tmp/TOOL.
measure() {
	local tool=$1 out=$tmp/$1.out
	local cmd
	case $tool in
	scan) cmd=(env NODE_PATH="$nm" node "$tmp/query.cjs" "$scan_sql") ;;
	classify) cmd=(env NODE_PATH="$nm" node "$tmp/query.cjs" "$classify_sql") ;;
	report) cmd=("$audit" report --color never "$trace") ;;
	flat) cmd=("$audit" report --color never "$flat") ;;
	duckdb) cmd=("$audit" report --color never --max-concurrency "$concurrency" "$duckdb_file") ;;
	onerg) cmd=("$audit" report --color never --max-concurrency "$concurrency" "$onerg_file") ;;
	dscan) cmd=(node "$tmp/duckq/duckq.mjs" "$duckdb_file" scan) ;;
	dclassify) cmd=(node "$tmp/duckq/duckq.mjs" "$duckdb_file" classify) ;;
	esac
	if ! /usr/bin/time -f '%e %U %M' -o "$tmp/time" "${cmd[@]}" >"$out" 2>"$tmp/$tool.err"; then
		echo "compare.sh: $tool failed:" >&2
		cat "$tmp/$tool.err" >&2
		exit 1
	fi
	tail -n 1 "$tmp/time" >>"$tmp/$tool.times"
}

for ((i = 1; i <= runs; i++)); do
	for tool in "${tools[@]}"; do
		measure "$tool"
	done
done
echo "scan:     $(cat "$tmp/scan.out")"
echo "classify: $(cat "$tmp/classify.out")"
if [[ -f $tmp/dscan.out ]]; then
	echo "$(cat "$tmp/dscan.out")"
	echo "$(cat "$tmp/dclassify.out")"
fi

peak() { awk '{printf "%.0f", $1 / 1024}' <<<"$(peak_kib "$1")"; }

printf '\n%d runs each, %s requests of %s output tokens\n' "$runs" "$requests" "$tokens"
printf '%-10s %10s %10s %14s\n' tool "wall s" "user s" "peak RSS MiB"
for tool in "${tools[@]}"; do
	printf '%-10s %10s %10s %14s\n' "$tool" "$(median "$tmp/$tool.times" 1)" "$(median "$tmp/$tool.times" 2)" "$(peak "$tmp/$tool.times")"
done
rw=$(median "$tmp/report.times" 1)
sw=$(median "$tmp/scan.times" 1)
cw=$(median "$tmp/classify.times" 1)
fw=$(median "$tmp/flat.times" 1)
awk -v r="$rw" -v s="$sw" -v c="$cw" -v f="$fw" -v n="$samples" \
	-v rr="$(peak "$tmp/report.times")" -v fr="$(peak "$tmp/flat.times")" 'BEGIN {
	printf "\nreport / scan wall:     %.2f  (target <= 3)\n", r / s
	printf "classify / report wall: %.2f  (target >= 5)\n", c / r
	printf "flat / nested wall:     %.2f  (target <= 1.2)\n", f / r
	printf "peak RSS, nested / flat: %d / %d MiB (target <= 256 MiB + 8 B x %d ITL samples = %.0f MiB)\n", rr, fr, n, 256 + 8 * n / 1048576 }'
awk -v d="$(median "$tmp/duckdb.times" 1)" -v o="$(median "$tmp/onerg.times" 1)" -v r="$rw" -v n="$samples" \
	-v dr="$(peak "$tmp/duckdb.times")" -v onr="$(peak "$tmp/onerg.times")" 'BEGIN {
	printf "peak RSS, DuckDB-written / one row group: %d / %d MiB (same target: %.0f MiB)\n", dr, onr, 256 + 8 * n / 1048576
	printf "DuckDB-written / ours wall: %.2f; one row group / ours: %.2f\n", d / r, o / r }'
if [[ -f $tmp/dscan.times ]]; then
	awk -v d="$(median "$tmp/duckdb.times" 1)" -v s="$(median "$tmp/dscan.times" 1)" -v c="$(median "$tmp/dclassify.times" 1)" 'BEGIN {
	printf "on the DuckDB-written file: report / duckq scan wall: %.2f (target <= 2); duckq classify / report: %.2f (target >= 5)\n", d / s, c / d }'
fi

# lib.sh: what bench/compare.sh and bench/scale.sh share; sourced, not run.
#
# bench_setup NAME sets runs (RUNS, default $2), tmp (a temporary directory,
# removed on exit unless KEEP=1) and audit (AUDIT, else ./cmd/audit built into
# tmp), after checking that GNU time is there and RUNS is a positive number.
bench_setup() {
	local name=$1
	runs=${RUNS:-$2}
	if [[ ! -x /usr/bin/time ]]; then
		echo "$name: needs GNU time at /usr/bin/time" >&2
		exit 2
	fi
	if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
		echo "$name: RUNS=$runs: want a positive number" >&2
		exit 2
	fi
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/sseaudit-${name%.sh}.XXXXXX")
	if [[ ${KEEP:-0} == 1 ]]; then
		echo "$name: keeping $tmp" >&2
	else
		trap 'rm -rf "$tmp"' EXIT
	fi
	audit=${AUDIT:-}
	if [[ -z $audit ]]; then
		(cd "$repo" && go build -o "$tmp/audit" ./cmd/audit)
		audit=$tmp/audit
	fi
}

# median FILE COLUMN: the median of a column of /usr/bin/time -f '%e %U %M'
# lines (the mean of the middle two for an even count).
median() {
	sort -g -k "$2,$2" "$1" | awk -v c="$2" '{v[NR] = $c} END {
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# peak_kib FILE: the largest peak RSS (KiB) of those lines.
peak_kib() { sort -g -k 3,3 "$1" | tail -n 1 | awk '{print $3}'; }

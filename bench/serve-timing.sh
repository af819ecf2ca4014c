#!/usr/bin/env bash
# serve-timing.sh: how late audit serve's writes leave, measured on the wire
# (issue 22).
#
# Generates a chat trace with `audit gen` (JSONL, the defaults of gen: a
# first read after 120 ms, then one about every 20 ms, 64 output tokens on
# average), then for each binary (BEFORE, if given, and AFTER, alternating,
# ROUNDS times) and each C in CS: serves the trace with `audit serve --once`
# under /usr/bin/time, captures loopback with `tcpdump -i lo
# --time-stamp-precision=nano`, runs C concurrent aiohttp clients
# (bench/serve_timing.py client) through C x PER_CLIENT requests (at least
# MIN_REQUESTS), and reads
# the capture (bench/serve_timing.py analyze): for every recorded read,
# the capture time of its TCP segment minus (the request's arrival + the
# trace's offset of that read). Prints, per run, the median, P90, P99 and
# max of that lateness in µs, the server's CPU time (user + sys) and its
# share of one core over the run, and the machine's load average before
# and after; then, per binary and C, the medians over the rounds, and the
# figures of every read of every round at once.
#
# Needs root (or CAP_NET_RAW) for tcpdump, GNU time, and a Python with
# aiohttp (Debian: apt-get install python3-aiohttp tcpdump).
#
# Environment:
#   AFTER       the audit binary to measure (default: ./cmd/audit, built)
#   BEFORE      another binary to measure against it, alternating (e.g.
#               main's: BEFORE_REV=main builds it from git archive)
#   BEFORE_REV  a revision to build BEFORE from (git archive; no worktree
#               is touched)
#   CS          concurrencies (default "1 16 64")
#   PER_CLIENT  requests a client (default 5)
#   MIN_REQUESTS  requests of a run at least (default 20)
#   ROUNDS      rounds of every binary and C (default 1)
#   PYTHON      a Python with aiohttp (default python3)
#   PORT        the port to serve on (default 18622)
#   SERVE_WRAP  a command the server runs under (e.g. "chrt -f 10": out of
#               the way of other jobs on a loaded machine)
#   CLIENT_WRAP the same for the clients
#   KEEP=1      keep the temporary directory (traces, captures NAME-C-ROUND.pcap,
#               logs); `serve_timing.py streams` reads a capture stream by
#               stream
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cs=${CS:-1 16 64}
per=${PER_CLIENT:-5}
min_requests=${MIN_REQUESTS:-20}
rounds=${ROUNDS:-1}
python=${PYTHON:-python3}
port=${PORT:-18622}
wrap=${SERVE_WRAP:-}
client_wrap=${CLIENT_WRAP:-}

for tool in tcpdump /usr/bin/time; do
	if ! command -v "$tool" >/dev/null; then
		echo "serve-timing.sh: needs $tool" >&2
		exit 2
	fi
done
if ! "$python" -c 'import aiohttp' 2>/dev/null; then
	echo "serve-timing.sh: $python has no aiohttp (Debian: apt-get install python3-aiohttp, then PYTHON=/usr/bin/python3)" >&2
	exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sseaudit-serve-timing.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then
	echo "serve-timing.sh: keeping $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi

after=${AFTER:-}
if [[ -z $after ]]; then
	(cd "$repo" && go build -o "$tmp/audit-after" ./cmd/audit)
	after=$tmp/audit-after
fi
before=${BEFORE:-}
if [[ -z $before && -n ${BEFORE_REV:-} ]]; then
	mkdir "$tmp/src-before"
	git -C "$repo" archive "$BEFORE_REV" | tar -x -C "$tmp/src-before"
	(cd "$tmp/src-before" && go build -o "$tmp/audit-before" ./cmd/audit)
	before=$tmp/audit-before
fi
bins=(after)
[[ -n $before ]] && bins=(before after)

# busy: the machine's busy and total jiffies, all CPUs (/proc/stat).
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8}' /proc/stat; }

# run NAME BIN C ROUND: one measured run; its figures appended to
# $tmp/NAME-C.runs.
run() {
	local name=$1 bin=$2 c=$3 n=$(($3 * per))
	((n >= min_requests)) || n=$min_requests
	local trace=$tmp/trace-$n.jsonl pcap=$tmp/$name-$c-$4.pcap
	[[ -f $trace ]] || "$after" gen --profile chat --requests "$n" --concurrency "$c" --seed 22 -o "$trace" 2>/dev/null
	tcpdump -i lo -n -U -s 0 -B 65536 --time-stamp-precision=nano -w "$pcap" "port $port" 2>"$tmp/tcpdump.err" &
	local dump=$!
	for _ in $(seq 100); do grep -q listening "$tmp/tcpdump.err" && break; sleep 0.05; done
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" $wrap "$bin" serve --once --listen "127.0.0.1:$port" "$trace" 2>"$tmp/serve.err" &
	local srv=$!
	for _ in $(seq 100); do grep -q 'Ctrl-C' "$tmp/serve.err" && break; sleep 0.05; done
	local load0 b0 b1
	load0=$(cut -d' ' -f1 /proc/loadavg)
	b0=$(busy)
	local t0=$EPOCHREALTIME
	if ! /usr/bin/time -f '%U %S' -o "$tmp/client.time" $client_wrap "$python" "$repo/bench/serve_timing.py" client "http://127.0.0.1:$port/v1/chat/completions" "$c" "$n"; then
		kill "$srv" "$dump" 2>/dev/null || true
		echo "serve-timing.sh: the client failed ($name, C=$c)" >&2
		exit 1
	fi
	local t1=$EPOCHREALTIME
	wait "$srv"
	b1=$(busy)
	# tcpdump may lag behind on a busy machine, and stops where it is when
	# told: a UDP datagram after the run marks the end, and tcpdump (-U:
	# each packet written as it is read) is stopped once it has written it.
	local mark=serve-timing-end-$RANDOM$RANDOM
	echo -n "$mark" >"/dev/udp/127.0.0.1/$port"
	for ((i = 0; i < 600; i++)); do
		grep -qa "$mark" "$pcap" && break
		sleep 0.1
	done
	kill -INT "$dump"
	wait "$dump" || true
	# (On lo, "received by filter" counts each packet twice, on its way
	# out and in: only drops are checked.)
	if ! grep -qa "$mark" "$pcap" || ! grep -q '^0 packets dropped by kernel' "$tmp/tcpdump.err"; then
		echo "serve-timing.sh: tcpdump dropped packets:" >&2
		cat "$tmp/tcpdump.err" >&2
		exit 1
	fi
	local lat
	lat=$(SERVE_TIMING_LATE=$tmp/$name-$c.late "$python" "$repo/bench/serve_timing.py" analyze "$trace" "$pcap" "$port")
	read -r _ user sys <"$tmp/time"
	local wall
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
	local line
	local cu csy
	read -r cu csy <"$tmp/client.time"
	line=$(awk -v cu="$cu" -v cs="$csy" -v u="$user" -v s="$sys" -v w="$wall" -v l0="$load0" -v l1="$(cut -d' ' -f1 /proc/loadavg)" \
		-v b0="$b0" -v b1="$b1" 'BEGIN {
		split(b0, x, " "); split(b1, y, " ")
		printf "%.2f %.1f %.1f %s %s %.0f %.0f", u + s, 100 * (u + s) / w, w, l0, l1, 100 * (y[1] - x[1]) / (y[2] - x[2]), 100 * (cu + cs) / w }')
	echo "$lat $line" >>"$tmp/$name-$c.runs"
	[[ ${KEEP:-0} == 1 ]] || rm -f "$pcap"
	printf '%-7s C=%-3s %s  cpu %s s (%s%% of a core over %s s)  load %s -> %s  machine busy %s%%  client %s%% of a core\n' \
		"$name" "$c" "$lat" $line
}

for ((r = 1; r <= rounds; r++)); do
	for c in $cs; do
		for name in "${bins[@]}"; do
			bin=$after
			[[ $name == before ]] && bin=$before
			run "$name" "$bin" "$c" "$r"
		done
	done
done

printf '\nmedians over %d round(s); lateness in µs, on the wire; load: the 1-minute load average as a run starts; sp: the pacing alone (from the first read)\n' "$rounds"
printf '%-7s %4s %7s %9s %9s %9s %9s %9s %8s %7s %9s %9s\n' binary C reads median P90 P99 max "cpu s" "cpu %" load "sp median" "sp P99"
for name in "${bins[@]}"; do
	for c in $cs; do
		"$python" - "$tmp/$name-$c.runs" "$name" "$c" <<'PY'
import json, statistics, sys
rows = [l.split(" ") for l in open(sys.argv[1]).read().splitlines()]
lat = [json.loads(r[0]) for r in rows]
m = lambda k: statistics.median(x[k] for x in lat)
cpu = statistics.median(float(r[1]) for r in rows)
share = statistics.median(float(r[2]) for r in rows)
load = statistics.median(float(r[4]) for r in rows)
print(f"{sys.argv[2]:<7} {sys.argv[3]:>4} {lat[0]['reads']:>7} {m('median_us'):>9.1f} {m('p90_us'):>9.1f} {m('p99_us'):>9.1f} {m('max_us'):>9.1f} {cpu:>9.2f} {share:>8.1f} {load:>7.2f} {m('spacing_median_us'):>9.1f} {m('spacing_p99_us'):>9.1f}")
PY
	done
done

printf '\nevery read of every round at once; lateness in µs, on the wire\n'
printf '%-7s %4s %8s %9s %9s %9s %9s %9s\n' binary C reads median P90 P99 P99.9 max
for name in "${bins[@]}"; do
	for c in $cs; do
		printf '%-7s %4s %8s %9s %9s %9s %9s %9s\n' "$name" "$c" $("$python" "$repo/bench/serve_timing.py" pooled "$tmp/$name-$c.late")
	done
done

#!/usr/bin/env bash
# tap-overhead.sh: the latency audit tap adds to each streamed read, with the
# upstream server, the tap and the client each in a process of its own
# (bench/tapload; tap.BenchmarkOverhead runs the three in one process).
# STREAMS streams at once on loopback, EVENTS events a stream 20 ms apart,
# ROUNDS rounds direct and through the tap, alternated; the tap records into
# a trace as it does in use. Prints the medians and P99s of both paths and
# their differences (issue 15: added median < 100 µs, P99 < 1 ms at 256
# streams), and the CPU the tap used. A bare relay (tapload relay: each
# connection's bytes copied to the upstream and back read by read, no HTTP,
# no recording) is measured in the same rounds: what it adds is the floor
# of what any tap adds on this machine. RELAY=0 leaves it out.
#
# Environment: STREAMS (256), EVENTS (100), ROUNDS (2), STAGGER=1 (each
# stream at a phase of its own, instead of every stream writing at the same
# instants, a batch's decode step), AUDIT (an audit binary; default:
# ./cmd/audit built), RELAY (1: the bare relay measured too), KEEP=1 keeps
# the temporary directory.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/bench/lib.sh"
bench_setup tap-overhead.sh 1
(cd "$repo" && go build -o "$tmp/tapload" ./bench/tapload)

port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap 'cleanup; [[ ${KEEP:-0} == 1 ]] || rm -rf "$tmp"' EXIT

"$tmp/tapload" upstream -addr 127.0.0.1:0 >"$tmp/upstream.addr" &
pids+=($!)
for _ in $(seq 50); do [[ -s $tmp/upstream.addr ]] && break; sleep 0.1; done
up=http://$(head -n 1 "$tmp/upstream.addr")

relay=()
if [[ ${RELAY:-1} == 1 ]]; then
	"$tmp/tapload" relay -upstream "$up" -addr 127.0.0.1:0 >"$tmp/relay.addr" &
	pids+=($!)
	for _ in $(seq 50); do [[ -s $tmp/relay.addr ]] && break; sleep 0.1; done
	relay=(-relay "http://$(head -n 1 "$tmp/relay.addr")")
fi

tap_addr=127.0.0.1:$(port)
"$audit" tap --upstream "$up" --listen "$tap_addr" -o "$tmp/run.arrows" 2>"$tmp/tap.log" &
tap_pid=$!
pids+=($tap_pid)
for _ in $(seq 50); do
	if (exec 3<>"/dev/tcp/${tap_addr%:*}/${tap_addr#*:}") 2>/dev/null; then break; fi
	sleep 0.1
done

ticks() { awk '{print $14 + $15}' "/proc/$tap_pid/stat"; }
faults() { awk '{print $10}' "/proc/$tap_pid/stat"; }
t0=$(ticks)
f0=$(faults)
s0=$(date +%s.%N)
"$tmp/tapload" client -direct "$up" -tapped "http://$tap_addr" \
	"${relay[@]}" -streams "${STREAMS:-256}" -events "${EVENTS:-100}" -rounds "${ROUNDS:-2}" \
	$([[ ${STAGGER:-0} == 1 ]] && echo -stagger)
t1=$(ticks)
f1=$(faults)
s1=$(date +%s.%N)
hz=$(getconf CLK_TCK)
awk -v t="$((t1 - t0))" -v f="$((f1 - f0))" -v hz="$hz" -v s0="$s0" -v s1="$s1" \
	'BEGIN { printf "tap CPU: %.2f s over %.1f s (%.0f%% of a core; idle while the client reads directly or through the relay), %d minor page faults\n", t / hz, s1 - s0, 100 * t / hz / (s1 - s0), f }'

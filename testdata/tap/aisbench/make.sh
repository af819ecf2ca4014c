#!/bin/sh
# Remakes the test data of audit lag from a real AISBench client run (docs/tap.md):
# AISBench's own client (run_client.py, its source loaded at run time from AISB_SRC)
# against audit serve of a generated trace, through audit tap; once as it is
# (fast/) and once made slow on purpose, a task holding its event loop 5 ms out
# of every 10 (slow/). Each folder: wire.arrows (the tap's trace) and work_dir/
# (what AISBench's client recorded, written by AISBench's own output handler, and
# the ds.csv and ds.json AISBench's own summarizer made of it, through
# ../shared/oracle/oracle.py: DefaultPerfMetricCalculator, C = 8).
#
#   AISB_SRC=DIR sh testdata/tap/aisbench/make.sh     (from the repository's root)
#
# AISB_SRC is AISBench's source extracted by ../shared/oracle/extract_aisbench.sh
# (commit 29c363e); /usr/bin/python3 with Debian's python3-aiohttp and python3-numpy.
set -eu
: "${AISB_SRC:?set AISB_SRC to AISBench's extracted source}"
here=testdata/tap/aisbench
tmp=$(mktemp -d)
trap 'kill $serve_pid $tap_pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/audit" ./cmd/audit
"$tmp/audit" gen --profile chat --requests 48 --concurrency 8 --output-tokens 16 --input-tokens 8 \
  --ttft 30ms --itl 10ms --seed 15 -o "$tmp/gen.arrows"
for run in fast slow; do
  busy=0; [ "$run" = slow ] && busy=5
  rm -rf "$here/$run"; mkdir -p "$here/$run"
  "$tmp/audit" serve --listen 127.0.0.1:18101 "$tmp/gen.arrows" 2>"$tmp/serve.log" & serve_pid=$!
  "$tmp/audit" tap --upstream http://127.0.0.1:18101 --listen 127.0.0.1:18102 --max-concurrency 8 \
    -o "$here/$run/wire.arrows" 2>"$tmp/tap.log" & tap_pid=$!
  sleep 1
  /usr/bin/python3 "$here/run_client.py" --port 18102 --requests 48 --concurrency 8 --max-tokens 16 \
    --api-key sk-aisbench-NOT-A-REAL-KEY --busy-ms $busy --out "$here/$run/work_dir"
  kill -INT $tap_pid; wait $tap_pid
  kill -INT $serve_pid; wait $serve_pid || true
  tail -1 "$tmp/tap.log"
  wd=$(cd "$here/$run/work_dir" && pwd)
  (cd ../shared/oracle && AISB_SRC="$AISB_SRC" /usr/bin/python3 -c "
import sys, aisb_env, oracle
oracle.run_one(aisb_env.load(), sys.argv[1], 'default', 8, True, ['Average', 'Min', 'Max', 'Median', 'P75', 'P90', 'P99'])
" "$wd" >/dev/null)
done

#!/usr/bin/env bash
# Runs every fuzz target of the trace readers and replay for a set time each,
# one worker at a time, and prints a line per target with its duration and
# the number of executions. New crashers land in each package's
# testdata/fuzz/<Target>/ as go test writes them; turn each into a regression
# test named after what it found (see docs/hardening.md).
#
#   scripts/fuzz.sh                 # 60s per target
#   FUZZTIME=120s scripts/fuzz.sh   # longer
#   scripts/fuzz.sh FuzzClassify    # only the named targets
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH

fuzztime="${FUZZTIME:-60s}"
parallel="${FUZZPARALLEL:-1}"

# package target
targets=(
  "./trace FuzzJSONL"
  "./trace FuzzFlatGrouping"
  "./trace/parquetfile FuzzOpen"
  "./trace/tables FuzzReader"
  "./trace/arrowfile FuzzOpenFile"
  "./trace/arrowfile FuzzOpenStream"
  "./replay FuzzAISBenchFramer"
  "./replay FuzzSSEFramer"
  "./replay FuzzClassify"
  "./replay FuzzContentTemplate"
  "./replay FuzzRecycle"
  "./audit FuzzRecordWithoutSpecReplay"
  "./audit FuzzReportJSON"
  "./audit FuzzBuilder"
  "./audit FuzzPooledSamples"
  "./audit FuzzPercentile"
  "./audit FuzzSortFloats"
  "./audit FuzzPyFloatRepr"
  "./audit/check FuzzParseCSV"
  "./audit/check FuzzParseJSON"
  "./audit/check FuzzParseClaim"
  "./audit/check FuzzRun"
  "./trace/importer/aisbench FuzzDecodeTimePoints"
  "./trace/importer/aisbench FuzzDetails"
  "./trace/importer/aisbench FuzzSideFiles"
  "./trace/importer/genaiperf FuzzRead"
  "./trace/importer/aiperf FuzzRead"
  "./trace/importer/vllmbench FuzzRead"
  "./trace/importer/sglang FuzzRead"
  "./capture FuzzReadPrompts"
  "./serve FuzzRequestPrompt"
)

only=" $* "
failed=0
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  if [ $# -gt 0 ] && [[ "$only" != *" $name "* ]]; then continue; fi
  log=$(mktemp)
  start=$(date +%s)
  go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 3s -parallel "$parallel" >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  if [ $rc -eq 0 ]; then
    echo "ok    $pkg $name ${secs}s execs=${execs:-?}"
  else
    failed=1
    echo "FAIL  $pkg $name ${secs}s execs=${execs:-?}"
    grep -E 'Failing input written|--- FAIL|panic:|fuzz_test.go|_test.go:[0-9]+' "$log" | head -20 | sed 's/^/      /'
  fi
  rm -f "$log"
done
exit $failed

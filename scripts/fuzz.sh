#!/usr/bin/env bash
# Runs every fuzz target of the module for a set time each,
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

# Every fuzz target of the module, found by go test itself (one line a
# target: package, then name), so that a new FuzzXxx is run without being
# listed here.
targets=()
for pkg in $(go list ./...); do
  for name in $(go test "$pkg" -list '^Fuzz' 2>/dev/null | grep '^Fuzz'); do
    targets+=("$pkg $name")
  done
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz target found (go test -list failed?)" >&2
  exit 1
fi

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

#!/bin/sh
# Remakes the AISBench oracle outputs for the bundled traces with AISBench's own
# code (see ../../../../shared/oracle/README.md for the set-up: AISB_SRC must
# point at the extracted AISBench source). Run from the repository root.
set -eu
: "${AISB_SRC:?set AISB_SRC to the extracted AISBench source}"
oracle=${ORACLE:-../shared/oracle}
for t in testdata/traces/basic.jsonl; do
  name=$(basename "$t" .jsonl)
  /usr/bin/python3 "$oracle/replay_oracle.py" "$t" "testdata/oracle/traces/$name" 2>/dev/null
done

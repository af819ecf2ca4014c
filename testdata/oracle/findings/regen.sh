#!/bin/sh
# Remakes AISBench's own results for the findings traces (see
# testdata/oracle/traces/regen.sh for the set-up). unknown_tokens is left out
# on purpose: the oracle's tokenizer is a stub, and sseaudit refuses to guess.
set -eu
: "${AISB_SRC:?set AISB_SRC to the extracted AISBench source}"
oracle=${ORACLE:-../shared/oracle}
for t in testdata/traces/findings/*.jsonl; do
  name=$(basename "$t" .jsonl)
  [ "$name" = unknown_tokens ] && continue
  /usr/bin/python3 "$oracle/replay_oracle.py" "$t" "testdata/oracle/findings/$name" 2>/dev/null
done

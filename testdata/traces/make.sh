#!/bin/sh
# Remakes the bundled traces: basic.jsonl from the generator, then every other
# format and layout from it with `audit convert`. Run from the repository root.
set -eu
go build -o /tmp/sseaudit-make-audit ./cmd/audit
a=/tmp/sseaudit-make-audit
d=testdata/traces
go run ./testdata/traces/make | $a convert - -o $d/basic.jsonl
$a convert $d/basic.jsonl -o $d/basic.parquet --row-group-requests 4
$a convert $d/basic.jsonl -o $d/basic.arrow --row-group-requests 4
$a convert $d/basic.jsonl -o $d/basic.arrows --row-group-requests 4
$a convert $d/basic.jsonl -o $d/basic-flat.parquet --layout flat --row-group-requests 4
$a convert $d/basic.jsonl -o $d/basic-flat.arrow --layout flat --row-group-requests 4
rm -f $a

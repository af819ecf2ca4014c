#!/bin/sh
# Regenerates AISBench's own results for the replay package's trace cases.
# Needs the AISBench source extracted (see ../shared/oracle/README.md, the
# shared folder beside the checkout):
#   AISB_SRC=SRC_DIR ./regen.sh     (ORACLE= another oracle folder)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${AISB_SRC:?set AISB_SRC to the extracted AISBench source}
oracle=${ORACLE:-$here/../../../../shared/oracle}
cases="$here/../../../replay/testdata"
(cd "$cases" && /usr/bin/python3 gen_cases.py)
for trace in "$cases"/*.jsonl; do
	name=$(basename "$trace" .jsonl)
	rm -f "$here/$name".*
	AISB_SRC="$src" /usr/bin/python3 "$oracle/replay_oracle.py" "$trace" "$here/$name"
done
# The classifier's hand-written expectations, checked against Python and AISBench.
(cd "$cases/.." && AISB_SRC="$src" ORACLE="$oracle" /usr/bin/python3 "$here/check_classify_seeds.py" >/dev/null)

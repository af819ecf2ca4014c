#!/bin/sh
# Regenerate the audit package's stage goldens from AISBench itself.
#   AISB_SRC=SRC_DIR ./regen.sh   (the AISBench source extracted as ../shared/oracle/README.md says)
# For each <case>.input.json: <case>.oracle.json = oracle.py's output (both
# calculators) plus "numpy_raw", the unrounded statistics (see numpy_raw.py), or
# {"summarizer_error": ...} when AISBench stops before its calculators run.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
oracle=${ORACLE:-$here/../../../../shared/oracle/oracle.py}
: "${AISB_SRC:?set AISB_SRC to the extracted AISBench source}"
export AISB_SRC
cd "$here"
/usr/bin/python3 make_inputs.py
for input in *.input.json; do
	name=${input%.input.json}
	stats=$(/usr/bin/python3 -c 'import json,sys; print(",".join(json.load(open(sys.argv[1])).get("stats") or ["Average","Min","Max","Median","P75","P90","P99"]))' "$input")
	if /usr/bin/python3 "$oracle" "$input" --stats "$stats" >"$name.raw.tmp" 2>"$name.err.tmp"; then
		/usr/bin/python3 numpy_raw.py "$name.raw.tmp" "$stats" >"$name.oracle.json"
	else
		# AISBench raised before any calculator ran (in the summarizer's loader):
		# keep its exception line, without the stub module's prefix.
		tail -n 1 "$name.err.tmp" | sed 's/^aisb_env\.//' |
			/usr/bin/python3 -c 'import json,sys; print(json.dumps({"summarizer_error": sys.stdin.read().rstrip("\n")}, indent=1))' >"$name.oracle.json"
	fi
	rm -f "$name.raw.tmp" "$name.err.tmp"
done

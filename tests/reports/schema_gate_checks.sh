#!/usr/bin/env bash
# schema_gate_checks.sh PYTHON RECORD: the run schema (record/schema/attnlab.run-1) takes a
# gate over several input distributions, --inputs recorded as a list and each check under
# /results/*/correctness/checks, added to a valid RECORD (tests/fixtures/h100-phase1-run.json),
# and rejects a check of an unknown distribution. Exit 77 where scripts/validate-records cannot
# run (no jsonschema).
set -u
py=$1; src=$2
validate="$(cd "$(dirname "$0")/../.." && pwd)/scripts/validate-records"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
make_record() {  # make_record NAME THIRD_INPUTS
  mkdir -p "$dir/$1"
  "$py" - "$src" "$dir/$1/run.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["options"]["inputs"] = "normal,wide,negative"
check = {"passed": True, "row_err_ratio": 0.1, "max_abs_err": 1e-4, "nonfinite": 0, "repeat_identical": True}
r["results"][0]["correctness"]["checks"] = [dict(inputs=n, **check) for n in ("normal", "wide", sys.argv[3])]
json.dump(r, open(sys.argv[2], "w"), indent=2)
PY
}
make_record good negative
make_record bad skewed
out=$("$py" "$validate" "$dir/good"); rc=$?
[ $rc -eq 77 ] && { echo "$out"; exit 77; }
[ $rc -eq 0 ] || { echo "a record with gate checks was rejected:"; echo "$out"; exit 1; }
out=$("$py" "$validate" "$dir/bad"); rc=$?
if [ $rc -ne 1 ] || ! grep -qF "/results/0/correctness/checks/2/inputs" <<<"$out"; then
  echo "a check of an unknown distribution was not rejected (exit $rc):"; echo "$out"; exit 1
fi
echo "ok: checks accepted, an unknown distribution rejected"

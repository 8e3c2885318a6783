#!/usr/bin/env bash
# schema_sdpa_example.sh PYTHON IMPORTER: the SDPA baseline's example record (its raw writer, run
# without torch or a GPU, then attnlab-sdpa-import) validated against the attnlab.run/1 schema.
# Exit codes are scripts/validate-records' (77: no jsonschema package, skipped).
set -u
py=${1:?usage: schema_sdpa_example.sh <python3> <attnlab-sdpa-import>}
importer=${2:?usage: schema_sdpa_example.sh <python3> <attnlab-sdpa-import>}
root=$(cd "$(dirname "$0")/../.." && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
"$py" "$root/experiments/sdpa_baseline.py" --importer "$importer" --write-example-record "$d/run.json" >/dev/null || exit 1
# The raw file is removed once imported.
[ "$(ls "$d")" = run.json ] || { echo "left beside the record: $(ls "$d")"; exit 1; }
"$py" "$root/scripts/validate-records" "$d/run.json"

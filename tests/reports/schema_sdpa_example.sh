#!/usr/bin/env bash
# schema_sdpa_example.sh PYTHON: the SDPA baseline's example record (its record writer, run
# without torch or a GPU) validated against the attnlab.run/1 schema. Exit codes are
# scripts/validate-records' (77: no jsonschema package, skipped).
set -u
py=${1:?usage: schema_sdpa_example.sh <python3>}
root=$(cd "$(dirname "$0")/../.." && pwd)
f=$(mktemp --suffix=.json)
trap 'rm -f "$f"' EXIT
"$py" "$root/experiments/sdpa_baseline.py" --write-example-record "$f" >/dev/null || exit 1
"$py" "$root/scripts/validate-records" "$f"

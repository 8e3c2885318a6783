#!/bin/sh
# No JSON is built or written outside record/: every block of a run record, the A/B
# record, the phase table, the PC-sampling child's file and index.jsonl have their one mapping
# there, and writers fill structs. Greps the C++ sources of the other layers for JSON
# construction: object and array building, subscript assignment of a string key, update,
# push_back of JSON, brace-initialised JSON, dump and writing a JSON file. Readers are allowed below, each with why.
# Usage: json_writers.sh <source root>. Exit 1, listing each offending line, when one is found.
root=${1:?usage: json_writers.sh <source root>}
cd "$root" || exit 2
construction='json::object\(|json::array\(|\.dump\(|json[[:space:]]*\{\{|json\(\{|\["[^"]*"\][[:space:]]*=[^=]|\.update\(|push_back\(to_json|<<.*(to_json|_json\(\))|write_json_atomically\('
# Readers: an absent array or object read as empty (.value(key, default)).
readers='\.value\("[^"]*", (nlohmann::)?(ordered_)?json::(array|object)\(\)\)'
found=$(grep -rnE "$construction" --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' \
          kernels profiler experiments reports common |
        grep -vE '^[^:]*:[0-9]+:[[:space:]]*//' | grep -vE "$readers")
if [ -n "$found" ]; then
  echo "JSON built outside record/ (give the block a struct and its mapping in record/):"
  echo "$found"
  exit 1
fi
echo "no JSON built outside record/"

#!/usr/bin/env bash
# Without a CUDA device the experiment must say so in one line and exit 3, leaving nothing in
# its results directory (no record, no phases.json). Skipped (77) where a GPU is present.
set -u
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "a GPU is present: nothing to check"; exit 77
fi
dir=$(mktemp -d)
out=$("$1" --results-dir "$dir" 2>&1); rc=$?
left=$(find "$dir" -mindepth 1 | wc -l)
rm -rf "$dir"
[ "$rc" -eq 3 ] || { echo "expected exit 3, got $rc: $out"; exit 1; }
grep -q "^attnlab: no CUDA device" <<<"$out" || { echo "unexpected output: $out"; exit 1; }
[ "$(wc -l <<<"$out")" -eq 1 ] || { echo "expected one line: $out"; exit 1; }
[ "$left" -eq 0 ] || { echo "the run left files in its results directory"; exit 1; }
echo "ok: $out"

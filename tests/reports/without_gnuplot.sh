#!/usr/bin/env bash
# without_gnuplot.sh REPORT RECORD: with no gnuplot on PATH, `attnlab-report run` still writes
# the markdown and the .gp scripts, says how to render them, and exits 0.
set -u
report=$1; record=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/4/run" && cp "$record" "$dir/4/run/run.json"
out=$(PATH=/nonexistent "$report" run "$dir/4/run" 2>&1); rc=$?
[ "$rc" -eq 0 ] || { echo "expected exit 0, got $rc: $out"; exit 1; }
want="attnlab-report: gnuplot not found; render with: cd $dir/4/run/plots && gnuplot *.gp"
grep -qxF -- "$want" <<<"$out" || { echo "output lacks '$want':"; echo "$out"; exit 1; }
for f in report.md plots/latency.gp plots/latency.dat plots/roofline.gp plots/roofline.dat; do
  [ -s "$dir/4/run/$f" ] || { echo "$f was not written"; exit 1; }
done
if ls "$dir/4/run/plots/"*.png >/dev/null 2>&1; then echo "a PNG appeared without gnuplot"; exit 1; fi
echo "ok: $out"

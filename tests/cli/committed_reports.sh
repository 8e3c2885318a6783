#!/usr/bin/env bash
# committed_reports.sh REPORT REPO BOARD: every rendered file of a committed board (reports/h100
# or reports/h200) is what attnlab-report renders from the board's records today, byte for
# byte. The board is copied to a temporary folder, its rendered files (report.md, boards.md,
# NOTEBOOK.md, index.jsonl, plots/*.png) are deleted there, the board is rendered as
# `make reports-h100` / `make reports-h200` render it (the README's table has its own test,
# readme_results.sh), and every committed rendered file must come back unchanged, with no
# rendered file the board does not commit. Fails when a renderer's output changes, or when a
# reader no longer takes a committed record. Without gnuplot the figures are not drawn, and only
# the markdown and index files are compared (said on the output).
set -u
report=$1; repo=$2; board=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$repo" || exit 1
[ -d "$board/records" ] || fail "$board/records: no such folder"

mkdir -p "$tmp/work/reports" "$tmp/committed"
cp -r "$board" "$tmp/work/$board"
cp -r reports/published "$tmp/work/reports/"
rendered() {  # the rendered files under folder $1, relative to it, sorted
  (cd "$1" && find . -type f \( -name report.md -o -name boards.md -o -name NOTEBOOK.md \
     -o -name index.jsonl -o -path '*/plots/*.png' \) | sort)
}
rendered "$board" >"$tmp/committed/list"
[ -s "$tmp/committed/list" ] || fail "$board holds no rendered file"
(cd "$tmp/work/$board" && xargs rm -f <"$tmp/committed/list")

run_dirs() {  # the record folders directly under $1/*/ holding a record (run.json[.gz]), sorted
  for d in "$1"/*/*/; do
    [ -e "$d/run.json.gz" ] || [ -e "$d/run.json" ] && echo "$d"
  done | sort
}
render() { "$report" "$@" >>"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "attnlab-report $*"; }; }
cd "$tmp/work" || exit 1
b=$board
published=()  # every published-figures file, as the Makefile's PUBLISHED
for f in reports/published/*.json; do published+=(--published "$f"); done
# shellcheck disable=SC2046
case "$b" in
  reports/h100)
    render calibration $(ls -d $b/calibration/*/)
    render run $(run_dirs $b/records | grep -v "^$b/records/ab/")
    render ab $(run_dirs $b/records/ab) "${published[@]}"
    render notebook $b/records --out $b
    render progression $b/records $b/progression --published reports/published/fa3_h100_sxm.json
    render boards $b/records any $b/boards/cudnn --phase cudnn ;;
  reports/h200)
    cals=$(ls -d $b/calibration/*/ 2>/dev/null)
    [ -z "$cals" ] || render calibration $cals
    runs=$(run_dirs $b/records | grep -v "^$b/records/ab/")
    [ -z "$runs" ] || render run $runs
    pairs=$(run_dirs $b/records/ab)
    render ab $pairs "${published[@]}"
    for p in $(for d in $pairs; do dirname "$d"; done | sort -u); do
      render ab $(grep "^$p/" <<<"$pairs") --across "$p/" "${published[@]}"
    done ;;
  *) fail "$b: this test renders reports/h100 and reports/h200" ;;
esac
for d in $b/timeline/*/*/; do [ -d "$d" ] && render timeline "$d"; done
cd "$repo" || exit 1

compare=$tmp/committed/list
if ! command -v gnuplot >/dev/null; then
  echo "gnuplot not found: the figures are not drawn, and only the markdown and index files are compared"
  grep -v '\.png$' "$tmp/committed/list" >"$tmp/committed/text"; compare=$tmp/committed/text
fi
rendered "$tmp/work/$b" >"$tmp/rendered"
missing=$(comm -23 "$compare" "$tmp/rendered"); extra=$(comm -13 "$tmp/committed/list" "$tmp/rendered")
[ -z "$missing" ] || fail "committed but not rendered:"$'\n'"$missing"
[ -z "$extra" ] || fail "rendered but not committed:"$'\n'"$extra"
differ=0
while read -r f; do
  if ! cmp -s "$b/$f" "$tmp/work/$b/$f"; then
    echo "differs: $b/${f#./}"; differ=$((differ + 1))
    case "$f" in *.png) ;; *) diff -u "$b/$f" "$tmp/work/$b/$f" | head -20 ;; esac
  fi
done <"$compare"
[ "$differ" = 0 ] || fail "$differ rendered files of $b differ from what attnlab-report renders"
echo "ok: $(wc -l <"$compare") rendered files of $b match their records"

#!/usr/bin/env bash
# readme_results.sh REPORT REPO: README.md's results table is what `make readme-results`
# renders from the committed records (reports/h100/records): rendered into a temporary copy
# (links stay relative to the README) and compared byte for byte. Fails when someone edits
# the table by hand or commits records without re-rendering it.
set -u
report=$1; repo=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$repo" || exit 1
"$report" readme-table reports/h100/records README.md --progression reports/h100/progression \
  --out "$tmp/README.md" >/dev/null || { echo "attnlab-report readme-table failed"; exit 1; }
if ! diff -u README.md "$tmp/README.md"; then
  echo "README.md's results table differs from the records: run make readme-results"
  exit 1
fi
# The comparison can fail: a figure changed by hand differs from the rendering.
sed 's/^\(| 1 [^|]*| \)[0-9.]*/\1999.9/' README.md >"$tmp/edited.md"
if cmp -s README.md "$tmp/edited.md" || cmp -s "$tmp/README.md" "$tmp/edited.md"; then
  echo "a figure edited by hand (phase 1, throughput) went unnoticed"; exit 1
fi
echo "ok: README.md's results table matches the records"

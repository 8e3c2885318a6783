#!/usr/bin/env bash
# experiment_report.sh REPORT REPO: scripts/experiment (make experiment) with a fake phase
# binary that writes a copy of a fixture record, against the real attnlab-report: the report
# rendered beside the record and its path printed last; without gnuplot the markdown and the
# figures' scripts and data, and one line saying so; a failed run's report; nothing after a
# refusal (exit 2), --help, or when two run directories appear; the results root from -o,
# --results-dir=, and the default.
set -u
report=$1; repo=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"

# The fake phase 4: FAKE_RC its exit code (2 and up: nothing written, as a refusal), FAKE_DIRS
# how many run directories it creates under <results root>/4/.
mkdir -p "$tmp/build/bin"
cat >"$tmp/build/bin/attnlab-phase-4" <<'SH'
#!/usr/bin/env bash
root=results prev=
for a in "$@"; do
  case "$prev" in -o | --results-dir) root=$a ;; esac
  case "$a" in --results-dir=*) root=${a#*=} ;; --help) echo "usage"; exit 0 ;; esac
  prev=$a
done
rc=${FAKE_RC:-0}
[ "$rc" -ge 2 ] && { echo "attnlab: refused" >&2; exit "$rc"; }
for i in $(seq "${FAKE_DIRS:-1}"); do
  mkdir -p "$root/4/2099123${i}T235959Z-0000000"
  cp "$FAKE_FROM" "$root/4/2099123${i}T235959Z-0000000/run.json"
done
exit "$rc"
SH
chmod +x "$tmp/build/bin/attnlab-phase-4"
ln -s "$report" "$tmp/build/bin/attnlab-report"
export FAKE_FROM=$repo/tests/fixtures/h100-phase4-run.json BUILD=$tmp/build
experiment=$repo/scripts/experiment
run_dir=4/20991231T235959Z-0000000

# A PATH without gnuplot: only what the scripts run.
mkdir "$tmp/nognuplot"
for c in bash env dirname find sort comm grep mkdir cp cat seq; do
  ln -s "$(command -v "$c")" "$tmp/nognuplot/$c"
done
PATH=$tmp/nognuplot "$experiment" 4 --shape 16x16x2048x64 -o "$tmp/r1" >"$tmp/out1" 2>&1
rc=$?
cat "$tmp/out1"
check "no gnuplot: exit 0" test "$rc" -eq 0
check "no gnuplot: the report's path printed last" \
  test "$(tail -n 1 "$tmp/out1")" = "attnlab: report $tmp/r1/$run_dir/report.md"
check "no gnuplot: report.md beside run.json" test -s "$tmp/r1/$run_dir/report.md"
check "no gnuplot: the figures' data and scripts" \
  bash -c 'ls "$0"/*.dat "$0"/*.gp >/dev/null 2>&1' "$tmp/r1/$run_dir/plots"
check "no gnuplot: no picture" bash -c '! ls "$0"/*.png >/dev/null 2>&1' "$tmp/r1/$run_dir/plots"
check "no gnuplot: said in one line" test "$(grep -c 'gnuplot not found' "$tmp/out1")" -eq 1

if command -v gnuplot >/dev/null 2>&1; then
  "$experiment" 4 --results-dir="$tmp/r2" >"$tmp/out2" 2>&1
  rc=$?
  check "gnuplot: exit 0" test "$rc" -eq 0
  check "gnuplot: the pictures" bash -c 'ls "$0"/*.png >/dev/null 2>&1' "$tmp/r2/$run_dir/plots"
  check "gnuplot: nothing said of it" lacks "$tmp/out2" "gnuplot not found"
  check "gnuplot: --results-dir= read" has "$tmp/out2" "attnlab: report $tmp/r2/$run_dir/report.md"
fi

# A run whose check failed: its report too, and the experiment's exit code.
FAKE_RC=1 PATH=$tmp/nognuplot "$experiment" 4 -o "$tmp/r3" >"$tmp/out3" 2>&1
rc=$?
check "failed run: exit 1" test "$rc" -eq 1
check "failed run: its report" test -s "$tmp/r3/$run_dir/report.md"

# A refusal: the experiment's code, no report.
FAKE_RC=2 "$experiment" 4 -o "$tmp/r4" >"$tmp/out4" 2>&1
rc=$?
check "refusal: exit 2" test "$rc" -eq 2
check "refusal: no report" lacks "$tmp/out4" "attnlab: report"

# --help writes no run directory: exit 0, no report.
"$experiment" 4 --help -o "$tmp/r5" >"$tmp/out5" 2>&1
rc=$?
check "--help: exit 0" test "$rc" -eq 0
check "--help: no report" lacks "$tmp/out5" "attnlab: report"

# Two directories appear (another run writes there): no report, and why.
FAKE_DIRS=2 "$experiment" 4 -o "$tmp/r6" >"$tmp/out6" 2>&1
rc=$?
check "two new directories: the experiment's exit 0" test "$rc" -eq 0
check "two new directories: why no report" has "$tmp/out6" "more than one run directory appeared under $tmp/r6/4"
check "two new directories: none rendered" test ! -e "$tmp/r6/$run_dir/report.md"

# The default root, results/ under the working directory; an earlier run there is not the new one.
mkdir -p "$tmp/cwd/results/4/20200101T000000Z-0000000"
(cd "$tmp/cwd" && PATH=$tmp/nognuplot "$experiment" 4 >"$tmp/out7" 2>&1)
rc=$?
check "default root: exit 0" test "$rc" -eq 0
check "default root: results/" test "$(tail -n 1 "$tmp/out7")" = "attnlab: report results/$run_dir/report.md"
check "default root: rendered" test -s "$tmp/cwd/results/$run_dir/report.md"

# Without the binaries: exit 3 and what to do.
BUILD=$tmp/absent "$experiment" 4 >"$tmp/out8" 2>&1
rc=$?
check "no build: exit 3" test "$rc" -eq 3
check "no build: build first" has "$tmp/out8" "build first"

[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
echo "ok: make experiment renders the record's report"

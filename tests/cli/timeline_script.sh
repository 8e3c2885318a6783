#!/usr/bin/env bash
# timeline_script.sh PHASES REPO: scripts/timeline (make timeline) with a fake attnlab-timeline
# that makes one run directory per call and logs its shape and arguments, a fake report tool,
# and the real attnlab-phases: a named set (@seed) is traced one shape a run, in the set's order,
# each run's report rendered, and an unknown set refused with exit 2 before anything runs. Every
# folder of calibration records there is (<results>/calibration/, REPO/reports/*/calibration/)
# goes to the tool as --calibration, unless the options name one.
set -u
phases=$1; repo=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"

mkdir -p "$tmp/build/bin"
cat >"$tmp/build/bin/attnlab-timeline" <<'SH'
#!/usr/bin/env bash
out=results/timeline phase= shape= prev=
for a in "$@"; do
  case "$prev" in --out) out=$a ;; --phase) phase=$a ;; --shape) shape=$a ;; esac
  prev=$a
done
n=$(($(cat "$FAKE_LOG" 2>/dev/null | wc -l) + 1))
echo "$shape" >>"$FAKE_LOG"
echo "$*" >>"$FAKE_ARGS"
mkdir -p "$out/$phase/20991231T23595${n}Z-0000000"
SH
cat >"$tmp/build/bin/attnlab-report" <<'SH'
#!/usr/bin/env bash
echo "report $2" >"$2/report.md"
SH
chmod +x "$tmp/build/bin/attnlab-timeline" "$tmp/build/bin/attnlab-report"
ln -s "$phases" "$tmp/build/bin/attnlab-phases"
export BUILD=$tmp/build FAKE_LOG=$tmp/shapes.log FAKE_ARGS=$tmp/args.log
# The committed folders of calibration records: every run gets each of them.
committed=$(find "$repo/reports" -mindepth 2 -maxdepth 2 -type d -name calibration | wc -l)

"$repo/scripts/timeline" 5 @seed -- --out "$tmp/t" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
check "@seed: exit 0" test "$rc" -eq 0
check "@seed: one run a shape, in the set's order" \
  test "$(tr '\n' ' ' <"$tmp/shapes.log")" = "$("$phases" --shapes @seed | tr '\n' ' ')"
check "@seed: each run's report" test "$(grep -c '^attnlab: report ' "$tmp/out")" -eq 2

calibrations() { grep -o -- '--calibration [^ ]*' "$1" | sort -u; }
check "each run: --calibration for each committed folder of them" \
  test "$(head -1 "$tmp/args.log" | grep -oE -- '--calibration [^ ]*reports/[^ /]+/calibration( |$)' | wc -l)" -eq "$committed"
check "no --calibration for a results folder with none" lacks "$tmp/args.log" "--calibration $tmp/calibration"

# A calibration under the results root (make calibrate writes <results>/calibration/) goes too;
# one the options name replaces them all.
mkdir -p "$tmp/calibration"
: >"$tmp/args.log"
"$repo/scripts/timeline" 5 latency -- --out "$tmp/t" >/dev/null 2>&1
check "the results root's folder of calibrations" has "$tmp/args.log" "--calibration $tmp/calibration "
: >"$tmp/args.log"
"$repo/scripts/timeline" 5 latency -- --out "$tmp/t" --calibration "$tmp/mine.json" >/dev/null 2>&1
check "a named calibration alone" test "$(calibrations "$tmp/args.log")" = "--calibration $tmp/mine.json"

rm -f "$tmp/shapes.log"
"$repo/scripts/timeline" 5 @nope -- --out "$tmp/u" >"$tmp/out2" 2>&1
rc=$?
cat "$tmp/out2"
check "@nope: exit 2" test "$rc" -eq 2
check "@nope: nothing traced" test ! -e "$tmp/shapes.log"
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
echo "ok: make timeline traces a named set one shape a run, with the folders of calibrations there are"

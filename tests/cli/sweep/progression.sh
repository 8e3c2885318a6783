#!/usr/bin/env bash
# progression.sh REPORT REPO: a sweep over two GPUs (fake phases, make_fake_build.sh; GPUs of
# one model, two uuids) read by the real progression report: it reads the sweep's records as
# one table, and the figures from the GPU that supplied fewer are marked § with that GPU's
# uuid named, so no timing from one GPU passes for the other's. The records' numbers are the
# fixture's copies, not measurements: only the marks are checked.
set -u
report=$1; repo=$(cd "$2" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
check() { local what=$1; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi; }
"$repo/tests/cli/sweep/make_fake_build.sh" "$tmp/build" "$repo" || exit 1
# phase a: three shape groups over two GPUs (3 tasks, so one GPU runs two); phase b: one group.
env GPUS="0 1" BUILD="$tmp/build" RESULTS="$tmp/results" PHASES="a b" SDPA=0 PROGRESSION=0 \
  SHAPES="throughput 64x16x512x64 32x16x512x128" SWEEP_ID=two FAKE_SLEEP=0.3 \
  "$repo/scripts/sweep.sh" >"$tmp/sweep.out" 2>&1 || { cat "$tmp/sweep.out"; echo "FAIL: the sweep"; exit 1; }
"$report" progression "$tmp/results" "$tmp/prog" >"$tmp/prog.out" 2>&1
check "the progression renders the two-GPU sweep" test $? -eq 0
md=$tmp/prog/report.md
uuids=$(python3 -c "
import json; m = json.load(open('$tmp/results/sweeps/two/manifest.json'))
print(' '.join(sorted({r['gpu_uuid'] for r in m['records']})))")
check "the sweep's records come from two GPUs ($uuids)" test "$(wc -w <<<"$uuids")" -eq 2
check "figures from the other GPU are marked and the footnote says so" grep -q '^§ From another GPU than most figures' "$md"
foot=$(grep '^§ From another GPU' "$md")
named=0; for u in $uuids; do grep -qF -- "$u" <<<"$foot" && named=$((named + 1)); done
check "the footnote names both GPUs (the reference and the other)" test $named -eq 2
check "a § mark in the table" bash -c "grep '^|' '$md' | grep -q '§'"
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; cat "$md"; exit 1; }
echo "all sweep progression checks passed"

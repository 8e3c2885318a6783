#!/usr/bin/env bash
# boards.sh REPORT REPO: the board spread of a sweep over two GPUs (fake phases,
# make_fake_build.sh): BOARD_PHASES run their seed task on every GPU, pinned, before the
# shared queue; the manifest assigns each copy's record to its GPU's task; attnlab-report
# boards renders the spread between the boards against the spread within one. Fake board 1
# is made 10% slower (FAKE_SCALE), far outside the fixture's p10-p90, so the boards must read
# as different; with no scale they must not. The numbers are the fixture's copies.
set -u
report=$1; repo=$(cd "$2" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
check() { local what=$1; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi; }
"$repo/tests/cli/sweep/make_fake_build.sh" "$tmp/build" "$repo" || exit 1
# The fake build has no attnlab-report; the sweep renders with the real one.
ln -s "$report" "$tmp/build/bin/attnlab-report"
sweep() {  # sweep NAME [VAR=value...]
  local name=$1; shift
  env "$@" GPUS="0 1" BUILD="$tmp/build" RESULTS="$tmp/$name" PHASES="a b" SDPA=0 \
    SHAPES="throughput latency 64x16x512x64" SWEEP_ID="$name" FAKE_SLEEP=0.1 \
    "$repo/scripts/sweep.sh" >"$tmp/$name.out" 2>&1
}
m() { python3 -c "import json,sys; m=json.load(open('$tmp/$1/sweeps/$1/manifest.json')); $2"; }

sweep spread BOARD_PHASES="a" FAKE_SCALE="1:1.1"; rc=$?
[ $rc -eq 0 ] || cat "$tmp/spread.out"
check "two boards: exit 0" test $rc -eq 0
check "phase a's seed task pinned once per GPU, each run on its GPU with one record" \
  m spread "p = [t for t in m['tasks'] if t['pinned_gpu']]; assert sorted(t['pinned_gpu'] for t in p) == ['0', '1'] and all(t['phase'] == 'a' and t['group'] == 'seed' and t['gpu'] == t['pinned_gpu'] and len(t['records']) == 1 for t in p), p"
check "the other tasks are not pinned (a d64, b seed, b d64)" \
  m spread "assert sorted((t['phase'], t['group']) for t in m['tasks'] if not t['pinned_gpu']) == [('a', 'd64'), ('b', 'd64'), ('b', 'seed')], m['tasks']"
check "every record assigned to a task of its device" \
  m spread "t = {t['id']: t for t in m['tasks']}; assert all(r['task'] and t[r['task']]['gpu'] == r['device'] for r in m['records']), m['records']"
md=$tmp/spread/sweeps/spread/boards.md
check "the sweep wrote boards.md and said so" grep -q "board spread: .*boards.md" "$tmp/spread.out"
check "boards.md names both fake boards" bash -c "grep -q 'GPU-fake-0' '$md' && grep -q 'GPU-fake-1' '$md'"
check "one row per seed shape of phase a, none for phase b (one board)" \
  bash -c "[ \$(grep -c '^| a |' '$md') -eq 2 ] && ! grep -q '^| b |' '$md'"
check "10% slower board: between boards 10.00%, the boards differ" \
  bash -c "grep '^| a |' '$md' | grep -q '| 10.00% |.*| yes: GPU-fake-0 < GPU-fake-1 |'"
check "the chart's script and data" test -s "$tmp/spread/sweeps/spread/plots/board_spread.gp"

sweep same BOARD_PHASES="a"; rc=$?
check "identical boards: exit 0, no difference" \
  bash -c "[ $rc -eq 0 ] && grep '^| a |' '$tmp/same/sweeps/same/boards.md' | grep -q '| 0.00% |.*| no (the medians'\'' intervals overlap) |'"
sweep off BOARD_PHASES=""; rc=$?
check "BOARD_PHASES empty: nothing pinned, no boards.md" \
  bash -c "[ $rc -eq 0 ] && [ ! -e '$tmp/off/sweeps/off/boards.md' ]"
m off "assert not any(t['pinned_gpu'] for t in m['tasks'])" || { echo "FAIL: pinned tasks with BOARD_PHASES empty"; fails=$((fails + 1)); }
"$report" boards "$tmp/off" off "$tmp/x" >"$tmp/x.out" 2>&1; rc=$?
check "attnlab-report boards without a group: one line, exit 1" \
  bash -c "[ $rc -eq 1 ] && [ \$(wc -l <'$tmp/x.out') -eq 1 ] && grep -q 'no phase timed the same shape on two boards' '$tmp/x.out'"
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; cat "$tmp/spread.out"; cat "$md" 2>/dev/null; exit 1; }
echo "all board-spread checks passed"

#!/usr/bin/env bash
# multi_gpu.sh REPO: scripts/sweep.sh's distribution over several GPUs, on the CPU, with fake
# phase binaries (make_fake_build.sh): GPUS="0 1 2" spreads the tasks over the three devices,
# every record names the sweep and its device's GPU, the manifest is complete, tasks on
# different GPUs run at the same time (their intervals in the manifest overlap: concurrency, not
# a wall time, which a loaded 2-core CI machine cannot promise), CUDA_VISIBLE_DEVICES gives the
# GPU list, and bad input gives one line and exit 2. No assertion depends on a duration.
set -u
repo=$(cd "$1" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
check() { local what=$1; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi; }
"$repo/tests/cli/sweep/make_fake_build.sh" "$tmp/build" "$repo" || exit 1
shapes="throughput 64x16x512x64 32x16x1024x64 32x16x512x128 16x16x1024x128"
# phases a, b: seed, d64, d128; c: seed, d64 (it refuses D = 128) = 8 tasks
sweep() {  # sweep NAME [VAR=value...]: runs the sweep into $tmp/NAME, output in $tmp/NAME.out
  local name=$1; shift
  env "$@" BUILD="$tmp/build" RESULTS="$tmp/$name" SHAPES="$shapes" SDPA=0 PROGRESSION=0 \
    SWEEP_ID="$name" "$repo/scripts/sweep.sh" >"$tmp/$name.out" 2>&1
}
m() { python3 -c "import json,sys; m=json.load(open('$tmp/$1/sweeps/$1/manifest.json')); $2"; }

sweep three GPUS="0 1 2" FAKE_SLEEP=0.4; rc=$?
check "three GPUs: exit 0" test $rc -eq 0
check "three GPUs: progress lines per task" grep -q '^== \[8/8\] gpu [012]: phase' "$tmp/three.out"
check "three GPUs: manifest has 8 tasks, each ended 0 with one record" \
  m three "assert len(m['tasks']) == 8 and all(t['exit_code'] == 0 and len(t['records']) == 1 and t['started_utc'] and t['ended_utc'] for t in m['tasks']), m['tasks']"
check "three GPUs: every GPU ran a task" \
  m three "assert sorted({t['gpu'] for t in m['tasks']}) == ['0', '1', '2'] and all(g['tasks'] for g in m['gpus']), m['gpus']"
check "three GPUs: every record names the sweep and the GPU of its device" \
  m three "assert len(m['records']) == 8 and all(r['gpu_uuid'] == 'GPU-fake-' + r['device'] and r['task'] for r in m['records']), m['records']"
check "three GPUs: the task's GPU is the record's device" \
  m three "t = {t['id']: t for t in m['tasks']}; assert all(t[r['task']]['gpu'] == r['device'] for r in m['records'])"
check "three GPUs: records carry provenance.sweep_id" \
  python3 -c "import json,pathlib; rs=list(pathlib.Path('$tmp/three').rglob('run.json')); assert len(rs) == 8 and all(json.load(open(r))['provenance']['sweep_id'] == 'three' for r in rs)"
"$repo/scripts/validate-records" "$tmp/three" >"$tmp/validate.out" 2>&1; vrc=$?
if [ $vrc -eq 77 ]; then echo "note: jsonschema missing, records not validated"; else
  check "three GPUs: the records are valid attnlab.run/1 (sweep_id in the schema)" test $vrc -eq 0; fi

# Concurrency from the manifest: some two tasks on different GPUs were running at once (each
# fake task sleeps, so with one worker per GPU the first tasks of the three workers overlap
# however slow the machine). A serial sweep would give disjoint intervals and fail this.
check "three GPUs: tasks on different GPUs overlap in time (manifest intervals)" \
  m three "
from datetime import datetime
ts = [(t['gpu'], datetime.fromisoformat(t['started_utc'].replace('Z', '+00:00')), datetime.fromisoformat(t['ended_utc'].replace('Z', '+00:00'))) for t in m['tasks']]
assert any(a[0] != b[0] and a[1] < b[2] and b[1] < a[2] for a in ts for b in ts), ts"
sweep one GPUS="0"; rc=$?
check "one GPU: exit 0, every task on gpu 0" m one "assert all(t['gpu'] == '0' and t['exit_code'] == 0 for t in m['tasks'])"
check "one GPU: its tasks never overlap (one worker)" \
  m one "
from datetime import datetime
ts = sorted((datetime.fromisoformat(t['started_utc'].replace('Z', '+00:00')), datetime.fromisoformat(t['ended_utc'].replace('Z', '+00:00'))) for t in m['tasks'])
assert all(a[1] <= b[0] for a, b in zip(ts, ts[1:])), ts"

sweep cvd -u GPUS CUDA_VISIBLE_DEVICES=5,7 FAKE_SLEEP=0.2; rc=$?
check "CUDA_VISIBLE_DEVICES=5,7: exit 0" test $rc -eq 0
check "CUDA_VISIBLE_DEVICES=5,7: devices 0 and 1, records on physical GPUs 5 and 7" \
  m cvd "assert sorted({t['gpu'] for t in m['tasks']}) == ['0', '1'] and sorted({r['gpu_uuid'] for r in m['records']}) == ['GPU-fake-5', 'GPU-fake-7'], (m['tasks'], m['records'])"

sweep failing GPUS="0 1" FAKE_FAIL=b; rc=$?
check "a failing task: exit 1, the summary names it" test $rc -eq 1
check "a failing task: summary line" grep -q 'phase b, seed on gpu [01]: FAILED' "$tmp/failing.out"
check "a failing task: its exit code in the manifest" m failing "assert sorted(t['exit_code'] for t in m['tasks'] if t['phase'] == 'b') == [1, 1, 1]"

bad() {  # bad WHAT LINE VAR=value...: exit 2 and the line
  local what=$1 line=$2; shift 2
  local opts=() sets=()
  while [ $# -gt 0 ]; do if [ "$1" = -u ]; then opts+=(-u "$2"); shift; else sets+=("$1"); fi; shift; done
  env "${opts[@]}" BUILD="$tmp/build" RESULTS="$tmp/bad" SDPA=0 PROGRESSION=0 "${sets[@]}" "$repo/scripts/sweep.sh" >"$tmp/bad.out" 2>&1
  local rc=$?
  check "$what: exit 2 ($rc) and '$line'" bash -c "[ $rc -eq 2 ] && grep -qF -- \"\$1\" '$tmp/bad.out' && [ \$(wc -l <'$tmp/bad.out') -eq 1 ]" _ "$line"
}
bad "empty GPUS" "attnlab: no GPUs to sweep on" GPUS=""
bad "GPUS not ordinals" "is not a device ordinal" GPUS="0 x"
bad "unknown phase" "unknown phase 'zz'" GPUS=0 PHASES=zz
bad "build missing" "not built; run make" GPUS=0 BUILD="$tmp/nowhere"
if ! PATH=/usr/bin:/bin command -v nvidia-smi >/dev/null; then
  bad "no GPU visible" "attnlab: no GPUs to sweep on" -u GPUS -u CUDA_VISIBLE_DEVICES PATH=/usr/bin:/bin
fi
check "--help" bash -c "'$repo/scripts/sweep.sh' --help | grep -q 'one worker per GPU'"
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; cat "$tmp"/three.out; exit 1; }
echo "all sweep distribution checks passed"

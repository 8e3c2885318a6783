#!/usr/bin/env bash
# Memory safety of every registered phase of ours (not the baselines): its experiment binary, correctness gate only
# (--check-only: the launches the gate makes, no CUPTI), at small shapes with tails and a
# causal mask, under compute-sanitizer's memcheck, racecheck and synccheck. Any reported error
# fails. Exit 77 (ctest: skipped) without a GPU or without compute-sanitizer.
#   tests/gpu/sanitizer.sh build/bin            (ctest: gpu.sanitizer)
#   PHASES="5 d4" tests/gpu/sanitizer.sh build/bin   (those phases only)
set -u
bin=${1:?usage: sanitizer.sh <directory of attnlab-phases and attnlab-phase-<id>>}
shapes=("2x3x100x64:causal" "1x2x77x128")
# And per phase: d4 merges across a cluster of two blocks of two key warpgroups each only from
# eight key tiles up. Only d4 runs it: run for every phase, it made the GPU suite outrun its
# time limit on the H100.
# 1x1x385x64: one block per query tile whose two key warpgroups take 4 and 3 of its 7 key
# tiles, so they refill their K/V stages a different number of times before the merge; with a
# named barrier per warpgroup there, racecheck reported the merge's exchange as hazards
# (reports/h200/logs/d4-racecheck-20261126.log, kernels/NOTES.md).
# 1x1x1024x64:causal: a cluster of four blocks whose key warpgroups take their first products
# in turn, on 128-key tiles.
declare -A extra_shapes=([d4]="1x2x500x64:causal 1x1x385x64 1x1x1024x64:causal")
# The Hopper phases (sm_90a: TMA rings, mbarriers, warp specialisation, DSMEM) also at odd
# grouped-query causal shapes: tails in both the query and the key tiles, several query heads
# per KV head, and (d4) one block per query tile with two key warpgroups merging through
# shared memory, where racecheck reports hazards unless the key warpgroups' refills are ordered
# by mbarriers (kernels/NOTES.md, "Why phase 5 and d4 are as they are").
hopper_shapes=("2x4x513x64:causal:hkv=2" "1x6x257x128:causal:hkv=3")
tools=(memcheck racecheck synccheck)

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: nothing to check"; exit 77
fi
sanitizer=$(command -v compute-sanitizer || true)
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [ -n "$sanitizer" ] || { [ -x "$c" ] && sanitizer=$c; }
done
[ -n "$sanitizer" ] || { echo "compute-sanitizer not found on PATH or in /usr/local/cuda"; exit 77; }

results=$(mktemp -d)
logs=${SANITIZER_LOGS:-$(mktemp -d)}  # kept when a run fails
mkdir -p "$logs"
trap 'rm -rf "$results"' EXIT
# One phase: its lines on stdout, "<runs> <failed>" in $results/status-<phase>.
check_phase() {
  local phase=$1 exe="$bin/attnlab-phase-$1" ran=0 failed=0 args=() s tool log start rc summary why
  if [ ! -x "$exe" ]; then
    echo "FAIL phase $phase: no experiment binary $exe"; echo "0 1" >"$results/status-$phase"; return
  fi
  local more=()
  [[ " $hopper_phases " == *" $phase "* ]] && more=("${hopper_shapes[@]}")
  for s in "${shapes[@]}" ${extra_shapes[$phase]:-} "${more[@]}"; do
    if why=$("$exe" --can-run --shape "$s" 2>&1); then
      args+=(--shape "$s")
    else
      echo "skip phase $phase $s: $why"
    fi
  done
  if [ ${#args[@]} -gt 0 ]; then
    for tool in "${tools[@]}"; do
      log="$logs/phase-$phase-$tool.log"
      start=$SECONDS
      "$sanitizer" --tool "$tool" --error-exitcode 1 --print-limit 20 \
        "$exe" --check-only --seed 1 --results-dir "$results/$phase" "${args[@]}" >"$log" 2>&1
      rc=$?
      summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
      if [ "$rc" -eq 0 ]; then
        ran=$((ran + 1))
        echo "ok   phase $phase $tool ($((SECONDS - start)) s): ${summary:-no summary line}"
      elif [ "$rc" -eq 3 ] && grep -q "needs a compute capability" "$log"; then
        # A device refusal (exit 3: e.g. an sm_90a phase on another GPU) is not a memory error.
        echo "skip phase $phase: $(grep -m1 'attnlab:' "$log")"; break
      else
        ran=$((ran + 1)) failed=1
        echo "FAIL phase $phase $tool (exit $rc, $((SECONDS - start)) s): ${summary:-see log}; log $log"
        grep -E "^=========|attnlab:" "$log" | head -40
      fi
    done
  fi
  echo "$ran $failed" >"$results/status-$phase"
}

# Phases run side by side (SANITIZER_JOBS at a time, default 4: the GPU is far from full at
# these shapes); their lines come out in phase order.
jobs_max=${SANITIZER_JOBS:-4}
# Every phase of ours; baselines (cuDNN) are other people's kernels, whose findings this lab
# could neither fix nor judge, so they run only when PHASES names them.
phases=(${PHASES:-$("$bin/attnlab-phases" | awk '!/\[baseline\]/ { print $1 }')})
hopper_phases=$("$bin/attnlab-phases" | awk '/\[sm_90a only\]/ { printf "%s ", $1 }')
for phase in "${phases[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  check_phase "$phase" >"$results/out-$phase" 2>&1 &
done
wait
failed=0 ran=0
for phase in "${phases[@]}"; do
  cat "$results/out-$phase"
  read -r r f <"$results/status-$phase" || { r=0 f=1; echo "FAIL phase $phase: no status"; }
  ran=$((ran + r)) failed=$((failed | f))
done
[ "$ran" -gt 0 ] || { echo "no phase could run the sanitizer shapes"; exit 1; }
if [ "$failed" -eq 0 ]; then rm -rf "$logs"; echo "sanitizer: $ran runs clean"; else echo "sanitizer: logs in $logs"; fi
exit "$failed"

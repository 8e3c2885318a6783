#!/usr/bin/env bash
# Memory safety of every registered phase: its experiment binary, correctness gate only
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
declare -A extra_shapes=([d4]="1x2x500x64:causal")
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
failed=0 ran=0
for phase in ${PHASES:-$("$bin/attnlab-phases" --ids)}; do
  exe="$bin/attnlab-phase-$phase"
  [ -x "$exe" ] || { echo "FAIL phase $phase: no experiment binary $exe"; failed=1; continue; }
  args=()
  for s in "${shapes[@]}" ${extra_shapes[$phase]:-}; do
    if why=$("$exe" --can-run --shape "$s" 2>&1); then
      args+=(--shape "$s")
    else
      echo "skip phase $phase $s: $why"
    fi
  done
  [ ${#args[@]} -gt 0 ] || continue
  for tool in "${tools[@]}"; do
    log="$logs/phase-$phase-$tool.log"
    start=$SECONDS
    "$sanitizer" --tool "$tool" --error-exitcode 1 --print-limit 20 \
      "$exe" --check-only --seed 1 --results-dir "$results" "${args[@]}" >"$log" 2>&1
    rc=$?
    ran=$((ran + 1))
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    if [ "$rc" -eq 0 ]; then
      echo "ok   phase $phase $tool ($((SECONDS - start)) s): ${summary:-no summary line}"
    else
      # A device refusal (exit 3: e.g. an sm_90a phase on another GPU) is not a memory error.
      if [ "$rc" -eq 3 ] && grep -q "needs a compute capability" "$log"; then
        echo "skip phase $phase: $(grep -m1 'attnlab:' "$log")"; continue
      fi
      echo "FAIL phase $phase $tool (exit $rc, $((SECONDS - start)) s): ${summary:-see log}; log $log"
      grep -E "^=========|attnlab:" "$log" | head -40
      failed=1
    fi
  done
done
[ "$ran" -gt 0 ] || { echo "no phase could run the sanitizer shapes"; exit 1; }
if [ "$failed" -eq 0 ]; then rm -rf "$logs"; echo "sanitizer: $ran runs clean"; else echo "sanitizer: logs in $logs"; fi
exit "$failed"

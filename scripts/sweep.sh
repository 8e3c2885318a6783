#!/usr/bin/env bash
# The sweep: every registered phase and the PyTorch SDPA baseline over the seed shapes and
# S = 512 ... 8192 at D = 64 and 128, one run record per phase and backend; each phase runs
# the shapes it can and names the ones it cannot. Then the progression report, when the
# report tool is built.
#   scripts/sweep.sh                                  (make sweep)
#   PHASES="4 4x" SHAPES="throughput 8x16x4096x64" ARGS="--regimes cold,graph" scripts/sweep.sh
#
# Shapes (H = 16): the batch shrinks as S grows so that every shape holds the same tokens,
# B*S = 32768 at D = 64 and 16384 at D = 128, the FlashAttention-3 paper's convention
# (../shared/ANCHORS.md). The work then grows linearly with S, not quadratically, so the
# scalar phases stay at seconds per call at S = 8192, and the table lines up with the paper's
# columns: 16x16x2048x64 is the throughput shape (the 2k column), 4x16x4096x128 ANCHORS.md's
# cuDNN shape. The latency shape 1x8x512x64 is added as is.
#
# Environment: BUILD (build), RESULTS (results), PHASES (every registered phase), SHAPES (the
# list above), ARGS (options for every experiment and, unless SDPA_ARGS is set, the baseline:
# those both know, e.g. "--seed 7 --max-time 1 --regimes cold,graph"), SDPA_ARGS (the
# baseline's options, e.g. "--backends cudnn,flash"), SDPA (0 skips the baseline), PYTHON
# (python3).
# Exit status: 0 when every run that started ended ok; refusals of shapes are not failures.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
build=${BUILD:-build}
results=${RESULTS:-results}
python=${PYTHON:-python3}
read -r -a args <<<"${ARGS:-}"
read -r -a sdpa_args <<<"${SDPA_ARGS:-${ARGS:-}}"
default_shapes="throughput latency
64x16x512x64 32x16x1024x64 8x16x4096x64 4x16x8192x64
32x16x512x128 16x16x1024x128 8x16x2048x128 4x16x4096x128 2x16x8192x128"
read -r -d '' -a shapes <<<"${SHAPES:-$default_shapes}"

[ -x "$build/bin/attnlab-phases" ] || { echo "attnlab: $build/bin/attnlab-phases not built; run make"; exit 2; }
if [ -n "${PHASES:-}" ]; then
  read -r -a phases <<<"$PHASES"
  for p in "${phases[@]}"; do "$build/bin/attnlab-phases" --check "$p" || exit 2; done
else
  mapfile -t phases < <("$build/bin/attnlab-phases" --ids)
fi

summary=()
status=0
for phase in "${phases[@]}"; do
  exe="$build/bin/attnlab-phase-$phase"
  run_shapes=()
  for s in "${shapes[@]}"; do
    if why=$("$exe" --can-run --shape "$s" 2>&1); then
      run_shapes+=(--shape "$s")
    else
      echo "== phase $phase skips $s: ${why#*"$s": }"
    fi
  done
  if [ ${#run_shapes[@]} -eq 0 ]; then
    summary+=("phase $phase: no shape it can run")
    continue
  fi
  echo "== phase $phase: $(( ${#run_shapes[@]} / 2 )) of ${#shapes[@]} shapes"
  "$exe" "${run_shapes[@]}" --results-dir "$results" "${args[@]}"
  rc=$?
  case $rc in
    0) summary+=("phase $phase: ok") ;;
    1) summary+=("phase $phase: FAILED (a check failed or the run broke; see its record)"); status=1 ;;
    3) summary+=("phase $phase: did not run (environment, see above)"); status=1 ;;
    *) summary+=("phase $phase: exit $rc"); status=1 ;;
  esac
done

sdpa_shapes=()
for s in "${shapes[@]}"; do sdpa_shapes+=(--shape "$s"); done
if [ "${SDPA:-1}" = 0 ]; then
  summary+=("sdpa baseline: skipped (SDPA=0)")
else
  echo "== PyTorch SDPA baseline"
  "$python" experiments/sdpa_baseline.py "${sdpa_shapes[@]}" --results-dir "$results" "${sdpa_args[@]}"
  case $? in
    0) summary+=("sdpa baseline: ok") ;;
    2) summary+=("sdpa baseline: exit 2, a bad option (ARGS the baseline lacks? set SDPA_ARGS) or a backend that cannot run a shape (its result says why)") ;;
    3) summary+=("sdpa baseline: did not run (see above)") ;;
    *) summary+=("sdpa baseline: FAILED (see its records)"); status=1 ;;
  esac
fi

if [ -x "$build/bin/attnlab-report" ]; then
  if "$build/bin/attnlab-report" progression "$results" "$results/progression"; then
    summary+=("progression report: $results/progression/report.md")
  else
    summary+=("progression report: FAILED"); status=1
  fi
else
  summary+=("progression report: skipped, $build/bin/attnlab-report is not built")
fi
echo "== sweep summary"
printf '  %s\n' "${summary[@]}"
exit "$status"

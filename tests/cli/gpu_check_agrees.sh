#!/usr/bin/env bash
# gpu_check_agrees.sh GPU_CHECK EXPERIMENT: scripts/gpu-check, which the make targets run before
# their build, and the experiment's own device check agree, with the machine's devices as they
# are and with every device hidden (CUDA_VISIBLE_DEVICES=-1): gpu-check exits 3 exactly where
# the experiment says "no CUDA device" and exits 3.
set -u
gpu_check=$1; experiment=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
for visible in as-is -1; do
  if [ "$visible" = as-is ]; then env=(env); else env=(env CUDA_VISIBLE_DEVICES="$visible"); fi
  "${env[@]}" "$gpu_check" 2>/dev/null
  check_rc=$?
  out=$("${env[@]}" "$experiment" --check-only --shape 1x1x64x64 --results-dir "$tmp/$visible" 2>&1)
  exp_rc=$?
  exp_no_gpu=0
  [ "$exp_rc" -eq 3 ] && grep -q "no CUDA device" <<<"$out" && exp_no_gpu=1
  check_no_gpu=0
  [ "$check_rc" -eq 3 ] && check_no_gpu=1
  [ "$check_rc" -eq 0 ] || [ "$check_rc" -eq 3 ] || { echo "FAIL: gpu-check exited $check_rc"; fails=$((fails + 1)); }
  if [ "$check_no_gpu" -eq "$exp_no_gpu" ]; then
    echo "ok: devices $visible: gpu-check exit $check_rc, the experiment exit $exp_rc"
  else
    echo "FAIL: devices $visible: gpu-check exit $check_rc, the experiment exit $exp_rc: $out"
    fails=$((fails + 1))
  fi
done
[ "$fails" -eq 0 ]

#!/usr/bin/env bash
# One device session's evidence for phases 5 and d4 (kernels/TARGETS.md): build, their GPU
# correctness tests and sanitizer runs, their experiments at the default shapes, and the cuDNN
# SDPA baseline at the same shapes. Logs and packed records go to ${OUT:-evidence-out}.
#   OUT=/tmp/ev scripts/evidence_5_d4.sh        (SANITIZER=0 skips the sanitizer runs)
set -uo pipefail
out=${OUT:-evidence-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
# A tree sent to a GPU machine carries its provenance in .attnlab-source (scripts/stamp-source);
# whatever .git travels with it there is not the checkout's.
[ -f .attnlab-source ] && export ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
log="$out/evidence.log"
step() { echo "== $* ($(date +%T))" | tee -a "$log"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv | tee -a "$log"
step build
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >"$out/build.log" 2>&1 &&
  cmake --build build -j "$(nproc)" >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
step "gpu correctness tests, phases 5 and d4"
ctest --test-dir build -L gpu -R "phase_(5|d4)_" -j 4 --output-on-failure >"$out/ctest.log" 2>&1
grep -E "tests passed|tests failed|\(Failed\)" "$out/ctest.log" | tee -a "$log"
if [ "${SANITIZER:-1}" = 1 ]; then
step "sanitizer, phases 5 and d4"
SANITIZER_LOGS=/tmp/sanitizer-logs PHASES="5 d4" tests/gpu/sanitizer.sh build/bin 2>&1 | tee -a "$log" \
  | grep -E "^(ok|FAIL|skip|sanitizer)"
[ -d /tmp/sanitizer-logs ] && tar czf "$out/sanitizer-logs.tar.gz" -C /tmp sanitizer-logs
fi
res=results
for p in 5 d4; do
  step "experiment phase $p"
  build/bin/attnlab-phase-$p --results-dir $res --max-time 1 2>&1 | tee -a "$log" \
    | grep -E "cold:|status|metrics|failed" | sed 's/(p10.*samples, [a-z_]*)//'
  tar czf "$out/records-$p.tar.gz" $res/$p  # packed per step: a cut-off run keeps what it made
done
step "cuDNN baseline at the same shapes"
# The shapes the two phases ran: their default shapes, from the registry.
PYTHONUNBUFFERED=1 python3 experiments/baselines/sdpa_baseline.py --backends cudnn --max-time 1 --results-dir $res \
  $(for s in $(build/bin/attnlab-phases --default-shapes 5 d4); do echo --shape $s; done) 2>&1 \
  | tee -a "$log" | grep -E "cold:|status|FAIL"
tar czf "$out/records-sdpa.tar.gz" $res/sdpa-cudnn
step done

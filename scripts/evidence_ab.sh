#!/usr/bin/env bash
# One device session's evidence for the paired comparisons against cuDNN: the C++
# cudnn phase at its default shapes (fp64 gate, timing regimes, counters, PC sampling), paired
# A/B records of phase 5 and d4 against it, the Nsight Compute cross-check of those pairs,
# phases 5 and d4 again (their records carry the paired claims) and PyTorch SDPA's cuDNN at
# the same shapes (same engine through another door). Steps run in the order given; logs and
# packed records go to ${OUT:-evidence-out}, each step's records packed as it ends, so a call
# cut off at its time limit keeps what it made.
#   OUT=/tmp/ev scripts/evidence_ab.sh build tests cudnn ab profile     (then, warm:)
#   OUT=/tmp/ev scripts/evidence_ab.sh phases sdpa
# Further steps: calibrate (attnlab-calibrate: the rates and launch floors the run reports'
# speed-of-light floors read), sweepab (phase 5 against cudnn over the FA3 sweep: S = 512 ...
# 8192, B*S = 16384 tokens, H*D = 2048, causal and not), timeline (warp-role
# timelines of every instrumented phase: 5 at its seed shapes, the others at the latency
# shape), p5checks (phase 5's GPU
# tests, local loads in its SASS, racecheck and synccheck at odd shapes, the fp64 gate on three
# input distributions), targetab (phase 5's four targets and the sweep in one A/B record).
set -uo pipefail
out=${OUT:-evidence-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
# A tree sent to a GPU machine carries its provenance in .attnlab-source (scripts/stamp-source).
[ -f .attnlab-source ] && export ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
log="$out/evidence.log"
res=results
step() { echo "== $* ($(date +%T))" | tee -a "$log"; }
pack() { [ -d "$res/$1" ] && tar czf "$out/records-${1//\//-}.tar.gz" "$res/$1"; }
# Where phase 5 meets cuDNN: its targets (@targets, named in common/shapes.cpp) and the latency
# shape, causal and not (@latency-pair).
p5_shapes=(@targets @latency-pair)
# Phase 5's targets (@targets, kernels/TARGETS.md: the throughput shape and the D = 128 shape,
# causal and not) and the FlashAttention-3 paper's sweep (@fa3-sweep: 16k tokens, hidden size
# 2048), named once in common/shapes.cpp.
target_shapes=(@targets)
sweep_shapes=(@fa3-sweep)
# Shapes the tests do not use (@odd) and the short ones the sanitizers take (@sanitizer), named
# in common/shapes.cpp; the sanitizers run one shape per process, so that set is expanded here.
odd_shapes=(@odd)
shape_args() { for s in "$@"; do printf -- '--shape %s ' "$s"; done; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv | tee -a "$log"
for s in "$@"; do
  case "$s" in
    build)
      step build
      cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >"$out/build.log" 2>&1 &&
        cmake --build build -j "$(nproc)" >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
      grep -i "cudnn" "$out/build.log" | head -3 | tee -a "$log" ;;
    tests)
      step "gpu tests: the cudnn phase through the gate, A/B of a kernel against itself"
      ctest --test-dir build -L gpu -R "cudnn|AB" -j 8 --output-on-failure >"$out/ctest-ab.log" 2>&1
      grep -E "tests passed|tests failed|\(Failed\)" "$out/ctest-ab.log" | tee -a "$log" ;;
    cudnn)
      step "cudnn phase, default shapes"
      build/bin/attnlab-phase-cudnn --results-dir $res --max-time 1 2>&1 | tee -a "$log" \
        | grep -E "plan|cold:|status|metrics|failed"
      pack cudnn ;;
    ab)
      step "A/B: phase 5 against cudnn"
      build/bin/attnlab-ab --a 5 --b cudnn $(shape_args "${p5_shapes[@]}") --results-dir $res 2>&1 \
        | tee -a "$log" | grep -vE "correctness PASS"
      step "A/B: d4 against cudnn"
      build/bin/attnlab-ab --a d4 --b cudnn --shape latency --results-dir $res 2>&1 | tee -a "$log" \
        | grep -vE "correctness PASS"
      pack ab ;;
    profile)
      step "Nsight Compute beside the paired ratios"
      BUILD=build scripts/profile-ab 5 cudnn $(shape_args "${target_shapes[@]}") --results-dir $res 2>&1 \
        | tee -a "$log" | grep -vE "^==PROF=="
      BUILD=build scripts/profile-ab d4 cudnn --shape latency --results-dir $res 2>&1 | tee -a "$log" \
        | grep -vE "^==PROF=="
      pack ab ;;
    phases)
      for p in 5 d4; do
        step "experiment phase $p"
        build/bin/attnlab-phase-$p --results-dir $res --max-time 1 2>&1 | tee -a "$log" \
          | grep -E "cold:|status|failed"
        pack $p
      done ;;
    sdpa)
      step "PyTorch SDPA's cuDNN at the same shapes"
      PYTHONUNBUFFERED=1 python3 experiments/baselines/sdpa_baseline.py --backends cudnn --max-time 1 \
        --results-dir $res $(shape_args "${p5_shapes[@]}") 2>&1 | tee -a "$log" \
        | grep -E "cold:|status|FAIL"
      pack sdpa-cudnn ;;
    calibrate)
      step "calibration: rates and launch floors"
      build/bin/attnlab-calibrate --results-dir $res 2>&1 | tee -a "$log"
      pack calibration ;;
    sweepab)
      step "A/B: phase 5 against cudnn over the FA3 sweep"
      build/bin/attnlab-ab --a 5 --b cudnn --pairs 200 $(shape_args "${sweep_shapes[@]}") --results-dir $res \
        2>&1 | tee -a "$log" | grep -vE "correctness PASS"
      pack ab ;;
    p5checks)
      step "phase 5: GPU tests (phase 5, the A/B machinery, the cudnn phase)"
      ctest --test-dir build -L gpu -R "phase_5|AB|cudnn" -j 10 --output-on-failure >"$out/ctest-p5.log" 2>&1
      grep -E "tests passed|tests failed|\(Failed\)" "$out/ctest-p5.log" | tee -a "$log"
      step "phase 5: SASS counts per kernel (LDL+STL: local memory)"
      obj=$(find build/kernels -name "phase_5_wgmma.cu.o" -path "*attnlab_kernels.dir*" | head -1)
      cuobjdump -sass "$obj" >"$out/phase_5.sass" && build/bin/attnlab-ncu-import sass "$out/phase_5.sass" p5 | tee -a "$log"
      step "phase 5: racecheck and synccheck at odd shapes"
      for sh in $(build/bin/attnlab-phases --shapes @sanitizer); do for tool in racecheck synccheck; do
        timeout 150 compute-sanitizer --tool $tool --print-limit 2 build/bin/attnlab-phase-5 --check-only \
          --seed 1 --shape "$sh" --results-dir /tmp/attnlab-san >"$out/san.log" 2>&1
        echo "$tool $sh rc=$? $(grep -E 'SUMMARY' "$out/san.log" | tail -1)" | tee -a "$log"
      done; done
      step "phase 5: the fp64 gate on normal, wide and negative inputs at odd shapes"
      for inputs in normal wide negative; do
        build/bin/attnlab-phase-5 --check-only --inputs $inputs --results-dir /tmp/attnlab-gate \
          $(shape_args "${odd_shapes[@]}") 2>&1 | grep -E "FAIL|status" | sed "s/^/$inputs /" | tee -a "$log"
      done ;;
    targetab)
      step "A/B: phase 5 against cudnn at its targets and the FA3 sweep, one record"
      build/bin/attnlab-ab --a 5 --b cudnn --pairs 200 $(shape_args "${target_shapes[@]}" "${sweep_shapes[@]}") \
        --results-dir $res 2>&1 | tee -a "$log" | grep -vE "correctness PASS"
      pack ab ;;
    timeline)
      for p in $(build/bin/attnlab-phases --instrumented); do
        step "warp-role timeline, phase $p"
        shapes=(latency); [ $p = 5 ] && shapes=($(build/bin/attnlab-phases --shapes @throughput-pair))
        for sh in "${shapes[@]}"; do
          build/bin/attnlab-timeline --phase $p --shape "$sh" --out $res/timeline 2>&1 | tee -a "$log"
        done
      done
      pack timeline ;;
    *) echo "evidence_ab: unknown step '$s' (build tests cudnn ab profile phases sdpa calibrate sweepab timeline p5checks targetab)" >&2; exit 2 ;;
  esac
done
step done

#!/usr/bin/env bash
# Builds from source on a GPU machine, runs the whole test suite, then the experiments named
# as arguments (default: every phase at its default shapes). Logs and run records go to
# $OUT (or ./gpu-suite-out), the records also packed as results.tar.gz.
#   scripts/gpu_suite.sh            scripts/gpu_suite.sh "4 --shape throughput" "1"
set -uo pipefail
out=${OUT:-gpu-suite-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
# A tree sent to a GPU machine carries its provenance in .attnlab-source (scripts/stamp-source).
[ -f .attnlab-source ] && export ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv \
  | tee "$out/gpu.txt"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >"$out/configure.log" 2>&1 \
  || { tail -20 "$out/configure.log"; exit 1; }
cmake --build build -j "$(nproc)" >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "build ok"
ctest --test-dir build -L cpu -j 8 --output-on-failure >"$out/ctest-cpu.log" 2>&1
echo "cpu tests: $(grep -E 'tests passed|tests failed' "$out/ctest-cpu.log")"
ctest --test-dir build -L gpu --output-on-failure >"$out/ctest-gpu.log" 2>&1
echo "gpu tests: $(grep -E 'tests passed|tests failed' "$out/ctest-gpu.log")"
grep -E "Failed|\*\*\*" "$out/ctest-gpu.log" | head -20
runs=("$@")
[ ${#runs[@]} -gt 0 ] || mapfile -t runs < <(build/bin/attnlab-phases --ids)
for r in "${runs[@]}"; do
  set -- $r
  phase=$1; shift
  echo "== experiment phase $phase $*"
  build/bin/attnlab-phase-"$phase" --results-dir "$out/results" "$@" 2>&1 | tee -a "$out/experiments.log" \
    | grep -vE "^\[.*\] (cold|warm|graph):" || true
done
tar czf "$out/results.tar.gz" -C "$out" results && rm -rf "$out/results"

# Device script 1 of the wt-perf2 helper (issue 30): 500eea1 (O staged in shared memory, TMA store) checked (GPU tests,
# racecheck/synccheck at three small odd shapes that take the staged path, the fp64 gate on three input distributions),
# paired A/B against cuDNN at the four targets and the sweep, counters of phase 5 at 32x16x512x128:causal; then two scratch
# probes at six causal shapes, 100 pairs (their records carry the branch's stamp but not their code: kept in the log only):
# v3 (.dev-v3.cu: empty ping-pong turns for a consumer's fully masked key tiles at causal D 64 with 192-row tiles; ptxas
# reports a 12-byte spill in that kernel) and v2 (.dev-v2-work_order.hpp: L2 sections of 8 MB of K/V in place of 32 MB).
# The probes as patches against the branch: issue30-perf2-probe-v3.patch, issue30-perf2-probe-v2.patch (beside this script);
# .dev-v3.cu and .dev-v2-work_order.hpp are the patched files.
#   run with carry [".dev/wt-perf2"]: cd .dev/wt-perf2 && export ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source && bash dev.sh
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
TG="--shape 16x16x2048x64 --shape 16x16x2048x64:causal --shape 4x16x4096x128 --shape 4x16x4096x128:causal"
S64=""; S128c=""; S128=""; for S in 512 1024 2048 4096 8192; do b=$((16384/S)); S64="$S64 --shape ${b}x32x${S}x64 --shape ${b}x32x${S}x64:causal"; S128="$S128 --shape ${b}x16x${S}x128"; S128c="$S128c --shape ${b}x16x${S}x128:causal"; done
C6="--shape 16x16x2048x64:causal --shape 4x16x4096x128:causal --shape 32x32x512x64:causal --shape 16x32x1024x64:causal --shape 32x16x512x128:causal --shape 16x16x1024x128:causal"
san() { for s in 1x2x385x64:causal 1x2x257x128:causal 2x72x200x64:causal; do for tool in racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape $s --results-dir $R > /tmp/san.log 2>&1; echo "$1 $tool $s rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; done; }
gates() { $B/attnlab-phase-5 --check-only --inputs $2 --results-dir $R --shape 3x5x1000x64:causal --shape 3x5x1000x64 --shape 8x20x333x128:causal --shape 2x72x200x64:causal --shape 8x16x400x128 --shape 2x3x4000x128:causal --shape 16x16x2048x64:causal --shape 4x16x4096x128:causal --shape 32x16x512x128:causal --shape 16x32x1024x64:causal 2>&1 | grep -E "FAIL|status" | sed "s/^/$1 $2 /"; }
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-200} -o $OUT/res/$1 $2 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/"; }
build() { cmake --build build -j 16 --target $1 2>&1 | grep -E "error|FAILED|[1-9][0-9]* bytes spill" | head -20; stamp "built $2"; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
build "attnlab-phase-5 attnlab-phase-cudnn attnlab-ab attnlab_gpu_tests" v1
ctest --test-dir build -L gpu -R "phase_5" -j 14 2>&1 | grep -E "tests passed|tests failed|Failed" | sed "s/^/v1 /" | head
san v1; for i in normal wide negative; do gates v1 $i; done; stamp checks
ab v1 "$TG $S64 $S128 $S128c"; stamp "ab v1"
$B/attnlab-phase-5 --shape 32x16x512x128:causal --regimes cold --max-time 0.5 --results-dir $OUT/res/metrics 2>&1 | grep -E "status|FAIL"; stamp metrics
cp kernels/phase5_wgmma.cu /tmp/committed.cu; cp .dev-v3.cu kernels/phase5_wgmma.cu
build "attnlab-phase-5 attnlab-ab" v3; gates v3 negative
for tool in racecheck synccheck; do timeout 100 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape 1x2x513x64:causal --results-dir $R > /tmp/san.log 2>&1; echo "v3 $tool 1x2x513x64:causal rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done
ab v3 "$C6" 100; stamp v3
cp /tmp/committed.cu kernels/phase5_wgmma.cu; cp .dev-v2-work_order.hpp kernels/work_order.hpp
build "attnlab-phase-5 attnlab-ab" v2; gates v2 negative
ab v2 "$C6" 100; stamp v2
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res

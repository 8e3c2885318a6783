# Device call A of 2026-11-26 (third session), at the merge of wt-perf3 (step 9) with the branch-free timeline stamps
# and the calibration's kernel clock: GPU tests of what changed, sanitizers and gates of phase 5, the paired A/B of
# phase 5 against cuDNN (four targets, 20 sweep shapes, 200 pairs), calibration, timelines of 5 and d4, counters.
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
cat .attnlab-source
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
TG="--shape 16x16x2048x64 --shape 16x16x2048x64:causal --shape 4x16x4096x128 --shape 4x16x4096x128:causal"
SW=""; for d in 64 128; do for S in 512 1024 2048 4096 8192; do b=$((16384/S)); h=$((2048/d)); SW="$SW --shape ${b}x${h}x${S}x$d --shape ${b}x${h}x${S}x$d:causal"; done; done
san() { for s in "$@"; do for tool in racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape $s --results-dir $R > /tmp/san.log 2>&1; echo "$tool $s rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; done; }
gates() { $B/attnlab-phase-5 --check-only --inputs $1 --results-dir $R --shape 3x5x1000x64:causal --shape 3x5x1000x64 --shape 8x20x333x128:causal --shape 2x72x200x64:causal --shape 8x16x400x128 --shape 2x3x4000x128:causal --shape 16x16x2048x64:causal --shape 4x16x4096x128:causal --shape 1x2x513x64:causal --shape 4x7x2111x64:causal --shape 2x4x4096x64:causal 2>&1 | grep -E "FAIL|status" | sed "s/^/$1 /"; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
cmake --build build -j 16 > /tmp/b.log 2>&1 || { tail -30 /tmp/b.log; exit 1; }; stamp built
ctest --test-dir build -L gpu -R "phase_5|TimelineGpu|Calibration|calibrate|timeline" -j 10 --output-on-failure > /tmp/ct.log 2>&1; grep -E "tests passed|tests failed|\*\*\*|Expected|actual" /tmp/ct.log | head -30; stamp tests
san 1x2x385x64:causal 1x2x257x128:causal 1x2x2049x64:causal; for i in normal wide negative; do gates $i; done; stamp checks
$B/attnlab-ab --a 5 --b cudnn --pairs 200 -o $OUT/res $TG $SW 2>&1 | grep -E "B/A|pairs wall|status|FAIL|record"; stamp ab
$B/attnlab-calibrate --results-dir $OUT/res 2>&1 | grep -E "per SM|status|record"; stamp calibrate
$B/attnlab-timeline --phase 5 --shape 16x16x2048x64:causal --out $OUT/res/timeline 2>&1 | tail -6
$B/attnlab-timeline --phase d4 --shape latency --out $OUT/res/timeline 2>&1 | tail -6; stamp timeline
$B/attnlab-phase-5 --shape 16x16x2048x64:causal --regimes cold --max-time 0.5 --results-dir $OUT/res/counters 2>&1 | grep -E "status|FAIL"; stamp counters
cp /tmp/ct.log $OUT/ctest.log
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done

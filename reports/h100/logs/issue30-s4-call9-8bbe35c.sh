# Device call 9 of the 2026-11-26 fourth session (issue 30), committed form of steps 10-16 (idle consumers skip,
# warp-uniform warpgroup index, non-causal D 128 on 128-key tiles up to S = 4096, each consumer reads only its key tiles,
# causal D 64 on three consumers from S = 2048, O staged in every kernel but 176-key D 128, 32 MB L2 sections for causal
# heads from S = 2048, three consumers at D 64 but for a few causal shapes): SASS counts; GPU tests of phase 5, the A/B
# machinery and the cudnn phase; racecheck and synccheck at odd shapes; the fp64 gate on normal, wide and negative
# inputs; the paired A/B against cuDNN at the four targets and the 20 sweep shapes (200 pairs); phase 5's
# experiment at its default shapes; Nsight Compute beside the pairs at 4x16x4096x128, 16x16x2048x64:causal, 32x16x512x128:causal.
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
cat .attnlab-source
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
shp() { for s in "$@"; do printf -- '--shape %s ' $s; done; }
TG="16x16x2048x64 16x16x2048x64:causal 4x16x4096x128 4x16x4096x128:causal"
SW=""; for d in 64 128; do for S in 512 1024 2048 4096 8192; do b=$((16384/S)); h=$((2048/d)); SW="$SW ${b}x${h}x${S}x$d ${b}x${h}x${S}x$d:causal"; done; done
san() { for s in "$@"; do for tool in racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape $s --results-dir $R > /tmp/san.log 2>&1; echo "$tool $s rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; done; }
ODD="3x5x1000x64 3x5x1000x64:causal 1x2x320x64 2x3x1600x64 2x4x4096x64 2x3x3900x64 16x16x2048x64 16x16x2048x64:causal 3x3x950x128 1x2x257x128 8x16x400x128 1x2x4160x128 2x3x4000x128 2x3x4000x128:causal 8x20x333x128:causal 1x2x385x64 4x7x2111x64 2x72x200x64:causal 2x4x4096x64:causal 1x3x8100x64:causal 4x16x4096x128 1x2x513x64:causal"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
cmake --build build -j 16 > /tmp/b.log 2>&1 || { tail -30 /tmp/b.log; exit 1; }; stamp built
obj=$(find build -name "phase_5_wgmma.cu.o" | head -1); cuobjdump -sass $obj > /tmp/p5.sass; bash reports/h100/logs/issue30-s4-sassops.sh /tmp/p5.sass p5
ctest --test-dir build -L gpu -R "phase_5|AB|cudnn" -j 10 --output-on-failure > /tmp/ct.log 2>&1; grep -E "tests passed|tests failed|\*\*\*|Expected|actual" /tmp/ct.log | head -30; cp /tmp/ct.log $OUT/ctest.log; stamp tests
san 1x2x1000x64:causal 1x2x257x128 1x2x385x64 1x1x1600x64 1x2x320x64 1x1x1600x64:causal 1x2x4160x128 1x2x385x64:causal 1x2x257x128:causal 1x2x2049x64:causal; stamp san
for i in normal wide negative; do $B/attnlab-phase-5 --check-only --inputs $i --results-dir $R $(shp $ODD) 2>&1 | grep -E "FAIL|status" | sed "s/^/$i /"; done; stamp gates
$B/attnlab-ab --a 5 --b cudnn --pairs 200 -o $OUT/res $(shp $TG $SW) 2>&1 | grep -E "B/A|status|FAIL|record"; stamp ab
$B/attnlab-phase-5 --results-dir $OUT/res --max-time 1 2>&1 | grep -E "cold:|status|failed"; stamp phase5
BUILD=build timeout 200 scripts/profile-ab 5 cudnn --shape 4x16x4096x128 --shape 16x16x2048x64:causal --shape 32x16x512x128:causal --results-dir $OUT/res 2>&1 | grep -vE "^==PROF=="; stamp profile
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done

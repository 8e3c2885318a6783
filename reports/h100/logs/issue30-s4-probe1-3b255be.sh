# Probe call 1 of the 2026-11-26 fourth session (issue 30), at 3b255be: step 10 (idle consumers keep
# turns, dynamic claims for such shapes) checked and paired against cuDNN; probes (log only: their
# records carry 3b255be's stamp, not their code): poly4 (every 4th 8-key chunk's 2^x on the FMA pipe),
# k128 (non-causal D 128 on 128-key tiles, two stages: second Q buffer and O staged), base (b77d60d's
# kernel, the reference).
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
shp() { for s in "$@"; do printf -- '--shape %s ' $s; done; }
D64N="16x16x2048x64 8x32x2048x64 4x32x4096x64 2x32x8192x64"
D64C="16x16x2048x64:causal 8x32x2048x64:causal 32x32x512x64:causal 4x32x4096x64:causal"
D128N="32x16x512x128 16x16x1024x128 8x16x2048x128 4x16x4096x128 2x16x8192x128"
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-100} -o $OUT/res/$1 $(shp $2) 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/; s/, as fast as//g"; }
build() { cmake --build build -j 16 --target $1 > /tmp/b.log 2>&1; local rc=$?; grep -E "error|FAILED|[1-9][0-9]* bytes spill" /tmp/b.log | head -20; stamp "built $2 rc=$rc"; return $rc; }
IDLE="1x2x320x64 2x3x1600x64 2x4x4096x64 16x16x2048x64 2x3x3900x64 3x3x950x128 1x2x257x128 8x16x400x128 1x2x385x64 3x5x1000x64 4x7x2111x64 2x72x200x64:causal 2x4x4096x64:causal 2x3x4000x128:causal"
gates() { for i in normal wide negative; do $B/attnlab-phase-5 --check-only --inputs $i --results-dir $R $(shp $2) 2>&1 | grep -E "FAIL|status" | sed "s/^/$1 $i /"; done; }
san() { for s in $2; do for tool in racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape $s --results-dir $R > /tmp/san.log 2>&1; echo "$1 $tool $s rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; done; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
build "attnlab-phase-5 attnlab-phase-cudnn attnlab-ab attnlab_gpu_tests" e2 || exit 1
ctest --test-dir build -L gpu -R "phase_5" -j 10 --output-on-failure > /tmp/ct.log 2>&1; grep -E "tests passed|tests failed|\*\*\*|Expected|actual" /tmp/ct.log | head -20; stamp tests
gates e2 "$IDLE"; stamp gates
san e2 "1x2x257x128 1x2x385x64 1x2x320x64 1x1x1600x64"; stamp san
ab e2 "$D64N $D64C $D128N"; stamp ab-e2
cp .dev/p5/traits_poly4.cuh kernels/phase_5_traits.cuh; build "attnlab-phase-5 attnlab-ab" poly4 && {
  gates poly4 "16x16x2048x64 2x3x1600x64 16x16x2048x64:causal 1x2x385x64:causal 4x16x4096x128 2x3x4000x128:causal"
  ab poly4 "$D64N $D64C 4x16x4096x128 4x16x4096x128:causal"; }; stamp poly4
cp .dev/p5/traits_k128.cuh kernels/phase_5_traits.cuh; build "attnlab-phase-5 attnlab-ab" k128 && {
  gates k128 "32x16x512x128 3x3x950x128 1x2x257x128 8x16x400x128 4x16x4096x128"
  ab k128 "$D128N"; }; stamp k128
cp .dev/p5/traits_e2.cuh kernels/phase_5_traits.cuh; cp .dev/p5/base.cu kernels/phase_5_wgmma.cu
build "attnlab-phase-5 attnlab-ab" base && ab base "$D64N $D128N"; stamp base
git checkout kernels/phase_5_wgmma.cu
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done

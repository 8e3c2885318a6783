# Probe call 4 (issue 30), at 4a0e175 (step 12: each consumer reads only the key tiles its rows see): g = the
# committed tree (causal D 64 on two consumers up to S = 4096), c3 = g with three consumers (192-row tiles) for
# causal D 64 at every S, where step 12 lets the lower consumers stop early. Checks of both, SASS counts, and the
# paired A/B against cuDNN (c3's record carries 4a0e175's stamp, not its traits: log only).
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
shp() { for s in "$@"; do printf -- '--shape %s ' $s; done; }
C64="32x32x512x64:causal 16x32x1024x64:causal 16x16x2048x64:causal 8x32x2048x64:causal 4x32x4096x64:causal 2x32x8192x64:causal"
OTH="16x16x2048x64 32x16x512x128 4x16x4096x128 4x16x4096x128:causal 32x16x512x128:causal"
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-100} -o $OUT/res/$1 $(shp $2) 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/; s/, as fast as//g; s/busy median //g"; }
build() { cmake --build build -j 16 --target $1 > /tmp/b.log 2>&1; local rc=$?; grep -E "error|FAILED" /tmp/b.log | head -20; stamp "built $2 rc=$rc"; return $rc; }
sass() { obj=$(find build -name 'phase_5_wgmma.cu.o' | head -1); cuobjdump -sass $obj > /tmp/$1.sass; gzip -c /tmp/$1.sass > $OUT/$1.sass.gz; bash reports/h100/logs/issue30-s4-sassops.sh /tmp/$1.sass $1; }
gates() { for i in normal wide negative; do $B/attnlab-phase-5 --check-only --inputs $i --results-dir $R $(shp $2) 2>&1 | grep -E "FAIL|status" | sed "s/^/$1 $i /"; done; }
san() { for s in $2; do for tool in racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape $s --results-dir $R > /tmp/san.log 2>&1; echo "$1 $tool $s rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; done; }
ODD="3x5x1000x64:causal 1x1x960x64:causal 2x3x1600x64:causal 2x72x200x64:causal 1x2x385x64:causal 16x16x2048x64:causal 2x4x4096x64:causal 1x3x8100x64:causal 4x7x2111x64:causal 2x3x4000x128:causal 8x20x333x128:causal 3x5x1000x64 2x3x1600x64 1x2x257x128 16x16x2048x64"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
cp kernels/phase_5_traits.cuh /tmp/traits.cuh
build "attnlab-phase-5 attnlab-phase-cudnn attnlab-ab attnlab_gpu_tests" g || exit 1; sass g
gates g "$ODD"; san g "1x2x385x64:causal 1x1x8100x64:causal 1x2x257x128"
ctest --test-dir build -L gpu -R "phase_5" -j 10 --output-on-failure > /tmp/ct.log 2>&1; grep -E "tests passed|tests failed|\*\*\*|Expected|actual" /tmp/ct.log | head -20; stamp g-checks
ab g "$C64 $OTH"; stamp g
cp .dev/p5/traits_c3.cuh kernels/phase_5_traits.cuh; build "attnlab-phase-5 attnlab-ab attnlab_gpu_tests" c3 && { sass c3 | grep Lb1
  gates c3 "$ODD"; san c3 "1x1x960x64:causal 1x2x1600x64:causal 1x2x385x64:causal"
  ctest --test-dir build -L gpu -R "phase_5" -j 10 --output-on-failure > /tmp/ct.log 2>&1; grep -E "tests passed|tests failed|\*\*\*|Expected|actual" /tmp/ct.log | head -20
  ab c3 "$C64"; }; stamp c3
cp /tmp/traits.cuh kernels/phase_5_traits.cuh; build "attnlab-phase-5 attnlab-ab" g2 && ab g2 "$C64"; stamp g2
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done

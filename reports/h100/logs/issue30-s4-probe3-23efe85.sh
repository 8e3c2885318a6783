# Probe call 3 (issue 30): the warp-uniform warpgroup index. Variants, each SASS-counted and paired against cuDNN:
# base (b77d60d's kernel), base_shfl (base with the index broadcast from lane 0), f1 (step 10 third form = the
# committed tree), f1k128 (f1 with non-causal D 128 on 128-key tiles, two stages). Records carry the committed tree's
# stamp: log only for the variants other than f1.
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
shp() { for s in "$@"; do printf -- '--shape %s ' $s; done; }
P="16x16x2048x64 4x32x4096x64 2x32x8192x64 32x16x512x128 4x16x4096x128 16x16x2048x64:causal 4x16x4096x128:causal 32x32x512x64:causal 32x16x512x128:causal 2x32x8192x64:causal"
D128N="32x16x512x128 16x16x1024x128 8x16x2048x128 4x16x4096x128 2x16x8192x128"
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-100} -o $OUT/res/$1 $(shp $2) 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/; s/, as fast as//g; s/busy median //g"; }
build() { cmake --build build -j 16 --target $1 > /tmp/b.log 2>&1; local rc=$?; grep -E "error|FAILED|[1-9][0-9]* bytes spill" /tmp/b.log | head -20; stamp "built $2 rc=$rc"; return $rc; }
sass() { obj=$(find build -name 'phase_5_wgmma.cu.o' | head -1); cuobjdump -sass $obj > /tmp/$1.sass; gzip -c /tmp/$1.sass > $OUT/$1.sass.gz; bash reports/h100/logs/issue30-s4-sassops.sh /tmp/$1.sass $1; }
gates() { for i in normal wide negative; do $B/attnlab-phase-5 --check-only --inputs $i --results-dir $R $(shp $2) 2>&1 | grep -E "FAIL|status" | sed "s/^/$1 $i /"; done; }
san() { for s in $2; do for tool in racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape $s --results-dir $R > /tmp/san.log 2>&1; echo "$1 $tool $s rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; done; }
IDLE="1x2x320x64 2x3x1600x64 2x4x4096x64 16x16x2048x64 2x3x3900x64 3x3x950x128 1x2x257x128 8x16x400x128 1x2x385x64 3x5x1000x64 4x7x2111x64 2x72x200x64:causal 2x4x4096x64:causal 2x3x4000x128:causal 1x3x8100x64:causal"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
cp kernels/phase_5_wgmma.cu /tmp/f1.cu; cp kernels/phase_5_traits.cuh /tmp/traits.cuh
build "attnlab-phase-5 attnlab-phase-cudnn attnlab-ab attnlab_gpu_tests" f1 || exit 1; sass f1; ab f1 "$P"
gates f1 "$IDLE"; san f1 "1x2x257x128 1x2x385x64 1x1x1600x64 1x2x385x64:causal"
ctest --test-dir build -L gpu -R "phase_5" -j 10 --output-on-failure > /tmp/ct.log 2>&1; grep -E "tests passed|tests failed|\*\*\*|Expected|actual" /tmp/ct.log | head -20; stamp f1
cp .dev/p5/traits_k128.cuh kernels/phase_5_traits.cuh; build "attnlab-phase-5 attnlab-ab" f1k128 && { sass f1k128 | grep -E "176|128ELi2ELb0"
  gates f1k128 "32x16x512x128 3x3x950x128 1x2x257x128 8x16x400x128"; san f1k128 "1x2x257x128"
  ab f1k128 "$D128N"; }; stamp f1k128
cp /tmp/traits.cuh kernels/phase_5_traits.cuh; cp .dev/p5/base.cu kernels/phase_5_wgmma.cu
build "attnlab-phase-5 attnlab-ab" base && { sass base; ab base "$P"; }; stamp base
cp .dev/p5/base_shfl.cu kernels/phase_5_wgmma.cu
build "attnlab-phase-5 attnlab-ab" base_shfl && { sass base_shfl; ab base_shfl "$P"; }; stamp base_shfl
cp /tmp/f1.cu kernels/phase_5_wgmma.cu; build "attnlab-phase-5 attnlab-ab" f1b && ab f1b "$P $D128N"; stamp f1b
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done

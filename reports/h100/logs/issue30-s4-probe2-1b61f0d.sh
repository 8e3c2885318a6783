# Probe call 2 (issue 30): why step 10 (b66880f, "e2") read lower than b77d60d ("base") at every non-causal shape,
# idle consumers or not: SASS of base, e2, e3 (idle consumers skip the item; the producer releases their buffers and
# the active ones pass the turns) and e3k128 (e3 with non-causal D 128 on 128-key tiles), each paired against cuDNN;
# base again at the end (bracket). Records carry the stamp of the committed tree, not the variant's code: log only.
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
shp() { for s in "$@"; do printf -- '--shape %s ' $s; done; }
P="16x16x2048x64 4x32x4096x64 2x32x8192x64 32x16x512x128 4x16x4096x128 16x16x2048x64:causal"
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-100} -o $OUT/res/$1 $(shp $2) 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/; s/, as fast as//g; s/busy median //g"; }
build() { cmake --build build -j 16 --target $1 > /tmp/b.log 2>&1; local rc=$?; grep -E "error|FAILED|[1-9][0-9]* bytes spill" /tmp/b.log | head -20; stamp "built $2 rc=$rc"; return $rc; }
sass() { obj=$(find build -name 'phase_5_wgmma.cu.o' | head -1); cuobjdump -sass $obj > /tmp/$1.sass; gzip -c /tmp/$1.sass > $OUT/$1.sass.gz
  awk -v v=$1 '/Function :/{f=$3} /\/\*[0-9a-f]{4}\*\//{n[f]++; for(k in ops) if ($0 ~ ops[k]) c[f,k]++} BEGIN{split("HGMMA BAR.SYNC BAR.ARV MUFU.EX2 WARPSYNC BSSY BSYNC DEPBAR SYNCS BRA",ops," ")} END{for(f in n){s=v" "substr(f,1,0) "n=" n[f]; for(k in ops) s=s" "ops[k]"="c[f,ops[k]]+0; print s" "f}}' /tmp/$1.sass | sed -E 's/_ZN7attnlab7phase_5.*attention_kernelINS1_6TraitsI/T</; s/EEE.*//'; }
gates() { for i in normal wide negative; do $B/attnlab-phase-5 --check-only --inputs $i --results-dir $R $(shp $2) 2>&1 | grep -E "FAIL|status" | sed "s/^/$1 $i /"; done; }
san() { for s in $2; do for tool in racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape $s --results-dir $R > /tmp/san.log 2>&1; echo "$1 $tool $s rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; done; }
IDLE="1x2x320x64 2x3x1600x64 2x4x4096x64 16x16x2048x64 2x3x3900x64 3x3x950x128 1x2x257x128 8x16x400x128 1x2x385x64 3x5x1000x64 4x7x2111x64 2x72x200x64:causal 2x4x4096x64:causal 2x3x4000x128:causal 1x3x8100x64:causal"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
cp kernels/phase_5_wgmma.cu /tmp/e3.cu
cp .dev/p5/base.cu kernels/phase_5_wgmma.cu
build "attnlab-phase-5 attnlab-phase-cudnn attnlab-ab attnlab_gpu_tests" base || exit 1; sass base; ab base "$P"; stamp base
cp .dev/p5/e2.cu kernels/phase_5_wgmma.cu; build "attnlab-phase-5 attnlab-ab" e2 && { sass e2; ab e2 "$P"; }; stamp e2
cp /tmp/e3.cu kernels/phase_5_wgmma.cu; build "attnlab-phase-5 attnlab-ab attnlab_gpu_tests" e3 && { sass e3; ab e3 "$P";
  gates e3 "$IDLE"; san e3 "1x2x257x128 1x2x385x64 1x2x320x64 1x1x1600x64"
  ctest --test-dir build -L gpu -R "phase_5" -j 10 --output-on-failure > /tmp/ct.log 2>&1; grep -E "tests passed|tests failed|\*\*\*|Expected|actual" /tmp/ct.log | head -20; }; stamp e3
cp .dev/p5/traits_k128.cuh kernels/phase_5_traits.cuh; build "attnlab-phase-5 attnlab-ab" e3k128 && { sass e3k128;
  gates e3k128 "32x16x512x128 3x3x950x128 1x2x257x128 8x16x400x128"
  ab e3k128 "32x16x512x128 16x16x1024x128 8x16x2048x128 4x16x4096x128 2x16x8192x128"; }; stamp e3k128
cp .dev/p5/traits_cur.cuh kernels/phase_5_traits.cuh; cp .dev/p5/base.cu kernels/phase_5_wgmma.cu
build "attnlab-phase-5 attnlab-ab" base2 && ab base2 "$P 16x16x1024x128 8x16x2048x128 2x16x8192x128"; stamp base2
cp /tmp/e3.cu kernels/phase_5_wgmma.cu
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done

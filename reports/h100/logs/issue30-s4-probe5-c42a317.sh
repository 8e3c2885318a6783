# Probe call 5 (issue 30), at c42a317 (step 13: causal D 64 on three consumers from S = 2048): h = the committed
# tree; s3o = h with O staged for a TMA store in the three-consumer kernels too (ptxas: 4 bytes of spill in each);
# sec32 = h with 32 MB L2 sections for K/V heads of 512 KB (S = 2048 at D = 64). Paired against cuDNN, h before
# and after (bracket). Variant records carry c42a317's stamp, not their code: log only.
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
shp() { for s in "$@"; do printf -- '--shape %s ' $s; done; }
D3="16x16x2048x64 8x32x2048x64 4x32x4096x64 2x32x8192x64 16x16x2048x64:causal 8x32x2048x64:causal 4x32x4096x64:causal 2x32x8192x64:causal"
D2K="16x16x2048x64 8x32x2048x64 16x16x2048x64:causal 8x32x2048x64:causal"
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-100} -o $OUT/res/$1 $(shp $2) 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/; s/, as fast as//g; s/busy median //g"; }
build() { cmake --build build -j 16 --target $1 > /tmp/b.log 2>&1; local rc=$?; grep -E "error|FAILED" /tmp/b.log | head -20; stamp "built $2 rc=$rc"; return $rc; }
sass() { obj=$(find build -name 'phase_5_wgmma.cu.o' | head -1); cuobjdump -sass $obj > /tmp/$1.sass; bash reports/h100/logs/issue30-s4-sassops.sh /tmp/$1.sass $1; }
gates() { for i in normal wide negative; do $B/attnlab-phase-5 --check-only --inputs $i --results-dir $R $(shp $2) 2>&1 | grep -E "FAIL|status" | sed "s/^/$1 $i /"; done; }
san() { for s in $2; do for tool in racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape $s --results-dir $R > /tmp/san.log 2>&1; echo "$1 $tool $s rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; done; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
cp kernels/phase_5_traits.cuh /tmp/traits.cuh; cp kernels/work_order.hpp /tmp/wo.hpp
build "attnlab-phase-5 attnlab-phase-cudnn attnlab-ab" h || exit 1; ab h "$D3"; stamp h
cp .dev/p5/traits_s3o.cuh kernels/phase_5_traits.cuh; build "attnlab-phase-5 attnlab-ab" s3o && { sass s3o | grep "ELi3"
  gates s3o "16x16x2048x64 2x3x3900x64 16x16x2048x64:causal 1x3x8100x64:causal 4x7x2111x64 1x2x320x64"; san s3o "1x2x320x64 1x1x1600x64:causal"
  ab s3o "$D3"; }; stamp s3o
cp /tmp/traits.cuh kernels/phase_5_traits.cuh; cp .dev/p5/work_order_sec32.hpp kernels/work_order.hpp
build "attnlab-phase-5 attnlab-ab" sec32 && ab sec32 "$D2K"; stamp sec32
cp /tmp/wo.hpp kernels/work_order.hpp; build "attnlab-phase-5 attnlab-ab" h2 && ab h2 "$D3"; stamp h2
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done

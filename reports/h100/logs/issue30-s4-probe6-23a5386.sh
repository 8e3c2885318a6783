# Probe call 6 (issue 30), at 23a5386 (step 14: three-consumer kernels stage O; the producer's copies in one loop):
# i = the committed tree: checks, SASS (where the 4-byte spill of the three-consumer kernels sits), paired A/B;
# sc = i with 32 MB L2 sections for causal K/V heads of 512 KB (8 MB kept for non-causal ones and causal heads up
# to 256 KB): A/B at the causal shapes it changes, bracketed by i. sc's record carries 23a5386's stamp: log only.
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
shp() { for s in "$@"; do printf -- '--shape %s ' $s; done; }
D3="16x16x2048x64 8x32x2048x64 4x32x4096x64 2x32x8192x64 16x16x2048x64:causal 8x32x2048x64:causal 4x32x4096x64:causal 2x32x8192x64:causal 32x16x512x128 4x16x4096x128 16x16x1024x128:causal"
SC="16x16x2048x64:causal 8x32x2048x64:causal 16x16x1024x128:causal"
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-100} -o $OUT/res/$1 $(shp $2) 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/; s/, as fast as//g; s/busy median //g"; }
build() { cmake --build build -j 16 --target $1 > /tmp/b.log 2>&1; local rc=$?; grep -E "error|FAILED" /tmp/b.log | head -20; stamp "built $2 rc=$rc"; return $rc; }
gates() { for i in normal wide negative; do $B/attnlab-phase-5 --check-only --inputs $i --results-dir $R $(shp $2) 2>&1 | grep -E "FAIL|status" | sed "s/^/$1 $i /"; done; }
san() { for s in $2; do for tool in racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape $s --results-dir $R > /tmp/san.log 2>&1; echo "$1 $tool $s rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; done; }
ODD="16x16x2048x64 2x3x3900x64 16x16x2048x64:causal 1x3x8100x64:causal 4x7x2111x64 1x2x320x64 2x3x1600x64:causal 1x2x2049x64:causal 3x3x950x128 1x2x257x128 4x16x4096x128 2x3x4000x128:causal"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
build "attnlab-phase-5 attnlab-phase-cudnn attnlab-ab attnlab_gpu_tests" i || exit 1
obj=$(find build -name 'phase_5_wgmma.cu.o' | head -1); cuobjdump -sass $obj > /tmp/i.sass; gzip -c /tmp/i.sass > $OUT/i.sass.gz; bash reports/h100/logs/issue30-s4-sassops.sh /tmp/i.sass i
awk '/Function :/{f=$3} /STL|LDL/{print f; print prev2; print prev; print $0} {prev2=prev; prev=$0}' /tmp/i.sass | sed -E 's/_ZN7attnlab.*TraitsILi/T/; s/EEE.*//; s/\/\* 0x[0-9a-f]+ \*\///' | grep -v "^\s*$" | head -40
gates i "$ODD"; san i "1x2x320x64 1x1x1600x64:causal 1x2x2049x64:causal 1x2x257x128"
ctest --test-dir build -L gpu -R "phase_5" -j 10 --output-on-failure > /tmp/ct.log 2>&1; grep -E "tests passed|tests failed|\*\*\*|Expected|actual" /tmp/ct.log | head -20; stamp i-checks
ab i "$D3"; stamp i
cp kernels/phase_5_wgmma.cu /tmp/i.cu; cp kernels/work_order.hpp /tmp/wo.hpp
cp .dev/p5/sc.cu kernels/phase_5_wgmma.cu; cp .dev/p5/work_order_sc.hpp kernels/work_order.hpp
build "attnlab-phase-5 attnlab-ab" sc && ab sc "$SC"; stamp sc
cp /tmp/i.cu kernels/phase_5_wgmma.cu; cp /tmp/wo.hpp kernels/work_order.hpp; build "attnlab-phase-5 attnlab-ab" i2 && ab i2 "$SC"; stamp i2
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done

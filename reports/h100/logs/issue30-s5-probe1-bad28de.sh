# Session 5 probe 1 (issue 30): KeySplit (data-parallel + stream-K hybrid over keys) for static non-causal items,
# against the committed kernel (base, 894c0e2), bracketed new / base / new, paired against cuDNN at the D 128
# non-causal sweep shapes and the throughput shape (unchanged path); gates and sanitizers at split shapes first.
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
shp() { for s in "$@"; do printf -- '--shape %s ' $s; done; }
AB="4x16x4096x128 32x16x512x128 16x16x1024x128 8x16x2048x128 2x16x8192x128 16x16x2048x64"
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-100} -o $OUT/res/$1 $(shp $2) 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/; s/, as fast as//g; s/busy median //g"; }
build() { cmake --build build -j 16 --target $1 > /tmp/b.log 2>&1; local rc=$?; grep -E "error|FAILED" /tmp/b.log | head -20; stamp "built $2 rc=$rc"; return $rc; }
SPLIT="4x16x4096x128 32x16x512x128 2x16x8192x128 2x70x1000x128 3x50x1100x64 1x30x1100x64 1x133x256x128 16x16x2048x64 2x3x4000x128:causal"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
T="attnlab-phase-5 attnlab-phase-cudnn attnlab-ab"
build "$T" new || exit 1
obj=$(find build -name "phase_5_wgmma.cu.o" | grep -v timeline | head -1); cuobjdump -sass $obj > /tmp/p5.sass; bash reports/h100/logs/issue30-s4-sassops.sh /tmp/p5.sass new 2>&1 | tail -12
for i in normal wide negative; do timeout 120 $B/attnlab-phase-5 --check-only --inputs $i --results-dir $R $(shp $SPLIT) 2>&1 | grep -E "FAIL|status|rror" | sed "s/^/$i /"; done; stamp gates
for tool in racecheck synccheck; do timeout 150 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape 1x30x1100x64 --results-dir $R > /tmp/san.log 2>&1; echo "$tool rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; stamp san
ab new "$AB"; stamp new
for f in phase_5_wgmma.cu phase_5_traits.cuh work_order.hpp; do cp kernels/$f /tmp/$f.new; cp .dev/s5/base/$f kernels/$f; done
build "$T" base && ab base "$AB"; stamp base
for f in phase_5_wgmma.cu phase_5_traits.cuh work_order.hpp; do cp /tmp/$f.new kernels/$f; done
build "$T" new2 && ab new2 "$AB"; stamp new2
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done

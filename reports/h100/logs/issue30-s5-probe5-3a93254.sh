# Session 5 probe 5 (issue 30): the next item's first QK^T joined to this item's last PV in one turn (join; non-causal
# kernels with two Q buffers, where every consumer has rows in both items and O goes out whole), against the committed
# kernel (3a93254), bracketed join / base / join against cuDNN at the non-causal sweep shapes; gates and sanitizers first.
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
shp() { for s in "$@"; do printf -- '--shape %s ' $s; done; }
AB="32x16x512x128 16x16x1024x128 8x16x2048x128 4x16x4096x128 32x32x512x64 16x32x1024x64 16x16x2048x64 16x16x2048x64:causal"
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-100} -o $OUT/res/$1 $(shp $2) 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/; s/, as fast as//g; s/busy median //g"; }
build() { cmake --build build -j 16 --target $1 > /tmp/b.log 2>&1; local rc=$?; grep -E "error|FAILED" /tmp/b.log | head -20; stamp "built $2 rc=$rc"; return $rc; }
G="1x40x1024x128 1x60x768x64 1x60x700x64 3x5x1000x64 2x70x2000x128 1x9x2048x128 1x133x2048x128 32x16x512x128 16x32x1024x64 3x50x2100x64 2x3x4000x128 1x2x257x128 8x16x400x128"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
T="attnlab-phase-5 attnlab-phase-cudnn attnlab-ab"
cp kernels/phase_5_kernel.cuh /tmp/base.cuh; cp .dev/s5/phase_5_kernel.join.cuh kernels/phase_5_kernel.cuh
build "$T" join || exit 1
obj=$(find build -name "phase_5_wgmma.cu.o" | grep -v timeline | head -1); cuobjdump -sass $obj > /tmp/p5.sass; bash reports/h100/logs/issue30-s4-sassops.sh /tmp/p5.sass join 2>&1 | tail -12
for i in normal wide negative; do timeout 120 $B/attnlab-phase-5 --check-only --inputs $i --results-dir $R $(shp $G) 2>&1 | grep -E "FAIL|status|rror" | sed "s/^/$i /"; done; stamp gates
for s in 1x40x1024x128 1x60x700x64 1x9x2048x128; do for tool in racecheck synccheck; do timeout 150 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape $s --results-dir $R > /tmp/san.log 2>&1; echo "$tool $s rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; done; stamp san
ab join "$AB"; stamp join
cp /tmp/base.cuh kernels/phase_5_kernel.cuh
build "attnlab-phase-5 attnlab-ab" base && ab base "$AB"; stamp base
cp .dev/s5/phase_5_kernel.join.cuh kernels/phase_5_kernel.cuh
build "attnlab-phase-5 attnlab-ab" join2 && ab join2 "$AB"; stamp join2
cp /tmp/base.cuh kernels/phase_5_kernel.cuh
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done

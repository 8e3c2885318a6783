# Session 5 probe 4 (issue 30): the softmax's two rows interleaved step by step (rows) against the committed kernel
# (c9ebfc6), bracketed rows / base / rows against cuDNN at the four targets and S = 512, 1024 shapes.
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
shp() { for s in "$@"; do printf -- '--shape %s ' $s; done; }
AB="4x16x4096x128 16x16x2048x64 16x16x2048x64:causal 4x16x4096x128:causal 32x16x512x128 16x16x1024x128 32x32x512x64 32x16x512x128:causal"
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-100} -o $OUT/res/$1 $(shp $2) 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/; s/, as fast as//g; s/busy median //g"; }
build() { cmake --build build -j 16 --target $1 > /tmp/b.log 2>&1; local rc=$?; grep -E "error|FAILED" /tmp/b.log | head -20; stamp "built $2 rc=$rc"; return $rc; }
G="3x5x1000x64 3x5x1000x64:causal 1x2x257x128 2x3x4000x128:causal 4x16x4096x128 16x16x2048x64:causal 1x9x2048x128"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
T="attnlab-phase-5 attnlab-phase-cudnn attnlab-ab"
cp kernels/phase_5_wgmma.cu /tmp/base.cu; cp .dev/s5/phase_5_wgmma.rows.cu kernels/phase_5_wgmma.cu
build "$T" rows || exit 1
obj=$(find build -name "phase_5_wgmma.cu.o" | grep -v timeline | head -1); cuobjdump -sass $obj > /tmp/p5.sass; bash reports/h100/logs/issue30-s4-sassops.sh /tmp/p5.sass rows 2>&1 | tail -12
for i in normal negative; do timeout 120 $B/attnlab-phase-5 --check-only --inputs $i --results-dir $R $(shp $G) 2>&1 | grep -E "FAIL|status|rror" | sed "s/^/$i /"; done; stamp gates
ab rows "$AB"; stamp rows
cp /tmp/base.cu kernels/phase_5_wgmma.cu
build "attnlab-phase-5 attnlab-ab" base && ab base "$AB"; stamp base
cp .dev/s5/phase_5_wgmma.rows.cu kernels/phase_5_wgmma.cu
build "attnlab-phase-5 attnlab-ab" rows2 && ab rows2 "$AB"; stamp rows2
cp /tmp/base.cu kernels/phase_5_wgmma.cu
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done

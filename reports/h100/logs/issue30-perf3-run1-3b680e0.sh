# Device script 1 of the wt-perf3 helper (issue 30), at 3b680e0 (step 7: 8 MB L2 sections where a K/V head is
# <= 512 KB): GPU tests of phase 5, racecheck/synccheck at 1x2x385x64:causal, 1x2x257x128:causal and
# 1x2x513x64:causal (three consumers), the fp64 gate on normal/wide/negative inputs, paired A/B against cuDNN at the
# four targets and the 20 sweep shapes (200 pairs); the SASS of phase 5's kernels; then scratch probes at six causal
# shapes, 100 pairs (their records carry the branch's stamp but not their code: kept in the log only), bracketed by
# the committed kernel again at the same shapes: v5 (.dev-v5.cu + .dev-v5-tile_pipeline.cuh: the causal/tail mask as
# one compare per element against a per-row bound) and v3 (.dev-v3.cu: empty ping-pong turns for a consumer's fully
# masked key tiles, 192-row causal tiles); last, Nsight Compute (--set full, --clock-control none) of phase 5 and
# cuDNN at 16x16x2048x64:causal, details pages printed.
#   run with carry [".dev/wt-perf3"]: cd .dev/wt-perf3 && export ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source && bash dev.sh
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
TG="--shape 16x16x2048x64 --shape 16x16x2048x64:causal --shape 4x16x4096x128 --shape 4x16x4096x128:causal"
SW=""; for d in 64 128; do for S in 512 1024 2048 4096 8192; do b=$((16384/S)); h=$((2048/d)); SW="$SW --shape ${b}x${h}x${S}x$d --shape ${b}x${h}x${S}x$d:causal"; done; done
C6="--shape 16x16x2048x64:causal --shape 8x32x2048x64:causal --shape 4x32x4096x64:causal --shape 32x32x512x64:causal --shape 16x16x1024x128:causal --shape 4x16x4096x128:causal"
san() { local v=$1; shift; for s in "$@"; do for tool in racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape $s --results-dir $R > /tmp/san.log 2>&1; echo "$v $tool $s rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; done; }
gates() { $B/attnlab-phase-5 --check-only --inputs $2 --results-dir $R --shape 3x5x1000x64:causal --shape 3x5x1000x64 --shape 8x20x333x128:causal --shape 2x72x200x64:causal --shape 8x16x400x128 --shape 2x3x4000x128:causal --shape 16x16x2048x64:causal --shape 4x16x4096x128:causal --shape 1x2x513x64:causal --shape 4x7x2111x64:causal 2>&1 | grep -E "FAIL|status" | sed "s/^/$1 $2 /"; }
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-200} -o $OUT/res/$1 $2 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/"; }
build() { cmake --build build -j 16 --target $1 2>&1 | grep -E "error|FAILED|[1-9][0-9]* bytes spill" | head -20; stamp "built $2"; }
pack() { tar -C $OUT -czf $OUT/res.tgz res; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
build "attnlab-phase-5 attnlab-phase-cudnn attnlab-ab attnlab_gpu_tests" v1
ctest --test-dir build -L gpu -R "phase_5" -j 14 --output-on-failure > /tmp/ct.log 2>&1; grep -E "tests passed|tests failed|Failed|\*\*\*" /tmp/ct.log | sed "s/^/v1 /" | head -20
san v1 1x2x385x64:causal 1x2x257x128:causal 1x2x513x64:causal; for i in normal wide negative; do gates v1 $i; done; stamp checks
ab v1 "$TG $SW"; pack; stamp "ab v1"
obj=$(find build -name 'phase_5_wgmma.cu.o' | head -1); cuobjdump -sass $obj | gzip > $OUT/phase5-sass.txt.gz; stamp sass
cp kernels/phase_5_wgmma.cu /tmp/committed.cu; cp kernels/tile_pipeline.cuh /tmp/committed.cuh
cp .dev-v5.cu kernels/phase_5_wgmma.cu; cp .dev-v5-tile_pipeline.cuh kernels/tile_pipeline.cuh
build "attnlab-phase-5 attnlab-ab" v5; gates v5 negative; gates v5 normal; san v5 1x2x513x64:causal 1x2x257x128:causal
ab v5 "$C6" 100; stamp v5
cp /tmp/committed.cuh kernels/tile_pipeline.cuh; cp .dev-v3.cu kernels/phase_5_wgmma.cu
build "attnlab-phase-5 attnlab-ab" v3; gates v3 negative; gates v3 normal; san v3 1x2x513x64:causal
ab v3 "$C6" 100; stamp v3
cp /tmp/committed.cu kernels/phase_5_wgmma.cu
build "attnlab-phase-5 attnlab-ab" v1b; ab v1b "$C6" 100; pack; stamp v1b
for p in 5 cudnn; do
  k=attention_kernel; [ $p = cudnn ] && k='regex:sdpa|flash|fprop'; [ $p = 5 ] && k='regex:attention_kernel'
  timeout 120 ncu --clock-control none --set full -k "$k" -c 1 -o /tmp/ncu-$p $B/attnlab-phase-$p --check-only --shape 16x16x2048x64:causal --results-dir $R > /tmp/ncu-$p.log 2>&1; echo "ncu $p rc=$?"; tail -3 /tmp/ncu-$p.log
  ncu --import /tmp/ncu-$p.ncu-rep --page details 2>&1 | sed "s/^/ncu-$p /"
done; stamp ncu

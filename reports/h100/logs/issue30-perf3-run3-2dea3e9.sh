# Device script 3 of the wt-perf3 helper (issue 30), at 2dea3e9 (step 7's kernel): a short probe. Causal D 64 at
# S >= 2048 on two consumers (128-row tiles, whose kernel stages O through shared memory since step 6 and computes
# fewer fully masked sub-tiles) against the committed three, each paired against cuDNN at the four causal D 64 shapes
# of S >= 2048, 100 pairs, both builds in this call (the probe's record carries 2dea3e9's stamp but not its code: log
# only). Probe c2 = .dev-c2.cu (with_traits picks two consumers for every causal D 64 shape).
#   run with carry [".dev/wt-perf3"]: cd .dev/wt-perf3 && export ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source && bash dev3.sh
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
C4="--shape 16x16x2048x64:causal --shape 8x32x2048x64:causal --shape 4x32x4096x64:causal --shape 2x32x8192x64:causal"
gates() { $B/attnlab-phase-5 --check-only --inputs $2 --results-dir $R --shape 3x5x1000x64:causal --shape 2x72x200x64:causal --shape 16x16x2048x64:causal --shape 1x2x513x64:causal --shape 4x7x2111x64:causal --shape 2x4x4096x64:causal 2>&1 | grep -E "FAIL|status" | sed "s/^/$1 $2 /"; }
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-200} -o $OUT/res/$1 $2 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/"; }
build() { cmake --build build -j 16 --target $1 > /tmp/b.log 2>&1; local rc=$?; grep -E "error|FAILED|[1-9][0-9]* bytes spill" /tmp/b.log | head -20; stamp "built $2 rc=$rc"; return $rc; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
build "attnlab-phase-5 attnlab-phase-cudnn attnlab-ab" s7 || exit 1
ab s7 "$C4" 100; stamp s7
cp .dev-c2.cu kernels/phase_5_wgmma.cu; build "attnlab-phase-5 attnlab-ab" c2 && { gates c2 normal; gates c2 negative;
  ab c2 "$C4" 100; }; stamp c2
tar -C $OUT -czf $OUT/res.tgz res

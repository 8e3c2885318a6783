# Probe call 7 (issue 30), at 2b77eb3: non-causal D 128 up to S = 4096 on 128-key tiles in three stages (one Q
# buffer, O from registers: s3) against the committed two stages (second Q buffer, O staged: j), paired against
# cuDNN, j before and after. s3's record carries 2b77eb3's stamp, not its traits: log only.
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
shp() { for s in "$@"; do printf -- '--shape %s ' $s; done; }
D="32x16x512x128 16x16x1024x128 8x16x2048x128 4x16x4096x128"
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-100} -o $OUT/res/$1 $(shp $2) 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/; s/, as fast as//g; s/busy median //g"; }
build() { cmake --build build -j 16 --target $1 > /tmp/b.log 2>&1; local rc=$?; grep -E "error|FAILED" /tmp/b.log | head -20; stamp "built $2 rc=$rc"; return $rc; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
cp kernels/phase_5_traits.cuh /tmp/traits.cuh
build "attnlab-phase-5 attnlab-phase-cudnn attnlab-ab" j || exit 1; ab j "$D"; stamp j
cp .dev/p5/traits_d128_1283.cuh kernels/phase_5_traits.cuh; build "attnlab-phase-5 attnlab-ab" s3 && {
  $B/attnlab-phase-5 --check-only --results-dir $R --shape 3x3x950x128 --shape 1x2x257x128 --shape 4x16x4096x128 2>&1 | grep -E "FAIL|status"; ab s3 "$D"; }; stamp s3
cp /tmp/traits.cuh kernels/phase_5_traits.cuh; build "attnlab-phase-5 attnlab-ab" j2 && ab j2 "$D"; stamp j2
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done

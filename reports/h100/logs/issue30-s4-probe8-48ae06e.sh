# Probe call 8 (issue 30), at 48ae06e: three consumers at every D 64 shape (all3: since step 10 an idle consumer
# skips the padded rows of a head's last 192-row tile, and since step 12 the lower ones stop early under the mask, so
# the padding rule's reason is gone) against the committed rule (two where 192-row tiles pad), at S = 512 and 1024,
# paired against cuDNN, k before and after. all3's record carries 48ae06e's stamp, not its traits: log only.
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
shp() { for s in "$@"; do printf -- '--shape %s ' $s; done; }
D="32x32x512x64 32x32x512x64:causal 16x32x1024x64 16x32x1024x64:causal"
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-100} -o $OUT/res/$1 $(shp $2) 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/; s/, as fast as//g; s/busy median //g"; }
build() { cmake --build build -j 16 --target $1 > /tmp/b.log 2>&1; local rc=$?; grep -E "error|FAILED" /tmp/b.log | head -20; stamp "built $2 rc=$rc"; return $rc; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
cp kernels/phase_5_traits.cuh /tmp/traits.cuh
build "attnlab-phase-5 attnlab-phase-cudnn attnlab-ab" k || exit 1; ab k "$D"; stamp k
cp .dev/p5/traits_all3.cuh kernels/phase_5_traits.cuh; build "attnlab-phase-5 attnlab-ab" all3 && {
  for i in normal negative; do $B/attnlab-phase-5 --check-only --inputs $i --results-dir $R --shape 3x5x1000x64 --shape 3x5x1000x64:causal --shape 2x72x200x64:causal --shape 1x140x100x64 --shape 32x32x512x64:causal 2>&1 | grep -E "FAIL|status"; done
  timeout 100 compute-sanitizer --tool racecheck $B/attnlab-phase-5 --check-only --seed 1 --shape 1x2x385x64:causal --results-dir $R 2>&1 | grep SUMMARY
  ab all3 "$D"; }; stamp all3
cp /tmp/traits.cuh kernels/phase_5_traits.cuh; build "attnlab-phase-5 attnlab-ab" k2 && ab k2 "$D"; stamp k2
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done

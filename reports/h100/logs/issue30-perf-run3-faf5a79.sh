# Device script 3 of the wt-perf helper (issue 30), for the lead (the helper's device share ran out before it ran):
# the branch head checked (GPU tests, sanitizers, the fp64 gate on three distributions), paired A/B against cuDNN at the
# four targets and the sweep, counters of both at two small causal shapes; then two scratch variants at D 128
# (.dev-v1.cu: causal 128x128 keys in 2 stages with Q double-buffered; .dev-v2.cu: also non-causal 128 keys, 2 stages).
#   run with carry [".dev/wt-perf"]: cd .dev/wt-perf && export ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source && bash dev3.sh
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
TG="--shape 16x16x2048x64 --shape 16x16x2048x64:causal --shape 4x16x4096x128 --shape 4x16x4096x128:causal"
S64=""; S128c=""; S128=""; for S in 512 1024 2048 4096 8192; do b=$((16384/S)); S64="$S64 --shape ${b}x32x${S}x64 --shape ${b}x32x${S}x64:causal"; S128="$S128 --shape ${b}x16x${S}x128"; S128c="$S128c --shape ${b}x16x${S}x128:causal"; done
san() { for s in 1x2x385x64:causal 1x2x257x128:causal 2x72x200x64:causal 1x140x100x64 2x4x513x64:causal:hkv=2 1x6x257x128:causal:hkv=3; do for tool in racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape $s --results-dir $R > /tmp/san.log 2>&1; echo "$1 $tool $s rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; done; }
gates() { $B/attnlab-phase-5 --check-only --inputs $2 --results-dir $R --shape 3x5x1000x64:causal --shape 3x5x1000x64 --shape 8x20x333x128:causal --shape 2x72x200x64:causal --shape 8x16x400x128 --shape 2x3x4000x128:causal --shape 16x16x2048x64:causal --shape 4x16x4096x128:causal 2>&1 | grep -E "FAIL|status" | sed "s/^/$1 $2 /"; }
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-200} -o $OUT/res/$1 $2 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/"; }
build() { cmake --build build -j 16 --target $1 2>&1 | grep -E "error|FAILED|C75|[1-9][0-9]* bytes spill" | head -20; stamp "built $2"; }
tests() { ctest --test-dir build -L gpu -R "phase_5" -j 14 2>&1 | grep -E "tests passed|tests failed|Failed" | sed "s/^/$1 /" | head; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
build "attnlab-phase-5 attnlab-phase-cudnn attnlab_cpu_tests attnlab-ab attnlab_gpu_tests attnlab-phases attnlab-gpu-gate" c2
tests c2; ctest --test-dir build -R "WorkOrder" 2>&1 | grep -E "tests passed|Failed"; san c2; for i in normal wide negative; do gates c2 $i; done; stamp checks
echo "(sanitizer.sh left out: the san shapes above cover phase 5)"
ab c2 "$TG $S64 $S128 $S128c"; stamp c2
for p in 5 cudnn; do $B/attnlab-phase-$p --shape 32x16x512x128:causal --shape 16x32x1024x64:causal --regimes cold --max-time 1 --results-dir $OUT/res/metrics 2>&1 | grep -E "status|FAIL"; done; stamp metrics
cp .dev-v1.cu kernels/phase5_wgmma.cu
build "attnlab-phase-5 attnlab-ab attnlab_gpu_tests" v1; tests v1; san v1; gates v1 negative
ab v1 "--shape 4x16x4096x128:causal $S128c"; stamp v1
cp .dev-v2.cu kernels/phase5_wgmma.cu
build "attnlab-phase-5 attnlab-ab attnlab_gpu_tests" v2; tests v2; gates v2 negative
ab v2 "--shape 4x16x4096x128 $S128"; stamp v2
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res

# Device script 2 of the wt-perf3 helper (issue 30), at bf59421 (step 8: the softmax ahead of the PV wait in ptxas's
# schedule). Where ptxas puts each kernel's PV wait (WARPGROUP.DEPBAR.LE gsb0 0x0) against the softmax's MUFU.EX2
# (cuobjdump -sass), GPU tests of phase 5, racecheck/synccheck at 1x2x385x64:causal, 1x2x257x128:causal and
# 1x2x513x64:causal, the fp64 gate on normal/wide/negative inputs, paired A/B against cuDNN at the four targets and
# the 20 sweep shapes (200 pairs). Then scratch builds at eight shapes, 100 pairs (their records carry bf59421's stamp
# but not their code: log only): s7 (.dev-s7.cu, step 7's kernel, 3b680e0: the same-session reference) and v6b
# (.dev-v6b.cu: step 8 plus a __syncwarp between softmax and wait).
#   run with carry [".dev/wt-perf3"]: cd .dev/wt-perf3 && export ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source && bash dev2.sh
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; R=/tmp/r; mkdir -p $R $OUT/res
TG="--shape 16x16x2048x64 --shape 16x16x2048x64:causal --shape 4x16x4096x128 --shape 4x16x4096x128:causal"
SW=""; for d in 64 128; do for S in 512 1024 2048 4096 8192; do b=$((16384/S)); h=$((2048/d)); SW="$SW --shape ${b}x${h}x${S}x$d --shape ${b}x${h}x${S}x$d:causal"; done; done
C8="--shape 16x16x2048x64:causal --shape 8x32x2048x64:causal --shape 4x32x4096x64:causal --shape 32x32x512x64:causal --shape 16x16x1024x128:causal --shape 4x16x4096x128:causal --shape 16x16x2048x64 --shape 4x16x4096x128"
san() { local v=$1; shift; for s in "$@"; do for tool in racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 2 $B/attnlab-phase-5 --check-only --seed 1 --shape $s --results-dir $R > /tmp/san.log 2>&1; echo "$v $tool $s rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done; done; }
gates() { $B/attnlab-phase-5 --check-only --inputs $2 --results-dir $R --shape 3x5x1000x64:causal --shape 3x5x1000x64 --shape 8x20x333x128:causal --shape 2x72x200x64:causal --shape 8x16x400x128 --shape 2x3x4000x128:causal --shape 16x16x2048x64:causal --shape 4x16x4096x128:causal --shape 1x2x513x64:causal --shape 4x7x2111x64:causal 2>&1 | grep -E "FAIL|status" | sed "s/^/$1 $2 /"; }
ab() { $B/attnlab-ab --a 5 --b cudnn --pairs ${3:-200} -o $OUT/res/$1 $2 2>&1 | grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/"; }
build() { cmake --build build -j 16 --target $1 > /tmp/b.log 2>&1; local rc=$?; grep -E "error|FAILED|[1-9][0-9]* bytes spill" /tmp/b.log | head -20; stamp "built $2 rc=$rc"; return $rc; }
sasscheck() { cuobjdump -sass $(find build -name 'phase_5_wgmma.cu.o' | head -1) | awk -v v=$1 '/Function :/{match($0,/TraitsILi[0-9]+ELi[0-9]+ELi[0-9]ELb[01]ELi[23]E/); name=substr($0,RSTART,RLENGTH); st=0} /DEPBAR.LE gsb0, 0x1/{st=1; ex=0; mx=0} st==1 && /MUFU.EX2/{ex++} st==1 && /FMNMX/{mx++} st==1 && /DEPBAR.LE gsb0, 0x0/{print v " sass " name ": PV wait after " ex " MUFU.EX2 and " mx " FMNMX since the QK wait"; st=0}'; }
pack() { tar -C $OUT -czf $OUT/res.tgz res; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
build "attnlab-phase-5 attnlab-phase-cudnn attnlab-ab attnlab_gpu_tests" v6 || exit 1
sasscheck v6
ctest --test-dir build -L gpu -R "phase_5" -j 14 --output-on-failure > /tmp/ct.log 2>&1; grep -E "tests passed|tests failed|Failed|\*\*\*" /tmp/ct.log | sed "s/^/v6 /" | head -20
san v6 1x2x385x64:causal 1x2x257x128:causal 1x2x513x64:causal; for i in normal wide negative; do gates v6 $i; done; stamp checks
ab v6 "$TG $SW"; pack; stamp "ab v6"
cp kernels/phase_5_wgmma.cu /tmp/committed.cu
cp .dev-s7.cu kernels/phase_5_wgmma.cu; build "attnlab-phase-5 attnlab-ab" s7 && { sasscheck s7; ab s7 "$C8" 100; }; stamp s7
cp .dev-v6b.cu kernels/phase_5_wgmma.cu; build "attnlab-phase-5 attnlab-ab" v6b && { sasscheck v6b; gates v6b negative; san v6b 1x2x513x64:causal; ab v6b "$C8" 100; }; pack; stamp v6b
cp /tmp/committed.cu kernels/phase_5_wgmma.cu

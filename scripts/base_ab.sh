#!/usr/bin/env bash
# The no-regression check of a change to phases 5 and d4 (or f8 and b5: --phases), in one device
# call: builds the tree with another commit's kernels beside the current ones (scripts/base-tree,
# attnlab-ab-base), prints both builds' SASS counts per kernel (HGMMA, QGMMA, UTMALDG, local
# memory), runs the GPU tests of those phases (gate, sanitizer, two streams, phantom key,
# timelines; f8's and b5's own suites), then the paired A/Bs against the base: phase 5 at its
# targets, the latency shape and four FA3-sweep shapes, d4 at the latency shape, causal and not,
# f8 and b5 at the targets. Logs and records go to $OUT (log, sass.txt, ctest.log, res.tgz,
# packed after each step so that a call cut at its limit keeps what it made).
#   scripts/base-tree f419a85 && OUT=/tmp/b scripts/base_ab.sh [--pairs 200] [--skip-tests] [--phases "5 d4"]
# The base tree must be at build-base-src/ (carry it to the GPU machine with the tree).
set -uo pipefail
out=${OUT:-base-ab-out}
pairs=200 tests=1 phases="5 d4"
while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) pairs=${2:?}; shift 2 ;;
    --skip-tests) tests=0; shift ;;
    --phases) phases=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "base_ab: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
# Per phase: its kernel file, the GPU tests that cover it (a ctest -R pattern) and its A/B shapes.
declare -A kernel_of=([5]=phase_5_wgmma [d4]=phase_d4_split_kv [f8]=phase_f8_wgmma [b5]=phase_b5_wgmma)
declare -A tests_of=([5]="phase_5|Concurrent|phantom|imeline|Gate" [d4]="phase_d4|phantom|imeline|Gate"
                     [f8]="F8Phase|F8vPhase|Fp8|phase_f8" [b5]="BwdPhase|Backward|phase_b5")
declare -A shapes_of=([5]=@no-regression [d4]=@latency-pair [f8]=@targets [b5]=@targets)
for p in $phases; do
  [ -n "${kernel_of[$p]:-}" ] || { echo "base_ab: no base A/B for phase '$p' (5, d4, f8, b5)" >&2; exit 2; }
done
[ -f build-base-src/COMMIT ] || { echo "base_ab: no build-base-src/COMMIT: run scripts/base-tree <commit> first" >&2; exit 2; }
mkdir -p "$out" && exec > >(tee "$out/log") 2>&1
export PATH=/usr/local/cuda/bin:$PATH
[ -f .attnlab-source ] && export ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS - t0)) s)"; }
pack() { tar czf "$out/res.tgz" results 2>/dev/null; }
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTNLAB_BASE="$PWD/build-base-src" >"$out/cfg.log" 2>&1 &&
  cmake --build build -j "$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error|FAILED" "$out/build.log" | head -20; exit 1; }
stamp "built (base $(cut -c1-7 build-base-src/COMMIT))"
: >"$out/sass.txt"
objects=$(for p in $phases; do find build -name "${kernel_of[$p]}.cu.o"; done | grep -v phantom)
for o in $objects; do
  label=current; [[ $o == *build-base-src* ]] && label=base
  cuobjdump -sass "$o" >"$out/x.sass" || continue
  build/bin/attnlab-ncu-import sass "$out/x.sass" "$label/$(basename "$o" .cu.o)" >>"$out/sass.txt"
  build/bin/attnlab-ncu-import sass "$out/x.sass" "$label/$(basename "$o" .cu.o)" --brief
done | sort | uniq -c
stamp sass
if [ $tests = 1 ]; then
  pattern=anitiz
  for p in $phases; do pattern="$pattern|${tests_of[$p]}"; done
  ctest --test-dir build -L gpu -R "$pattern" -j 8 --output-on-failure \
    >"$out/ctest.log" 2>&1
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$out/ctest.log"
  stamp tests
fi
ab() { build/bin/attnlab-ab-base --pairs "$pairs" -o results "$@" 2>&1 | grep -E "pairs in|status|FAIL|rror"; pack; }
for p in $phases; do
  ab --a "$p" --b "$p-base" --shape "${shapes_of[$p]}"
  stamp "$p against its base"
done

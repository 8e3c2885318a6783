#!/usr/bin/env bash
# A variant of a phase against the committed one in one device call, paired against a yardstick
# and bracketed (variant, committed, variant: the board's drift shows as the difference of the
# two variant runs; compare variants only within one call). The variant is checked first: the
# fp64 gate on normal, wide and negative inputs, racecheck and synccheck, and its SASS counts.
#   OUT=/tmp/p scripts/bracket_ab.sh --swap kernels/phase_5_kernel.cuh=.dev/v.cuh \
#     --shapes "4x16x4096x128 32x16x512x128" [--gate "SHAPES"] [--sanitize "SHAPES"] \
#     [--phase 5] [--against cudnn] [--pairs 100]
# --swap DEST=SRC (repeatable): SRC replaces DEST for the variant's builds; DEST is restored after.
# Logs and records go to $OUT (log, res.tgz); exit 2 on bad arguments, 1 when a build fails.
set -uo pipefail
out=${OUT:-bracket-out}
phase=5 against=cudnn pairs=100 shapes="" gate="" sanitize="" swaps=()
die() { echo "bracket_ab: $1" >&2; exit "${2:-2}"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --swap) [[ "${2:-}" == *=* ]] || die "--swap needs DEST=SRC"; swaps+=("$2"); shift 2 ;;
    --shapes) shapes=${2:-}; shift 2 ;;
    --gate) gate=${2:-}; shift 2 ;;
    --sanitize) sanitize=${2:-}; shift 2 ;;
    --phase) phase=${2:-}; shift 2 ;;
    --against) against=${2:-}; shift 2 ;;
    --pairs) pairs=${2:-}; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[ ${#swaps[@]} -gt 0 ] && [ -n "$shapes" ] || die "need --swap DEST=SRC and --shapes (see --help)"
for s in "${swaps[@]}"; do [ -f "${s#*=}" ] && [ -f "${s%%=*}" ] || die "no such file in '$s'"; done
mkdir -p "$out/res" && exec > >(tee "$out/log") 2>&1
export PATH=/usr/local/cuda/bin:$PATH
[ -f .attnlab-source ] && export ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS - t0)) s)"; }
args() { for s in $1; do printf -- '--shape %s ' "$s"; done; }
bin=build/bin
build() {
  cmake --build build -j "$(nproc)" --target "attnlab-phase-$phase" "attnlab-phase-$against" attnlab-ab \
    attnlab-ncu-import \
    >"$out/build.log" 2>&1 || { grep -E "error|FAILED" "$out/build.log" | head -20; stamp "build $1 failed"; exit 1; }
  stamp "built $1"
}
keep=$(mktemp -d)
use() {  # variant | committed
  for s in "${swaps[@]}"; do
    local dest=${s%%=*}
    local kept="$keep/${dest//\//_}"
    [ -f "$kept" ] || cp "$dest" "$kept"
    if [ "$1" = variant ]; then cp "${s#*=}" "$dest"; else cp "$kept" "$dest"; fi
  done
}
trap 'use committed' EXIT
ab() {
  $bin/attnlab-ab --a "$phase" --b "$against" --pairs "$pairs" -o "$out/res/$1" $(args "$shapes") 2>&1 |
    grep -E "B/A|status|FAIL" | sed -E "s/^/$1 /; s/ \(pairs\), B\/A: wall/ wall/; s/; cycles [^;]*;/;/; s/busy median //g"
  stamp "$1"
}
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
use variant; build variant
obj=$(find build/kernels -name "phase_${phase}_*.cu.o" -path "*attnlab_kernels.dir*" | head -1)
[ -n "$obj" ] && cuobjdump -sass "$obj" >"$out/variant.sass" && $bin/attnlab-ncu-import sass "$out/variant.sass" variant
for inputs in normal wide negative; do
  [ -n "$gate" ] && $bin/attnlab-phase-$phase --check-only --inputs $inputs --results-dir /tmp/bracket-gate \
    $(args "$gate") 2>&1 | grep -E "FAIL|status|rror" | sed "s/^/gate $inputs /"
done
for s in $sanitize; do for tool in racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --print-limit 2 $bin/attnlab-phase-$phase --check-only --seed 1 \
    --shape "$s" --results-dir /tmp/bracket-san >"$out/san.log" 2>&1
  echo "$tool $s rc=$? $(grep -E 'SUMMARY' "$out/san.log" | tail -1)"
done; done
ab variant
use committed; build committed; ab committed
use variant; build variant2; ab variant2
use committed
tar -C "$out" -czf "$out/res.tgz" res && rm -rf "$out/res"; stamp done

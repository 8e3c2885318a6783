#!/usr/bin/env bash
# scripts/sass-size on a scratch source of two kernels, one with a longer body: both are listed,
# the longer first with more instructions, --filter keeps one, and bad arguments exit 2. Exit 77
# (ctest: skipped) without nvcc or readelf.
#   tests/cli/sass_size.sh <repository root>
set -u
root=${1:?usage: sass_size.sh <repository root>}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
{ [ -x "$nvcc" ] && command -v readelf >/dev/null; } || { echo "no nvcc or readelf: skipped"; exit 77; }
PATH=$(dirname "$nvcc"):$PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $1"; exit 1; }
cat >"$work/two.cu" <<'CU'
__global__ void short_kernel(float* x) { x[threadIdx.x] += 1.f; }
__global__ void long_kernel(float* x) {
  float a = x[threadIdx.x];
#pragma unroll
  for (int i = 0; i < 64; ++i) a = a * x[i] + x[64 + i];
  x[threadIdx.x] = a;
}
CU
out=$("$root/scripts/sass-size" --build "$work" "$work/two.cu" 2>&1) || fail "sass-size: $out"
echo "$out"
[ "$(grep -c . <<<"$out")" -eq 2 ] || fail "two kernels listed"
first=$(head -1 <<<"$out") second=$(tail -1 <<<"$out")
[[ $first == *long_kernel* && $second == *short_kernel* ]] || fail "the longer kernel first"
n1=${first%% *} n2=${second%% *}
if [ "$n1" -le "$n2" ] || [ "$n2" -le 0 ]; then fail "instruction counts ($n1, $n2) order the kernels"; fi
one=$("$root/scripts/sass-size" --build "$work" --filter short "$work/two.cu") || fail "--filter"
if [ "$(grep -c . <<<"$one")" -ne 1 ] || [[ $one != *short_kernel* ]]; then fail "--filter keeps the matching kernel: $one"; fi
expect=$root/tests/cli/expect.sh
"$expect" 2 "no such file" "$root/scripts/sass-size" "$work/none.cu" || fail "a missing file is refused"
touch "$work/two.ptx"
"$expect" 2 "neither a .cu nor a .cubin" "$root/scripts/sass-size" "$work/two.ptx" || fail "another kind of file is refused"
echo "ok: sass-size counts each kernel's instructions"

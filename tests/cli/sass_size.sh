#!/usr/bin/env bash
# scripts/sass-size on a scratch source of two kernels, one with a longer body: both are listed,
# the longer first with more instructions, --filter keeps one, and bad arguments exit 2. With
# --ptxas, on two wgmma loops of which one writes a constant into an accumulator between its
# wgmmas (what made ptxas serialise f8's, C7511): that one alone is marked serialised, and each
# line carries its registers and spill bytes. Exit 77 (ctest: skipped) without nvcc or readelf.
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
cat >"$work/wgmma.cu" <<'CU'
#include <cstdint>
__device__ __forceinline__ void mma(float (&d)[4], std::uint64_t da, std::uint64_t db) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(da), "l"(db));
}
template <bool ZeroOne>
__device__ void loop(float* out, std::uint64_t da, std::uint64_t db, int n) {
  float d[4] = {0.f, 0.f, 0.f, 0.f}, l = 0.f;
  for (int i = 0; i < n; ++i) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    mma(d, da + i, db);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    if (ZeroOne) {
      l += d[3];
      d[3] = 0.f;
    }
  }
  out[threadIdx.x] = d[0] + d[1] + d[2] + d[3] + l;
}
__global__ void zeroes_an_accumulator(float* out, std::uint64_t da, std::uint64_t db, int n) {
  loop<true>(out, da, db, n);
}
__global__ void accumulates(float* out, std::uint64_t da, std::uint64_t db, int n) { loop<false>(out, da, db, n); }
CU
rep=$("$root/scripts/sass-size" --build "$work" --ptxas "$work/wgmma.cu" 2>&1) || fail "sass-size --ptxas: $rep"
echo "$rep"
zero=$(grep zeroes_an_accumulator <<<"$rep") acc=$(grep -v zeroes_an_accumulator <<<"$rep" | grep accumulates)
[[ $zero =~ ^[0-9]+\ [1-9][0-9]*\ 0\ serialised\  ]] || fail "the kernel that zeroes an accumulator is serialised: $zero"
[[ $acc =~ ^[0-9]+\ [1-9][0-9]*\ 0\ -\  ]] || fail "the other is not: $acc"
touch "$work/one.cubin"
"$expect" 2 "needs a .cu" "$root/scripts/sass-size" --ptxas "$work/one.cubin" || fail "--ptxas on a cubin is refused"
touch "$work/two.ptx"
"$expect" 2 "neither a .cu nor a .cubin" "$root/scripts/sass-size" "$work/two.ptx" || fail "another kind of file is refused"
echo "ok: sass-size counts each kernel's instructions, and --ptxas marks the serialised one"

#!/usr/bin/env python3
"""Writes the wgmma wrappers of common/hopper_wgmma.inc: inline PTX needs every accumulator
register named in the instruction and in the operand list, 32 or 64 of them per shape, so
they are generated rather than typed.  Run: python3 scripts/gen_wgmma.py > common/hopper_wgmma.inc
"""

SHAPES = (64, 128, 176, 256)  # wgmma N: the key tiles of QK^T, the head dims of PV, and the
# calibration's throughput kernel (profiler/calibration/microbench.cu)
E4M3_SHAPES = (64, 128, 192, 256)  # the FP8 phase's key tiles (QK^T) and head dims (PV), and
# the calibration's e4m3 throughput kernel, at the fp16 one's N
E4M3_RS_SHAPES = (136,)  # PV at D 128 with eight more columns, the row sums of P (B's rows of
# ones under V^T: hopper::E4m3Operands::pv_sum_rows)
MN_SHAPES = (64, 128)  # the backward's dQ = dS K: 64 columns of the head dim, or all 128


def regs(n, start=0):
    return ", ".join(f"%{i}" for i in range(start, start + n))


def constraints(count):
    rows = []
    for j in range(0, count, 8):
        rows.append(", ".join(f'"+f"(d[{i}])' for i in range(j, min(j + 8, count))))
    return ",\n        ".join(rows)


def emit(n):
    r = n // 2  # fp32 accumulators per thread of m64nNk16
    acc = "{" + regs(r) + "}"
    cons = constraints(r)
    return f'''// D[64x{n}] (+)= A[64x16] * B[16x{n}], A and B K-major in shared memory.
template <>
__device__ __forceinline__ void wgmma_ss<{n}>(float (&d)[{r}], std::uint64_t desc_a,
                                              std::uint64_t desc_b, int scale_d) {{
  asm volatile(
      "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 2}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 "
      "{acc}, %{r}, %{r + 1}, p, 1, 1, 0, 0;\\n}}\\n"
      : {cons}
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}}

''' + emit_rs(n, "wgmma_rs", "K", 0) + "\n" + emit_rs(n, "wgmma_rs_mn", "MN", 1)


def emit_rs(n, name, b_major, trans_b):
    """A from registers (four per thread), B in shared memory K- or MN-major (trans_b)."""
    r = n // 2
    acc = "{" + regs(r) + "}"
    cons = constraints(r)
    head = f"__device__ __forceinline__ void {name}<{n}>("
    # The continuation's indent is the same for every N (as a two-digit N's parameters align).
    pad = " " * (len(f"__device__ __forceinline__ void {name}<") + 5)
    return f'''// D[64x{n}] (+)= A[64x16] * B[16x{n}], A in registers, B {b_major}-major in shared memory.
template <>
{head}float (&d)[{r}], const std::uint32_t (&a)[4],
{pad}std::uint64_t desc_b, int scale_d) {{
  asm volatile(
      "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 5}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 "
      "{acc}, {{%{r}, %{r + 1}, %{r + 2}, %{r + 3}}}, %{r + 4}, p, 1, 1, {trans_b};\\n}}\\n"
      : {cons}
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}}
'''


def emit_ss_mn(n):
    r = n // 2
    acc = "{" + regs(r) + "}"
    cons = constraints(r)
    # Both transpose immediates set: A is M-major and B N-major.
    return f'''// D[64x{n}] (+)= A[64x16] * B[16x{n}], A and B MN-major in shared memory.
template <>
__device__ __forceinline__ void wgmma_ss_mn<{n}>(float (&d)[{r}], std::uint64_t desc_a,
                                                 std::uint64_t desc_b, int scale_d) {{
  asm volatile(
      "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 2}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 "
      "{acc}, %{r}, %{r + 1}, p, 1, 1, 1, 1;\\n}}\\n"
      : {cons}
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}}
'''


def emit_e4m3(n):
    r = n // 2  # fp32 accumulators per thread of m64nNk32
    acc = "{" + regs(r) + "}"
    cons = constraints(r)
    # e4m3 has no transpose immediates: both operands are K-major.
    return f'''// D[64x{n}] (+)= A[64x32] * B[32x{n}], e4m3, A and B K-major in shared memory.
template <>
__device__ __forceinline__ void wgmma_ss_e4m3<{n}>(float (&d)[{r}], std::uint64_t desc_a,
                                                   std::uint64_t desc_b, int scale_d) {{
  asm volatile(
      "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 2}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k32.f32.e4m3.e4m3 "
      "{acc}, %{r}, %{r + 1}, p, 1, 1;\\n}}\\n"
      : {cons}
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}}

''' + emit_e4m3_rs(n)


def emit_e4m3_rs(n):
    r = n // 2
    acc = "{" + regs(r) + "}"
    cons = constraints(r)
    return f'''// D[64x{n}] (+)= A[64x32] * B[32x{n}], e4m3, A in registers (four bytes per register), B K-major
// in shared memory.
template <>
__device__ __forceinline__ void wgmma_rs_e4m3<{n}>(float (&d)[{r}], const std::uint32_t (&a)[4],
                                                   std::uint64_t desc_b, int scale_d) {{
  asm volatile(
      "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 5}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k32.f32.e4m3.e4m3 "
      "{acc}, {{%{r}, %{r + 1}, %{r + 2}, %{r + 3}}}, %{r + 4}, p, 1, 1;\\n}}\\n"
      : {cons}
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}}
'''


if __name__ == "__main__":
    print("// Generated by scripts/gen_wgmma.py; do not edit. Included by common/hopper.cuh.")
    print("\n".join([emit(n) for n in SHAPES] + [emit_ss_mn(n) for n in MN_SHAPES] + [emit_e4m3(n) for n in E4M3_SHAPES] +
                    [emit_e4m3_rs(n) for n in E4M3_RS_SHAPES]), end="")

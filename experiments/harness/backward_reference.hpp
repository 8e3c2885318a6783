// The backward gate's reference: fp64 gradients of attention (dQ on sampled query rows, dK and
// dV on sampled key rows) from the fp16 Q, K, V and dO, the naive fp16 backward that sets the
// tolerance, and the comparison with a phase's dQ, dK and dV. Host-only.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/harness/reference.hpp"

namespace attnlab {

// The backward's host operands: Q, K and V of an input distribution (reference.hpp) and
// dO ~ N(0, 1), fp16 as on the device.
struct BackwardHostInputs {
  HostTensors qkv;
  std::vector<__half> d_o;  // [B, H, S, D]
};
BackwardHostInputs make_backward_inputs(const Shape& s, std::uint64_t seed, Inputs dist);

// A row of dK and dV: key position `key` of KV head `kvh` in batch b.
struct KeyRef {
  int b = 0, kvh = 0, key = 0;
};

// What the backward gate checks. Every dQ row and every dK/dV row while the whole reference
// costs at most kBackwardAllBudget multiply-adds; else, for the first and last query head, the
// rows of the last 64-row tile (every tail row, partial or full), rows 0 and 1 and the rows on
// each side of the 64- and 128-row tile boundaries up to 256 (where causal tiles meet the
// diagonal), then random rows up to kBackwardSampledRows. dK and dV need each key's whole column
// of P and dS, so the softmax statistics of every query row of the KV head's group: a fixed cost
// per KV head of 2 S^2 D multiply-adds per query head. So the key sample takes whole KV heads,
// the last (b = B - 1, kvh = H_kv - 1) always, then the first and further random ones while
// their statistics fit kBackwardKeyHeadBudget; in each, the same edge positions as the rows and
// random keys up to kBackwardKeysPerHead. At 4x16x4096x128 that is one KV head and about 300
// query rows: a few seconds on two cores.
constexpr double kBackwardAllBudget = double(1 << 28);
constexpr double kBackwardKeyHeadBudget = 4.3e9;
constexpr int kBackwardSampledRows = 256;
constexpr int kBackwardKeysPerHead = 96;
constexpr int kBackwardTailTile = 64;

struct BackwardSample {
  std::vector<RowRef> rows;  // dQ rows, sorted by (b, h, row)
  std::vector<KeyRef> keys;  // dK and dV rows, sorted by (b, kvh, key)
};
BackwardSample backward_sample(const Shape& s, std::uint64_t seed);
BackwardSample backward_sample_all(const Shape& s);
// The multiply-adds reference_gradients spends on a sample (the fp64 pass; the naive's is
// about as many fp32 ones).
double backward_sample_cost(const Shape& s, const BackwardSample& x);

// The gradients at the sampled rows: fp64 (the reference) and as the naive fp16 backward
// computes them, both [rows.size() * D] for dQ and [keys.size() * D] for dK and dV.
//
// The reference rebuilds the softmax in fp64 from the fp16 inputs: P = exp(scale q.k - lse)
// with lse the row's exact log-sum-exp, O = P V exact in fp64, delta = rowsum(dO * O) with
// that exact O: the gradient of the function the fp16 inputs define, not of any forward's
// rounded output.
//
// The naive fp16 backward is what a straightforward half-precision implementation computes from
// the O and LSE a forward hands it: O rounded to fp16 and LSE rounded to fp32 (what the
// harness's fp32 forward writes, to within its fp32 arithmetic); delta = rowsum(dO * O) in fp32;
// each scaled score and each dP = dO.v in fp32 then rounded to fp16 (half-precision GEMM
// outputs); P = exp(s - LSE) in fp32 rounded to fp16 and dS = P (dP - delta) in fp32 rounded to
// fp16 (the operands of the next GEMMs); dV = P^T dO, dQ = scale dS K and dK = scale dS^T Q
// accumulated in fp32 (dK and dV over the whole query-head group) and rounded to fp16.
struct GradientSample {
  std::vector<double> dq, dk, dv;
  std::vector<float> naive_dq, naive_dk, naive_dv;
  // Per checked row of dQ and of dK: the rms of the standard deviation of what O's rounding to
  // fp16 passes on through delta (dV does not read delta), the error an exact backward makes
  // from the O a forward stores (check_gradients' floor).
  std::vector<double> inherited_dq, inherited_dk;
};
GradientSample reference_gradients(const Shape& s, const BackwardHostInputs& in, double scale,
                                   const BackwardSample& x);

// The backward's tolerance, per checked row r of each gradient (D elements; for dK and dV a key
// row):
//   rms(out - ref) <= kBackwardErrFactor * max(rms(naive - ref), rho * rms(ref))
//                     + rms(half an fp16 ulp of ref) + kInheritedSigmas * inherited(r)
// rho = sqrt(sum_r rms(naive - ref)^2 / sum_r rms(ref)^2), the naive's relative error over the
// gradient's checked rows. Against the naive of the same precision, as the forward's rule and
// FlashAttention's tests: a kernel that keeps P and dS in fp16 for its GEMMs and accumulates in
// fp32 makes errors of the naive's size, one that keeps more precision smaller ones. The naive's
// error on one row is a sample (a row whose dS terms cancel can come out lucky), so the row's
// bound is at least rho times its magnitude, which no single row can make small.
// The floor is what an exact backward incurs: the rounding of its output to fp16, and the
// error the O it is given carries through delta = rowsum(dO * O). On wide inputs a row's
// softmax is nearly one-hot, dS = P (dP - delta) is a difference of nearly equal numbers, and
// O's fp16 rounding moves delta by more than the true difference: dQ and dK of such rows are
// then set by that rounding in every kernel, and by luck in the naive (whose P rounds to
// exactly 1). inherited(r) is the standard deviation of that error from O's roundings
// (GradientSample); three of it bound a sum of D independent uniform roundings.
// A dQ row of causal row 0 is exactly 0 (one visible key: dS = dP - delta = 0) and is held to
// that floor alone.
// The factor leaves room for a kernel of the naive's grade that rounds at other points: the
// emulated FlashAttention-style kernels of tests/cpu/test_backward_gate.cpp must stay below 0.75
// of the bound on every distribution, while a dropped causal mask, a missing delta term, dK and
// dV not summed over the group, or a scale 2% off must give more than five times it (the same
// test emulates each; tests/gpu/test_backward.cpp runs a mask-dropping kernel on the device).
// Every element of dQ, dK and dV is also checked for NaN and inf.
constexpr double kBackwardErrFactor = 4.0;
constexpr double kInheritedSigmas = 3.0;

struct GradientCheck {
  std::int64_t rows_checked = 0;
  double max_abs_err = 0;        // max |out - ref| (inf where an output is NaN or inf)
  double naive_max_abs_err = 0;  // max |naive - ref|
  double naive_rel_rms = 0;      // rho above
  double worst_ratio = 0;        // the row closest to failing: rms error over its bound
  double worst_rms_err = 0, worst_tolerance_rms = 0;
  std::string worst_row;         // "b=0 h=1 row=17" (dQ) or "b=0 kvh=0 key=3" (dK, dV)
};

struct BackwardCheck {
  bool passed = false;
  GradientCheck dq, dk, dv;
  double worst_ratio = 0;              // the largest of the three
  std::int64_t elements_scanned = 0;   // every element of dQ, dK and dV
  std::int64_t nonfinite = 0;          // NaN or inf among them (poison left over, overflow)
  std::string first_failure;           // empty when passed
};

// Compares a phase's gradients (copied to the host, fp16 in the layouts of
// kernels/backward_problem.hpp) with the sample's references, and scans every element.
BackwardCheck check_gradients(const Shape& s, const BackwardSample& x, const GradientSample& ref,
                              const std::vector<__half>& dq, const std::vector<__half>& dk,
                              const std::vector<__half>& dv);

}  // namespace attnlab

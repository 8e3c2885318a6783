// The correctness gate: reproducible N(0,1) inputs, an fp64 CPU reference of attention, and
// the comparison that decides whether a phase's output is right. Host-only.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/problem.hpp"

namespace attnlab {

// Host copies of one problem's operands, fp16 as on the device.
struct HostTensors {
  std::vector<__half> q, k, v;  // [B,H,S,D], [B,H_kv,S,D], [B,H_kv,S,D]
};

// N(0,1) values from a counter-based generator: element i of tensor t depends only on
// (seed, t, i), so inputs are identical for any thread count and on every platform.
HostTensors make_inputs(const Shape& s, std::uint64_t seed);
double normal_from_counter(std::uint64_t seed, std::uint64_t stream, std::uint64_t index);

struct RowRef {
  int b = 0, h = 0, row = 0;
};

// Which (b, h, row) triples to check: all of them while the reference is cheap, else a fixed
// random sample (from the seed) of at least kSampledRows, always including the first and
// last row of the first and last head so tails and causal edges are covered.
constexpr int kSampledRows = 256;
// Below this many multiply-adds (rows * S * D) every row is checked: the fp64 reference of all
// of them takes well under a second.
constexpr double kAllRowsBudget = 1 << 28;
std::vector<RowRef> rows_to_check(const Shape& s, std::uint64_t seed);

// fp64 attention for one output row: out[d] for d < D.
void reference_row(const Shape& s, const HostTensors& in, double scale, RowRef r, double* out);
// The same row as a naive fp16 implementation computes it: fp32 dot products rounded to fp16
// (a half-precision GEMM output), fp32 softmax, P rounded to fp16, fp32 accumulation of PV,
// output rounded to fp16. Its error against fp64 is the yardstick for the tolerance.
void naive_fp16_row(const Shape& s, const HostTensors& in, float scale, RowRef r, float* out);

struct CheckResult {
  bool passed = false;
  double max_abs_err = 0;    // max |out - ref| over checked elements (inf if any NaN/inf)
  double max_rel_err = 0;    // max |out - ref| / max(|ref|, kRelFloor)
  double naive_max_abs_err = 0;  // the same for the naive fp16 implementation
  double tolerance = 0;      // the max_abs_err bound that was applied
  std::int64_t rows_checked = 0;
  std::int64_t nonfinite = 0;  // NaN or inf outputs among checked elements (poison left over)
  std::string first_failure;   // where the worst element is, when failed
};

// Tolerance, after FlashAttention's tests: the kernel's error may be at most kErrFactor times
// the error of the naive fp16 implementation on the same inputs, plus kAbsFloor. A kernel
// that keeps fp32 scores and probabilities is far more accurate than the naive one, while
// a wrong mask, a missing row or a race produces errors of order |v| ~ 1, thousands of
// times larger. kAbsFloor covers shapes where the naive error is exactly 0 (S = 1: the output
// is a copy of v) and sits at the fp16 rounding of values near 1 (2^-11 ~ 4.9e-4) doubled.
constexpr double kErrFactor = 2.0;
constexpr double kAbsFloor = 1e-3;
constexpr double kRelFloor = 1e-2;  // keeps relative error meaningful for outputs near 0

// Compares a device output (copied to the host, [B,H,S,D] fp16) with the references over the
// given rows. Uses all hardware threads.
CheckResult check_output(const Shape& s, const HostTensors& in, double scale,
                         const std::vector<__half>& out, const std::vector<RowRef>& rows);

// What a run holds in memory for one shape before anything is measured: on the device Q, K,
// V and O (fp16; a phase's own workspace is not counted), on the host the fp16 inputs and the
// gate's three output copies (the checked output, its repeat, the output after timing).
struct Footprint {
  std::uint64_t device_bytes = 0;
  std::uint64_t host_bytes = 0;
};
Footprint footprint(const Shape& s);
// Why the shape does not fit, with the numbers (device_free: bytes free on the GPU,
// host_available: bytes the host can still give), or nullopt if it fits.
std::optional<std::string> memory_refusal(const Shape& s, std::uint64_t device_free,
                                          std::uint64_t host_available);
// The host's available memory (MemAvailable of /proc/meminfo, else free physical pages).
std::uint64_t host_available_bytes();

}  // namespace attnlab

// The correctness gate: reproducible N(0,1) inputs, an fp64 CPU reference of attention, and
// the comparison that decides whether a phase's output is right. Host-only.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/problem.hpp"
#include "record/correctness.hpp"

namespace attnlab {

// Host copies of one problem's operands, fp16 as on the device.
struct HostTensors {
  std::vector<__half> q, k, v;  // [B,H,S,D], [B,H_kv,S,D], [B,H_kv,S,D]
};

// Input distributions. kNormal: Q, K, V ~ N(0,1), so the scaled scores are ~N(0,1) and a
// softmax without the max subtraction never overflows. kWide: Q ~ N(0, kWideQScale^2), so the
// scaled scores are ~N(0, 10^2) and reach +-30 within a row of a few hundred keys: exp of an
// unsubtracted score overflows fp16 P, and the softmax is sharp rather than flat.
// kNegative: K ~ N(0,1) + a*u and Q ~ N(0,1) - a*u along one common direction u (unit, all
// components equal), with a chosen so that the scaled scores sit near -kNegativeScoreMean
// (+-2 or so within a row). Every real key then scores far below 0, so a kernel that lets a
// zero-filled key past the end (a TMA tile read beyond S) into the softmax, score exactly 0,
// gives that phantom key nearly all the weight: on N(0,1) inputs its one term exp(0 - m) is
// below fp16 rounding in rows of a few thousand keys, and such a kernel passes there.
enum class Inputs { kNormal, kWide, kNegative };
constexpr double kWideQScale = 10.0;
constexpr double kNegativeScoreMean = 20.0;
const char* inputs_name(Inputs d);                  // "normal", "wide", "negative"
std::optional<Inputs> parse_inputs(const std::string& name);
// What an experiment's gate checks unless --inputs says otherwise: every distribution, normal
// first. A kernel right on N(0,1) inputs can still be wrong on the others (a phantom key passes
// normal and wide inputs at long S), so the gate checks all three; the first listed is the one
// the run then times.
std::vector<Inputs> default_gate_inputs();
// "normal,wide,negative" for a list, and the list of such a text; parse_inputs_list throws
// std::invalid_argument for an empty list, an unknown name or a name given twice.
std::string inputs_list_name(const std::vector<Inputs>& list);
std::vector<Inputs> parse_inputs_list(const std::string& text);

// Values from a counter-based generator: element i of tensor t depends only on (seed, t, i),
// so inputs are identical for any thread count and on every platform.
HostTensors make_inputs(const Shape& s, std::uint64_t seed, Inputs dist = Inputs::kNormal);
// A fresh input seed from std::random_device: every check draws new inputs, and the run
// records the seed so that they can be made again.
std::uint64_t fresh_seed();
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

// The expected error of that naive implementation, per element of one row, from its
// roundings treated as independent and uniform: each scaled score rounded to fp16 (relative
// error of its weight: the score's rounding), each normalised weight rounded to fp16, and the
// output rounded to fp16. sigma[d] is the standard deviation of out[d] - ref[d] for d < D, in
// fp64 from the reference's scores and weights. A smooth yardstick: the error one naive run
// happens to make on a row is a sample of it, and dividing by a sample lets a kernel of the
// same grade fail whenever the sample is small.
void expected_naive_error_row(const Shape& s, const HostTensors& in, double scale, RowRef r,
                              double* sigma);

// The FP8 yardstick (kernels with e4m3 operands, the gate's Grade::kFp8): on the dequantised
// inputs (experiments/harness/fp8_inputs.hpp), scores in fp32 (e4m3 products accumulate in fp32 without
// rounding to fp16), fp32 softmax with the row sum l of the unquantised weights, the weights
// p = exp(s - m) <= 1 quantised to e4m3 with the scale kP8Scale (p * 448 fills e4m3's range:
// small weights keep their relative precision, none is flushed below 2^-9 / 448), fp32
// accumulation of PV, output rounded to fp16.
constexpr double kP8Scale = 448.0;
void naive_fp8_row(const Shape& s, const HostTensors& in, float scale, RowRef r, float* out);
// Its expected error per element of one row, as expected_naive_error_row: each weight's e4m3
// rounding (spacing at p * kP8Scale, uniform) and the output's fp16 rounding.
void expected_naive_fp8_error_row(const Shape& s, const HostTensors& in, double scale, RowRef r,
                                  double* sigma);

// Which yardstick a phase is held to: naive fp16 (fp16 operands), or naive FP8 (e4m3 operands
// and P, the inputs given dequantised).
enum class Grade { kFp16, kFp8 };

struct CheckResult {
  bool passed = false;
  double max_abs_err = 0;    // max |out - ref| over checked elements (inf if any NaN/inf)
  double max_rel_err = 0;    // max |out - ref| / max(|ref|, kRelFloor)
  double naive_max_abs_err = 0;  // the same for the naive implementation of the grade
  // The row rule (below), at the checked row closest to failing: its rms error, its bound and
  // their ratio (the gate passes when every row's ratio is <= 1).
  double row_rms_err = 0;
  double row_tolerance_rms = 0;
  double row_err_ratio = 0;
  std::int64_t rows_checked = 0;
  std::int64_t elements_scanned = 0;  // every output element, scanned for NaN/inf/poison
  std::int64_t nonfinite = 0;  // NaN or inf among them (poison left over, overflow)
  std::string first_failure;   // where the worst row is, when failed
};

// Tolerance, per checked row: rms over the row of (out - ref) must be at most kErrFactor
// times the rms over the row of expected_naive_error_row's sigma, plus the rms of half an
// fp16 ulp of each reference element (the rounding of the output itself, all an exact kernel
// incurs). Per row, because rows differ by orders of magnitude: a long row's output and its
// fp16 noise are small, so a global bound set by short rows hid errors of several percent of
// a long row. Against the expected naive error rather than the error one naive run made,
// because with scores reaching +-30 a row's output hangs on the roundings of a few scores, so
// two implementations of the same precision (phases 3b and 3c round their scores to fp16 as
// the naive one does, at other points) differ by several times on some rows; a kernel of that
// grade sits near 1 sigma and a factor of 6 leaves it a wide margin, while a kernel that keeps
// fp32 scores and probabilities sits well below it. A wrong mask, a missing key tile, a
// missing rescale or a wrong scale gives errors many times the bound (tests/cpu/
// test_gate_rule.cpp emulates each; tests/gpu/test_gate.cu runs them on the device). Every
// element of the output is also checked for NaN/inf.
constexpr double kErrFactor = 6.0;
constexpr double kRelFloor = 1e-2;  // keeps relative error meaningful for outputs near 0
// Half an fp16 ulp of x: the largest rounding error of storing x in fp16 (normal range; the
// subnormal spacing below 2^-14).
double half_ulp_fp16(double x);

// Compares a device output (copied to the host, [B,H,S,D] fp16) with the references over the
// given rows, and scans every element for NaN/inf. Uses all hardware threads.
// Grade::kFp8: `in` are the dequantised inputs, and the same row rule holds against the naive
// FP8 yardstick's expected error: a kernel of FP8 grade sits near 1 sigma of it, as one of fp16
// grade does of the fp16 one (tests/cpu/test_fp8_gate.cpp emulates both, and FP8 kernels with
// the gate's bugs).
CheckResult check_output(const Shape& s, const HostTensors& in, double scale,
                         const std::vector<__half>& out, const std::vector<RowRef>& rows,
                         Grade grade = Grade::kFp16);

// The record's correctness block of a check on inputs drawn from `inputs`: its figures, the row
// rule, the shape's row count, and its failure where it failed. The harness's gate
// (experiments/harness/record_fill.hpp) and the SDPA baseline's importer (experiments/baselines/sdpa_import.hpp)
// add what their launches showed (repeat launches, poisoned output).
Correctness correctness_block(const CheckResult& c, const Shape& s, Inputs inputs);

// The rms of out - ref over every element of the given rows, ref the fp64 reference on `in`
// (inf where one of them is NaN or inf). On the inputs before quantisation it is the error an
// FP8 kernel's user sees, quantisation included, and the same figure of an fp16 kernel (whose
// inputs are those) sits beside it.
double rms_error(const Shape& s, const HostTensors& in, double scale, const std::vector<__half>& out,
                 const std::vector<RowRef>& rows);

// The row log-sum-exp a forward phase hands the backward (Problem::lse, Phase::emits_lse):
// ln(sum_j exp(scale q.k_j)) over the row's visible keys, in fp64 from the fp16 inputs.
double reference_lse_row(const Shape& s, const HostTensors& in, double scale, RowRef r);

// The LSE's tolerance, per checked row: |lse - ref| <= kLseAbsTol + kLseRelTol * |ref|. The
// backward rebuilds P = exp(scale q.k - lse), so an LSE error e scales each of the row's
// weights by exp(-e): kLseAbsTol = 2^-14 is an eighth of the weights' fp16 rounding (2^-11)
// in the naive fp16 backward the backward rule measures against (experiments/
// backward_reference.hpp), which a kernel whose LSE is right to fp32 arithmetic stays far below.
// kLseRelTol = 2^-20, 16 fp32 ulps of the value, covers the fp32 rounding of scores that reach
// tens (wide inputs: the LSE is then about the row's largest score). An LSE from an unmerged
// part of a row, a sum over a quarter of the row's columns or a log in the wrong base is off
// by a large fraction of 1 (tests/cpu/test_lse_rule.cpp emulates each). Every row's LSE is
// also checked for NaN and inf.
constexpr double kLseAbsTol = 1.0 / 16384;
constexpr double kLseRelTol = 1.0 / 1048576;

struct LseCheck {
  bool passed = false;
  std::int64_t rows_checked = 0;
  double max_abs_err = 0;  // max |lse - ref| over the checked rows (inf where one is NaN or inf)
  double worst_ratio = 0;  // the checked row closest to failing: its error over its bound
  std::int64_t elements_scanned = 0;  // every row's LSE, scanned for NaN/inf/poison
  std::int64_t nonfinite = 0;
  std::string first_failure;  // empty when passed
};

// Compares a phase's LSE (copied to the host, [B, H, S] fp32) with the fp64 reference over the
// given rows, and scans every element. Uses all hardware threads.
LseCheck check_lse(const Shape& s, const HostTensors& in, double scale, const std::vector<float>& lse,
                   const std::vector<RowRef>& rows);

// What a run holds in memory for one shape before anything is measured: on the device Q, K,
// V and O (fp16; a phase's own workspace is not counted), on the host the fp16 inputs and the
// gate's three output copies (the checked output, its repeat, the output after timing).
// with_fp8 (an e4m3 phase takes part, GateInputs of fp8_inputs.hpp): Q, K and V's e4m3 codes
// besides, on the device and the host, and their dequantised fp16 copies on the host; the fp16
// Q, K and V stay counted on the device, where an A/B of an fp16 and an e4m3 phase holds both.
struct Footprint {
  std::uint64_t device_bytes = 0;
  std::uint64_t host_bytes = 0;
};
Footprint footprint(const Shape& s, bool with_fp8 = false);
// Why the shape does not fit, with the numbers (device_free: bytes free on the GPU,
// host_available: bytes the host can still give), or nullopt if it fits.
std::optional<std::string> memory_refusal(const Shape& s, std::uint64_t device_free,
                                          std::uint64_t host_available, bool with_fp8 = false);
// The same for a footprint whose device bytes hold `device_holds` ("Q, K, V and O").
std::optional<std::string> memory_refusal(const Footprint& f, const std::string& device_holds,
                                          std::uint64_t device_free, std::uint64_t host_available);
// The host's available memory (MemAvailable of /proc/meminfo, else free physical pages).
std::uint64_t host_available_bytes();

}  // namespace attnlab

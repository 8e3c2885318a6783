// Phase f8 on the device without the harness's FP8 path: each test quantises fresh inputs to e4m3
// with per-tensor scales itself (experiments/harness/fp8_inputs.hpp), launches the phase twice into
// NaN-poisoned output, and holds the output to the FP8 grade of the fp64 reference on the
// dequantised inputs (Grade::kFp8); f8v, the same kernel with V turned in shared memory, must give
// f8's bits. One binary, so the kernels can be checked in one call:
//   build/bin/attnlab_f8_gpu_tests   (or ctest -R "F8Phase|F8vPhase")
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <cstdint>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/harness/device_buffer.hpp"
#include "experiments/harness/fp8_inputs.hpp"
#include "experiments/harness/gate.hpp"
#include "experiments/harness/reference.hpp"
#include "kernels/registry.hpp"

using namespace attnlab;

namespace {

struct F8Case {
  std::string spec;
  Inputs inputs;
};

void PrintTo(const F8Case& c, std::ostream* os) { *os << c.spec << " " << inputs_name(c.inputs); }

void upload(const DeviceBuffer& b, const std::vector<std::uint8_t>& codes) {
  ATTNLAB_CUDA_CHECK(cudaMemcpy(b.get(), codes.data(), codes.size(), cudaMemcpyHostToDevice));
}

// A phase's buffers and problem for quantised inputs: Q, K, V uploaded, O and a zeroed workspace.
struct F8Launch {
  DeviceBuffer q, k, v, o, ws;
  Problem p;
  F8Launch(const Phase& phase, const Shape& s, const Fp8Inputs& f)
      : q(f.q.codes.size()), k(f.k.codes.size()), v(f.v.codes.size()),
        o(std::size_t(s.q_elems()) * sizeof(__half)), ws(workspace_bytes(phase, s)) {
    upload(q, f.q.codes);
    upload(k, f.k.codes);
    upload(v, f.v.codes);
    ATTNLAB_CUDA_CHECK(cudaMemset(ws.get(), 0, workspace_bytes(phase, s)));
    p.shape = s;
    p.q = q.get();
    p.k = k.get();
    p.v = v.get();
    p.o = static_cast<__half*>(o.get());
    p.scale = float(s.default_scale());
    p.format = InputFormat::kE4m3;
    p.descale_q = float(1 / f.q.scale);
    p.descale_k = float(1 / f.k.scale);
    p.descale_v = float(1 / f.v.scale);
    p.workspace = ws.get();
    p.workspace_bytes = workspace_bytes(phase, s);
  }
};

// The phase by id, or the reason this device cannot run it.
const Phase* runnable(const char* id, std::string& why) {
  const Phase* phase = find_phase(id);
  if (phase == nullptr) {
    why = std::string("no phase ") + id;
    return nullptr;
  }
  cudaDeviceProp prop{};
  ATTNLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (auto r = device_refusal(*phase, prop.major, prop.minor)) why = *r;
  return phase;
}

class F8Phase : public ::testing::TestWithParam<F8Case> {};

TEST_P(F8Phase, MatchesFp64ReferenceOnDequantisedInputs) {
  std::string why;
  const Phase* phase = runnable("f8", why);
  ASSERT_NE(phase, nullptr) << why;
  if (!why.empty()) GTEST_SKIP() << why;
  const Shape s = parse_shape(GetParam().spec);
  ASSERT_FALSE(phase->can_implement(s));

  const std::uint64_t seed = fresh_seed();
  const Fp8Inputs f = quantize_e4m3(make_inputs(s, seed, GetParam().inputs));
  F8Launch l(*phase, s, f);
  const std::vector<__half> out = launch_poisoned(*phase, l.p, nullptr);
  EXPECT_TRUE(same_bits(out, launch_poisoned(*phase, l.p, nullptr))) << "two identical launches differed";
  const CheckResult c = check_output(s, f.dequantised, l.p.scale, out, rows_to_check(s, seed), Grade::kFp8);
  EXPECT_TRUE(c.passed) << "seed " << seed << ": " << c.first_failure << " (worst row ratio " << c.row_err_ratio
                        << ", max abs err " << c.max_abs_err << ")";
  EXPECT_EQ(c.nonfinite, 0);
}

// f8v writes V^T's tiles in shared memory as the pre-pass and TMA lay them out for f8
// (kernels/e4m3_transpose.hpp; tests/cpu/test_e4m3_transpose.cpp checks the layout without a
// GPU), and runs the same kernel on them: the same bits of O at every case, each f8 tile shape
// (D 64 with two and three consumers, D 128 with 128- and 192-key tiles, the key split) and tails.
class F8vPhase : public ::testing::TestWithParam<F8Case> {};

TEST_P(F8vPhase, SameBitsAsF8) {
  std::string why;
  const Phase* f8 = runnable("f8", why);
  const Phase* f8v = runnable("f8v", why);
  ASSERT_TRUE(f8 != nullptr && f8v != nullptr) << why;
  if (!why.empty()) GTEST_SKIP() << why;
  const Shape s = parse_shape(GetParam().spec);
  ASSERT_FALSE(f8v->can_implement(s));

  const std::uint64_t seed = fresh_seed();
  const Fp8Inputs f = quantize_e4m3(make_inputs(s, seed, GetParam().inputs));
  F8Launch a(*f8, s, f), b(*f8v, s, f);
  const std::vector<__half> want = launch_poisoned(*f8, a.p, nullptr);
  const std::vector<__half> got = launch_poisoned(*f8v, b.p, nullptr);
  ASSERT_EQ(got.size(), want.size());
  std::size_t differ = 0, first = got.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(__half)) != 0) {
      if (first == got.size()) first = i;
      ++differ;
    }
  EXPECT_EQ(differ, 0u) << "seed " << seed << ": " << differ << " of " << got.size()
                        << " outputs differ from f8's, the first at element " << first;
}

// Tails of every kind (S not a multiple of 32, 128 or the query tile), both head dims, causal and
// not, grouped KV heads, several work items per block, the key split (D = 128, S >= 2048), and
// rows of 8192 keys, where an error that grows with a row's length (a running sum in the e4m3
// GEMM's accumulation: kernels/NOTES.md, "FP8: phase f8": Row sums by the PV GEMM) shows.
std::vector<F8Case> cases() {
  std::vector<F8Case> out;
  for (const char* spec : {"1x2x64x64", "2x3x17x64", "2x3x333x64:causal", "1x8x200x64:hkv=2",
                           "1x8x512x64", "8x16x333x64:causal", "2x3x100x128", "2x3x1000x128:causal",
                           "1x8x200x128:causal:hkv=2", "8x16x400x128", "1x16x2048x128", "1x4x8192x128",
                           "1x4x8192x128:causal"})
    for (Inputs d : {Inputs::kNormal, Inputs::kWide, Inputs::kNegative}) out.push_back({spec, d});
  return out;
}

std::string case_name(const ::testing::TestParamInfo<F8Case>& info) {
  std::string n = info.param.spec + "_" + inputs_name(info.param.inputs);
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Shapes, F8Phase, ::testing::ValuesIn(cases()), case_name);

// f8's tile choices (kernels/phase_f8_wgmma.cu, with_traits): D 64 causal with two consumers
// (S 1024) and three, non-causal; D 128 causal below S 1024 and from it, non-causal whole and
// split over keys (S >= 3072); odd S and grouped KV heads among them.
std::vector<F8Case> v_cases() {
  std::vector<F8Case> out;
  for (const char* spec : {"2x3x333x64:causal", "1x4x1024x64:causal", "1x8x200x64:hkv=2", "2x3x100x128",
                           "2x3x1000x128:causal", "1x4x1100x128:causal:hkv=2", "1x8x700x128", "2x8x3100x128"})
    for (Inputs d : {Inputs::kNormal, Inputs::kNegative}) out.push_back({spec, d});
  return out;
}
INSTANTIATE_TEST_SUITE_P(Shapes, F8vPhase, ::testing::ValuesIn(v_cases()), case_name);

}  // namespace

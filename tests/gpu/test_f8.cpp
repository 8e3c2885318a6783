// Phase f8 on the device without the harness's FP8 path: each test quantises fresh inputs to e4m3
// with per-tensor scales itself (experiments/harness/fp8_inputs.hpp), launches the phase twice into
// NaN-poisoned output, and holds the output to the FP8 grade of the fp64 reference on the
// dequantised inputs (Grade::kFp8). One binary, so the kernel can be checked in one call:
//   build/bin/attnlab_f8_gpu_tests   (or ctest -R F8Phase)
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cctype>
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

class F8Phase : public ::testing::TestWithParam<F8Case> {};

TEST_P(F8Phase, MatchesFp64ReferenceOnDequantisedInputs) {
  const Phase* phase = find_phase("f8");
  ASSERT_NE(phase, nullptr);
  cudaDeviceProp prop{};
  ATTNLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (auto why = device_refusal(*phase, prop.major, prop.minor)) GTEST_SKIP() << *why;
  const Shape s = parse_shape(GetParam().spec);
  ASSERT_FALSE(phase->can_implement(s));

  const std::uint64_t seed = fresh_seed();
  const Fp8Inputs f = quantize_e4m3(make_inputs(s, seed, GetParam().inputs));
  const DeviceBuffer q(f.q.codes.size()), k(f.k.codes.size()), v(f.v.codes.size());
  upload(q, f.q.codes);
  upload(k, f.k.codes);
  upload(v, f.v.codes);
  DeviceBuffer o(std::size_t(s.q_elems()) * sizeof(__half));
  const std::size_t ws_bytes = workspace_bytes(*phase, s);
  DeviceBuffer ws(ws_bytes);
  ATTNLAB_CUDA_CHECK(cudaMemset(ws.get(), 0, ws_bytes));
  Problem p;
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
  p.workspace_bytes = ws_bytes;

  const std::vector<__half> out = launch_poisoned(*phase, p, nullptr);
  EXPECT_TRUE(same_bits(out, launch_poisoned(*phase, p, nullptr))) << "two identical launches differed";
  const CheckResult c = check_output(s, f.dequantised, p.scale, out, rows_to_check(s, seed), Grade::kFp8);
  EXPECT_TRUE(c.passed) << "seed " << seed << ": " << c.first_failure << " (worst row ratio " << c.row_err_ratio
                        << ", max abs err " << c.max_abs_err << ")";
  EXPECT_EQ(c.nonfinite, 0);
}

// Tails of every kind (S not a multiple of 32, 128 or the query tile), both head dims, causal and
// not, grouped KV heads, several work items per block, the key split (D = 128, S >= 2048).
std::vector<F8Case> cases() {
  std::vector<F8Case> out;
  for (const char* spec : {"1x2x64x64", "2x3x17x64", "2x3x333x64:causal", "1x8x200x64:hkv=2",
                           "1x8x512x64", "8x16x333x64:causal", "2x3x100x128", "2x3x1000x128:causal",
                           "1x8x200x128:causal:hkv=2", "8x16x400x128", "1x16x2048x128"})
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

}  // namespace

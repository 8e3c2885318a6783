// The correctness gate must reject broken kernels: a deliberately wrong attention kernel per
// bug (one thread per query row, fp32 online softmax over 64-key tiles, P rounded to fp16 as a
// tensor-core kernel's PV reads it), run through the same run_gate as the phases, poisoned
// output and all, on fresh random inputs. The unbroken kernel is the control: it must pass on
// both input distributions, so a gate that rejects everything fails here too.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/harness/gate.hpp"

using namespace attnlab;

namespace {

enum class Bug {
  kNone,
  kSkipTailTile,      // keys past the last full 64-key tile ignored
  kNoRescale,         // O and l not rescaled when a later tile raises the row max
  kWrongScale,        // softmax scale 2% off
  kCausalOffByOne,    // row i also sees key i + 1
  kNoMaxSubtraction,  // exp of the raw scores
  kUnwrittenHead,     // one (batch, head) plane never written
  kPhantomKey,        // key S (past the end, zero-filled as TMA fills a tile read beyond S) in the softmax
};
constexpr int kTile = 64;

template <int D, Bug B>
__global__ void broken_attention(const __half* __restrict__ q, const __half* __restrict__ k,
                                 const __half* __restrict__ v, __half* __restrict__ o, int H,
                                 int H_kv, int S, bool causal, float scale) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int plane = blockIdx.y;  // b * H + h
  if (row >= S) return;
  if (B == Bug::kUnwrittenHead && plane == gridDim.y / 2) return;
  const int b = plane / H, h = plane % H;
  const std::size_t kv_plane = std::size_t(b) * H_kv + h / (H / H_kv);
  const __half* qr = q + (std::size_t(plane) * S + row) * D;
  const __half* kp = k + kv_plane * S * D;
  const __half* vp = v + kv_plane * S * D;
  int n = causal ? row + 1 : S;
  // A zero key scores exactly 0 and adds a zero value row: the term exp(0 - m) in the sum.
  const bool phantom = B == Bug::kPhantomKey && !causal;
  if (phantom) n = S + 1;
  if (B == Bug::kCausalOffByOne && causal) n = min(S, row + 2);
  if (B == Bug::kSkipTailTile) n = min(n, S / kTile * kTile);
  if (B == Bug::kWrongScale) scale *= 1.02f;
  float acc[D];
  for (int d = 0; d < D; ++d) acc[d] = 0.f;
  float m = -INFINITY, l = 0.f;
  for (int t0 = 0; t0 < n; t0 += kTile) {
    const int t1 = min(n, t0 + kTile);
    float mt = m;
    for (int j = t0; j < t1; ++j) {
      float dot = 0.f;
      if (!(phantom && j == S))
        for (int d = 0; d < D; ++d) dot += __half2float(qr[d]) * __half2float(kp[std::size_t(j) * D + d]);
      mt = fmaxf(mt, dot * scale);
    }
    if (B == Bug::kNoMaxSubtraction) mt = 0.f;
    float alpha = __expf(m - mt);
    if (B == Bug::kNoRescale || B == Bug::kNoMaxSubtraction) alpha = t0 == 0 ? 0.f : 1.f;
    l *= alpha;
    for (int d = 0; d < D; ++d) acc[d] *= alpha;
    for (int j = t0; j < t1; ++j) {
      float dot = 0.f;
      const bool zero_key = phantom && j == S;
      if (!zero_key)
        for (int d = 0; d < D; ++d) dot += __half2float(qr[d]) * __half2float(kp[std::size_t(j) * D + d]);
      const float p = expf(dot * scale - mt);
      const float ph = __half2float(__float2half(p));  // P as a PV MMA reads it
      l += p;
      if (zero_key) continue;  // its value row is zero
      for (int d = 0; d < D; ++d) acc[d] += ph * __half2float(vp[std::size_t(j) * D + d]);
    }
    m = mt;
  }
  __half* out = o + (std::size_t(plane) * S + row) * D;
  for (int d = 0; d < D; ++d) out[d] = __float2half(acc[d] / l);
}

template <Bug B>
void launch(const Problem& p, cudaStream_t stream) {
  const Shape& s = p.shape;
  const dim3 grid((s.S + 127) / 128, s.B * s.H);
  const auto* q = static_cast<const __half*>(p.q);
  const auto* k = static_cast<const __half*>(p.k);
  const auto* v = static_cast<const __half*>(p.v);
  auto* o = static_cast<__half*>(p.o);
  if (s.D == 64)
    broken_attention<64, B><<<grid, 128, 0, stream>>>(q, k, v, o, s.H, s.H_kv, s.S, s.causal, p.scale);
  else
    broken_attention<128, B><<<grid, 128, 0, stream>>>(q, k, v, o, s.H, s.H_kv, s.S, s.causal, p.scale);
  ATTNLAB_CUDA_CHECK(cudaGetLastError());
}

Refusal any_shape(const Shape&) { return std::nullopt; }

template <Bug B>
Phase broken_phase(const char* id) {
  return Phase{id, id, "a deliberately broken test kernel", 0, &any_shape, &launch<B>, nullptr};
}

GateResult gate(const Phase& phase, const std::string& spec, Inputs dist, std::uint64_t seed) {
  const Shape s = parse_shape(spec);
  const GateInputs in = make_gate_inputs(s, seed, dist, {phase.input_format});
  const ProblemBuffers buffers(s, in, phase.input_format, workspace_bytes(phase, s));
  return run_gate(phase, buffers.problem(float(s.default_scale())), in, seed, nullptr);
}

struct Case {
  Phase phase;
  std::vector<std::string> specs;
  std::vector<Inputs> dists;
};

void expect_verdict(const Case& c, bool pass) {
  for (const auto& spec : c.specs)
    for (Inputs dist : c.dists) {
      const std::uint64_t seed = fresh_seed();
      const GateResult g = gate(c.phase, spec, dist, seed);
      EXPECT_EQ(g.passed, pass) << c.phase.id << " at " << spec << ", " << inputs_name(dist)
                                << " inputs, seed " << seed << ": worst row ratio "
                                << g.check.row_err_ratio << ", " << g.check.nonfinite
                                << " NaN/inf; " << g.failure;
    }
}

const std::vector<Inputs> kBoth = {Inputs::kNormal, Inputs::kWide};
const std::vector<Inputs> kAll = {Inputs::kNormal, Inputs::kWide, Inputs::kNegative};

TEST(GateRejects, ControlKernelPasses) {
  expect_verdict({broken_phase<Bug::kNone>("control"),
                  {"2x2x333x64", "1x4x300x64:causal", "2x2x200x128", "1x2x300x128:causal",
                   "1x8x200x64:hkv=2", "2x16x2048x64"},
                  kAll},
                 true);
  // The shapes at which the phantom key passed on N(0,1) inputs: the control must not fail there.
  expect_verdict({broken_phase<Bug::kNone>("control"),
                  {"3x5x4095x128", "1x8x4097x64", "2x2x16383x64"}, {Inputs::kNegative}},
                 true);
}

TEST(GateRejects, PhantomKeyPastTheEndOnNegativeInputs) {
  // On N(0,1) inputs this kernel passed at these three shapes (its one extra term exp(0 - m) is
  // below fp16 rounding in long rows); the negative distribution's scores near -20 let the
  // zero-score key take nearly all the weight.
  expect_verdict({broken_phase<Bug::kPhantomKey>("phantom-key"),
                  {"3x5x4095x128", "1x8x4097x64", "2x2x16383x64", "2x3x17x64"}, {Inputs::kNegative}},
                 false);
}

TEST(GateRejects, SkippedTailKeyTile) {
  expect_verdict({broken_phase<Bug::kSkipTailTile>("skip-tail"), {"2x2x333x64", "2x2x100x128"}, kBoth},
                 false);
  // Causal: only the last rows see the partial tile. With 33 tail keys (S = 4129) the last 33
  // rows move by several times their bound. At S = 64k + 1 the one tail key moves only the
  // last row, by its weight on that key (about 1/S, often far less): below that row's fp16
  // noise, where no output comparison can see it.
  expect_verdict({broken_phase<Bug::kSkipTailTile>("skip-tail"), {"1x2x4129x64:causal"},
                  {Inputs::kNormal}},
                 false);
}

TEST(GateRejects, MissingRescale) {
  expect_verdict({broken_phase<Bug::kNoRescale>("no-rescale"),
                  {"1x4x300x64:causal", "2x2x200x128"}, kBoth},
                 false);
}

TEST(GateRejects, WrongScale) {
  expect_verdict({broken_phase<Bug::kWrongScale>("wrong-scale"), {"2x2x333x64", "2x2x200x128"}, kBoth},
                 false);
}

TEST(GateRejects, CausalDiagonalOffByOne) {
  expect_verdict({broken_phase<Bug::kCausalOffByOne>("causal-off-by-one"),
                  {"1x4x300x64:causal", "2x3x100x128:causal"}, kBoth},
                 false);
}

TEST(GateRejects, MissingMaxSubtractionOnWideInputs) {
  // N(0,1) scores never overflow, so only the wide distribution can catch this one.
  expect_verdict({broken_phase<Bug::kNoMaxSubtraction>("no-max"),
                  {"2x2x333x64", "1x4x300x128:causal"}, {Inputs::kWide}},
                 false);
}

TEST(GateRejects, UnwrittenHead) {
  // 2x16x2048x64 checks a sample of rows, which mostly miss the unwritten plane; the scan of
  // every output element for poison does not.
  expect_verdict({broken_phase<Bug::kUnwrittenHead>("unwritten-head"),
                  {"2x16x2048x64", "2x3x100x128"}, kBoth},
                 false);
}

}  // namespace

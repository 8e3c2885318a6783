// Phase b5's backward kernels on the device against their own fp64 reference, without a forward
// phase: O and the row LSE come from the reference's forward on the host and are uploaded, so a
// failure here is the backward's. Per shape, with fresh N(0, 1)-shaped inputs (Q and K at 1.5 so
// the softmax is far from uniform: scores of spread 2.25), dQ, dK and dV are held to the fp64
// gradients (full at small shapes, sampled query rows and key columns at the long ones), after
// every output was poisoned with NaN; the deterministic mode is checked the same way and twice,
// bit for bit; all of it for both builds of the main kernel (one and two consumer warpgroups),
// each on its own persistent grid (a block per SM, or per tile where there are fewer) and on a
// grid of kFewBlocks, where a block runs several tiles. Where the tiles are not a multiple of the
// blocks, the non-causal two-consumer kernels without the deterministic mode split the last
// round's steps between blocks (kernels/split_round.hpp); on 3 blocks the shapes below split it
// into one range whose parts are whole tiles of one step (1x5x64x64), into ranges within one tile
// (1x16x512x128) and into ranges that cross a tile's end (1x8x500x64:hkv=2), and on the
// persistent grid of 132 blocks over all of them (2x16x1024x64).
// One binary, the kernels checked in one call:
//   build/bin/attnlab_bwd_gpu_tests   (or ctest -R Bwd)
// Tolerance, per tensor T over the checked elements: |out - ref| <= 2^-10 |ref| + 1e-2 rms(ref).
// Why: the kernel rounds P and dS to fp16 (relative 2^-11 at most) before the GEMMs that sum them
// in fp32, so a gradient element, a sum of many such terms of random sign, errs by a small
// multiple of 2^-12 times the root sum of squares of its terms, which is the tensor's rms. On the
// H200 the worst element reached 0.7% of the rms (one of 768000 dQ elements at
// 2x3x1000x128:causal; every other shape stayed under 0.4%), so the bound is 1%. dS's terms
// cancel (each row of dS sums to zero), so the rule is relative to the tensor's rms, not to each
// element; 2^-10 |ref| covers the final rounding to fp16 (2^-11 relative). A dropped mask, a
// wrong row or a missing term errs by the order of rms itself. The harness's gate holds phase b5
// to the stricter rule of a naive fp16 backward (experiments/harness/backward_reference.hpp).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/harness/device_buffer.hpp"
#include "kernels/backward_problem.hpp"
#include "kernels/phase_b5.hpp"

using namespace attnlab;

namespace {

// fp16 tensors as the device gets them, with their values in double for the reference.
struct Tensor {
  std::vector<__half> h;
  std::vector<double> d;
};

Tensor random_tensor(std::int64_t n, double sigma, std::mt19937_64& rng) {
  std::normal_distribution<double> dist(0.0, sigma);
  Tensor t;
  t.h.resize(std::size_t(n));
  t.d.resize(std::size_t(n));
  for (std::int64_t i = 0; i < n; ++i) {
    t.h[std::size_t(i)] = __float2half(float(dist(rng)));
    t.d[std::size_t(i)] = double(__half2float(t.h[std::size_t(i)]));
  }
  return t;
}

double dot(const double* a, const double* b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

constexpr int kMaxD = 128;  // the head dims the phase runs

// The problem on the host: inputs, the forward's O and LSE (exact), and delta = rowsum(dO * O)
// with O rounded to fp16 as the device gets it.
struct HostProblem {
  Shape s;
  double scale;
  Tensor q, k, v, d_o;
  std::vector<double> o, lse, delta;
  int key_end(int i) const { return s.causal ? std::min(i + 1, s.S) : s.S; }
  const double* q_row(int bh, int i) const { return &q.d[(std::size_t(bh) * s.S + i) * s.D]; }
  const double* do_row(int bh, int i) const { return &d_o.d[(std::size_t(bh) * s.S + i) * s.D]; }
  int kv_plane(int bh) const { return bh / s.H * s.H_kv + bh % s.H / (s.H / s.H_kv); }
  const double* k_row(int bh, int j) const { return &k.d[(std::size_t(kv_plane(bh)) * s.S + j) * s.D]; }
  const double* v_row(int bh, int j) const { return &v.d[(std::size_t(kv_plane(bh)) * s.S + j) * s.D]; }
  double score(int bh, int i, int j) const { return scale * dot(q_row(bh, i), k_row(bh, j), s.D); }
};

// The forward in fp64, row by row; returns the mean over rows of max_j P_ij times the row's key
// count (1 for a uniform softmax).
double forward(HostProblem& hp) {
  const Shape& s = hp.s;
  const std::size_t rows = std::size_t(s.B) * s.H * s.S;
  hp.o.assign(rows * s.D, 0.0);
  hp.lse.assign(rows, 0.0);
  hp.delta.assign(rows, 0.0);
  double peak = 0;
  std::vector<double> sc(std::size_t(s.S));
  for (int bh = 0; bh < s.B * s.H; ++bh)
    for (int i = 0; i < s.S; ++i) {
      const int n = hp.key_end(i);
      double m = -INFINITY, l = 0;
      for (int j = 0; j < n; ++j) m = std::max(m, sc[std::size_t(j)] = hp.score(bh, i, j));
      for (int j = 0; j < n; ++j) l += std::exp(sc[std::size_t(j)] - m);
      const std::size_t r = std::size_t(bh) * s.S + i;
      hp.lse[r] = m + std::log(l);
      double* o = &hp.o[r * s.D];
      for (int j = 0; j < n; ++j) {
        const double p = std::exp(sc[std::size_t(j)] - hp.lse[r]);
        const double* v = hp.v_row(bh, j);
        for (int d = 0; d < s.D; ++d) o[d] += p * v[d];
      }
      // delta from O as the kernel reads it, fp16: the backward's inputs define its problem, and
      // the exact O's delta differs from it by O's rounding, which shifts every dS of the row the
      // same way (a bias the tolerance below, made for unbiased roundings, would not cover).
      double o16[kMaxD];
      for (int d = 0; d < s.D; ++d) o16[d] = double(__half2float(__float2half(float(o[d]))));
      hp.delta[r] = dot(hp.do_row(bh, i), o16, s.D);
      peak += n / l;  // max_j P_ij = exp(m - lse) = 1 / l
    }
  return peak / double(rows);
}

// dQ of row i of head bh.
void reference_dq(const HostProblem& hp, int bh, int i, double* dq) {
  const int D = hp.s.D;
  const std::size_t r = std::size_t(bh) * hp.s.S + i;
  std::fill(dq, dq + D, 0.0);
  for (int j = 0; j < hp.key_end(i); ++j) {
    const double p = std::exp(hp.score(bh, i, j) - hp.lse[r]);
    const double ds = p * (dot(hp.do_row(bh, i), hp.v_row(bh, j), D) - hp.delta[r]);
    const double* k = hp.k_row(bh, j);
    for (int d = 0; d < D; ++d) dq[d] += ds * k[d];
  }
  for (int d = 0; d < D; ++d) dq[d] *= hp.scale;
}

// dK and dV of key j of KV plane kvp, summed over the plane's query heads.
void reference_dkv(const HostProblem& hp, int kvp, int j, double* dk, double* dv) {
  const Shape& s = hp.s;
  const int D = s.D, group = s.H / s.H_kv;
  std::fill(dk, dk + D, 0.0);
  std::fill(dv, dv + D, 0.0);
  const int b = kvp / s.H_kv, g = kvp % s.H_kv;
  for (int h = g * group; h < (g + 1) * group; ++h) {
    const int bh = b * s.H + h;
    for (int i = s.causal ? j : 0; i < s.S; ++i) {
      const std::size_t r = std::size_t(bh) * s.S + i;
      const double p = std::exp(hp.score(bh, i, j) - hp.lse[r]);
      const double* d_o = hp.do_row(bh, i);
      const double ds = p * (dot(d_o, hp.v_row(bh, j), D) - hp.delta[r]);
      const double* q = hp.q_row(bh, i);
      for (int d = 0; d < D; ++d) {
        dv[d] += p * d_o[d];
        dk[d] += ds * q[d];
      }
    }
  }
  for (int d = 0; d < D; ++d) dk[d] *= hp.scale;
}

struct Outputs {
  std::vector<__half> dq, dk, dv;
};

// Device copies of the problem's tensors and a launch into NaN-poisoned outputs.
struct DeviceProblem {
  DeviceBuffer q, k, v, o, d_o, lse, dq, dk, dv, ws;
  BackwardProblem p;
  explicit DeviceProblem(const HostProblem& hp)
      : q(bytes(hp.s.q_elems())), k(bytes(hp.s.kv_elems())), v(bytes(hp.s.kv_elems())), o(bytes(hp.s.q_elems())),
        d_o(bytes(hp.s.q_elems())), lse(hp.lse.size() * sizeof(float)), dq(bytes(hp.s.q_elems())),
        dk(bytes(hp.s.kv_elems())), dv(bytes(hp.s.kv_elems())), ws(std::max<std::size_t>(phase_b5::backward_workspace_bytes(hp.s), 16)) {
    upload(q, hp.q.h);
    upload(k, hp.k.h);
    upload(v, hp.v.h);
    upload(d_o, hp.d_o.h);
    std::vector<__half> o16(hp.o.size());
    for (std::size_t i = 0; i < o16.size(); ++i) o16[i] = __float2half(float(hp.o[i]));
    upload(o, o16);
    std::vector<float> lse32(hp.lse.begin(), hp.lse.end());
    ATTNLAB_CUDA_CHECK(cudaMemcpy(lse.get(), lse32.data(), lse32.size() * sizeof(float), cudaMemcpyHostToDevice));
    ATTNLAB_CUDA_CHECK(cudaMemset(ws.get(), 0, ws.bytes()));
    p.shape = hp.s;
    p.q = q.get();
    p.k = k.get();
    p.v = v.get();
    p.o = o.get();
    p.d_o = d_o.get();
    p.lse = static_cast<const float*>(lse.get());
    p.dq = dq.get();
    p.dk = dk.get();
    p.dv = dv.get();
    p.scale = float(hp.scale);
    p.workspace = ws.get();
    p.workspace_bytes = ws.bytes();
  }
  static std::size_t bytes(std::int64_t elems) { return std::size_t(elems) * sizeof(__half); }
  static void upload(const DeviceBuffer& b, const std::vector<__half>& h) {
    ATTNLAB_CUDA_CHECK(cudaMemcpy(b.get(), h.data(), h.size() * sizeof(__half), cudaMemcpyHostToDevice));
  }
  static std::vector<__half> download(const DeviceBuffer& b) {
    std::vector<__half> h(b.bytes() / sizeof(__half));
    ATTNLAB_CUDA_CHECK(cudaMemcpy(h.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
    return h;
  }
  // max_blocks: 0 for the launch's own grid, else the cap of launch_backward_with.
  Outputs launch(int consumers, bool deterministic, int max_blocks) {
    for (const DeviceBuffer* b : {&dq, &dk, &dv}) ATTNLAB_CUDA_CHECK(cudaMemset(b->get(), 0xFF, b->bytes()));  // NaN
    p.deterministic = deterministic;
    phase_b5::launch_backward_with(p, consumers, nullptr, max_blocks);
    ATTNLAB_CUDA_CHECK(cudaGetLastError());
    ATTNLAB_CUDA_CHECK(cudaDeviceSynchronize());
    return {download(dq), download(dk), download(dv)};
  }
};

// The query rows (of every head) and key columns (of every KV plane) checked: all of them, or a
// sample that holds both ends, the edges of the 64-row tiles near the start, the middle, and
// random ones.
std::vector<int> checked(int S, bool sampled, std::mt19937_64& rng) {
  std::vector<int> idx;
  if (!sampled) {
    for (int i = 0; i < S; ++i) idx.push_back(i);
    return idx;
  }
  idx = {0, 1, 63, 64, 65, 127, 128, S / 2, S - 2, S - 1};
  std::uniform_int_distribution<int> any(0, S - 1);
  for (int n = 0; n < 24; ++n) idx.push_back(any(rng));
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  idx.erase(std::remove_if(idx.begin(), idx.end(), [&](int i) { return i < 0 || i >= S; }), idx.end());
  return idx;
}

// The reference gradients at the checked rows and columns, in the order compare() walks them.
struct Reference {
  std::vector<double> dq, dk, dv;
};
Reference reference(const HostProblem& hp, const std::vector<int>& rows, const std::vector<int>& cols) {
  const Shape& s = hp.s;
  Reference r;
  std::vector<double> a(std::size_t(s.D)), b(std::size_t(s.D));
  for (int bh = 0; bh < s.B * s.H; ++bh)
    for (int i : rows) {
      reference_dq(hp, bh, i, a.data());
      r.dq.insert(r.dq.end(), a.begin(), a.end());
    }
  for (int kvp = 0; kvp < s.B * s.H_kv; ++kvp)
    for (int j : cols) {
      reference_dkv(hp, kvp, j, a.data(), b.data());
      r.dk.insert(r.dk.end(), a.begin(), a.end());
      r.dv.insert(r.dv.end(), b.begin(), b.end());
    }
  return r;
}

// One tensor's verdict under the rule at the top of this file: empty when it holds.
std::string verdict(const char* name, const std::vector<double>& out, const std::vector<double>& ref) {
  double sq = 0;
  for (double x : ref) sq += x * x;
  const double rms = std::sqrt(sq / double(std::max<std::size_t>(ref.size(), 1)));
  std::size_t bad = 0, first = 0;
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double err = std::fabs(out[i] - ref[i]);
    worst = std::max(worst, err / rms);
    if (!(err <= std::ldexp(std::fabs(ref[i]), -10) + 1e-2 * rms)) {
      if (bad == 0) first = i;
      ++bad;
    }
  }
  if (bad == 0) return "";
  std::ostringstream os;
  os << name << ": " << bad << " of " << ref.size() << " checked elements out of tolerance (rms " << rms
     << ", worst |err|/rms " << worst << "); first at checked element " << first << ": got " << out[first]
     << ", want " << ref[first];
  return os.str();
}

int nonfinite(const std::vector<__half>& v) {
  int n = 0;
  for (__half x : v) n += !std::isfinite(__half2float(x));
  return n;
}

// The device's gradients at the checked rows and columns, held to the reference.
void compare(const HostProblem& hp, const Reference& ref, const Outputs& out, const std::vector<int>& rows,
             const std::vector<int>& cols, const std::string& label) {
  const Shape& s = hp.s;
  std::vector<double> dq, dk, dv;
  for (int bh = 0; bh < s.B * s.H; ++bh)
    for (int i : rows)
      for (int d = 0; d < s.D; ++d) dq.push_back(__half2float(out.dq[(std::size_t(bh) * s.S + i) * s.D + d]));
  for (int kvp = 0; kvp < s.B * s.H_kv; ++kvp)
    for (int j : cols)
      for (int d = 0; d < s.D; ++d) {
        const std::size_t e = (std::size_t(kvp) * s.S + j) * s.D + d;
        dk.push_back(__half2float(out.dk[e]));
        dv.push_back(__half2float(out.dv[e]));
      }
  EXPECT_EQ(nonfinite(out.dq), 0) << label << ": non-finite dQ (NaN poison left or overflow)";
  EXPECT_EQ(nonfinite(out.dk), 0) << label << ": non-finite dK";
  EXPECT_EQ(nonfinite(out.dv), 0) << label << ": non-finite dV";
  for (const std::string& v : {verdict("dQ", dq, ref.dq), verdict("dK", dk, ref.dk), verdict("dV", dv, ref.dv)})
    EXPECT_TRUE(v.empty()) << label << ": " << v;
}

bool same_bits(const std::vector<__half>& a, const std::vector<__half>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(__half)) == 0;
}

struct BwdCase {
  std::string spec;
  bool sampled;  // sampled rows and columns, else every one
};
void PrintTo(const BwdCase& c, std::ostream* os) { *os << c.spec << (c.sampled ? " sampled" : " full"); }

class BwdPhase : public ::testing::TestWithParam<BwdCase> {};

// The small grid: fewer blocks than tiles at every shape below but the one-tile 1x1x64x64, so its
// blocks run several tiles each (the ring's position, K and V's barriers and the meetings across
// tiles); odd, so a KV plane's consecutive tiles fall to different blocks, whose deterministic
// turns then wait on each other.
constexpr int kFewBlocks = 3;

TEST_P(BwdPhase, MatchesFp64ReferenceAndIsDeterministic) {
  cudaDeviceProp prop{};
  ATTNLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) GTEST_SKIP() << "phase b5 needs sm_90a (Hopper); device 0 is sm_" << prop.major << prop.minor;
  HostProblem hp;
  hp.s = parse_shape(GetParam().spec);
  const Shape& s = hp.s;
  const auto refusal = phase_b5::can_implement(s);
  ASSERT_FALSE(refusal) << *refusal;
  hp.scale = double(float(s.default_scale()));  // the kernel's scale is a float
  const std::uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  hp.q = random_tensor(s.q_elems(), 1.5, rng);
  hp.k = random_tensor(s.kv_elems(), 1.5, rng);
  hp.v = random_tensor(s.kv_elems(), 1.0, rng);
  hp.d_o = random_tensor(s.q_elems(), 1.0, rng);
  const double peak = forward(hp);
  EXPECT_GT(peak, 1.5) << "the softmax is close to uniform: the inputs do not test P";
  const std::vector<int> rows = checked(s.S, GetParam().sampled, rng), cols = checked(s.S, GetParam().sampled, rng);
  const Reference ref = reference(hp, rows, cols);

  DeviceProblem dev(hp);
  // Both builds of the main kernel: one consumer warpgroup (the simplest) and two (the default),
  // each on both grids. The deterministic sums go in the key tiles' order on any grid, so the
  // small grid's bits are the full grid's.
  for (int consumers : {1, 2}) {
    Outputs full_grid;
    for (int max_blocks : {0, kFewBlocks}) {
      const std::string at = GetParam().spec + " seed " + std::to_string(seed) + ", " + std::to_string(consumers) +
                             " consumer(s), " +
                             (max_blocks ? "at most " + std::to_string(max_blocks) + " blocks" : "its own grid");
      compare(hp, ref, dev.launch(consumers, false, max_blocks), rows, cols, at + ", atomic dQ");
      const Outputs first = dev.launch(consumers, true, max_blocks);
      compare(hp, ref, first, rows, cols, at + ", deterministic");
      const Outputs second = dev.launch(consumers, true, max_blocks);
      EXPECT_TRUE(same_bits(first.dq, second.dq)) << at << ": deterministic dQ differed between two launches";
      EXPECT_TRUE(same_bits(first.dk, second.dk)) << at << ": deterministic dK differed between two launches";
      EXPECT_TRUE(same_bits(first.dv, second.dv)) << at << ": deterministic dV differed between two launches";
      if (max_blocks == 0) {
        full_grid = first;
        continue;
      }
      EXPECT_TRUE(same_bits(first.dq, full_grid.dq) && same_bits(first.dk, full_grid.dk) &&
                  same_bits(first.dv, full_grid.dv))
          << at << ": deterministic gradients differed from its own grid's";
    }
  }
}

// Tails of every kind (S below, across and past the 64-row tiles), both head dims, causal and
// not, grouped KV heads, several query heads per block, and two long shapes sampled (one causal
// with grouped KV heads, one whose last round is split on the persistent grid).
std::vector<BwdCase> cases() {
  std::vector<BwdCase> out;
  for (const char* spec : {"1x1x64x64", "2x3x17x64", "2x3x333x64:causal", "1x8x200x64:hkv=2", "2x3x100x128",
                           "2x3x1000x128:causal", "1x8x200x128:causal:hkv=2", "1x16x512x128", "1x8x500x64:hkv=2",
                           "1x4x900x128:hkv=2", "1x5x64x64"})
    out.push_back({spec, false});
  out.push_back({"1x4x1024x128:causal:hkv=2", true});
  out.push_back({"2x16x1024x64", true});
  return out;
}

std::string case_name(const ::testing::TestParamInfo<BwdCase>& info) {
  std::string n = info.param.spec;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Shapes, BwdPhase, ::testing::ValuesIn(cases()), case_name);

// What the kernels do not cover is refused with one line.
TEST(BwdPhaseRefusal, OneLineReasons) {
  Shape uneven_groups = parse_shape("1x4x128x64:hkv=2");
  uneven_groups.H = 3;  // not a multiple of H_kv: parse_shape refuses it, so built by hand
  for (const Shape& s : {parse_shape("1x2x128x96"), uneven_groups}) {
    const auto why = phase_b5::can_implement(s);
    ASSERT_TRUE(why) << shape_name(s);
    EXPECT_EQ(why->find('\n'), std::string::npos) << *why;
  }
  Shape bf16 = parse_shape("1x2x128x64");
  bf16.dtype = DType::bf16;
  EXPECT_TRUE(phase_b5::can_implement(bf16));
  EXPECT_EQ(phase_b5::backward_workspace_bytes(parse_shape("1x2x128x96")), 0u);
}

}  // namespace

// fp64 reference gradients of attention, the naive fp16 backward and the backward's tolerance.
#include "experiments/harness/backward_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <set>
#include <sstream>
#include <tuple>

#include "experiments/harness/parallel_for.hpp"

namespace attnlab {
namespace {

// fp16 to float through a table: exact, and a load in the reference's inner loops where the
// host's conversion routine would dominate them.
const float* half_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (unsigned u = 0; u < 65536; ++u) {
      __half_raw raw;
      raw.x = static_cast<unsigned short>(u);
      t[u] = __half2float(__half(raw));
    }
    return t;
  }();
  return table.data();
}

void load(const __half* src, int n, float* out) {
  const float* t = half_table();
  for (int d = 0; d < n; ++d) out[d] = t[__half_raw(src[d]).x];
}

float round_half(float x) { return __half2float(__float2half(x)); }

// Products of fp16 values are exact in fp64; four partial sums keep the loop vectorisable.
double dot64(const float* a, const float* b, int n) {
  double s[4] = {0, 0, 0, 0};
  int d = 0;
  for (; d + 4 <= n; d += 4)
    for (int l = 0; l < 4; ++l) s[l] += double(a[d + l]) * double(b[d + l]);
  for (; d < n; ++d) s[0] += double(a[d]) * double(b[d]);
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// The naive's fp32 dot product, in four interleaved partial sums as a GEMM's fp32 accumulators
// hold it (and four times faster than one chain of dependent adds).
float dot32(const float* a, const float* b, int n) {
  float s[4] = {0, 0, 0, 0};
  int d = 0;
  for (; d + 4 <= n; d += 4)
    for (int l = 0; l < 4; ++l) s[l] += a[d + l] * b[d + l];
  for (; d < n; ++d) s[0] += a[d] * b[d];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

std::int64_t q_offset(const Shape& s, int b, int h, int row) {
  return ((std::int64_t(b) * s.H + h) * s.S + row) * s.D;
}
std::int64_t kv_offset(const Shape& s, int b, int kvh, int key) {
  return ((std::int64_t(b) * s.H_kv + kvh) * s.S + key) * s.D;
}
int group(const Shape& s) { return s.H / s.H_kv; }

// One KV head's K and V as floats (exact), converted once for every row that reads them.
struct KvHead {
  std::vector<float> k, v;  // [S * D]
};

KvHead kv_head(const Shape& s, const BackwardHostInputs& in, int b, int kvh) {
  const std::size_t n = std::size_t(s.S) * s.D, at = std::size_t(kv_offset(s, b, kvh, 0));
  KvHead h{std::vector<float>(n), std::vector<float>(n)};
  load(&in.qkv.k[at], int(n), h.k.data());
  load(&in.qkv.v[at], int(n), h.v.data());
  return h;
}

// One query row's softmax statistics: exact, and as the naive reads them from a forward.
struct RowStats {
  double lse = 0, delta = 0;
  float lse32 = 0, delta32 = 0;
  // The standard deviation of rowsum(dO * O) moved by O's rounding to fp16 (each element's
  // rounding uniform on half its spacing): the delta any backward reads from a stored O.
  double delta_sigma = 0;
};

// The row's statistics; p (size >= visible keys) receives its fp64 weights exp(s_j - lse).
RowStats row_stats(const Shape& s, const BackwardHostInputs& in, const KvHead& kv, double scale,
                   RowRef r, std::vector<double>& p) {
  const int n = s.causal ? r.row + 1 : s.S, D = s.D;
  std::vector<float> q(static_cast<std::size_t>(D)), d_o(static_cast<std::size_t>(D));
  load(&in.qkv.q[std::size_t(q_offset(s, r.b, r.h, r.row))], D, q.data());
  double m = -std::numeric_limits<double>::infinity();
  for (int j = 0; j < n; ++j) {
    p[std::size_t(j)] = scale * dot64(q.data(), &kv.k[std::size_t(j) * D], D);
    m = std::max(m, p[std::size_t(j)]);
  }
  double l = 0;
  for (int j = 0; j < n; ++j) l += std::exp(p[std::size_t(j)] - m);
  RowStats st;
  st.lse = m + std::log(l);
  std::vector<double> o(static_cast<std::size_t>(D), 0.0);
  for (int j = 0; j < n; ++j) {
    p[std::size_t(j)] = std::exp(p[std::size_t(j)] - st.lse);
    const float* v = &kv.v[std::size_t(j) * D];
    for (int d = 0; d < D; ++d) o[std::size_t(d)] += p[std::size_t(j)] * double(v[d]);
  }
  load(&in.d_o[std::size_t(q_offset(s, r.b, r.h, r.row))], D, d_o.data());
  double var = 0;
  for (int d = 0; d < D; ++d) {
    const double od = o[std::size_t(d)], u = 2 * half_ulp_fp16(od), dod = d_o[std::size_t(d)];
    st.delta += dod * od;
    st.delta32 += d_o[std::size_t(d)] * round_half(float(od));
    var += dod * dod * u * u / 12;
  }
  st.delta_sigma = std::sqrt(var);
  st.lse32 = float(st.lse);
  return st;
}

// dQ of one row: ref (fp64) and naive (fp16 values) for d < D.
// inherited: the rms over the row of the error O's fp16 rounding passes to dQ through delta,
// scale delta_sigma (P K)[d] (dQ moves by -scale (d delta) sum_j P_j k_j).
void dq_row(const Shape& s, const BackwardHostInputs& in, const KvHead& kv, double scale, RowRef r,
            double* ref, float* naive, double& inherited) {
  const int n = s.causal ? r.row + 1 : s.S, D = s.D;
  std::vector<double> p(static_cast<std::size_t>(n));
  const RowStats st = row_stats(s, in, kv, scale, r, p);
  std::vector<float> q(static_cast<std::size_t>(D)), d_o(static_cast<std::size_t>(D));
  std::vector<float> acc(static_cast<std::size_t>(D), 0.f);
  load(&in.qkv.q[std::size_t(q_offset(s, r.b, r.h, r.row))], D, q.data());
  load(&in.d_o[std::size_t(q_offset(s, r.b, r.h, r.row))], D, d_o.data());
  std::fill(ref, ref + D, 0.0);
  std::vector<double> pk(static_cast<std::size_t>(D), 0.0);
  const float scale32 = float(scale);
  for (int j = 0; j < n; ++j) {
    const float* k = &kv.k[std::size_t(j) * D];
    const float* v = &kv.v[std::size_t(j) * D];
    const double ds = p[std::size_t(j)] * (dot64(d_o.data(), v, D) - st.delta);
    const float s16 = round_half(dot32(q.data(), k, D) * scale32);
    const float p16 = round_half(std::exp(s16 - st.lse32));
    const float dp16 = round_half(dot32(d_o.data(), v, D));
    const float ds16 = round_half(p16 * (dp16 - st.delta32));
    for (int d = 0; d < D; ++d) {
      ref[d] += ds * double(k[d]);
      pk[std::size_t(d)] += p[std::size_t(j)] * double(k[d]);
      acc[std::size_t(d)] += ds16 * k[d];
    }
  }
  double sq = 0;
  for (int d = 0; d < D; ++d) {
    ref[d] *= scale;
    naive[d] = round_half(acc[std::size_t(d)] * scale32);
    sq += pk[std::size_t(d)] * pk[std::size_t(d)];
  }
  inherited = scale * st.delta_sigma * std::sqrt(sq / D);
}

// The query rows of one KV head's group, as floats (exact), and their statistics.
struct GroupRows {
  std::vector<float> q, d_o;  // [g * S * D], query head kvh * g + hh at row hh * S + i
  std::vector<RowStats> stats;  // [g * S]
};

GroupRows group_rows(const Shape& s, const BackwardHostInputs& in, const KvHead& kv, double scale, int b,
                     int kvh) {
  const int g = group(s);
  GroupRows gr;
  const std::size_t n = std::size_t(g) * s.S;
  gr.q.resize(n * s.D);
  gr.d_o.resize(n * s.D);
  gr.stats.resize(n);
  parallel_for(std::int64_t(n), [&](std::int64_t begin, std::int64_t end) {
    std::vector<double> p(static_cast<std::size_t>(s.S));
    for (std::int64_t x = begin; x < end; ++x) {
      const RowRef r{b, kvh * g + int(x / s.S), int(x % s.S)};
      const std::size_t at = std::size_t(x) * s.D;
      load(&in.qkv.q[std::size_t(q_offset(s, r.b, r.h, r.row))], s.D, &gr.q[at]);
      load(&in.d_o[std::size_t(q_offset(s, r.b, r.h, r.row))], s.D, &gr.d_o[at]);
      gr.stats[std::size_t(x)] = row_stats(s, in, kv, scale, r, p);
    }
  });
  return gr;
}

// dK and dV of one key row, summed over the group's query heads: refs and naive, d < D each;
// inherited as dq_row's, for dK: the rms over d of scale sqrt(sum_i (P_i delta_sigma_i q_i[d])^2).
void key_row(const Shape& s, const BackwardHostInputs& in, double scale, const GroupRows& gr,
             KeyRef key, double* dk, double* dv, float* naive_dk, float* naive_dv, double& inherited) {
  const int D = s.D, g = group(s);
  std::vector<float> k(static_cast<std::size_t>(D)), v(static_cast<std::size_t>(D));
  std::vector<float> acc_k(static_cast<std::size_t>(D), 0.f), acc_v(static_cast<std::size_t>(D), 0.f);
  load(&in.qkv.k[std::size_t(kv_offset(s, key.b, key.kvh, key.key))], D, k.data());
  load(&in.qkv.v[std::size_t(kv_offset(s, key.b, key.kvh, key.key))], D, v.data());
  std::fill(dk, dk + D, 0.0);
  std::fill(dv, dv + D, 0.0);
  std::vector<double> var(static_cast<std::size_t>(D), 0.0);
  const float scale32 = float(scale);
  for (int hh = 0; hh < g; ++hh)
    for (int i = s.causal ? key.key : 0; i < s.S; ++i) {
      const std::size_t x = std::size_t(hh) * s.S + i;
      const float* q = &gr.q[x * D];
      const float* d_o = &gr.d_o[x * D];
      const RowStats& st = gr.stats[x];
      const double p = std::exp(scale * dot64(q, k.data(), D) - st.lse);
      const double ds = p * (dot64(d_o, v.data(), D) - st.delta);
      const float p16 = round_half(std::exp(round_half(dot32(q, k.data(), D) * scale32) - st.lse32));
      const float ds16 = round_half(p16 * (round_half(dot32(d_o, v.data(), D)) - st.delta32));
      for (int d = 0; d < D; ++d) {
        dv[d] += p * double(d_o[d]);
        dk[d] += ds * double(q[d]);
        const double moved = p * st.delta_sigma * double(q[d]);
        var[std::size_t(d)] += moved * moved;
        acc_v[std::size_t(d)] += p16 * d_o[d];
        acc_k[std::size_t(d)] += ds16 * q[d];
      }
    }
  double sq = 0;
  for (int d = 0; d < D; ++d) {
    dk[d] *= scale;
    naive_dk[d] = round_half(acc_k[std::size_t(d)] * scale32);
    naive_dv[d] = round_half(acc_v[std::size_t(d)]);
    sq += var[std::size_t(d)];
  }
  inherited = scale * std::sqrt(sq / D);
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Positions every sample holds: 0 and 1, both sides of the tile boundaries up to 256, and the
// whole last tile of kBackwardTailTile (every tail position, whatever S modulo a tile is).
std::vector<int> edge_positions(int S) {
  std::set<int> at = {0, 1};
  for (int t : {63, 64, 127, 128, 191, 192, 255, 256}) at.insert(t);
  for (int i = (S - 1) / kBackwardTailTile * kBackwardTailTile; i < S; ++i) at.insert(i);
  std::vector<int> out;
  for (int i : at)
    if (i < S) out.push_back(i);
  return out;
}

// Multiply-adds of the statistics of one KV head's query rows (2 n D per row, n its visible
// keys) and of one key row (4 D per visible query row and head), the fp64 pass.
double group_cost(const Shape& s) {
  const double visible = s.causal ? 0.5 * double(s.S) * (s.S + 1) : double(s.S) * s.S;
  return 2.0 * group(s) * visible * s.D;
}
double key_cost(const Shape& s, int key) {
  return 4.0 * group(s) * (s.causal ? s.S - key : s.S) * s.D;
}
double row_cost(const Shape& s, int row) { return 4.0 * (s.causal ? row + 1 : s.S) * s.D; }

}  // namespace

BackwardHostInputs make_backward_inputs(const Shape& s, std::uint64_t seed, Inputs dist) {
  BackwardHostInputs in{make_inputs(s, seed, dist), std::vector<__half>(std::size_t(s.q_elems()))};
  // Stream 3: independent of Q, K and V (streams 0 to 2), the same for every distribution.
  parallel_for(s.q_elems(), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i)
      in.d_o[std::size_t(i)] = __double2half(normal_from_counter(seed, 3, std::uint64_t(i)));
  });
  return in;
}

BackwardSample backward_sample_all(const Shape& s) {
  BackwardSample x;
  for (int b = 0; b < s.B; ++b) {
    for (int h = 0; h < s.H; ++h)
      for (int i = 0; i < s.S; ++i) x.rows.push_back({b, h, i});
    for (int kvh = 0; kvh < s.H_kv; ++kvh)
      for (int j = 0; j < s.S; ++j) x.keys.push_back({b, kvh, j});
  }
  return x;
}

double backward_sample_cost(const Shape& s, const BackwardSample& x) {
  double c = 0;
  for (const RowRef& r : x.rows) c += row_cost(s, r.row) + 2.0 * (s.causal ? r.row + 1 : s.S) * s.D;
  std::set<std::pair<int, int>> heads;
  for (const KeyRef& k : x.keys) {
    heads.insert({k.b, k.kvh});
    c += key_cost(s, k.key);
  }
  return c + double(heads.size()) * group_cost(s);
}

BackwardSample backward_sample(const Shape& s, std::uint64_t seed) {
  BackwardSample all = backward_sample_all(s);
  if (backward_sample_cost(s, all) <= kBackwardAllBudget) return all;
  const std::vector<int> edges = edge_positions(s.S);
  std::set<std::tuple<int, int, int>> rows;
  for (const auto& [b, h] : {std::pair{0, 0}, std::pair{s.B - 1, s.H - 1}})
    for (int i : edges) rows.insert({b, h, i});
  const std::uint64_t total_rows = std::uint64_t(s.B) * s.H * s.S;
  std::uint64_t state = seed ^ 0xBAC4ull;
  while (rows.size() < std::min<std::uint64_t>(total_rows, kBackwardSampledRows)) {
    const std::uint64_t f = (state = splitmix64(state)) % total_rows;
    rows.insert({int(f / (std::uint64_t(s.H) * s.S)), int(f / s.S % s.H), int(f % s.S)});
  }
  BackwardSample x;
  for (const auto& [b, h, i] : rows) x.rows.push_back({b, h, i});
  // KV heads: the last, then the first and random ones while their statistics fit the budget.
  std::set<std::pair<int, int>> heads = {{s.B - 1, s.H_kv - 1}};
  const std::uint64_t total_heads = std::uint64_t(s.B) * s.H_kv;
  for (int tries = 0; tries < 8 && heads.size() < total_heads; ++tries) {
    if ((heads.size() + 1) * group_cost(s) > kBackwardKeyHeadBudget) break;
    const std::uint64_t f = tries == 0 ? 0 : (state = splitmix64(state)) % total_heads;
    heads.insert({int(f / s.H_kv), int(f % s.H_kv)});
  }
  for (const auto& [b, kvh] : heads) {
    std::set<int> keys(edges.begin(), edges.end());
    while (keys.size() < std::min<std::size_t>(std::size_t(s.S), edges.size() + kBackwardKeysPerHead))
      keys.insert(int((state = splitmix64(state)) % std::uint64_t(s.S)));
    for (int j : keys) x.keys.push_back({b, kvh, j});
  }
  return x;
}

GradientSample reference_gradients(const Shape& s, const BackwardHostInputs& in, double scale,
                                   const BackwardSample& x) {
  GradientSample g;
  const std::size_t D = std::size_t(s.D);
  g.dq.resize(x.rows.size() * D);
  g.naive_dq.resize(x.rows.size() * D);
  g.inherited_dq.resize(x.rows.size());
  // Rows sorted by head: each KV head's K and V converted once, then its rows in parallel.
  const auto kv_of = [&](const RowRef& r) { return std::pair{r.b, r.h / group(s)}; };
  for (std::size_t first = 0; first < x.rows.size();) {
    std::size_t last = first;
    while (last < x.rows.size() && kv_of(x.rows[last]) == kv_of(x.rows[first])) ++last;
    const KvHead kv = kv_head(s, in, kv_of(x.rows[first]).first, kv_of(x.rows[first]).second);
    parallel_for(std::int64_t(last - first), [&](std::int64_t b, std::int64_t e) {
      for (std::size_t i = first + std::size_t(b); i < first + std::size_t(e); ++i)
        dq_row(s, in, kv, scale, x.rows[i], &g.dq[i * D], &g.naive_dq[i * D], g.inherited_dq[i]);
    });
    first = last;
  }
  g.dk.resize(x.keys.size() * D);
  g.dv.resize(x.keys.size() * D);
  g.naive_dk.resize(x.keys.size() * D);
  g.naive_dv.resize(x.keys.size() * D);
  g.inherited_dk.resize(x.keys.size());
  // Keys sorted by head: each head's statistics once, then its keys in parallel.
  for (std::size_t first = 0; first < x.keys.size();) {
    std::size_t last = first;
    while (last < x.keys.size() && x.keys[last].b == x.keys[first].b && x.keys[last].kvh == x.keys[first].kvh)
      ++last;
    const KvHead kv = kv_head(s, in, x.keys[first].b, x.keys[first].kvh);
    const GroupRows gr = group_rows(s, in, kv, scale, x.keys[first].b, x.keys[first].kvh);
    parallel_for(std::int64_t(last - first), [&](std::int64_t b, std::int64_t e) {
      for (std::size_t i = first + std::size_t(b); i < first + std::size_t(e); ++i)
        key_row(s, in, scale, gr, x.keys[i], &g.dk[i * D], &g.dv[i * D], &g.naive_dk[i * D],
                &g.naive_dv[i * D], g.inherited_dk[i]);
    });
    first = last;
  }
  return g;
}

namespace {

// One gradient's rows against its references: out holds the whole tensor, offset(i) where
// the sample's row i starts in it, name(i) says which row that is.
template <class Offset, class Name>
GradientCheck check_one(std::size_t rows, int D, const std::vector<double>& ref,
                        const std::vector<float>& naive, const std::vector<double>& inherited,
                        const std::vector<__half>& out, Offset offset, Name name) {
  GradientCheck c;
  c.rows_checked = std::int64_t(rows);
  std::vector<double> err(rows), nv(rows), mag(rows), floor(rows);
  double naive_sq = 0, mag_sq = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    double e2 = 0, n2 = 0, m2 = 0, f2 = 0;
    for (int d = 0; d < D; ++d) {
      const double want = ref[i * D + d], got = __half2float(out[std::size_t(offset(i)) + d]);
      const double e = std::isfinite(got) ? std::fabs(got - want) : std::numeric_limits<double>::infinity();
      const double n = std::fabs(double(naive[i * D + d]) - want);
      c.max_abs_err = std::max(c.max_abs_err, e);
      c.naive_max_abs_err = std::max(c.naive_max_abs_err, n);
      e2 += e * e, n2 += n * n, m2 += want * want;
      f2 += half_ulp_fp16(want) * half_ulp_fp16(want);
    }
    err[i] = std::sqrt(e2 / D), nv[i] = std::sqrt(n2 / D), mag[i] = std::sqrt(m2 / D);
    floor[i] = std::sqrt(f2 / D) + (inherited.empty() ? 0.0 : kInheritedSigmas * inherited[i]);
    naive_sq += n2, mag_sq += m2;
  }
  c.naive_rel_rms = mag_sq > 0 ? std::sqrt(naive_sq / mag_sq) : 0;
  c.worst_ratio = -1;
  for (std::size_t i = 0; i < rows; ++i) {
    const double tol = kBackwardErrFactor * std::max(nv[i], c.naive_rel_rms * mag[i]) + floor[i];
    const double ratio = std::isfinite(err[i]) ? err[i] / tol : std::numeric_limits<double>::infinity();
    if (ratio > c.worst_ratio) {
      c.worst_ratio = ratio, c.worst_rms_err = err[i], c.worst_tolerance_rms = tol;
      c.worst_row = name(i);
    }
  }
  c.worst_ratio = std::max(0.0, c.worst_ratio);
  return c;
}

std::int64_t count_nonfinite(const std::vector<__half>& out) {
  std::int64_t n = 0;
  for (__half h : out) n += !std::isfinite(__half2float(h));
  return n;
}

}  // namespace

BackwardCheck check_gradients(const Shape& s, const BackwardSample& x, const GradientSample& ref,
                              const std::vector<__half>& dq, const std::vector<__half>& dk,
                              const std::vector<__half>& dv) {
  BackwardCheck c;
  const auto row_at = [&](std::size_t i) { const RowRef& r = x.rows[i]; return q_offset(s, r.b, r.h, r.row); };
  const auto key_at = [&](std::size_t i) { const KeyRef& k = x.keys[i]; return kv_offset(s, k.b, k.kvh, k.key); };
  const auto row_name = [&](std::size_t i) {
    const RowRef& r = x.rows[i];
    return "b=" + std::to_string(r.b) + " h=" + std::to_string(r.h) + " row=" + std::to_string(r.row);
  };
  const auto key_name = [&](std::size_t i) {
    const KeyRef& k = x.keys[i];
    return "b=" + std::to_string(k.b) + " kvh=" + std::to_string(k.kvh) + " key=" + std::to_string(k.key);
  };
  c.dq = check_one(x.rows.size(), s.D, ref.dq, ref.naive_dq, ref.inherited_dq, dq, row_at, row_name);
  c.dk = check_one(x.keys.size(), s.D, ref.dk, ref.naive_dk, ref.inherited_dk, dk, key_at, key_name);
  c.dv = check_one(x.keys.size(), s.D, ref.dv, ref.naive_dv, {}, dv, key_at, key_name);
  c.worst_ratio = std::max({c.dq.worst_ratio, c.dk.worst_ratio, c.dv.worst_ratio});
  c.elements_scanned = std::int64_t(dq.size() + dk.size() + dv.size());
  c.nonfinite = count_nonfinite(dq) + count_nonfinite(dk) + count_nonfinite(dv);
  c.passed = !x.rows.empty() && !x.keys.empty() && c.nonfinite == 0 && c.worst_ratio <= 1.0;
  if (!c.passed) {
    std::ostringstream os;
    if (c.nonfinite > 0) os << c.nonfinite << " NaN/inf gradient elements; ";
    const std::pair<const char*, const GradientCheck*> all[] = {{"dQ", &c.dq}, {"dK", &c.dk}, {"dV", &c.dv}};
    const auto* worst = std::max_element(std::begin(all), std::end(all), [](const auto& a, const auto& b) {
      return a.second->worst_ratio < b.second->worst_ratio;
    });
    os << "worst " << worst->first << " row " << worst->second->worst_row << ": rms error "
       << worst->second->worst_rms_err << " against tolerance " << worst->second->worst_tolerance_rms;
    c.first_failure = os.str();
  }
  return c;
}

}  // namespace attnlab

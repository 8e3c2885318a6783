// fp64 reference attention, the naive fp16 yardstick and the comparison between them.
#include "experiments/harness/reference.hpp"

#include "experiments/harness/fp8_inputs.hpp"
#include "experiments/harness/parallel_for.hpp"
#include "record/constants.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <cstdio>
#include <fstream>
#include <limits>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace attnlab {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in (0, 1], never 0 so that log() stays finite.
double uniform_open0(std::uint64_t bits) { return (double((bits >> 11) + 1)) * 0x1.0p-53; }

void fill_normal(std::vector<__half>& out, std::int64_t n, std::uint64_t seed,
                 std::uint64_t stream, double sigma) {
  out.resize(std::size_t(n));
  parallel_for(n, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i)
      out[std::size_t(i)] =
          __double2half(sigma * normal_from_counter(seed, stream, std::uint64_t(i)));
  });
}

std::int64_t q_offset(const Shape& s, RowRef r) {
  return ((std::int64_t(r.b) * s.H + r.h) * s.S + r.row) * s.D;
}
std::int64_t kv_offset(const Shape& s, RowRef r, int key) {
  const int kvh = r.h / (s.H / s.H_kv);
  return ((std::int64_t(r.b) * s.H_kv + kvh) * s.S + key) * s.D;
}
int keys_visible(const Shape& s, RowRef r) { return s.causal ? r.row + 1 : s.S; }

}  // namespace

double normal_from_counter(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  // Box-Muller on two independent hashes of (seed, stream, index).
  const std::uint64_t base = splitmix64(seed ^ splitmix64(stream + 0x51ED270B27A1F3ull));
  const double u1 = uniform_open0(splitmix64(base ^ (2 * index)));
  const double u2 = uniform_open0(splitmix64(base ^ (2 * index + 1)));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

const char* inputs_name(Inputs d) {
  switch (d) {
    case Inputs::kWide: return "wide";
    case Inputs::kNegative: return "negative";
    case Inputs::kNormal: break;
  }
  return "normal";
}

std::optional<Inputs> parse_inputs(const std::string& name) {
  if (name == "normal") return Inputs::kNormal;
  if (name == "wide") return Inputs::kWide;
  if (name == "negative") return Inputs::kNegative;
  return std::nullopt;
}

std::vector<Inputs> default_gate_inputs() {
  return {Inputs::kNormal, Inputs::kWide, Inputs::kNegative};
}

std::string inputs_list_name(const std::vector<Inputs>& list) {
  std::string out;
  for (const Inputs d : list) out += (out.empty() ? "" : ",") + std::string(inputs_name(d));
  return out;
}

std::vector<Inputs> parse_inputs_list(const std::string& text) {
  std::vector<Inputs> list;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(',', begin);
    const std::string name = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    const auto d = parse_inputs(name);
    if (!d)
      throw std::invalid_argument("unknown input distribution '" + name +
                                  "'; expected a comma-separated list of normal, wide, negative");
    if (std::find(list.begin(), list.end(), *d) != list.end())
      throw std::invalid_argument("input distribution '" + name + "' named twice in --inputs");
    list.push_back(*d);
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return list;
}

std::uint64_t fresh_seed() {
  return (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
}

HostTensors make_inputs(const Shape& s, std::uint64_t seed, Inputs dist) {
  HostTensors t;
  fill_normal(t.q, s.q_elems(), seed, 0, dist == Inputs::kWide ? kWideQScale : 1.0);
  fill_normal(t.k, s.kv_elems(), seed, 1, 1.0);
  fill_normal(t.v, s.kv_elems(), seed, 2, 1.0);
  if (dist == Inputs::kNegative) {
    // scale * (-a u) . (a u) = -scale * a^2 = -kNegativeScoreMean; each of the D components of
    // a*u is a / sqrt(D).
    const double a = std::sqrt(kNegativeScoreMean / s.default_scale());
    const float shift = float(a / std::sqrt(double(s.D)));
    const auto add = [](std::vector<__half>& x, float by) {
      parallel_for(std::int64_t(x.size()), [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i)
          x[std::size_t(i)] = __float2half(__half2float(x[std::size_t(i)]) + by);
      });
    };
    add(t.q, -shift);
    add(t.k, shift);
  }
  return t;
}

std::vector<RowRef> rows_to_check(const Shape& s, std::uint64_t seed) {
  const std::int64_t rows = std::int64_t(s.B) * s.H * s.S;
  std::vector<RowRef> out;
  if (double(rows) * s.S * s.D <= kAllRowsBudget) {
    out.reserve(std::size_t(rows));
    for (int b = 0; b < s.B; ++b)
      for (int h = 0; h < s.H; ++h)
        for (int i = 0; i < s.S; ++i) out.push_back({b, h, i});
    return out;
  }
  std::set<std::int64_t> picked;  // flat row index, keeps the sample sorted and unique
  auto flat = [&](int b, int h, int i) { return (std::int64_t(b) * s.H + h) * s.S + i; };
  for (int i : {0, s.S - 1}) {
    picked.insert(flat(0, 0, i));
    picked.insert(flat(s.B - 1, s.H - 1, i));
  }
  std::uint64_t state = seed ^ 0xC0FFEEull;
  while (std::int64_t(picked.size()) < std::min<std::int64_t>(rows, kSampledRows + 4)) {
    state = splitmix64(state);
    picked.insert(std::int64_t(state % std::uint64_t(rows)));
  }
  for (std::int64_t f : picked)
    out.push_back({int(f / (std::int64_t(s.H) * s.S)), int((f / s.S) % s.H), int(f % s.S)});
  return out;
}

namespace {

// One row's scaled scores and softmax weights in fp64.
struct RowSoftmax {
  std::vector<double> scores, weights;
  double lse = 0;  // ln(sum_j exp(scores[j]))
};

RowSoftmax softmax_row(const Shape& s, const HostTensors& in, double scale, RowRef r) {
  const int n = keys_visible(s, r);
  const __half* q = &in.q[std::size_t(q_offset(s, r))];
  std::vector<double> qd(static_cast<std::size_t>(s.D));
  for (int d = 0; d < s.D; ++d) qd[std::size_t(d)] = __half2float(q[d]);
  RowSoftmax rs{std::vector<double>(static_cast<std::size_t>(n)),
                std::vector<double>(static_cast<std::size_t>(n))};
  double m = -std::numeric_limits<double>::infinity();
  for (int j = 0; j < n; ++j) {
    const __half* k = &in.k[std::size_t(kv_offset(s, r, j))];
    double dot = 0;
    for (int d = 0; d < s.D; ++d) dot += qd[std::size_t(d)] * double(__half2float(k[d]));
    rs.scores[std::size_t(j)] = dot * scale;
    m = std::max(m, rs.scores[std::size_t(j)]);
  }
  double l = 0;
  for (int j = 0; j < n; ++j) l += (rs.weights[std::size_t(j)] = std::exp(rs.scores[std::size_t(j)] - m));
  for (auto& w : rs.weights) w /= l;
  rs.lse = m + std::log(l);
  return rs;
}

// out[d] = sum_j weights[j] v_j[d].
void weighted_values(const Shape& s, const HostTensors& in, RowRef r, const RowSoftmax& rs,
                     double* out) {
  std::fill(out, out + s.D, 0.0);
  for (std::size_t j = 0; j < rs.weights.size(); ++j) {
    const __half* v = &in.v[std::size_t(kv_offset(s, r, int(j)))];
    for (int d = 0; d < s.D; ++d) out[d] += rs.weights[j] * double(__half2float(v[d]));
  }
}

}  // namespace

void reference_row(const Shape& s, const HostTensors& in, double scale, RowRef r, double* out) {
  weighted_values(s, in, r, softmax_row(s, in, scale, r), out);
}

double reference_lse_row(const Shape& s, const HostTensors& in, double scale, RowRef r) {
  return softmax_row(s, in, scale, r).lse;
}

namespace {

// A naive implementation's unnormalised weights of one row, exp(s_j - m) in fp32 from fp32 dot
// products (each scaled score rounded to fp16 where round_scores holds), and their sum l.
std::vector<float> naive_weights(const Shape& s, const HostTensors& in, float scale, RowRef r,
                                 bool round_scores, float& l) {
  const int n = keys_visible(s, r);
  const __half* q = &in.q[std::size_t(q_offset(s, r))];
  std::vector<float> p(static_cast<std::size_t>(n));
  float m = -std::numeric_limits<float>::infinity();
  for (int j = 0; j < n; ++j) {
    const __half* k = &in.k[std::size_t(kv_offset(s, r, j))];
    float dot = 0;
    for (int d = 0; d < s.D; ++d) dot += __half2float(q[d]) * __half2float(k[d]);
    const float sc = round_scores ? __half2float(__float2half(dot * scale)) : dot * scale;
    p[std::size_t(j)] = sc;
    m = std::max(m, sc);
  }
  l = 0;
  for (auto& x : p) l += (x = std::exp(x - m));
  return p;
}

}  // namespace

void naive_fp16_row(const Shape& s, const HostTensors& in, float scale, RowRef r, float* out) {
  const int n = keys_visible(s, r);
  float l = 0;
  const std::vector<float> p = naive_weights(s, in, scale, r, /*round_scores=*/true, l);
  std::fill(out, out + s.D, 0.0f);
  for (int j = 0; j < n; ++j) {
    const __half* v = &in.v[std::size_t(kv_offset(s, r, j))];
    const float w = __half2float(__float2half(p[std::size_t(j)] / l));
    for (int d = 0; d < s.D; ++d) out[d] += w * __half2float(v[d]);
  }
  for (int d = 0; d < s.D; ++d) out[d] = __half2float(__float2half(out[d]));
}

void naive_fp8_row(const Shape& s, const HostTensors& in, float scale, RowRef r, float* out) {
  const int n = keys_visible(s, r);
  float l = 0;
  const std::vector<float> p = naive_weights(s, in, scale, r, /*round_scores=*/false, l);
  std::fill(out, out + s.D, 0.0f);
  for (int j = 0; j < n; ++j) {
    const __half* v = &in.v[std::size_t(kv_offset(s, r, j))];
    const float w = float(e4m3_value(to_e4m3(double(p[std::size_t(j)]) * kP8Scale)) / kP8Scale);
    for (int d = 0; d < s.D; ++d) out[d] += w * __half2float(v[d]);
  }
  for (int d = 0; d < s.D; ++d) out[d] = __half2float(__float2half(out[d] / l));
}

double half_ulp_fp16(double x) {
  int e = 0;
  std::frexp(std::max(std::fabs(x), 0x1.0p-14), &e);  // |x| in [2^(e-1), 2^e)
  return std::ldexp(1.0, e - 12);                      // half of the spacing 2^(e-11)
}

namespace {

// One checked row's errors against the fp64 reference.
struct RowErrors {
  double max_abs = 0, max_rel = 0, naive_max_abs = 0;
  double rms = 0, tolerance_rms = 0;
  int worst_col = 0;
  double got = 0, want = 0;  // at worst_col
};

RowErrors row_errors(const Shape& s, const double* ref, const float* naive, const double* sigma,
                     const __half* got) {
  RowErrors r;
  double sq = 0, sigma_sq = 0, floor_sq = 0;
  r.max_abs = -1;
  for (int d = 0; d < s.D; ++d) {
    const double g = __half2float(got[d]), want = ref[d];
    const double err = std::isfinite(g) ? std::fabs(g - want) : std::numeric_limits<double>::infinity();
    const double naive_err = std::fabs(double(naive[d]) - want);
    if (err > r.max_abs) {
      r.max_abs = err;
      r.worst_col = d;
      r.got = g;
      r.want = want;
    }
    r.max_rel = std::max(r.max_rel, err / std::max(std::fabs(want), kRelFloor));
    r.naive_max_abs = std::max(r.naive_max_abs, naive_err);
    sq += err * err;
    sigma_sq += sigma[d] * sigma[d];
    floor_sq += half_ulp_fp16(want) * half_ulp_fp16(want);
  }
  r.rms = std::sqrt(sq / s.D);
  r.tolerance_rms = kErrFactor * std::sqrt(sigma_sq / s.D) + std::sqrt(floor_sq / s.D);
  return r;
}

std::int64_t count_nonfinite(const std::vector<__half>& out) {
  std::int64_t n = 0;
  for (__half h : out) n += !std::isfinite(__half2float(h));
  return n;
}

}  // namespace

namespace {

// expected_naive_error_row of a row whose fp64 softmax and output (reference_row's) are rs and o.
void naive_fp16_sigma(const Shape& s, const HostTensors& in, RowRef r, const RowSoftmax& rs, const double* o,
                      double* sigma) {
  // A rounding to a grid of spacing u is uniform on +-u/2: variance u^2 / 12.
  auto var = [](double x) { const double u = 2 * half_ulp_fp16(x); return u * u / 12; };
  std::fill(sigma, sigma + s.D, 0.0);
  for (std::size_t j = 0; j < rs.weights.size(); ++j) {
    const double pj = rs.weights[j];
    const double score_var = var(rs.scores[j]) * pj * pj;  // d p_j = p_j (d s_j) (v_j - o)
    const double weight_var = var(pj);                     // d o = (d p_j) v_j
    const __half* v = &in.v[std::size_t(kv_offset(s, r, int(j)))];
    for (int d = 0; d < s.D; ++d) {
      const double vd = __half2float(v[d]), dv = vd - o[d];
      sigma[d] += score_var * dv * dv + weight_var * vd * vd;
    }
  }
  for (int d = 0; d < s.D; ++d) sigma[d] = std::sqrt(sigma[d] + var(o[d]));
}

// expected_naive_fp8_error_row of a row whose fp64 softmax and output are rs and o.
void naive_fp8_sigma(const Shape& s, const HostTensors& in, RowRef r, const RowSoftmax& rs, const double* o,
                     double* sigma) {
  // The weights are quantised unnormalised: p_j = w_j / w_max (the row's largest is 1), and O
  // divides by l = 1 / w_max, so a rounding of p_j by e moves O by e * w_max * v_j.
  const double w_max = *std::max_element(rs.weights.begin(), rs.weights.end());
  std::fill(sigma, sigma + s.D, 0.0);
  for (std::size_t j = 0; j < rs.weights.size(); ++j) {
    const double u = e4m3_spacing(rs.weights[j] / w_max * kP8Scale) / kP8Scale * w_max;
    const double weight_var = u * u / 12;
    const __half* v = &in.v[std::size_t(kv_offset(s, r, int(j)))];
    for (int d = 0; d < s.D; ++d) {
      const double vd = __half2float(v[d]);
      sigma[d] += weight_var * vd * vd;
    }
  }
  for (int d = 0; d < s.D; ++d) {
    const double u = 2 * half_ulp_fp16(o[d]);
    sigma[d] = std::sqrt(sigma[d] + u * u / 12);
  }
}

// The expected error of grade's naive implementation, from the row's fp64 softmax and output.
void naive_sigma(Grade grade, const Shape& s, const HostTensors& in, RowRef r, const RowSoftmax& rs,
                 const double* o, double* sigma) {
  (grade == Grade::kFp8 ? naive_fp8_sigma : naive_fp16_sigma)(s, in, r, rs, o, sigma);
}

void expected_error_row(Grade grade, const Shape& s, const HostTensors& in, double scale, RowRef r,
                        double* sigma) {
  const RowSoftmax rs = softmax_row(s, in, scale, r);
  std::vector<double> o(static_cast<std::size_t>(s.D));
  weighted_values(s, in, r, rs, o.data());
  naive_sigma(grade, s, in, r, rs, o.data(), sigma);
}

}  // namespace

void expected_naive_error_row(const Shape& s, const HostTensors& in, double scale, RowRef r,
                              double* sigma) {
  expected_error_row(Grade::kFp16, s, in, scale, r, sigma);
}

void expected_naive_fp8_error_row(const Shape& s, const HostTensors& in, double scale, RowRef r,
                                  double* sigma) {
  expected_error_row(Grade::kFp8, s, in, scale, r, sigma);
}

CheckResult check_output(const Shape& s, const HostTensors& in, double scale,
                         const std::vector<__half>& out, const std::vector<RowRef>& rows, Grade grade) {
  struct Worst {
    double ratio = -1, abs = 0, rel = 0, naive = 0;  // ratio < 0: no row seen yet
    RowRef where{};
    RowErrors row;
  };
  std::mutex mu;
  Worst total;
  parallel_for(std::int64_t(rows.size()), [&](std::int64_t b, std::int64_t e) {
    Worst w;
    std::vector<double> ref(std::size_t(s.D));
    std::vector<float> naive(std::size_t(s.D));
    std::vector<double> sigma(std::size_t(s.D));
    for (std::int64_t i = b; i < e; ++i) {
      const RowRef r = rows[std::size_t(i)];
      // The row's fp64 softmax once, for its reference (reference_row) and its expected naive
      // error (expected_naive_*_error_row), which each compute it on their own.
      const RowSoftmax rs = softmax_row(s, in, scale, r);
      weighted_values(s, in, r, rs, ref.data());
      (grade == Grade::kFp8 ? naive_fp8_row : naive_fp16_row)(s, in, float(scale), r, naive.data());
      naive_sigma(grade, s, in, r, rs, ref.data(), sigma.data());
      const RowErrors re =
          row_errors(s, ref.data(), naive.data(), sigma.data(), &out[std::size_t(q_offset(s, r))]);
      const double ratio = std::isfinite(re.rms) ? re.rms / re.tolerance_rms
                                                 : std::numeric_limits<double>::infinity();
      if (ratio > w.ratio) {
        w.ratio = ratio;
        w.where = r;
        w.row = re;
      }
      w.abs = std::max(w.abs, re.max_abs);
      w.rel = std::max(w.rel, re.max_rel);
      w.naive = std::max(w.naive, re.naive_max_abs);
    }
    std::lock_guard<std::mutex> lock(mu);
    if (w.ratio > total.ratio) {
      total.ratio = w.ratio;
      total.where = w.where;
      total.row = w.row;
    }
    total.abs = std::max(total.abs, w.abs);
    total.rel = std::max(total.rel, w.rel);
    total.naive = std::max(total.naive, w.naive);
  });
  CheckResult c;
  c.max_abs_err = total.abs;
  c.max_rel_err = total.rel;
  c.naive_max_abs_err = total.naive;
  c.row_rms_err = total.row.rms;
  c.row_tolerance_rms = total.row.tolerance_rms;
  c.row_err_ratio = std::max(0.0, total.ratio);
  c.rows_checked = std::int64_t(rows.size());
  c.elements_scanned = std::int64_t(out.size());
  c.nonfinite = count_nonfinite(out);
  c.passed = !rows.empty() && c.nonfinite == 0 && total.ratio <= 1.0;
  if (!c.passed) {
    std::ostringstream os;
    if (c.nonfinite > 0) os << c.nonfinite << " NaN/inf output elements; ";
    os << "worst row b=" << total.where.b << " h=" << total.where.h << " row=" << total.where.row
       << ": rms error " << c.row_rms_err << " against tolerance " << c.row_tolerance_rms
       << ", worst element d=" << total.row.worst_col << " got " << total.row.got
       << ", reference " << total.row.want;
    c.first_failure = os.str();
  }
  return c;
}

LseCheck check_lse(const Shape& s, const HostTensors& in, double scale, const std::vector<float>& lse,
                   const std::vector<RowRef>& rows) {
  // Each row's error and its ratio to the bound, in row order (the worst row is then the same
  // whatever the thread count).
  std::vector<double> err(rows.size()), ratio(rows.size()), want(rows.size());
  parallel_for(std::int64_t(rows.size()), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) {
      const RowRef r = rows[std::size_t(i)];
      const double ref = reference_lse_row(s, in, scale, r);
      const double got = lse[std::size_t((std::int64_t(r.b) * s.H + r.h) * s.S + r.row)];
      const double d = std::fabs(got - ref);
      const bool finite = std::isfinite(got);
      want[std::size_t(i)] = ref;
      err[std::size_t(i)] = finite ? d : std::numeric_limits<double>::infinity();
      ratio[std::size_t(i)] = finite ? d / (kLseAbsTol + kLseRelTol * std::fabs(ref))
                                     : std::numeric_limits<double>::infinity();
    }
  });
  LseCheck c;
  c.rows_checked = std::int64_t(rows.size());
  c.elements_scanned = std::int64_t(lse.size());
  c.nonfinite = std::count_if(lse.begin(), lse.end(), [](float x) { return !std::isfinite(x); });
  std::size_t worst = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    c.max_abs_err = std::max(c.max_abs_err, err[i]);
    if (ratio[i] > ratio[worst]) worst = i;
  }
  if (!rows.empty()) c.worst_ratio = ratio[worst];
  c.passed = !rows.empty() && c.nonfinite == 0 && c.worst_ratio <= 1.0;
  if (!c.passed) {
    std::ostringstream os;
    os << "LSE: ";
    if (c.nonfinite > 0) os << c.nonfinite << " NaN/inf of " << c.elements_scanned << "; ";
    if (!rows.empty()) {
      const RowRef r = rows[worst];
      os << "worst row b=" << r.b << " h=" << r.h << " row=" << r.row << " got "
         << lse[std::size_t((std::int64_t(r.b) * s.H + r.h) * s.S + r.row)] << ", reference " << want[worst]
         << " (error " << err[worst] << ", " << ratio[worst] << " times its bound)";
    }
    c.first_failure = os.str();
  }
  return c;
}

Correctness correctness_block(const CheckResult& c, const Shape& s, Inputs inputs) {
  Correctness corr;
  corr.passed = c.passed;
  corr.max_abs_err = c.max_abs_err;
  corr.max_rel_err = c.max_rel_err;
  corr.tolerance_abs = c.row_tolerance_rms;
  corr.naive_fp16_max_abs_err = c.naive_max_abs_err;
  corr.rows_checked = c.rows_checked;
  corr.rows_total = std::int64_t(s.B) * s.H * s.S;
  corr.nonfinite = c.nonfinite;
  corr.rule = kRowRmsRule;
  corr.inputs = inputs_name(inputs);
  corr.row_rms_err = c.row_rms_err;
  corr.row_err_ratio = c.row_err_ratio;
  corr.elements_scanned = c.elements_scanned;
  if (!c.passed) corr.failure = c.first_failure;
  return corr;
}

double rms_error(const Shape& s, const HostTensors& in, double scale, const std::vector<__half>& out,
                 const std::vector<RowRef>& rows) {
  // Per row, then summed in row order: the same figure whatever the thread count.
  std::vector<double> row_sq(rows.size());
  parallel_for(std::int64_t(rows.size()), [&](std::int64_t b, std::int64_t e) {
    std::vector<double> ref(std::size_t(s.D));
    for (std::int64_t i = b; i < e; ++i) {
      const RowRef r = rows[std::size_t(i)];
      reference_row(s, in, scale, r, ref.data());
      const __half* got = &out[std::size_t(q_offset(s, r))];
      double sq = 0;
      for (int d = 0; d < s.D; ++d) {
        const double err = double(__half2float(got[d])) - ref[std::size_t(d)];
        sq += err * err;
      }
      row_sq[std::size_t(i)] = sq;
    }
  });
  double sq = 0;
  for (double x : row_sq) sq += x;
  const double rms = std::sqrt(sq / (double(rows.size()) * s.D));
  return std::isfinite(rms) ? rms : std::numeric_limits<double>::infinity();
}

Footprint footprint(const Shape& s, bool with_fp8) {
  constexpr std::uint64_t kHalf = sizeof(__half);
  const auto q = std::uint64_t(s.q_elems());
  const auto kv = std::uint64_t(s.kv_elems());
  Footprint f{(2 * q + 2 * kv) * kHalf, (q + 2 * kv + 3 * q) * kHalf};
  if (with_fp8) {
    const std::uint64_t codes = q + 2 * kv;  // one byte each
    f.device_bytes += codes;
    f.host_bytes += codes + codes * kHalf;
  }
  return f;
}

std::optional<std::string> memory_refusal(const Shape& s, std::uint64_t device_free,
                                          std::uint64_t host_available, bool with_fp8) {
  return memory_refusal(footprint(s, with_fp8), "Q, K, V and O", device_free, host_available);
}

std::optional<std::string> memory_refusal(const Footprint& f, const std::string& device_holds,
                                          std::uint64_t device_free, std::uint64_t host_available) {
  auto gib = [](std::uint64_t b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(b) / double(1ull << 30));
    return std::string(buf);
  };
  if (f.device_bytes > device_free)
    return "it needs " + gib(f.device_bytes) + " of device memory for " + device_holds + "; the GPU has " +
           gib(device_free) + " free";
  if (f.host_bytes > host_available)
    return "it needs " + gib(f.host_bytes) + " of host memory for the inputs and the checked "
           "outputs; the host has " + gib(host_available) + " available";
  return std::nullopt;
}

std::uint64_t host_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (meminfo >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return std::uint64_t(sysconf(_SC_AVPHYS_PAGES)) * std::uint64_t(sysconf(_SC_PAGESIZE));
}

}  // namespace attnlab

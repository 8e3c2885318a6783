// Claim verdicts and run comparisons by separation of p10-p90 intervals (see judge.hpp).
#include "reports/judge.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "common/shapes.hpp"
#include "record/metrics.hpp"
#include "reports/format.hpp"
#include "reports/paired_view.hpp"

namespace attnlab::report {
namespace {

std::vector<std::string> pointer_tokens(const std::string& ptr) {
  std::vector<std::string> out;
  std::size_t start = 1;
  while (start <= ptr.size()) {
    const std::size_t slash = ptr.find('/', start);
    const std::size_t end = slash == std::string::npos ? ptr.size() : slash;
    out.push_back(ptr.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string samples_spread(const Regime& g) {
  return "p10-p90 of " + std::to_string(g.count) + " " + g.name + " samples";
}

// What a device time's interval is: "busy; p10-p90 of 12 cold samples".
std::string time_spread(const DeviceTime& t, const Regime& g) {
  return basis_words(t) + "; " +
         (t.has_interval() ? samples_spread(g) : "of " + std::to_string(g.count) + " " + g.name + " samples");
}

// Device time: [p10, p90] of the samples, and what the time is.
Measure time_measure(const Result& r, const Regime& g) {
  const DeviceTime t = device_time(r, g);
  Measure m{t.median_ns, t.p10_ns, t.p90_ns, "ns", time_spread(t, g)};
  if (!t.has_interval()) m.wide = std::make_pair(t.wide_p10_ns, t.wide_p90_ns);
  return m;
}

// Work per device time (TFLOPS, GB/s) at the median, its interval from the same p10/p90.
Measure rate_measure(const Result& r, const Regime& g, double recorded, const std::string& unit) {
  const DeviceTime t = device_time(r, g);
  Measure m{t.rate_at(g, recorded, t.median_ns), t.rate_at(g, recorded, t.p90_ns),
            t.rate_at(g, recorded, t.p10_ns), unit, time_spread(t, g)};
  if (!t.has_interval())
    m.wide = std::make_pair(t.rate_at(g, recorded, t.wide_p90_ns), t.rate_at(g, recorded, t.wide_p10_ns));
  return m;
}

std::string why_absent(const Result& r, const std::vector<std::string>& tok,
                       const std::string& ptr) {
  const std::string& top = tok.front();
  if (top == "metrics") {
    if (!r.metrics) return "not measured: this record has no hardware metrics";
    if (tok.size() > 1) {
      const GroupResult* g = r.group(tok[1]);
      if (!g) return "not measured: metric group " + tok[1] + " was not collected";
      if (!g->available) return "not measured: metric group " + tok[1] + " unavailable: " + g->reason;
    }
    return "not measured: " + ptr + " is not in the record";
  }
  if ((top == "static" && !r.static_evidence) || (top == "derived" && !r.derived))
    return "not measured: this record has no " + top + " evidence";
  return "not measured: " + ptr + " is not in the record";
}

const char* relation_words(Relation r, bool points) {
  switch (r) {
    case Relation::kBelow: return points ? "below" : "separated, below";
    case Relation::kAbove: return points ? "above" : "separated, above";
    default: return points ? "equal" : "intervals overlap";
  }
}

struct Decision {
  Verdict verdict;
  std::string reason;
};

// The one rule (judge.hpp): a difference within the noise is never SUPPORTED. Overlapping
// intervals neither show nor disprove any claim over measured intervals, whatever the operator;
// only points (counts, counters) are compared exactly.
Decision decide(const std::string& op, Relation rel, bool points) {
  const std::string seen = relation_words(rel, points);
  const Decision ok{Verdict::kSupported, seen + ": as claimed"};
  const Decision against{Verdict::kRefuted, seen + ": against the claim"};
  if (!points && rel == Relation::kOverlap)
    return {Verdict::kInconclusive,
            "within noise (" + seen + "): a difference within the noise is never SUPPORTED"};
  if (op == "<") return rel == Relation::kBelow ? ok : against;
  if (op == ">") return rel == Relation::kAbove ? ok : against;
  if (op == "<=") return rel == Relation::kAbove ? against : ok;
  if (op == ">=") return rel == Relation::kBelow ? against : ok;
  // "==" on points.
  return rel == Relation::kOverlap ? ok : against;
}

// within_pct: SUPPORTED only when the whole interval lies inside the band (the right side +/-
// the tolerance), REFUTED when separated from it; an interval that straddles an edge of the
// band is within the noise of it.
Decision decide_band(const std::pair<double, double>& m, const std::pair<double, double>& b) {
  if (m.second < b.first || m.first > b.second)
    return {Verdict::kRefuted, std::string(m.second < b.first ? "separated, below" : "separated, above") +
                                   " the band: against the claim"};
  if (m.first >= b.first && m.second <= b.second)
    return {Verdict::kSupported, "inside the band: as claimed"};
  return {Verdict::kInconclusive,
          "within noise (the interval straddles an edge of the band): a difference within the "
          "noise is never SUPPORTED"};
}

// The interval a within_pct claim's value must lie in: the right side +/- the tolerance.
std::pair<double, double> band(const Claim& c, const Measure& rhs, bool widest) {
  const auto [lo, hi] = rhs.interval(widest);
  if (c.op != "within_pct") return {lo, hi};
  const double t = c.tolerance_pct / 100.0;
  return {std::min(lo * (1 - t), lo * (1 + t)), std::max(hi * (1 - t), hi * (1 + t))};
}

// The verdict of claim `c` on `m` against `rhs`, on their wide intervals where `widest`.
Decision decide_claim(const Claim& c, const Measure& m, const Measure& rhs, bool widest) {
  if (c.op == "within_pct") return decide_band(m.interval(widest), band(c, rhs, widest));
  const bool points = m.spread.empty() && rhs.spread.empty();
  const auto [m_lo, m_hi] = m.interval(widest);
  const auto [b_lo, b_hi] = band(c, rhs, widest);
  return decide(c.op, relate(m_lo, m_hi, b_lo, b_hi), points);
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kSupported: return "SUPPORTED";
    case Verdict::kRefuted: return "REFUTED";
    case Verdict::kInconclusive: return "INCONCLUSIVE";
    default: return "NOT TESTED";
  }
}

Measure Measure::scaled(double f) const {
  Measure m = *this;
  m.value *= f;
  m.lo = std::min(lo * f, hi * f);
  m.hi = std::max(lo * f, hi * f);
  if (wide) m.wide = std::make_pair(std::min(wide->first * f, wide->second * f),
                                    std::max(wide->first * f, wide->second * f));
  return m;
}

std::string Measure::describe() const {
  if (spread.empty()) return with_unit(value, unit);
  if (lo == hi) return with_unit(value, unit) + " (" + spread + ")";
  if (unit == "ns") {
    const char* u = time_unit(value);
    const int d = resolving_digits({in_unit(lo, u), in_unit(value, u), in_unit(hi, u)});
    return duration_in(value, u, d) + " (" + spread + ": " + duration_range(lo, hi, value) + ")";
  }
  const int d = resolving_digits({lo, value, hi});
  return sig(value, d) + (unit.empty() ? "" : " " + unit) + " (" + spread + ": " + sig(lo, d) +
         "-" + sig(hi, d) + (unit.empty() ? "" : " " + unit) + ")";
}

namespace {

// A timing or throughput at device time: /tflops and /dram_gbps_min_bytes (the headline
// regime), /timing/<regime>/ median_ns, busy_median_ns, tflops or dram_gbps_min_bytes;
// nullopt for any other pointer, which is read from the record as it stands.
std::optional<Lookup> device_time_metric(const Result& r, const std::vector<std::string>& tok,
                                         const std::string& ptr) {
  const bool headline = tok.size() == 1 && (tok[0] == "tflops" || tok[0] == "dram_gbps_min_bytes");
  if (tok[0] != "timing" && !headline) return std::nullopt;
  if (!r.timed())
    return Lookup{std::nullopt, "not measured: the shape was not timed (" + r.untimed_reason() + ")"};
  if (!headline && tok.size() < 2) return Lookup{std::nullopt, "metric " + ptr + " names no timing regime"};
  const Regime* g = headline ? r.headline() : r.regime(tok[1]);
  if (!g) return Lookup{std::nullopt, "not measured: the " + tok[1] + " regime was not run"};
  if (!headline && tok.size() != 3) return std::nullopt;
  const std::string& leaf = tok.back();
  if (leaf == "median_ns" || leaf == "busy_median_ns") return Lookup{time_measure(r, *g), ""};
  if (leaf == "tflops") return Lookup{rate_measure(r, *g, g->tflops, "TFLOPS"), ""};
  if (leaf == "dram_gbps_min_bytes") return Lookup{rate_measure(r, *g, g->dram_gbps_min_bytes, "GB/s"), ""};
  return std::nullopt;
}

}  // namespace

Lookup measure_metric(const Result& r, const std::string& ptr) {
  const auto tok = pointer_tokens(ptr);
  if (ptr.empty() || ptr.front() != '/' || tok.empty()) return {std::nullopt, "metric " + ptr + " is not a JSON pointer"};
  if (auto l = device_time_metric(r, tok, ptr)) return *l;
  const ordered_json* j = find(r.json, ptr);
  if (!j || j->is_null()) return {std::nullopt, why_absent(r, tok, ptr)};
  double v = 0;
  if (j->is_boolean()) v = j->get<bool>() ? 1 : 0;
  else if (j->is_number()) v = j->get<double>();
  else return {std::nullopt, "metric " + ptr + " is not a number in the record"};
  std::string unit;
  if (tok.size() >= 2 && tok.back() == "value") {
    const ordered_json* u = find(r.json, ptr.substr(0, ptr.size() - 5) + "unit");
    if (u && u->is_string()) unit = u->get<std::string>();
  } else if (tok.back().size() > 3 && tok.back().compare(tok.back().size() - 3, 3, "_ns") == 0) {
    unit = "ns";
  }
  return {Measure{v, v, v, unit, ""}, ""};
}

Relation relate(double a_lo, double a_hi, double b_lo, double b_hi) {
  if (a_hi < b_lo) return Relation::kBelow;
  if (a_lo > b_hi) return Relation::kAbove;
  return Relation::kOverlap;
}


namespace {

// Whether `r` wins over `best` among equally good candidates: the newer, then the path, so the
// choice never depends on load order.
bool newer(const Run& r, const Run& best) {
  return r.time_key() > best.time_key() || (r.time_key() == best.time_key() && r.file < best.file);
}

// An ok record of `phase` on `gpu` that `accept` (when given) accepts.
bool candidate(const Run& r, const std::string& phase, const std::string& gpu,
               const std::function<bool(const Run&)>& accept) {
  return r.phase == phase && r.status == "ok" && r.gpu_name() == gpu && (!accept || accept(r));
}

}  // namespace

const Run* newest_ok(const std::vector<Run>& runs, const std::string& phase,
                     const std::string& gpu, const std::function<bool(const Run&)>& accept) {
  const Run* best = nullptr;
  for (const auto& r : runs) {
    if (candidate(r, phase, gpu, accept) && (!best || newer(r, *best))) best = &r;
  }
  return best;
}

const Run* nearest_ok(const std::vector<Run>& runs, const Run& to, const std::string& phase,
                      const std::function<bool(const Run&)>& accept) {
  const auto when = to.start_seconds();
  if (!when) return newest_ok(runs, phase, to.gpu_name(), accept);
  const Run* best = nullptr;
  long long best_gap = 0;
  for (const auto& r : runs) {
    if (!candidate(r, phase, to.gpu_name(), accept)) continue;
    const auto t = r.start_seconds();
    if (!t) continue;
    const long long gap = *t > *when ? *t - *when : *when - *t;
    if (!best || gap < best_gap || (gap == best_gap && newer(r, *best))) {
      best = &r;
      best_gap = gap;
    }
  }
  return best;
}

namespace {

// The record a claim of `to` against `phase` compares with (see judge.hpp), and why that one.
struct Partner {
  const Run* run = nullptr;
  std::string because;
};

Partner partner(const std::vector<Run>& runs, const Run& to, const std::string& phase,
                const std::function<bool(const Run&)>& accept) {
  const std::string session = session_key(to, runs);
  auto same_gpu = [&](const Run& r) { return r.gpu_uuid() == to.gpu_uuid() && accept(r); };
  if (const Run* p = nearest_ok(runs, to, phase, [&](const Run& r) {
        return same_gpu(r) && session_key(r, runs) == session;
      }))
    return {p, "same GPU and session"};
  if (const Run* p = newest_ok(runs, phase, to.gpu_name(), same_gpu))
    return {p, "same GPU, another session: the newest"};
  if (const Run* p = newest_ok(runs, phase, to.gpu_name(), accept))
    return {p, "another GPU of this model, the newest: none on this GPU"};
  return {};
}

Judgement not_tested(Judgement out, const std::string& why) {
  out.verdict = Verdict::kNotTested;
  out.evidence = why;
  return out;
}

// A paired claim: the wall-time ratio interval of the paired A/B record of the run's
// session (paired_for: else the newest) against the claimed factor. The A/B records sit under
// the run's results root, <root>/ab/.
Judgement judge_paired(const Claim& c, const Run& run, const std::string& shape) {
  Judgement out;
  out.claim = c;
  const auto chosen = paired_for(run.dir.parent_path().parent_path(), c.paired_against, shape, run);
  if (!chosen)
    return not_tested(out, "no ok paired A/B record of " + run.phase + " against " + c.paired_against +
                               " at shape " + shape + " on " + run.gpu_name() + " in this results root's ab/ "
                               "(make ab A=" + run.phase + " B=" + c.paired_against + ")");
  const PairedResult* const p = &chosen->result;
  const paired::RatioEstimate& w = p->shape.wall->estimate;
  out.verdict = w.lo >= c.factor ? Verdict::kSupported
                : w.hi < c.factor ? Verdict::kRefuted
                                  : Verdict::kInconclusive;
  std::string cycles = "cycles withheld";
  if (const auto& cy = p->shape.cycles)
    cycles = "cycles " + sig(cy->estimate.median, 4) + "x (95% CI " + sig(cy->estimate.lo, 4) + "-" +
             sig(cy->estimate.hi, 4) + ")";
  const std::string elsewhere = paired_elsewhere(*p, run, "this record's");
  out.evidence = "paired A/B record " + p->file.parent_path().filename().string() + " (" + chosen->because +
                 (elsewhere.empty() ? "" : "; judged by another commit's or board's A/B: " + elsewhere) + "; " +
                 std::to_string(w.pairs) + " pairs in " + std::to_string(w.blocks) +
                 " blocks, " + kAbConvention + "): wall time " + paired_cell(p->shape) + ", " + cycles +
                 "; claimed the wall-time interval at or above " + sig(c.factor, 4) + ". Verdict: " +
                 (out.verdict == Verdict::kSupported ? "its lower bound is at or above it"
                  : out.verdict == Verdict::kRefuted ? "its upper bound is below it"
                                                     : "the interval contains it") + ".";
  return out;
}

// The claimed side of a comparison, and how the evidence names it.
struct Side {
  Measure measure;
  std::string text;
};

// The claim's stated value, or the other phase's measure of the metric at the shape times the
// factor; none, with `out` NOT TESTED, where no record gives it. `unit`: the claiming side's.
std::optional<Side> claimed_side(const Claim& c, const Run& run, const std::vector<Run>& root_runs,
                                 const std::string& shape, const std::string& unit, Judgement& out) {
  if (c.value) {
    Side s{Measure{*c.value, *c.value, *c.value, unit, ""}, ""};
    s.text = plain(*c.value) + (unit.empty() ? "" : " " + unit) + " (stated" +
             (c.source.empty() ? "" : "; source: " + c.source) + ")";
    return s;
  }
  // The record of the other phase that measured the claim's metric at the shape, so a record
  // of other shapes (or a --check-only one) does not hide it; failing that, one with the shape
  // at all, whose result says why it cannot be compared (judge.hpp: which one).
  Partner p = partner(root_runs, run, c.other_phase, [&](const Run& r) {
    const Result* res = r.result(shape);
    return res && measure_metric(*res, c.metric).measure.has_value();
  });
  if (!p.run)
    p = partner(root_runs, run, c.other_phase, [&](const Run& r) { return r.result(shape) != nullptr; });
  out.compared = p.run;
  out.compared_because = p.because;
  if (!out.compared) {
    out = not_tested(out, "no ok record of phase " + c.other_phase + " on " + run.gpu_name() +
                              " with a result at shape " + shape + " in this results root");
    return std::nullopt;
  }
  const Run& other = *out.compared;
  const Lookup l = measure_metric(*other.result(shape), c.metric);
  if (!l.measure) {
    out = not_tested(out, "phase " + c.other_phase + " record " + other.id() + " (" + p.because + "): " + l.missing);
    return std::nullopt;
  }
  Side s{l.measure->scaled(c.factor), ""};
  s.text = "phase " + c.other_phase + " (" + other.id() + ": " + p.because + ") " + l.measure->describe();
  if (c.factor != 1.0) s.text += " x " + plain(c.factor) + " = " + with_unit(s.measure.value, s.measure.unit);
  return s;
}

// The claim decided on single values; where either side is a busy median without its p10-p90,
// the verdict stands only if it also holds were the busy time to spread as its span does.
Decision decide_with_spread(const Claim& c, const Measure& m, const Measure& rhs) {
  const Decision d = decide_claim(c, m, rhs, false);
  if (!m.wide && !rhs.wide) return d;
  const Decision w = decide_claim(c, m, rhs, true);
  if (w.verdict == d.verdict) return d;
  return {Verdict::kInconclusive, "depends on the busy time's p10-p90, which the record does "
                                  "not give: as a single value, " + d.reason +
                                  "; spread as its span, " + w.reason};
}

}  // namespace

bool needs_root(const Run& run) {
  for (const auto& c : run.claims)
    if (!c.other_phase.empty() || !c.paired_against.empty()) return true;
  return false;
}

Judgement judge_claim(const Claim& c, const Run& run, const std::vector<Run>& root_runs) {
  const std::string shape = shape_name(parse_shape(c.shape));
  if (!c.paired_against.empty()) return judge_paired(c, run, shape);
  Judgement out;
  out.claim = c;
  const Result* mine = run.result(shape);
  if (!mine) return not_tested(out, "this record has no result at shape " + shape);
  const Lookup lhs = measure_metric(*mine, c.metric);
  if (!lhs.measure) return not_tested(out, "phase " + run.phase + ": " + lhs.missing);
  const Measure& m = *lhs.measure;
  const std::optional<Side> side = claimed_side(c, run, root_runs, shape, m.unit, out);
  if (!side) return out;
  const Measure& rhs = side->measure;
  std::string rhs_text = side->text;
  if (c.op == "within_pct") {
    const auto [b_lo, b_hi] = band(c, rhs, false);
    rhs_text = "the band " + sig(b_lo) + "-" + with_unit(b_hi, rhs.unit) + ", " + rhs_text +
               " +/- " + plain(c.tolerance_pct) + "%";
  }
  const Decision d = decide_with_spread(c, m, rhs);
  out.verdict = d.verdict;
  const std::string op_text = c.op == "within_pct" ? "within" : c.op;
  out.evidence = "phase " + run.phase + " " + m.describe() + "; claimed " + op_text + " " +
                 rhs_text;
  // "claimed-side ratio", not "ratio": the side-by-side table's time ratio is another quantity.
  if (c.other_phase.size() && rhs.value != 0)
    out.evidence += "; measured / claimed side " + sig(m.value / rhs.value, 3);
  out.evidence += ". Verdict: " + d.reason + ".";
  return out;
}

std::vector<Judgement> judge_claims(const Run& run, const std::vector<Run>& root_runs) {
  std::vector<Judgement> out;
  for (const auto& c : run.claims) out.push_back(judge_claim(c, run, root_runs));
  return out;
}

const char* change_name(Change c) {
  switch (c) {
    case Change::kFaster: return "FASTER";
    case Change::kSlower: return "SLOWER";
    default: return "SAME";
  }
}

std::string device_time_cell(const DeviceTime& t) {
  const std::string value = t.has_interval() ? median_and_range(t.median_ns, t.p10_ns, t.p90_ns)
                                             : duration(t.median_ns) + " (p10-p90 not recorded)";
  return value + basis_marker(t.basis) + span_beside(t);
}

Change compare_times(const DeviceTime& a, const DeviceTime& b) {
  // Widest intervals: SAME unless separated however a busy median without p10-p90 spreads.
  switch (relate(b.wide_p10_ns, b.wide_p90_ns, a.wide_p10_ns, a.wide_p90_ns)) {
    case Relation::kBelow: return Change::kFaster;
    case Relation::kAbove: return Change::kSlower;
    default: return Change::kSame;
  }
}

}  // namespace attnlab::report

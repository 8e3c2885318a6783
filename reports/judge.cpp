// Claim verdicts and run comparisons by separation of p10-p90 intervals (see judge.hpp).
#include "reports/judge.hpp"

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <optional>
#include <stdexcept>

#include "common/shapes.hpp"
#include "reports/format.hpp"

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

// Time: [p10, p90] of the samples.
Measure time_measure(const Regime& g) {
  return {g.median_ns, g.p10_ns, g.p90_ns, "ns", samples_spread(g)};
}

// Work per time (TFLOPS, GB/s) at the median, its interval from the same samples' p10/p90.
Measure rate_measure(const Regime& g, double at_median, const std::string& unit) {
  return {at_median, at_median * g.median_ns / g.p90_ns, at_median * g.median_ns / g.p10_ns,
          unit, "from " + samples_spread(g)};
}

std::string why_absent(const Result& r, const std::vector<std::string>& tok,
                       const std::string& ptr) {
  const ordered_json& j = r.json;
  const std::string& top = tok.front();
  if (top == "metrics") {
    if (!j.contains("metrics") || j["metrics"].is_null())
      return "not measured: this record has no hardware metrics";
    if (tok.size() > 1) {
      const ordered_json* g = find(j, "/metrics/" + tok[1]);
      if (!g || g->is_null()) return "not measured: metric group " + tok[1] + " was not collected";
      if (g->is_object() && g->contains("available") && (*g)["available"] == false) {
        const ordered_json* why = find(*g, "/reason");
        return "not measured: metric group " + tok[1] + " unavailable" +
               (why && why->is_string() ? ": " + why->get<std::string>() : "");
      }
    }
    return "not measured: " + ptr + " is not in the record";
  }
  if (top == "static" || top == "derived") {
    if (!j.contains(top) || j[top].is_null())
      return "not measured: this record has no " + top + " evidence";
  }
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

Decision decide(const std::string& op, Relation rel, bool points) {
  const std::string seen = relation_words(rel, points);
  const Decision ok{Verdict::kSupported, seen + ": as claimed"};
  const Decision against{Verdict::kRefuted, seen + ": against the claim"};
  const Decision noise{Verdict::kRefuted,
                       points ? seen + ": not strictly as claimed"
                              : "within noise (" + seen + "): a strict difference needs separation"};
  if (op == "<") return rel == Relation::kBelow ? ok : rel == Relation::kOverlap ? noise : against;
  if (op == ">") return rel == Relation::kAbove ? ok : rel == Relation::kOverlap ? noise : against;
  if (op == "<=") {
    if (rel == Relation::kAbove) return against;
    return rel == Relation::kOverlap && !points
               ? Decision{Verdict::kSupported, "equal within noise (" + seen + "), which <= allows"}
               : ok;
  }
  if (op == ">=") {
    if (rel == Relation::kBelow) return against;
    return rel == Relation::kOverlap && !points
               ? Decision{Verdict::kSupported, "equal within noise (" + seen + "), which >= allows"}
               : ok;
  }
  // "==" and "within_pct" (where the right side is the band).
  return rel == Relation::kOverlap ? ok : against;
}

bool valid_op(const std::string& op) {
  return op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "within_pct";
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kSupported: return "SUPPORTED";
    case Verdict::kRefuted: return "REFUTED";
    default: return "NOT TESTED";
  }
}

Measure Measure::scaled(double f) const {
  Measure m = *this;
  m.value *= f;
  m.lo = std::min(lo * f, hi * f);
  m.hi = std::max(lo * f, hi * f);
  return m;
}

std::string Measure::describe() const {
  if (spread.empty()) return with_unit(value, unit);
  if (unit == "ns") {
    const char* u = time_unit(value);
    const int d = resolving_digits({in_unit(lo, u), in_unit(value, u), in_unit(hi, u)});
    return duration_in(value, u, d) + " (" + spread + ": " + duration_range(lo, hi, value) + ")";
  }
  const int d = resolving_digits({lo, value, hi});
  return sig(value, d) + (unit.empty() ? "" : " " + unit) + " (" + spread + ": " + sig(lo, d) +
         "-" + sig(hi, d) + (unit.empty() ? "" : " " + unit) + ")";
}

Lookup measure_metric(const Result& r, const std::string& ptr) {
  const auto tok = pointer_tokens(ptr);
  if (ptr.empty() || ptr.front() != '/' || tok.empty()) return {std::nullopt, "metric " + ptr + " is not a JSON pointer"};
  const bool rate_headline = tok.size() == 1 && (tok[0] == "tflops" || tok[0] == "dram_gbps_min_bytes");
  if (tok[0] == "timing" || rate_headline) {
    if (!r.timed())
      return {std::nullopt, "not measured: the shape was not timed (" + r.untimed_reason() + ")"};
    if (rate_headline) {
      const Regime& g = *r.headline_regime();
      return {tok[0] == "tflops" ? rate_measure(g, g.tflops, "TFLOPS") : rate_measure(g, g.dram_gbps_min_bytes, "GB/s"), ""};
    }
    if (tok.size() < 2) return {std::nullopt, "metric " + ptr + " names no timing regime"};
    const Regime* g = r.regime(tok[1]);
    if (!g) return {std::nullopt, "not measured: the " + tok[1] + " regime was not run"};
    if (tok.size() == 3 && tok[2] == "median_ns") return {time_measure(*g), ""};
    if (tok.size() == 3 && tok[2] == "tflops") return {rate_measure(*g, g->tflops, "TFLOPS"), ""};
    if (tok.size() == 3 && tok[2] == "dram_gbps_min_bytes") return {rate_measure(*g, g->dram_gbps_min_bytes, "GB/s"), ""};
  }
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

std::vector<Claim> record_claims(const Run& run) {
  std::vector<Claim> out;
  const ordered_json* claims = find(run.json, "/claims");
  if (!claims || claims->is_null()) return out;
  if (!claims->is_array()) throw FieldError("/claims is not an array");
  const ordered_json& j = run.json;
  for (std::size_t i = 0; i < claims->size(); ++i) {
    const std::string b = "/claims/" + std::to_string(i);
    Claim c;
    c.id = string_at(j, b + "/id");
    c.text = optional_string_at(j, b + "/text").value_or("");
    c.metric = string_at(j, b + "/metric");
    c.shape = string_at(j, b + "/shape");
    c.op = string_at(j, b + "/op");
    c.value = optional_number_at(j, b + "/value");
    c.other_phase = optional_string_at(j, b + "/other_phase").value_or("");
    c.factor = optional_number_at(j, b + "/factor").value_or(1.0);
    c.source = optional_string_at(j, b + "/source").value_or("");
    if (!valid_op(c.op))
      throw FieldError(b + "/op is \"" + c.op + "\", expected <, <=, >, >=, == or within_pct");
    if (c.op == "within_pct") c.tolerance_pct = number_at(j, b + "/tolerance_pct");
    if (c.value.has_value() == !c.other_phase.empty())
      throw FieldError(b + " needs exactly one of /value and /other_phase");
    if (c.metric.empty() || c.metric.front() != '/')
      throw FieldError(b + "/metric \"" + c.metric + "\" is not a JSON pointer");
    try {
      parse_shape(c.shape);
    } catch (const std::invalid_argument& e) {
      throw FieldError(b + "/shape: " + e.what());
    }
    out.push_back(c);
  }
  return out;
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
  return r.phase == phase && r.status == "ok" && r.gpu_name == gpu && (!accept || accept(r));
}

// Seconds since the epoch of a record's start ("2026-11-23T21:41:55Z", or the run directory's
// "20261123T214155Z" when the record lacks it); nullopt when neither parses.
std::optional<std::int64_t> start_seconds(const Run& r) {
  std::string digits;
  for (char ch : r.time_key()) {
    if (ch >= '0' && ch <= '9') digits += ch;
    if (ch == 'Z' || digits.size() == 14) break;
  }
  if (digits.size() != 14) return std::nullopt;
  std::tm t{};
  t.tm_year = std::stoi(digits.substr(0, 4)) - 1900;
  t.tm_mon = std::stoi(digits.substr(4, 2)) - 1;
  t.tm_mday = std::stoi(digits.substr(6, 2));
  t.tm_hour = std::stoi(digits.substr(8, 2));
  t.tm_min = std::stoi(digits.substr(10, 2));
  t.tm_sec = std::stoi(digits.substr(12, 2));
  return std::int64_t(timegm(&t));
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
  const auto when = start_seconds(to);
  if (!when) return newest_ok(runs, phase, to.gpu_name, accept);
  const Run* best = nullptr;
  std::int64_t best_gap = 0;
  for (const auto& r : runs) {
    if (!candidate(r, phase, to.gpu_name, accept)) continue;
    const auto t = start_seconds(r);
    if (!t) continue;
    const std::int64_t gap = *t > *when ? *t - *when : *when - *t;
    if (!best || gap < best_gap || (gap == best_gap && newer(r, *best))) {
      best = &r;
      best_gap = gap;
    }
  }
  return best;
}

bool needs_root(const Run& run) {
  for (const auto& c : record_claims(run))
    if (!c.other_phase.empty()) return true;
  return false;
}

Judgement judge_claim(const Claim& c, const Run& run, const std::vector<Run>& root_runs) {
  Judgement out;
  out.claim = c;
  const std::string shape = shape_name(parse_shape(c.shape));
  auto not_tested = [&](const std::string& why) {
    out.verdict = Verdict::kNotTested;
    out.evidence = why;
    return out;
  };
  const Result* mine = run.result(shape);
  if (!mine) return not_tested("this record has no result at shape " + shape);
  const Lookup lhs = measure_metric(*mine, c.metric);
  if (!lhs.measure) return not_tested("phase " + run.phase + ": " + lhs.missing);

  Measure rhs;
  std::string rhs_text;
  if (c.value) {
    rhs = Measure{*c.value, *c.value, *c.value, lhs.measure->unit, ""};
    rhs_text = plain(*c.value) + (rhs.unit.empty() ? "" : " " + rhs.unit) + " (stated" +
               (c.source.empty() ? "" : "; source: " + c.source) + ")";
  } else {
    // The ok record of the other phase nearest in start time to this one (its own device
    // session, when the two were measured together: a later session's records never change
    // an earlier record's verdicts) that measured the claim's metric at the shape, so a
    // record of other shapes (or a --check-only one) does not hide it; failing that, the
    // nearest with the shape at all, whose result says why it cannot be compared.
    out.compared = nearest_ok(root_runs, run, c.other_phase, [&](const Run& r) {
      const Result* res = r.result(shape);
      return res && measure_metric(*res, c.metric).measure.has_value();
    });
    if (!out.compared)
      out.compared = nearest_ok(root_runs, run, c.other_phase,
                                [&](const Run& r) { return r.result(shape) != nullptr; });
    if (!out.compared)
      return not_tested("no ok record of phase " + c.other_phase + " on " + run.gpu_name +
                        " with a result at shape " + shape + " in this results root");
    const Run& other = *out.compared;
    const Result* theirs = other.result(shape);
    const Lookup l = measure_metric(*theirs, c.metric);
    if (!l.measure)
      return not_tested("phase " + c.other_phase + " record " + other.id() + ": " + l.missing);
    rhs = l.measure->scaled(c.factor);
    rhs_text = "phase " + c.other_phase + " (" + other.id() + ") " + l.measure->describe();
    if (c.factor != 1.0) rhs_text += " x " + plain(c.factor) + " = " + with_unit(rhs.value, rhs.unit);
  }
  const Measure& m = *lhs.measure;
  double b_lo = rhs.lo, b_hi = rhs.hi;
  if (c.op == "within_pct") {
    const double t = c.tolerance_pct / 100.0;
    b_lo = std::min(rhs.lo * (1 - t), rhs.lo * (1 + t));
    b_hi = std::max(rhs.hi * (1 - t), rhs.hi * (1 + t));
    rhs_text = "the band " + sig(b_lo) + "-" + with_unit(b_hi, rhs.unit) + ", " + rhs_text +
               " +/- " + plain(c.tolerance_pct) + "%";
  }
  const bool points = m.spread.empty() && rhs.spread.empty() && c.op != "within_pct";
  const Relation rel = relate(m.lo, m.hi, b_lo, b_hi);
  const Decision d = decide(c.op, rel, points);
  out.verdict = d.verdict;
  const std::string op_text = c.op == "within_pct" ? "within" : c.op;
  out.evidence = "phase " + run.phase + " " + m.describe() + "; claimed " + op_text + " " +
                 rhs_text;
  if (c.other_phase.size() && rhs.value != 0) out.evidence += "; ratio " + sig(m.value / rhs.value, 3);
  out.evidence += ". Verdict: " + d.reason + ".";
  return out;
}

std::vector<Judgement> judge_claims(const Run& run, const std::vector<Run>& root_runs) {
  std::vector<Judgement> out;
  for (const auto& c : record_claims(run)) out.push_back(judge_claim(c, run, root_runs));
  return out;
}

const char* change_name(Change c) {
  switch (c) {
    case Change::kFaster: return "FASTER";
    case Change::kSlower: return "SLOWER";
    default: return "SAME";
  }
}

Change compare_regimes(const Regime& a, const Regime& b) {
  switch (relate(b.p10_ns, b.p90_ns, a.p10_ns, a.p90_ns)) {
    case Relation::kBelow: return Change::kFaster;
    case Relation::kAbove: return Change::kSlower;
    default: return Change::kSame;
  }
}

}  // namespace attnlab::report

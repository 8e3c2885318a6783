// Claims: an experiment's hypotheses as machine-checkable predicates, declared beside its phase
// in the registry (kernels/registry.hpp) as plain data. The harness copies them into every run
// record (record/claims.hpp holds their one JSON mapping); the report tool judges each against
// the evidence as SUPPORTED, REFUTED, INCONCLUSIVE (the evidence's interval straddles the claim:
// a difference within the noise is never SUPPORTED) or NOT TESTED (reports/judge.hpp). An
// experiment states claims; it never judges them.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/stats.hpp"

namespace attnlab {

struct Claim {
  std::string id;    // short, stable: "faster-than-4-throughput"
  std::string text;  // the hypothesis as a reader would say it
  // What is measured: a JSON pointer into one result entry of a run record, e.g.
  // "/timing/cold/median_ns", "/tflops", "/metrics/tensor/values/<metric>/value",
  // "/static/sass/LDL". Timing pointers let the judge use the samples' spread.
  std::string metric;
  std::string shape;  // shape spec of the result entry (as on the command line: "throughput")
  // ">", ">=", "<", "<=", "==": metric op rhs;
  // "within_pct": |metric - rhs| <= tolerance_pct% of rhs.
  std::string op;
  // rhs is `value` or, when `other_phase` is set, factor * (the same metric of that phase's
  // newest ok record at the same shape); exactly one of the two is given.
  std::optional<double> value;
  std::string other_phase;
  // Set instead of value and other_phase: judged on the newest ok paired A/B record
  // (record/ab.hpp) of this phase against `paired_against` at the shape, under the records
  // root's ab/: SUPPORTED when the wall-time ratio's interval (t_other / t_self) lies at or
  // above factor, REFUTED when wholly below it, INCONCLUSIVE when it straddles factor, NOT TESTED
  // without such a record. `metric` then
  // names the ratio judged ("/ratio/wall").
  std::string paired_against;
  double factor = 1.0;
  double tolerance_pct = 0.0;
  std::string source;  // where a compared constant comes from ("SEEDS.md: seed phase 4x claim")
};

// Building claims by name instead of positional fields:
//   claim("tensor-pipe-60pct", "The tensor pipe is ...").metric(kPipe).at("throughput")
//       .at_least(60.0).source("kernels/TARGETS.md: phase 5")
//   faster_than("4x", "4", "throughput")
class ClaimBuilder {
 public:
  ClaimBuilder(std::string id, std::string text) {
    c_.id = std::move(id);
    c_.text = std::move(text);
  }
  ClaimBuilder& metric(std::string pointer) { return c_.metric = std::move(pointer), *this; }
  ClaimBuilder& at(std::string shape) { return c_.shape = std::move(shape), *this; }
  ClaimBuilder& source(std::string s) { return c_.source = std::move(s), *this; }
  // Against a stated value.
  ClaimBuilder& below(double v) { return compare("<", v); }
  ClaimBuilder& at_most(double v) { return compare("<=", v); }
  ClaimBuilder& at_least(double v) { return compare(">=", v); }
  ClaimBuilder& equals(double v) { return compare("==", v); }
  ClaimBuilder& within_pct(double v, double pct) {
    c_.tolerance_pct = pct;
    return compare("within_pct", v);
  }
  // Against the same metric of another phase's newest ok record at the shape, times factor.
  ClaimBuilder& below_phase(std::string other, double factor = 1.0) {
    return against("<", std::move(other), factor);
  }
  ClaimBuilder& at_most_phase(std::string other, double factor = 1.0) {
    return against("<=", std::move(other), factor);
  }
  ClaimBuilder& at_least_phase(std::string other, double factor = 1.0) {
    return against(">=", std::move(other), factor);
  }
  // Paired: at least `factor` times phase `other`'s speed, the lower bound of the paired
  // A/B interval of t_other / t_self at or above factor (Claim::paired_against).
  ClaimBuilder& paired_against(std::string other, double factor) {
    c_.op = ">=";
    c_.metric = "/ratio/wall";
    c_.paired_against = std::move(other);
    c_.factor = factor;
    return *this;
  }
  // Paired non-inferiority: as fast as `other` within stats::kNonInferiorityMargin.
  ClaimBuilder& paired_as_fast_as(std::string other) {
    return paired_against(std::move(other), stats::kNonInferiorityMargin);
  }
  operator Claim() const { return c_; }  // NOLINT: a builder reads as the claim it makes

 private:
  ClaimBuilder& compare(const char* op, double v) {
    c_.op = op;
    c_.value = v;
    return *this;
  }
  ClaimBuilder& against(const char* op, std::string other, double factor) {
    c_.op = op;
    c_.other_phase = std::move(other);
    c_.factor = factor;
    return *this;
  }
  Claim c_;
};

inline ClaimBuilder claim(std::string id, std::string text) {
  return ClaimBuilder(std::move(id), std::move(text));
}

// Phase `self`'s cold median is below phase `other`'s at the shape (intervals separated).
inline ClaimBuilder faster_than(const std::string& self, const std::string& other,
                                const std::string& shape) {
  return claim("faster-than-" + other + "-" + shape,
               "Phase " + self + " is faster than phase " + other + " at the " + shape + " shape.")
      .metric("/timing/cold/median_ns")
      .at(shape)
      .below_phase(other);
}

// Within 10% of the TFLOPS the seed series claimed for phase `self` (kernels/SEEDS.md);
// `claimed` is the seed's figure as written there.
inline ClaimBuilder seed_claim(const std::string& self, const std::string& claimed,
                               const std::string& shape) {
  return claim("seed-claim-" + shape, "Within 10% of the seed's claimed " + claimed +
                                          " TFLOPS at the " + shape + " shape.")
      .metric("/tflops")
      .at(shape)
      .within_pct(std::stod(claimed), 10.0)
      .source("kernels/SEEDS.md: seed phase " + self + " claim");
}

// No local-memory loads (LDL) or stores (STL) in phase `self`'s SASS.
inline ClaimBuilder no_local(const std::string& self, bool stores, const std::string& shape) {
  const std::string what = stores ? "stores" : "loads";
  const std::string op = stores ? "STL" : "LDL";
  return claim("no-local-" + what,
               "Phase " + self + " has no local-memory " + what + " (" + op + ") in its SASS.")
      .metric("/static/sass/" + op)
      .at(shape)
      .equals(0.0);
}

}  // namespace attnlab

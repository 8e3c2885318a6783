// Claims: an experiment's hypotheses as machine-checkable predicates. The harness copies them
// into every run record (key "claims"); the report tool judges each against the evidence as
// SUPPORTED, REFUTED or NOT TESTED. An experiment states claims; it never judges them.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

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
  double factor = 1.0;
  double tolerance_pct = 0.0;
  std::string source;  // where a compared constant comes from ("SEEDS.md: seed phase 4x claim")
};

inline nlohmann::ordered_json to_json(const Claim& c) {
  nlohmann::ordered_json j;
  j["id"] = c.id;
  j["text"] = c.text;
  j["metric"] = c.metric;
  j["shape"] = c.shape;
  j["op"] = c.op;
  if (c.value) j["value"] = *c.value;
  if (!c.other_phase.empty()) j["other_phase"] = c.other_phase;
  j["factor"] = c.factor;
  if (c.op == "within_pct") j["tolerance_pct"] = c.tolerance_pct;
  if (!c.source.empty()) j["source"] = c.source;
  return j;
}

}  // namespace attnlab

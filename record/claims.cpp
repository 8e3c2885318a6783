// A claim's one JSON mapping (record/claims.hpp).
#include "record/claims.hpp"

#include <nlohmann/json.hpp>

namespace attnlab {

nlohmann::ordered_json to_json(const Claim& c) {
  nlohmann::ordered_json j;
  j["id"] = c.id;
  j["text"] = c.text;
  j["metric"] = c.metric;
  j["shape"] = c.shape;
  j["op"] = c.op;
  if (c.value) j["value"] = *c.value;
  if (!c.other_phase.empty()) j["other_phase"] = c.other_phase;
  if (!c.paired_against.empty()) j["paired_against"] = c.paired_against;
  j["factor"] = c.factor;
  if (c.op == "within_pct") j["tolerance_pct"] = c.tolerance_pct;
  if (!c.source.empty()) j["source"] = c.source;
  return j;
}

}  // namespace attnlab

// A claim's one JSON mapping (record/claims.hpp).
#include "record/claims.hpp"

#include <nlohmann/json.hpp>

#include "record/fields.hpp"

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

Claim read_claim(const nlohmann::ordered_json& root, const std::string& b) {
  Claim c;
  c.id = string_at(root, b + "/id");
  c.text = string_at(root, b + "/text");
  c.metric = string_at(root, b + "/metric");
  c.shape = string_at(root, b + "/shape");
  c.op = string_at(root, b + "/op");
  c.value = optional_number_at(root, b + "/value");
  c.other_phase = optional_string_at(root, b + "/other_phase").value_or("");
  c.paired_against = optional_string_at(root, b + "/paired_against").value_or("");
  c.factor = number_at(root, b + "/factor");
  c.tolerance_pct = optional_number_at(root, b + "/tolerance_pct").value_or(0.0);
  c.source = optional_string_at(root, b + "/source").value_or("");
  return c;
}

std::string claims_listing(const std::vector<Claim>& claims) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& c : claims) j.push_back(to_json(c));
  return j.dump(2);
}

}  // namespace attnlab

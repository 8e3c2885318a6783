// A claim's one JSON mapping (record/claims.hpp).
#include "record/claims.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "common/shapes.hpp"
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

namespace {

bool valid_op(const std::string& op) {
  return op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "within_pct";
}

}  // namespace

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
  c.source = optional_string_at(root, b + "/source").value_or("");
  if (!valid_op(c.op))
    throw FieldError(b + "/op is \"" + c.op + "\", expected <, <=, >, >=, == or within_pct");
  // to_json writes the tolerance for within_pct only, and only within_pct reads it.
  if (c.op == "within_pct") c.tolerance_pct = number_at(root, b + "/tolerance_pct");
  if (int(c.value.has_value()) + int(!c.other_phase.empty()) + int(!c.paired_against.empty()) != 1)
    throw FieldError(b + " needs exactly one of /value, /other_phase and /paired_against");
  if (c.metric.empty() || c.metric.front() != '/')
    throw FieldError(b + "/metric \"" + c.metric + "\" is not a JSON pointer");
  try {
    parse_shape(c.shape);
  } catch (const std::invalid_argument& e) {
    throw FieldError(b + "/shape: " + e.what());
  }
  return c;
}

std::vector<Claim> read_claims(const nlohmann::ordered_json& root, const std::string& base) {
  std::vector<Claim> out;
  const nlohmann::ordered_json* claims = find(root, base);
  if (!claims || claims->is_null()) return out;
  if (!claims->is_array()) throw FieldError(base + " is not an array");
  for (std::size_t i = 0; i < claims->size(); ++i)
    out.push_back(read_claim(root, base + "/" + std::to_string(i)));
  return out;
}

std::string claims_listing(const std::vector<Claim>& claims) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& c : claims) j.push_back(to_json(c));
  return j.dump(2);
}

}  // namespace attnlab

#include "record/metrics.hpp"

#include "record/fields.hpp"

namespace attnlab {

using nlohmann::ordered_json;

std::optional<double> GroupResult::value(std::string_view metric) const {
  if (!available) return std::nullopt;
  for (const auto& v : values)
    if (v.name == metric) return v.value;
  return std::nullopt;
}

ordered_json to_json(const GroupResult& group) {
  ordered_json j;
  j["available"] = group.available;
  if (!group.available) {
    j["reason"] = group.reason;
    return j;
  }
  j["passes"] = group.passes;
  j["collection_wall_s"] = group.collection_wall_s;
  j["values"] = ordered_json::object();
  for (const auto& v : group.values) j["values"][v.name] = {{"value", v.value}, {"unit", v.unit}};
  if (!group.unavailable_metrics.empty()) {
    j["unavailable_metrics"] = ordered_json::object();
    for (const auto& [name, why] : group.unavailable_metrics) j["unavailable_metrics"][name] = why;
  }
  return j;
}

namespace {
// A JSON-pointer segment: '~' and '/' escaped (metric names hold neither today).
std::string escaped(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}
}  // namespace

GroupResult read_group_result(const ordered_json& root, const std::string& base) {
  GroupResult g;
  g.group = base.substr(base.rfind('/') + 1);
  g.available = bool_at(root, base + "/available");
  if (!g.available) {
    g.reason = string_at(root, base + "/reason");
    return g;
  }
  g.passes = int(number_at(root, base + "/passes"));
  g.collection_wall_s = number_at(root, base + "/collection_wall_s");
  const ordered_json* values = find(root, base + "/values");
  if (!values || !values->is_object()) throw FieldError(type_problem(base + "/values", "an object"));
  for (const auto& [name, v] : values->items()) {
    (void)v;
    const std::string p = base + "/values/" + escaped(name);
    g.values.push_back({name, string_at(root, p + "/unit"), number_at(root, p + "/value")});
  }
  if (const ordered_json* u = find(root, base + "/unavailable_metrics")) {
    if (!u->is_object()) throw FieldError(type_problem(base + "/unavailable_metrics", "an object"));
    for (const auto& [name, v] : u->items()) {
      (void)v;
      g.unavailable_metrics.emplace_back(name,
                                         string_at(root, base + "/unavailable_metrics/" + escaped(name)));
    }
  }
  return g;
}

}  // namespace attnlab

#include "record/metrics.hpp"

#include "record/fields.hpp"

namespace attnlab {

using nlohmann::ordered_json;

std::optional<double> find_value(const std::vector<MetricValue>& values, std::string_view metric) {
  for (const auto& v : values)
    if (v.name == metric) return v.value;
  return std::nullopt;
}

std::optional<double> GroupResult::value(std::string_view metric) const {
  return available ? find_value(values, metric) : std::nullopt;
}

std::optional<double> KernelMetricValues::value(std::string_view metric) const { return find_value(values, metric); }

namespace {
ordered_json values_json(const std::vector<MetricValue>& values) {
  ordered_json j = ordered_json::object();
  for (const auto& v : values) j[v.name] = {{"value", v.value}, {"unit", v.unit}};
  return j;
}
}  // namespace

ordered_json to_json(const GroupResult& group) {
  ordered_json j;
  j["available"] = group.available;
  if (!group.available) {
    j["reason"] = group.reason;
    return j;
  }
  j["passes"] = group.passes;
  j["collection_wall_s"] = group.collection_wall_s;
  j["values"] = values_json(group.values);
  if (!group.unavailable_metrics.empty()) {
    j["unavailable_metrics"] = ordered_json::object();
    for (const auto& [name, why] : group.unavailable_metrics) j["unavailable_metrics"][name] = why;
  }
  if (!group.kernels.empty()) {
    j["kernel_passes"] = group.kernel_passes;
    j["kernels"] = ordered_json::array();
    for (const auto& k : group.kernels)
      j["kernels"].push_back({{"name", k.name}, {"index", k.index}, {"values", values_json(k.values)}});
  }
  if (!group.kernels_reason.empty()) j["kernels_reason"] = group.kernels_reason;
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

namespace {
std::vector<MetricValue> read_values(const ordered_json& root, const std::string& base) {
  const ordered_json* values = find(root, base);
  if (!values || !values->is_object()) throw FieldError(type_problem(base, "an object"));
  std::vector<MetricValue> out;
  for (const auto& [name, v] : values->items()) {
    (void)v;
    const std::string p = base + "/" + escaped(name);
    out.push_back({name, string_at(root, p + "/unit"), number_at(root, p + "/value")});
  }
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
  g.values = read_values(root, base + "/values");
  if (const ordered_json* u = find(root, base + "/unavailable_metrics")) {
    if (!u->is_object()) throw FieldError(type_problem(base + "/unavailable_metrics", "an object"));
    for (const auto& [name, v] : u->items()) {
      (void)v;
      g.unavailable_metrics.emplace_back(name,
                                         string_at(root, base + "/unavailable_metrics/" + escaped(name)));
    }
  }
  if (const ordered_json* ks = find(root, base + "/kernels")) {
    if (!ks->is_array()) throw FieldError(type_problem(base + "/kernels", "an array"));
    g.kernel_passes = int(number_at(root, base + "/kernel_passes"));
    for (std::size_t i = 0; i < ks->size(); ++i) {
      const std::string p = base + "/kernels/" + std::to_string(i);
      KernelMetricValues k;
      k.name = string_at(root, p + "/name");
      k.index = int(number_at(root, p + "/index"));
      k.values = read_values(root, p + "/values");
      g.kernels.push_back(std::move(k));
    }
  }
  if (find(root, base + "/kernels_reason")) g.kernels_reason = string_at(root, base + "/kernels_reason");
  return g;
}

namespace {
nlohmann::ordered_json string_or_null(const std::optional<std::string>& s) {
  return s ? nlohmann::ordered_json(*s) : nlohmann::ordered_json();
}
}  // namespace

nlohmann::ordered_json to_json(const MetricsConfig& c) {
  nlohmann::ordered_json j;
  j["groups"] = c.groups;
  if (c.not_collected) {
    j["unavailable"] = *c.not_collected;
    return j;
  }
  j["method"] = c.method;
  j["range_name"] = c.range_name;
  j["chip"] = string_or_null(c.chip);
  j["unavailable"] = string_or_null(c.unavailable);
  j["metrics"] = nlohmann::ordered_json::object();
  for (const auto& [group, names] : c.metrics) j["metrics"][group] = names;
  j["derived"] = nlohmann::ordered_json::object();
  for (const auto& [figure, how] : c.derived) j["derived"][figure] = how;
  return j;
}

MetricsConfig read_metrics_config(const nlohmann::ordered_json& root, const std::string& base) {
  MetricsConfig c;
  c.groups = value_at<std::vector<std::string>>(root, base + "/groups");
  if (!find(root, base + "/method")) {
    c.not_collected = string_at(root, base + "/unavailable");
    return c;
  }
  c.method = string_at(root, base + "/method");
  c.range_name = string_at(root, base + "/range_name");
  c.chip = optional_string_at(root, base + "/chip");
  c.unavailable = optional_string_at(root, base + "/unavailable");
  const nlohmann::ordered_json* metrics = find(root, base + "/metrics");
  const nlohmann::ordered_json* derived = find(root, base + "/derived");
  if (!metrics || !metrics->is_object()) throw FieldError(type_problem(base + "/metrics", "an object"));
  if (!derived || !derived->is_object()) throw FieldError(type_problem(base + "/derived", "an object"));
  for (const auto& [group, names] : metrics->items())
    c.metrics.emplace_back(group, names.get<std::vector<std::string>>());
  for (const auto& [figure, how] : derived->items())
    c.derived.emplace_back(figure, string_at(root, base + "/derived/" + figure));
  return c;
}

std::optional<std::vector<GroupResult>> read_metric_groups(const ordered_json& root, const std::string& base) {
  const ordered_json* m = find(root, base);
  if (!m || m->is_null()) return std::nullopt;
  if (!m->is_object()) throw FieldError(type_problem(base, "an object"));
  std::vector<GroupResult> out;
  for (const auto& [name, block] : m->items()) {
    (void)block;
    out.push_back(read_group_result(root, base + "/" + escaped(name)));
  }
  return out;
}

const GroupResult* find_group(const std::vector<GroupResult>& groups, std::string_view name) {
  for (const auto& g : groups)
    if (g.group == name) return &g;
  return nullptr;
}

}  // namespace attnlab

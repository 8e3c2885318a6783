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

RecordedGroupState read_group_state(const ordered_json& root, const std::string& base) {
  RecordedGroupState g;
  const ordered_json* group = find(root, base);
  g.collected = group && !group->is_null();
  if (!g.collected) return g;
  g.available = value_or_null_at<bool>(root, base + "/available");
  g.reason = optional_string_at(root, base + "/reason");
  return g;
}

std::optional<double> RecordedGroup::value(std::string_view metric) const {
  if (available != true) return std::nullopt;
  for (const auto& v : values)
    if (v.name == metric) return v.value;
  return std::nullopt;
}

namespace {

std::optional<int> optional_int_at(const ordered_json& root, const std::string& ptr) {
  const auto v = optional_number_at(root, ptr);
  return v ? std::optional<int>(int(*v)) : std::nullopt;
}

// {"<name>": "<string>"} at `ptr`, in record order; empty where absent or null.
std::vector<std::pair<std::string, std::string>> string_map_at(const ordered_json& root, const std::string& ptr) {
  std::vector<std::pair<std::string, std::string>> out;
  const ordered_json* m = find(root, ptr);
  if (!m || m->is_null()) return out;
  if (!m->is_object()) throw FieldError(type_problem(ptr, "an object"));
  for (const auto& [name, v] : m->items()) {
    (void)v;
    out.emplace_back(name, string_at(root, ptr + "/" + escaped(name)));
  }
  return out;
}

// {"<metric>": {"value", "unit"}} at `ptr` in record order; empty where absent or null.
std::vector<RecordedMetric> recorded_values(const ordered_json& root, const std::string& ptr) {
  std::vector<RecordedMetric> out;
  const ordered_json* vals = find(root, ptr);
  if (!vals || vals->is_null()) return out;
  if (!vals->is_object()) throw FieldError(type_problem(ptr, "an object"));
  for (const auto& [metric, v] : vals->items()) {
    (void)v;
    const std::string p = ptr + "/" + escaped(metric);
    out.push_back({metric, optional_number_at(root, p + "/value"), optional_string_at(root, p + "/unit").value_or("")});
  }
  return out;
}

RecordedGroup read_recorded_group(const ordered_json& root, const std::string& base, const std::string& name) {
  RecordedGroup g;
  static_cast<RecordedGroupState&>(g) = read_group_state(root, base);
  g.name = name;
  g.passes = optional_int_at(root, base + "/passes");
  g.kernel_passes = optional_int_at(root, base + "/kernel_passes");
  g.collection_wall_s = optional_number_at(root, base + "/collection_wall_s");
  g.values = recorded_values(root, base + "/values");
  g.unavailable_metrics = string_map_at(root, base + "/unavailable_metrics");
  if (const ordered_json* ks = find(root, base + "/kernels"); ks && !ks->is_null()) {
    if (!ks->is_array()) throw FieldError(type_problem(base + "/kernels", "an array"));
    g.kernels.emplace();
    for (std::size_t i = 0; i < ks->size(); ++i) {
      const std::string p = base + "/kernels/" + std::to_string(i);
      g.kernels->push_back({string_at(root, p + "/name"), int(number_at(root, p + "/index")),
                            recorded_values(root, p + "/values")});
    }
  }
  g.kernels_reason = optional_string_at(root, base + "/kernels_reason");
  return g;
}

}  // namespace

std::optional<std::vector<RecordedGroup>> read_recorded_metrics(const ordered_json& root, const std::string& base) {
  const ordered_json* m = find(root, base);
  if (!m || m->is_null()) return std::nullopt;
  if (!m->is_object()) throw FieldError(type_problem(base, "an object"));
  std::vector<RecordedGroup> out;
  for (const auto& [name, block] : m->items())
    if (!block.is_null()) out.push_back(read_recorded_group(root, base + "/" + escaped(name), name));
  return out;
}

const RecordedGroup* find_group(const std::vector<RecordedGroup>& groups, std::string_view name) {
  for (const auto& g : groups)
    if (g.name == name) return &g;
  return nullptr;
}

}  // namespace attnlab

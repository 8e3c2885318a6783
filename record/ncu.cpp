// The Nsight Compute blocks' JSON mapping and their readers.
#include "record/ncu.hpp"

#include "record/fields.hpp"

namespace attnlab {

using nlohmann::ordered_json;

namespace {

// The object at `ptr`, or FieldError.
const ordered_json& object_at(const ordered_json& root, const std::string& ptr) {
  const ordered_json* o = find(root, ptr);
  if (!o || !o->is_object()) throw FieldError(type_problem(ptr, "an object"));
  return *o;
}

std::vector<std::pair<std::string, std::string>> reasons_at(const ordered_json& root, const std::string& ptr) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!find(root, ptr)) return out;
  for (const auto& [name, why] : object_at(root, ptr).items()) {
    if (!why.is_string()) throw FieldError(type_problem(ptr + "/" + name, "a string"));
    out.emplace_back(name, why.get<std::string>());
  }
  return out;
}

ordered_json reasons_json(const std::vector<std::pair<std::string, std::string>>& reasons) {
  ordered_json j = ordered_json::object();
  for (const auto& [name, why] : reasons) j[name] = why;
  return j;
}

}  // namespace

ordered_json to_json(const NcuEntry& e) {
  ordered_json j;
  j["report"] = e.report ? ordered_json(*e.report) : ordered_json();
  if (e.unavailable_reason) {
    j["unavailable"] = *e.unavailable_reason;
    return j;
  }
  j["kernels"] = e.kernels;
  j["kernel_names"] = e.kernel_names;
  j["values"] = ordered_json::object();
  for (const NcuValue& v : e.values)
    j["values"][v.name] = {{"value", v.value}, {"unit", v.unit}, {"ncu_unit", v.ncu_unit}};
  if (!e.combined.empty()) j["combined"] = e.combined;
  j["rel_diff_pct"] = ordered_json::object();
  for (const auto& [name, d] : e.rel_diff_pct) j["rel_diff_pct"][name] = d ? ordered_json(*d) : ordered_json();
  if (!e.rel_diff_reason.empty()) j["rel_diff_reason"] = reasons_json(e.rel_diff_reason);
  if (!e.unavailable.empty()) j["unavailable"] = reasons_json(e.unavailable);
  return j;
}

ordered_json to_json(const NcuProfile& p) {
  ordered_json shapes = ordered_json::object();
  for (const NcuShapeWall& s : p.shapes) {
    ordered_json w = ordered_json::object();
    if (s.wall_s) w["wall_s"] = *s.wall_s;
    if (s.baseline_wall_s) w["baseline_wall_s"] = *s.baseline_wall_s;
    if (s.wall_s && s.baseline_wall_s) w["ncu_overhead_s"] = *s.wall_s - *s.baseline_wall_s;
    shapes[s.slug] = std::move(w);
  }
  return {{"ncu_version", p.ncu_version},
          {"ncu_command", p.ncu_command},
          {"method", p.method},
          {"wall_s_meaning", p.wall_s_meaning},
          {"shapes", std::move(shapes)}};
}

NcuEntry read_ncu_entry(const ordered_json& root, const std::string& b) {
  NcuEntry e;
  e.report = optional_string_at(root, b + "/report");
  if (const ordered_json* u = find(root, b + "/unavailable"); u && u->is_string()) {
    e.unavailable_reason = u->get<std::string>();
    return e;
  }
  e.kernels = value_at<long long>(root, b + "/kernels");
  e.kernel_names = value_at<std::vector<std::string>>(root, b + "/kernel_names");
  for (const auto& [name, v] : object_at(root, b + "/values").items()) {
    const std::string p = b + "/values/" + name;
    e.values.push_back({name, number_at(root, p + "/value"), string_at(root, p + "/unit"),
                        string_at(root, p + "/ncu_unit")});
  }
  e.combined = optional_string_at(root, b + "/combined").value_or("");
  for (const auto& [name, d] : object_at(root, b + "/rel_diff_pct").items())
    e.rel_diff_pct.emplace_back(name, optional_number_at(root, b + "/rel_diff_pct/" + name));
  e.rel_diff_reason = reasons_at(root, b + "/rel_diff_reason");
  e.unavailable = reasons_at(root, b + "/unavailable");
  return e;
}

NcuProfile read_ncu_profile(const ordered_json& root, const std::string& b) {
  NcuProfile p;
  p.ncu_version = string_at(root, b + "/ncu_version");
  p.ncu_command = string_at(root, b + "/ncu_command");
  p.method = string_at(root, b + "/method");
  p.wall_s_meaning = string_at(root, b + "/wall_s_meaning");
  for (const auto& [slug, w] : object_at(root, b + "/shapes").items())
    p.shapes.push_back({slug, optional_number_at(root, b + "/shapes/" + slug + "/wall_s"),
                        optional_number_at(root, b + "/shapes/" + slug + "/baseline_wall_s")});
  return p;
}

}  // namespace attnlab

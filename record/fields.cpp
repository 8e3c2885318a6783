#include "record/fields.hpp"

namespace attnlab {

using nlohmann::ordered_json;

std::string type_problem(const std::string& ptr, const char* expected) {
  return ptr + " is not " + expected;
}

const ordered_json* find(const ordered_json& root, const std::string& ptr) {
  try {
    const ordered_json::json_pointer p(ptr);
    return root.contains(p) ? &root.at(p) : nullptr;
  } catch (const nlohmann::json::exception&) {
    // A malformed pointer or one that indexes into a scalar: nothing is there.
    return nullptr;
  }
}

double number_at(const ordered_json& root, const std::string& ptr) {
  const ordered_json* j = find(root, ptr);
  if (!j) throw FieldError("missing " + ptr);
  if (!j->is_number()) throw FieldError(type_problem(ptr, "a number"));
  return j->get<double>();
}

std::optional<double> optional_number_at(const ordered_json& root, const std::string& ptr) {
  const ordered_json* j = find(root, ptr);
  if (!j || j->is_null()) return std::nullopt;
  if (!j->is_number()) throw FieldError(type_problem(ptr, "a number"));
  return j->get<double>();
}

std::string string_at(const ordered_json& root, const std::string& ptr) {
  const ordered_json* j = find(root, ptr);
  if (!j) throw FieldError("missing " + ptr);
  if (!j->is_string()) throw FieldError(type_problem(ptr, "a string"));
  return j->get<std::string>();
}

std::optional<std::string> optional_string_at(const ordered_json& root, const std::string& ptr) {
  const ordered_json* j = find(root, ptr);
  if (!j || j->is_null()) return std::nullopt;
  if (!j->is_string()) throw FieldError(type_problem(ptr, "a string"));
  return j->get<std::string>();
}

bool bool_at(const ordered_json& root, const std::string& ptr) {
  const ordered_json* j = find(root, ptr);
  if (!j) throw FieldError("missing " + ptr);
  if (!j->is_boolean()) throw FieldError(type_problem(ptr, "true or false"));
  return j->get<bool>();
}

namespace {

std::string scalar_text(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "null";
  return v.dump();
}

void add_rows(const nlohmann::ordered_json& j, const std::string& prefix,
              std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) add_rows(v, prefix + "." + k, out);
    return;
  }
  if (j.is_array()) {
    bool scalars = true;
    for (const auto& e : j) scalars = scalars && !e.is_object() && !e.is_array();
    if (scalars) {
      std::string joined;
      for (const auto& e : j) joined += (joined.empty() ? "" : " ") + scalar_text(e);
      out.emplace_back(prefix, joined);
      return;
    }
    for (std::size_t i = 0; i < j.size(); ++i) add_rows(j[i], prefix + "." + std::to_string(i), out);
    return;
  }
  out.emplace_back(prefix, scalar_text(j));
}

}  // namespace

std::vector<std::pair<std::string, std::string>> field_rows(const nlohmann::ordered_json& root, const std::string& ptr) {
  std::vector<std::pair<std::string, std::string>> out;
  const nlohmann::ordered_json* j = find(root, ptr);
  if (!j) return out;
  add_rows(*j, ptr.substr(ptr.rfind('/') + 1), out);
  return out;
}

}  // namespace attnlab

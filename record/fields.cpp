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

}  // namespace attnlab

// Typed reads of a run record's fields by JSON pointer, shared by every reader of records
// (record/timing.cpp, the report tool). Errors name the pointer ("missing /results/0/timing",
// "/results/0/flops is not a number"); a reader prefixes the file.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab {

// A problem with one field, named by its JSON pointer.
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The value at `ptr` from `root`, or nullptr when absent (or the pointer does not apply).
const nlohmann::ordered_json* find(const nlohmann::ordered_json& root, const std::string& ptr);
// Required fields throw FieldError when absent or of the wrong type. The optional variants
// return nullopt for an absent or null field and still throw on a field of the wrong type.
double number_at(const nlohmann::ordered_json& root, const std::string& ptr);
std::optional<double> optional_number_at(const nlohmann::ordered_json& root, const std::string& ptr);
std::string string_at(const nlohmann::ordered_json& root, const std::string& ptr);
std::optional<std::string> optional_string_at(const nlohmann::ordered_json& root,
                                              const std::string& ptr);
bool bool_at(const nlohmann::ordered_json& root, const std::string& ptr);
// "<ptr> is not <expected>"
std::string type_problem(const std::string& ptr, const char* expected);

// The fields at `ptr` as rows ("provenance.gpu.name", text) in record order, each named by its
// path from ptr's last key: strings bare, null "null", other scalars as JSON, arrays of scalars
// joined by spaces; empty where absent. The report lists a record's provenance and options so,
// whatever keys its writer gave them.
std::vector<std::pair<std::string, std::string>> field_rows(const nlohmann::ordered_json& root, const std::string& ptr);

// The field at `ptr` as T (any type nlohmann converts to: numbers, strings, arrays of them),
// for the blocks whose reader only restores what the writer wrote; FieldError when absent or
// not convertible. value_or_null_at: nullopt for an absent or null field.
template <class T>
T value_at(const nlohmann::ordered_json& root, const std::string& ptr) {
  const nlohmann::ordered_json* j = find(root, ptr);
  if (!j) throw FieldError("missing " + ptr);
  try {
    return j->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw FieldError(type_problem(ptr, "of the expected type"));
  }
}
// The array at `ptr` as std::vector<T>: FieldError when absent, not an array, or of elements
// not convertible to T (the A/B and calibration records' per-sample arrays).
template <class T>
std::vector<T> array_at(const nlohmann::ordered_json& root, const std::string& ptr) {
  const nlohmann::ordered_json* p = find(root, ptr);
  if (!p) throw FieldError("missing " + ptr);
  if (!p->is_array()) throw FieldError(type_problem(ptr, "an array"));
  try {
    return p->get<std::vector<T>>();
  } catch (const nlohmann::json::exception&) {
    throw FieldError(type_problem(ptr, "an array of the expected type"));
  }
}
template <class T>
std::optional<T> value_or_null_at(const nlohmann::ordered_json& root, const std::string& ptr) {
  const nlohmann::ordered_json* j = find(root, ptr);
  if (!j || j->is_null()) return std::nullopt;
  return value_at<T>(root, ptr);
}

}  // namespace attnlab

#include "reports/published.hpp"

#include <nlohmann/json.hpp>

#include "reports/record_view.hpp"

namespace attnlab::report {

Published read_published(const std::filesystem::path& file) {
  const std::string text_of_file = read_text(file);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text_of_file);
  } catch (const std::exception& e) {
    throw InputError(file.string() + ": not a published-figures file: " + e.what());
  }
  auto fail = [&](const std::string& where, const char* what) {
    throw InputError(file.string() + ": " + where + ": " + what);
  };
  auto text = [&](const nlohmann::json& o, const std::string& key, const std::string& where) {
    if (!o.is_object() || !o.contains(key) || !o[key].is_string() || o[key].get<std::string>().empty())
      fail(where + "/" + key, "missing or not a non-empty string");
    return o[key].get<std::string>();
  };
  auto positive = [&](const nlohmann::json& o, const std::string& key, const std::string& where) {
    if (!o.is_object() || !o.contains(key) || !o[key].is_number() || !(o[key].get<double>() > 0))
      fail(where + "/" + key, "missing or not a positive number");
    return o[key].get<double>();
  };
  Published p;
  p.label = text(j, "label", "");
  p.source = text(j, "source", "");
  p.sm_clock_mhz = int(positive(j, "sm_clock_mhz", ""));
  if (!j.contains("points") || !j["points"].is_array() || j["points"].empty())
    fail("/points", "missing or not a non-empty array");
  for (std::size_t i = 0; i < j["points"].size(); ++i) {
    const nlohmann::json& o = j["points"][i];
    const std::string at = "/points/" + std::to_string(i);
    PublishedPoint pt;
    pt.D = int(positive(o, "D", at));
    pt.S = int(positive(o, "S", at));
    pt.tflops = positive(o, "tflops", at);
    if (!o.contains("causal") || !o["causal"].is_boolean()) fail(at + "/causal", "missing or not a boolean");
    pt.causal = o["causal"].get<bool>();
    p.points.push_back(pt);
  }
  return p;
}

}  // namespace attnlab::report

#include "reports/published.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "reports/record_view.hpp"

namespace attnlab::report {

std::vector<int> PublishedSeries::missing(const std::vector<int>& S) const {
  std::vector<int> out;
  for (std::size_t i = 0; i < S.size(); ++i)
    if (i >= tflops.size() || !tflops[i]) out.push_back(S[i]);
  return out;
}

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
  auto array = [&](const nlohmann::json& o, const std::string& key, const std::string& where) -> const nlohmann::json& {
    if (!o.is_object() || !o.contains(key) || !o[key].is_array() || o[key].empty())
      fail(where + "/" + key, "missing or not a non-empty array");
    return o[key];
  };
  Published p;
  p.label = text(j, "label", "");
  p.source = text(j, "source", "");
  p.page = int(positive(j, "page", ""));
  p.figure = text(j, "figure", "");
  p.clock = text(j, "clock", "");
  const nlohmann::json& s = array(j, "S", "");
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!s[i].is_number_integer() || s[i].get<int>() <= 0) fail("/S/" + std::to_string(i), "not a positive integer");
    p.S.push_back(s[i].get<int>());
  }
  if (!std::is_sorted(p.S.begin(), p.S.end()) || std::adjacent_find(p.S.begin(), p.S.end()) != p.S.end())
    fail("/S", "not strictly ascending");
  const nlohmann::json& series = array(j, "series", "");
  for (std::size_t i = 0; i < series.size(); ++i) {
    const nlohmann::json& o = series[i];
    const std::string at = "/series/" + std::to_string(i);
    PublishedSeries ps;
    ps.D = int(positive(o, "D", at));
    if (!o.contains("causal") || !o["causal"].is_boolean()) fail(at + "/causal", "missing or not a boolean");
    ps.causal = o["causal"].get<bool>();
    const nlohmann::json& t = array(o, "tflops", at);
    // One entry per S of the source's axis, null where the source has no figure: a shorter
    // array would leave which S a figure belongs to a guess.
    if (t.size() != p.S.size()) fail(at + "/tflops", "not one entry per S");
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k].is_null()) {
        ps.tflops.emplace_back();
        continue;
      }
      if (!t[k].is_number() || !(t[k].get<double>() > 0))
        fail(at + "/tflops/" + std::to_string(k), "not a positive number or null");
      ps.tflops.emplace_back(t[k].get<double>());
    }
    for (const PublishedSeries& other : p.series)
      if (other.D == ps.D && other.causal == ps.causal) fail(at, "a second series of the same D and mask");
    p.series.push_back(std::move(ps));
  }
  return p;
}

std::vector<std::string> incomplete_series(const Published& p) {
  std::vector<std::string> out;
  for (const PublishedSeries& s : p.series) {
    const std::vector<int> gone = s.missing(p.S);
    if (gone.empty()) continue;
    std::string at;
    for (int S : gone) at += (at.empty() ? "" : ", ") + std::to_string(S);
    out.push_back("D " + std::to_string(s.D) + (s.causal ? " causal" : "") + " (no figure at S " + at + ")");
  }
  return out;
}

}  // namespace attnlab::report

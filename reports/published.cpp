#include "reports/published.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "reports/record_view.hpp"

namespace attnlab::report {

bool PublishedShapes::matches(const Shape& s) const {
  const bool batch_ok = batch ? s.B == *batch : std::int64_t(s.B) * s.S == *tokens;
  const bool heads_ok = heads ? s.H == *heads : std::int64_t(s.H) * s.D == *hidden;
  return batch_ok && heads_ok && s.H_kv == kv_heads.value_or(s.H);
}

std::string PublishedShapes::str() const {
  std::string out = batch ? "B = " + std::to_string(*batch) : "B*S = " + std::to_string(tokens.value_or(0));
  out += heads ? ", H = " + std::to_string(*heads) : ", H*D = " + std::to_string(hidden.value_or(0));
  out += kv_heads ? ", H_kv = " + std::to_string(*kv_heads) : ", H_kv = H";
  return out;
}

std::optional<double> Published::at(const Shape& s) const {
  if (!shapes.matches(s)) return std::nullopt;
  const auto i = std::find(S.begin(), S.end(), s.S);
  if (i == S.end()) return std::nullopt;
  for (const PublishedSeries& ps : series)
    if (ps.D == s.D && ps.causal == s.causal) return ps.tflops[std::size_t(i - S.begin())];
  return std::nullopt;
}

std::string Published::citation() const {
  return source + ", " + figure + (page ? ", p. " + std::to_string(*page) : "");
}

std::vector<int> PublishedSeries::missing(const std::vector<int>& S) const {
  std::vector<int> out;
  for (std::size_t i = 0; i < S.size(); ++i)
    if (i >= tflops.size() || !tflops[i]) out.push_back(S[i]);
  return out;
}

namespace {

// The file's /shape: a whole positive number per size it names, exactly one of each pair (two
// would be two rules for one size, none leaves it a guess).
PublishedShapes read_shapes(const std::filesystem::path& file, const nlohmann::json& j) {
  auto fail = [&](const std::string& what) { throw InputError(file.string() + ": /shape" + what); };
  if (!j.contains("shape") || !j["shape"].is_object()) fail(": missing or not an object");
  const nlohmann::json& o = j["shape"];
  auto whole = [&](const char* key) -> std::optional<int> {
    if (!o.contains(key)) return std::nullopt;
    if (!o[key].is_number_integer() || o[key].get<long long>() <= 0 || o[key].get<long long>() > INT_MAX)
      fail(std::string("/") + key + ": not a positive integer");
    return o[key].get<int>();
  };
  PublishedShapes s{whole("batch"), whole("tokens"), whole("heads"), whole("hidden"), whole("kv_heads")};
  if (bool(s.batch) == bool(s.tokens)) fail(": not exactly one of batch and tokens");
  if (bool(s.heads) == bool(s.hidden)) fail(": not exactly one of heads and hidden");
  return s;
}

}  // namespace

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
  if (j.contains("page")) p.page = int(positive(j, "page", ""));
  p.figure = text(j, "figure", "");
  p.board = text(j, "board", "");
  p.clock = text(j, "clock", "");
  p.precision = text(j, "precision", "");
  if (p.precision != "fp16" && p.precision != "fp8") fail("/precision", "not fp16 or fp8");
  p.shapes = read_shapes(file, j);
  if (j.contains("note")) p.note = text(j, "note", "");
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

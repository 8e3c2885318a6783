#include "record/reader.hpp"

#include <algorithm>
#include <string>

namespace attnlab {
namespace fs = std::filesystem;

namespace {

// nlohmann's messages start with "[json.exception.parse_error.101] "; the reader needs
// only what follows.
std::string strip_json_prefix(const std::string& what) {
  const auto close = what.find("] ");
  return what.rfind("[json.exception", 0) == 0 && close != std::string::npos ? what.substr(close + 2)
                                                                            : what;
}

}  // namespace

ordered_json read_record(const fs::path& path) {
  const std::string file = path.string();
  std::error_code ec;
  if (!fs::exists(record_file(path), ec)) throw RecordError(file + ": no such file");
  std::string text;
  try {
    text = read_record_text(path);
  } catch (const std::runtime_error& e) {
    throw RecordError(e.what());
  }
  ordered_json j;
  try {
    j = ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw RecordError(file + ": not valid JSON: " + strip_json_prefix(e.what()));
  }
  // The schema string first: a record of another schema version has other keys, and
  // "missing ..." would hide the real cause.
  if (j.is_object() && j.contains("schema") && j["schema"] != kRunSchema)
    throw RecordError(file + ": /schema is " + j["schema"].dump() + ", expected \"" + kRunSchema +
                      "\"");
  const auto problems = record_problems(j);
  if (!problems.empty()) {
    std::string more;
    if (problems.size() > 1) more = " (and " + std::to_string(problems.size() - 1) + " more)";
    throw RecordError(file + ": " + problems.front() + more);
  }
  return j;
}

std::vector<fs::path> find_records(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw RecordError(root.string() + ": no such directory");
  std::vector<fs::path> files;
  for (const auto& phase : fs::directory_iterator(root, ec)) {
    if (!phase.is_directory()) continue;
    std::error_code ec2;
    for (const auto& run : fs::directory_iterator(phase.path(), ec2))
      if (const auto f = run.is_directory() ? record_file_in(run.path(), "run.json") : std::nullopt)
        files.push_back(*f);
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace attnlab

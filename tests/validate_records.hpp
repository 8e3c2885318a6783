// Test helper shared by the CPU and report tests: a record a test wrote, validated against its
// JSON Schema by scripts/validate-records, the validator CI runs on the committed records.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

namespace attnlab::testing {

// Writes each of `records` to a temporary run.json of its own and validates them all with one
// call of `source_dir`'s scripts/validate-records: a failure prints what the validator said;
// without python3's jsonschema package (exit 77) the calling test is skipped.
inline void expect_valid_records(const std::string& source_dir, const std::vector<nlohmann::ordered_json>& records,
                                 const std::string& tag) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("attnlab-" + tag + "-schema-" + std::to_string(::getpid()));
  for (std::size_t i = 0; i < records.size(); ++i) {
    fs::create_directories(dir / std::to_string(i));
    std::ofstream(dir / std::to_string(i) / "run.json") << records[i].dump(2) << "\n";
  }
  const std::string cmd = "python3 " + source_dir + "/scripts/validate-records " + dir.string() + " > " +
                          (dir / "out.txt").string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  std::ifstream out(dir / "out.txt");
  const std::string text((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) GTEST_SKIP() << text;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << text;
}

inline void expect_valid_record(const std::string& source_dir, const nlohmann::ordered_json& record,
                                const std::string& tag) {
  expect_valid_records(source_dir, {record}, tag);
}

}  // namespace attnlab::testing

// The SDPA baseline (experiments/sdpa_baseline.py) writes records the C++ tools read: its
// record builder, run on synthetic numbers, must satisfy the schema's required keys.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "record/record.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

TEST(SdpaBaseline, ExampleRecordHasEveryRequiredKey) {
  if (std::system("python3 -c '' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const fs::path out = fs::temp_directory_path() /
                       ("attnlab-sdpa-example-" + std::to_string(::getpid()) + ".json");
  const std::string cmd = std::string("python3 '") + ATTNLAB_SDPA_SCRIPT +
                          "' --write-example-record '" + out.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out);
  const auto record = ordered_json::parse(in);
  fs::remove(out);
  EXPECT_EQ(record_problems(record), std::vector<std::string>{});
  EXPECT_EQ(record["phase"], "sdpa-cudnn");
  ASSERT_EQ(record["results"].size(), 2u);
  EXPECT_EQ(record["results"][0]["timing"]["cold"]["samples_ns"].size(), 3u);
  EXPECT_EQ(record["results"][1]["available"], false);  // an unavailable shape has no timing
  EXPECT_TRUE(record["results"][1]["timing"].is_null());
}

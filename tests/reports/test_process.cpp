// Running the CUDA tools from a run (common/process.hpp): a tool found on PATH, its output and
// exit status, its working directory, and a program that cannot start named as such.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/process.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

TEST(Process, FindsAToolOnPathAndNotAMissingOne) {
  const auto sh = find_tool("sh");
  ASSERT_TRUE(sh.has_value());
  EXPECT_TRUE(fs::exists(*sh)) << *sh;
  EXPECT_FALSE(find_tool("attnlab-no-such-tool").has_value());
}

TEST(Process, CapturesOutputErrorsAndExitStatusInTheGivenDirectory) {
  const fs::path dir = fs::temp_directory_path() / "attnlab-process-test";
  fs::create_directories(dir);
  std::string out;
  const int rc = run_capture({*find_tool("sh"), "-c", "pwd; echo to-stderr >&2; exit 3"}, out,
                             dir.string());
  EXPECT_EQ(rc, 3);
  EXPECT_NE(out.find(fs::canonical(dir).string()), std::string::npos) << out;
  EXPECT_NE(out.find("to-stderr"), std::string::npos) << out;
  std::string killed;
  EXPECT_EQ(run_capture({*find_tool("sh"), "-c", "kill -9 $$"}, killed), 128 + 9);
  fs::remove_all(dir);
}

TEST(Process, NamesAProgramThatCannotStart) {
  std::string out;
  EXPECT_EQ(run_capture({"/nonexistent/attnlab-tool", "-x"}, out), -1);
  EXPECT_EQ(out.rfind("cannot start /nonexistent/attnlab-tool: ", 0), 0u) << out;
  std::string in_missing_dir;
  EXPECT_EQ(run_capture({*find_tool("sh"), "-c", "true"}, in_missing_dir, "/nonexistent/dir"), -1)
      << in_missing_dir;
}

// Run records: never overwritten, written atomically, and checked for the schema's keys.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "record/record.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("attnlab-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

ordered_json load(const fs::path& p) {
  std::ifstream in(p);
  return ordered_json::parse(in);
}

}  // namespace

TEST(Record, UtcStamps) {
  EXPECT_EQ(utc_stamp(0), "19700101T000000Z");
  EXPECT_EQ(utc_iso8601(1795305600), "2026-11-22T00:00:00Z");
}

TEST(Record, RunDirectoriesAreNeverReused) {
  TempDir t;
  const auto a = create_run_directory(t.path, "4", "20261122T000000Z", "abc1234");
  const auto b = create_run_directory(t.path, "4", "20261122T000000Z", "abc1234");
  const auto c = create_run_directory(t.path, "4", "20261122T000000Z", "abc1234");
  EXPECT_EQ(a.filename(), "20261122T000000Z-abc1234");
  EXPECT_EQ(b.filename(), "20261122T000000Z-abc1234-2");
  EXPECT_EQ(c.filename(), "20261122T000000Z-abc1234-3");
  EXPECT_EQ(a.parent_path(), t.path / "4");
}

TEST(Record, ExistingRunSurvivesASecondRunWithTheSameName) {
  TempDir t;
  const auto a = create_run_directory(t.path, "1", "20261122T000000Z", "abc1234");
  write_json_atomically(a / "run.json", ordered_json{{"status", "ok"}});
  const auto b = create_run_directory(t.path, "1", "20261122T000000Z", "abc1234");
  write_json_atomically(b / "run.json", ordered_json{{"status", "failed"}});
  EXPECT_EQ(load(a / "run.json")["status"], "ok");
  EXPECT_EQ(load(b / "run.json")["status"], "failed");
}

TEST(Record, AtomicWriteRoundTripsAndLeavesNoTemporary) {
  TempDir t;
  ordered_json j;
  j["zeta"] = 1;  // ordered_json keeps insertion order, so diffs of records stay stable
  j["alpha"] = {1.5, 2.5};
  write_json_atomically(t.path / "run.json", j);
  const auto back = load(t.path / "run.json");
  EXPECT_EQ(back, j);
  EXPECT_EQ(back.begin().key(), "zeta");
  EXPECT_FALSE(fs::exists(t.path / "run.json.tmp"));
}

TEST(Record, UnwritableRootIsReported) {
  EXPECT_THROW(ensure_writable_directory("/proc/attnlab-cannot-exist"), std::runtime_error);
  TempDir t;
  std::ofstream(t.path / "file") << "x";
  EXPECT_THROW(ensure_writable_directory(t.path / "file"), std::runtime_error);
}

TEST(Record, FixtureFromARealRunHasEveryRequiredKey) {
  const fs::path dir = ATTNLAB_FIXTURES_DIR;
  int seen = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    ++seen;
    const auto problems = record_problems(load(e.path()));
    EXPECT_TRUE(problems.empty()) << e.path() << ": " << problems.front();
  }
  EXPECT_GT(seen, 0) << "no fixture records in " << dir;
}

TEST(Record, MissingKeysAndBadValuesAreNamed) {
  const fs::path dir = ATTNLAB_FIXTURES_DIR;
  ordered_json r;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") r = load(e.path());
  ASSERT_FALSE(r.is_null());
  r["provenance"]["gpu"].erase("uuid");
  r["schema"] = "attnlab.run/0";
  r["status"] = "great";
  r["results"][0].erase("timing");
  const auto p = record_problems(r);
  auto has = [&](const std::string& s) {
    for (const auto& x : p)
      if (x.find(s) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("missing /provenance/gpu/uuid"));
  EXPECT_TRUE(has("/schema is \"attnlab.run/0\""));
  EXPECT_TRUE(has("/status is \"great\""));
  EXPECT_TRUE(has("missing /results/0/timing"));
  EXPECT_EQ(record_problems(ordered_json::array()).front(), "record is not a JSON object");
}

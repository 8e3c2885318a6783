// Run records: never overwritten, written atomically, and checked for the schema's keys.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "record/claims.hpp"
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
  // Nothing but the record is left in the directory (no temporary of any name).
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(t.path)) ++entries;
  EXPECT_EQ(entries, 1u);
}

// Writers of one file at the same time (a sweep's runs starting together on several GPUs each
// write <root>/phases.json) must each succeed and leave a whole file: a shared temporary name let
// one writer rename another's temporary away ("cannot move ... No such file or directory").
TEST(Record, ConcurrentAtomicWritesOfOneFileAllSucceed) {
  TempDir t;
  const fs::path file = t.path / "phases.json";
  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 8; ++w)
    writers.emplace_back([&, w] {
      for (int i = 0; i < 50; ++i) {
        try {
          write_json_atomically(file, ordered_json{{"writer", w}, {"i", i}});
        } catch (const std::exception&) {
          ++failures;
        }
      }
    });
  for (auto& th : writers) th.join();
  EXPECT_EQ(failures.load(), 0);
  const auto back = load(file);
  EXPECT_TRUE(back.contains("writer") && back.contains("i"));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(t.path)) ++entries;
  EXPECT_EQ(entries, 1u);
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

// The named claim builders write the same JSON the positional claims of earlier records held.
TEST(Claims, NamedBuildersWriteTheRecordedFields) {
  const auto faster = to_json(faster_than("4x", "4", "latency"));
  EXPECT_EQ(faster.dump(), R"({"id":"faster-than-4-latency","text":"Phase 4x is faster than )"
                           R"(phase 4 at the latency shape.","metric":"/timing/cold/median_ns",)"
                           R"("shape":"latency","op":"<","other_phase":"4","factor":1.0})");
  const Claim seed = seed_claim("2", "0.59", "throughput");
  EXPECT_EQ(seed.op, "within_pct");
  EXPECT_EQ(seed.value, 0.59);
  EXPECT_EQ(seed.tolerance_pct, 10.0);
  EXPECT_EQ(seed.source, "kernels/SEEDS.md: seed phase 2 claim");
  EXPECT_EQ(seed.text, "Within 10% of the seed's claimed 0.59 TFLOPS at the throughput shape.");
  const Claim stl = no_local("d2", true, "latency").source("s");
  EXPECT_EQ(stl.id, "no-local-stores");
  EXPECT_EQ(stl.metric, "/static/sass/STL");
  EXPECT_EQ(stl.op, "==");
  EXPECT_EQ(stl.value, 0.0);
  EXPECT_EQ(stl.source, "s");
  const Claim ratio =
      claim("r", "t").metric("/tflops").at("throughput").at_least_phase("sdpa-cudnn", 1.1);
  EXPECT_EQ(ratio.op, ">=");
  EXPECT_FALSE(ratio.value.has_value());
  EXPECT_EQ(ratio.other_phase, "sdpa-cudnn");
  EXPECT_EQ(ratio.factor, 1.1);
}


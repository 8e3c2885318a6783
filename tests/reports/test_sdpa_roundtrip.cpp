// The SDPA baseline's record is a run record (record/result.hpp): every committed record of its
// current layout, read by read_run_record into the structs attnlab-sdpa-import fills (the
// harness's) and written back through their one mapping, gives the committed bytes, so the
// importer writes what the reports read.
// The one allowed difference: Python's json wrote a double as repr does, nlohmann as its grisu2
// does; both print the shortest digits that read back as the same double, but where two such
// 17-digit strings exist they may pick different last digits (4137184.1430664063 against
// ...062). Such a line must hold the same double, and nothing else may differ.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "record/fields.hpp"
#include "record/record.hpp"
#include "record/result.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

// The baseline's records mark each entry "available"; those written before the per-kernel
// breakdown ("kernels" in a timed entry, from 0f0ded4 on) hold an older layout.
bool current_sdpa_record(const ordered_json& j) {
  if (j.value("schema", "") != kRunSchema || j.contains("metrics_config")) return false;
  bool with_kernels = false;
  for (const auto& r : j["results"]) {
    if (!r.contains("available")) return false;
    with_kernels = with_kernels || r.contains("kernels");
  }
  return with_kernels;
}

// A number line of an indented dump ("  1.5," or "\"median_ns\": 1.5,") as its double.
bool number_of(std::string line, double* v) {
  if (!line.empty() && line.back() == ',') line.pop_back();
  const std::size_t colon = line.rfind(": ");
  line = line.substr(colon == std::string::npos ? line.find_first_not_of(' ') : colon + 2);
  char* end = nullptr;
  *v = std::strtod(line.c_str(), &end);
  return !line.empty() && *end == '\0';
}

// "" when the texts are equal but for the formatting of doubles (each differing line holds the
// same double); else the first line that differs otherwise. *reformatted counts the others.
std::string first_difference(const std::string& written, const std::string& committed, int* reformatted) {
  std::istringstream a(written), b(committed);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ga = bool(std::getline(a, la)), gb = bool(std::getline(b, lb));
    if (!ga && !gb) return "";
    double x = 0, y = 0;
    if (ga && gb && la != lb && la.substr(0, la.find_first_not_of(' ')) == lb.substr(0, lb.find_first_not_of(' ')) &&
        number_of(la, &x) && number_of(lb, &y) && x == y && la.substr(0, la.rfind(": ") + 1) == lb.substr(0, lb.rfind(": ") + 1)) {
      ++*reformatted;
      continue;
    }
    if (!ga || !gb || la != lb)
      return "line " + std::to_string(line) + ": written '" + (ga ? la : "<end>") + "', committed '" +
             (gb ? lb : "<end>") + "'";
  }
}

}  // namespace

TEST(SdpaRecordRoundTrip, EveryCommittedRecordIsWrittenBackByteForByte) {
  int records = 0, reformatted = 0;
  for (const auto& entry : fs::recursive_directory_iterator(ATTNLAB_COMMITTED_REPORTS)) {
    if (entry.path().filename() != "run.json.gz") continue;  // committed records are compressed
    const std::string text = read_record_text(entry.path());
    const ordered_json j = ordered_json::parse(text);
    if (!current_sdpa_record(j)) continue;
    try {
      EXPECT_EQ(first_difference(to_json(read_run_record(j)).dump(2) + "\n", text, &reformatted), "")
          << entry.path();
      ++records;
    } catch (const FieldError& e) {
      ADD_FAILURE() << entry.path() << ": " << e.what();
    }
  }
  // sdpa-cudnn and sdpa-flash on the H100 (0f0ded4 on) and the H200 sweep's records at least.
  EXPECT_GE(records, 10);
  std::printf("%d committed SDPA records written back; %d number lines formatted differently, same double\n",
              records, reformatted);
}

TEST(SdpaRecordRoundTrip, AnUnavailableShapeIsListedWithItsReasonAndNoTiming) {
  RunRecord rec;
  rec.phase = "sdpa-efficient";
  rec.options.backend = "efficient";
  rec.results.emplace_back();
  rec.results.back().shape = Shape{};
  rec.results.back().available = false;
  rec.results.back().unavailable_reason = "no kernel for this shape";
  const ordered_json j = to_json(rec);
  const ordered_json& r = j["results"][0];
  EXPECT_EQ(r["available"], false);
  EXPECT_EQ(r["unavailable_reason"], "no kernel for this shape");
  EXPECT_TRUE(r["correctness"]["passed"].is_null());
  EXPECT_TRUE(r["timing"].is_null());
  EXPECT_EQ(j["unavailable_shapes"].size(), 1u);
  EXPECT_FALSE(j.contains("metrics_config"));
  EXPECT_EQ(record_problems(j), std::vector<std::string>{});
  const RunRecord back = read_run_record(j);
  EXPECT_EQ(back.results.at(0).available, false);
  EXPECT_EQ(back.results.at(0).unavailable_reason, "no kernel for this shape");
  EXPECT_EQ(to_json(back).dump(), j.dump());
}

// Both writers' entries read through one reader of result entries (read_result_entry): the
// baseline's unavailable shape with its reason and no timing, and a timed entry whose headline is
// the regime the record names; a check-only run's entry that holds timing is refused, and so is
// an entry leading with another regime than the one the options name; an entry that names none
// leads with the options' headline.
TEST(SdpaRecordRoundTrip, EntriesOfBothWritersReadThroughOneReader) {
  RunRecord rec;
  rec.phase = "sdpa-efficient";
  rec.results.emplace_back();
  rec.results.back().available = false;
  rec.results.back().unavailable_reason = "no kernel for this shape";
  ordered_json j = to_json(rec);
  SamplingOptions timed_run;
  SamplingOptions check_only_run;
  check_only_run.check_only = true;
  const ResultEntry unavailable = read_result_entry(j, "/results/0", timed_run);
  EXPECT_EQ(unavailable.available, false);
  EXPECT_EQ(unavailable.unavailable_reason, "no kernel for this shape");
  EXPECT_FALSE(unavailable.correctness.passed);
  EXPECT_TRUE(unavailable.timing.empty());
  EXPECT_TRUE(unavailable.headline_regime.empty());

  ResultEntry timed;
  timed.correctness.passed = true;
  RegimeTiming t;
  t.median_ns = t.p10_ns = t.p90_ns = 1000;
  timed.timing = {{"warm", t}, {"cold", t}};
  timed.headline_regime = "cold";
  j["results"].push_back(to_json(timed));
  const ResultEntry r = read_result_entry(j, "/results/1", timed_run);
  EXPECT_FALSE(r.available);
  EXPECT_EQ(r.timing.size(), 2u);
  EXPECT_EQ(r.headline_regime, "cold");
  EXPECT_EQ(to_json(r), j["results"][1]);
  EXPECT_THROW(read_result_entry(j, "/results/1", check_only_run), FieldError);
  SamplingOptions warm_headline;
  warm_headline.headline_regime = "warm";
  EXPECT_THROW(read_result_entry(j, "/results/1", warm_headline), FieldError);
  j["results"][1]["headline_regime"] = "graph";
  EXPECT_THROW(read_result_entry(j, "/results/1", timed_run), FieldError);
  // An entry written before entries named their headline leads with the one its options give
  // (cold where it ran), not with the regime it happened to time first.
  j["results"][1].erase("headline_regime");
  SamplingOptions older;
  older.regimes = {"warm", "cold"};
  EXPECT_EQ(read_result_entry(j, "/results/1", older).headline_regime, "cold");
}

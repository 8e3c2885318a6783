// The run record written once, typed (record/result.hpp): every committed record of the C++
// harness, read into the structs the harness fills and written back through their one JSON
// mapping, gives the committed bytes (keys, order, number formatting, indentation). The SDPA
// baseline's records, written by the same structs ("available" in their entries, PyTorch's
// versions), have their own round-trip test (test_sdpa_roundtrip.cpp), since Python wrote the
// older ones' numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "record/ab.hpp"
#include "record/calibration.hpp"
#include "record/fields.hpp"
#include "record/record.hpp"
#include "record/result.hpp"
#include "reports/record_view.hpp"
#include "tests/validate_records.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

// Written by the harness: the SDPA baseline marks each entry "available" and has no
// metrics_config.
bool harness_record(const ordered_json& j) {
  if (j.value("schema", "") != kRunSchema || !j.contains("metrics_config")) return false;
  for (const auto& r : j["results"])
    if (r.contains("available")) return false;
  return true;
}

// Records written before options.throttled, options.inputs and static.kernels[].occupancy_limits
// existed hold an older layout of attnlab.run/1 that this writer no longer produces (the readers
// of reports/ still read them).
bool current_layout(const ordered_json& j) {
  if (!j.contains(ordered_json::json_pointer("/options/throttled")) ||
      !j.contains(ordered_json::json_pointer("/options/inputs")))
    return false;
  for (const auto& r : j["results"])
    if (r.contains("static") && r["static"].contains("kernels"))
      for (const auto& k : r["static"]["kernels"])
        if (!k.contains("occupancy_limits")) return false;
  return true;
}

// "" when equal, else the first line that differs, both ways.
std::string first_difference(const std::string& written, const std::string& committed) {
  if (written == committed) return "";
  std::istringstream a(written), b(committed);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ga = bool(std::getline(a, la)), gb = bool(std::getline(b, lb));
    if (!ga || !gb || la != lb)
      return "line " + std::to_string(line) + ": written '" + (ga ? la : "<end>") + "', committed '" +
             (gb ? lb : "<end>") + "'";
  }
}

}  // namespace

TEST(RecordRoundTrip, EveryCommittedHarnessRecordIsWrittenBackByteForByte) {
  int records = 0, timed = 0, with_static = 0, multi_kernel = 0, pc_sampled = 0;
  for (const auto& entry : fs::recursive_directory_iterator(ATTNLAB_COMMITTED_REPORTS)) {
    if (entry.path().filename() != "run.json.gz") continue;  // committed records are compressed
    const std::string text = read_record_text(entry.path());
    const ordered_json j = ordered_json::parse(text);
    if (!harness_record(j) || !current_layout(j)) continue;
    try {
      const RunRecord rec = read_run_record(j);
      EXPECT_EQ(first_difference(to_json(rec).dump(2) + "\n", text), "") << entry.path();
      ++records;
      for (const ResultEntry& r : rec.results) {
        timed += r.headline() != nullptr;
        with_static += r.static_evidence && r.static_evidence->sass && r.static_evidence->facts;
        multi_kernel += r.kernels.has_value();
        pc_sampled += r.pc_sampling && r.pc_sampling->available;
      }
    } catch (const FieldError& e) {
      ADD_FAILURE() << entry.path() << ": " << e.what();
    }
  }
  // The committed records of this layout cover every block: timed shapes with counters, static
  // facts, SASS and ptxas, PC sampling, launches of several kernels (the newest of 3b, 3c, 4x,
  // 5, d4 and cudnn at least).
  EXPECT_GE(records, 10);
  EXPECT_GT(timed, 0);
  EXPECT_GT(with_static, 0);
  EXPECT_GT(multi_kernel, 0);
  EXPECT_GT(pc_sampled, 0);
}

// The report holds the record as the writer's structs that record/'s reader restores, nothing
// copied out of them into a model of its own: every committed harness record, as load_run hands
// it to the renderers (its header, and each entry under the report's lookup key and pointer),
// writes back through the writer's mapping to the committed bytes.
TEST(RecordRoundTrip, TheReportHoldsTheRecordAsTheWriterWroteIt) {
  int records = 0;
  for (const auto& file : fs::recursive_directory_iterator(ATTNLAB_COMMITTED_REPORTS)) {
    if (file.path().filename() != "run.json.gz") continue;
    const std::string text = read_record_text(file.path());
    const ordered_json j = ordered_json::parse(text);
    if (!harness_record(j) || !current_layout(j)) continue;
    const report::Run run = report::load_run(file.path());
    RunRecord back;
    static_cast<RunHeader&>(back) = run;
    back.results.assign(run.results.begin(), run.results.end());
    EXPECT_EQ(first_difference(to_json(back).dump(2) + "\n", text), "") << file.path();
    ++records;
  }
  EXPECT_GE(records, 10);
}

TEST(RecordRoundTrip, AnUntimedEntryHasNullTimingAndItsStaticEvidenceLast) {
  ResultEntry r;
  r.shape = Shape{};
  r.scale = 0.125;
  r.correctness.passed = false;
  r.correctness.failure = "output after timing differs from the checked output";
  r.static_evidence.emplace().sass = sass::SassEvidence{};
  r.static_evidence->sass->reason = "not collected";
  const ordered_json j = to_json(r);
  EXPECT_TRUE(j["timing"].is_null());
  EXPECT_TRUE(j["headline_regime"].is_null());
  EXPECT_TRUE(j["tflops"].is_null());
  EXPECT_TRUE(j["dram_gbps_min_bytes"].is_null());
  EXPECT_EQ(std::prev(j.end()).key(), "static");
  EXPECT_FALSE(j["static"].contains("kernels"));  // no launch facts without timing
  EXPECT_EQ(j["static"]["sass"]["available"], false);
}

TEST(RecordRoundTrip, TheHeaderOfARunThatCollectsNothingSaysWhy) {
  RunRecord rec;
  rec.phase = "4";
  rec.metrics_config.emplace().not_collected = "--check-only: nothing is timed";
  const ordered_json j = to_json(rec);
  EXPECT_EQ(j["schema"], kRunSchema);
  EXPECT_EQ(j["status"], "incomplete");
  EXPECT_EQ(j["metrics_config"].dump(), R"({"groups":[],"unavailable":"--check-only: nothing is timed"})");
  EXPECT_TRUE(record_problems(j).empty());
  EXPECT_FALSE(j.contains("error"));
}

// A backward run says so, its entries count 2.5 times the forward's FLOPs and their own bytes,
// and the header's reader gives the direction back; a record without the field is forward.
TEST(RecordRoundTrip, ABackwardRunSaysSoAndCountsTheBackwardsWork) {
  RunRecord rec;
  rec.phase = "b1";
  rec.direction = Direction::kBackward;
  ResultEntry e;
  e.shape.B = 2, e.shape.H = 4, e.shape.H_kv = 2, e.shape.S = 333, e.shape.D = 64, e.shape.causal = true;
  e.direction = Direction::kBackward;
  rec.results.push_back(e);
  const ordered_json j = to_json(rec);
  EXPECT_EQ(j["direction"], "backward");
  EXPECT_EQ(j["results"][0]["flops"].get<double>(), 2.5 * e.shape.flops());
  EXPECT_EQ(j["results"][0]["min_bytes"].get<double>(), pass_min_bytes(e.shape, Direction::kBackward));
  EXPECT_EQ(read_run_record(j).direction, Direction::kBackward);
  EXPECT_EQ(read_run_record(j).results.at(0).direction, Direction::kBackward);
  ordered_json old = j;
  old.erase("direction");
  EXPECT_FALSE(read_run_record(old).direction);  // written back without the field
  EXPECT_EQ(read_direction(old), Direction::kForward);
  old["direction"] = "sideways";
  EXPECT_THROW(read_direction(old), FieldError);
}

// The schema and the structs in one place: a committed record that holds every block a run
// collects (counters, static facts, SASS, ptxas, PC samples, per-kernel times), with the blocks
// no committed record has yet added from the structs (a run error, Nsight Compute's values and
// profile), is written through the one mapping, read back to the same bytes, and validated
// against attnlab.run/1 by scripts/validate-records (skipped without the jsonschema package);
// so is a committed SDPA baseline record of the current layout, with the blocks only such runs
// write (PyTorch's versions, the backend, an unavailable shape and the list of them, the inputs,
// a sweep) and a run error.
TEST(RecordRoundTrip, EveryBlockTheStructsWriteMatchesTheSchema) {
  std::optional<RunRecord> rec;
  for (const auto& entry : fs::recursive_directory_iterator(ATTNLAB_COMMITTED_REPORTS)) {
    if (entry.path().filename() != "run.json.gz") continue;
    const ordered_json j = ordered_json::parse(read_record_text(entry.path()));
    if (!harness_record(j) || !current_layout(j)) continue;
    RunRecord r = read_run_record(j);
    const ResultEntry& e = r.results.at(0);
    if (e.headline() && e.metrics && e.static_evidence && e.static_evidence->sass && e.static_evidence->ptxas &&
        e.pc_sampling && e.kernels) {
      rec = std::move(r);
      break;
    }
  }
  ASSERT_TRUE(rec) << "no committed record holds every block";
  const fs::path fixture = fs::path(ATTNLAB_SOURCE_DIR) / "tests/reports/inputs/side-by-side/4/20261122T215639Z-dcabdff/run.json";
  const ordered_json with_ncu = ordered_json::parse(read_record_text(fixture));
  rec->results.at(0).ncu = read_ncu_entry(with_ncu, "/results/0/ncu");
  NcuEntry none;
  none.unavailable_reason = "no ncu CSV beside the record";
  if (rec->results.size() > 1) rec->results[1].ncu = none;
  rec->ncu_profile = NcuProfile{"2025.3", "ncu --set full", "one launch per shape", "the process's wall time",
                                {{"16x16x2048x64", 12.5, 3.0}, {"1x8x512x64", std::nullopt, std::nullopt}}};
  rec->error = "a fault after the first shape";
  rec->direction = Direction::kForward;  // the harness says so; committed records predate the field
  // The LSE's check of a phase that emits it (5lse), and the forward a backward check names.
  Correctness& c = rec->results.at(0).correctness;
  c.lse_max_abs_err = 3.5e-6;
  c.lse_err_ratio = 0.04;
  c.forward = "5lse";
  if (!c.checks.empty()) c.checks.front().lse_err_ratio = 0.04;
  const ordered_json written = to_json(*rec);
  EXPECT_EQ(to_json(read_run_record(written)).dump(2), written.dump(2));
  attnlab::testing::expect_valid_record(ATTNLAB_SOURCE_DIR, written, "run");

  std::optional<RunRecord> sdpa;
  for (const auto& entry : fs::recursive_directory_iterator(ATTNLAB_COMMITTED_REPORTS)) {
    if (entry.path().filename() != "run.json.gz") continue;
    const ordered_json j = ordered_json::parse(read_record_text(entry.path()));
    if (harness_record(j) || !j["results"].at(0).contains("kernels")) continue;
    sdpa = read_run_record(j);
    break;
  }
  ASSERT_TRUE(sdpa) << "no committed SDPA record of the current layout";
  ASSERT_TRUE(sdpa->provenance.torch && sdpa->options.backend && !sdpa->metrics_config);
  ResultEntry unavailable;
  unavailable.shape = sdpa->results.at(0).shape;
  unavailable.shape.D = 96;
  unavailable.scale = 1 / std::sqrt(96.0);
  unavailable.available = false;
  unavailable.unavailable_reason = "no kernel for head dim 96";
  sdpa->results.push_back(unavailable);
  sdpa->provenance.versions.cudnn.reset();
  sdpa->provenance.sweep_id = "20261128T000000Z-example";
  sdpa->error = "RuntimeError: a fault after the second shape";
  sdpa->options.headline_regime = sdpa->results.at(0).headline_regime;
  const ordered_json baseline = to_json(*sdpa);
  EXPECT_EQ(baseline["unavailable_shapes"].size(), 1u);
  EXPECT_EQ(to_json(read_run_record(baseline)).dump(2), baseline.dump(2));
  attnlab::testing::expect_valid_record(ATTNLAB_SOURCE_DIR, baseline, "sdpa");
}

// What the A/B and calibration structs write is what their schemas accept: every committed record
// of the current layouts (attnlab.ab/2, forward and backward; attnlab.calibration/1), read into
// the structs and written back, validated as CI validates the committed files.
TEST(RecordRoundTrip, WhatTheAbAndCalibrationStructsWriteMatchesTheirSchemas) {
  std::vector<ordered_json> written;
  int ab = 0, backward_ab = 0, calibration = 0;
  for (const auto& entry : fs::recursive_directory_iterator(ATTNLAB_COMMITTED_REPORTS)) {
    const std::string name = entry.path().filename().string();
    if (name != "run.json.gz" && name != "calibration.json.gz") continue;
    const ordered_json j = ordered_json::parse(read_record_text(entry.path()));
    const std::string schema = j.value("schema", "");
    if (schema == "attnlab.ab/2") {
      const AbRecord r = read_ab_record(j);
      written.push_back(to_json(r));
      ++ab;
      backward_ab += r.direction == Direction::kBackward;
    } else if (schema == "attnlab.calibration/1") {
      CalibrationRecord r = read_calibration_record(j);
      written.push_back(to_json(r));
      ++calibration;
      // And with a cold launch floor beside each warm one, where a record predates them.
      for (auto& l : r.launches) {
        if (l.cold_time) continue;
        l.cold_time_ns = l.time_ns;
        l.cold_sm_clock_mhz = l.sm_clock_mhz;
        summarize_launch(l);
      }
      written.push_back(to_json(r));
    }
  }
  EXPECT_GT(ab, 0);
  EXPECT_GT(backward_ab, 0);
  EXPECT_GT(calibration, 0);
  attnlab::testing::expect_valid_records(ATTNLAB_SOURCE_DIR, written, "ab-calibration");
}

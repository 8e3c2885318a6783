// The typed provenance, options and shape (record/provenance.hpp): the JSON they map to is the
// committed records' (same keys, same order), and the reader names the field it misses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/shapes.hpp"
#include "record/calibration.hpp"
#include "record/fields.hpp"
#include "record/provenance.hpp"
#include "record/reader.hpp"
#include "record/record.hpp"
#include "record/timeline.hpp"
#include "record/timing.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> keys(const nlohmann::ordered_json& j) {
  std::vector<std::string> k;
  for (const auto& [name, v] : j.items()) k.push_back(name);
  return k;
}

// The newest committed record of a C++ phase: its provenance, options and first shape were
// written by the harness before the typed structs existed.
nlohmann::ordered_json committed_phase_record() {
  fs::path newest;
  const fs::path dir = fs::path(ATTNLAB_COMMITTED_REPORTS) / "h100" / "records" / "4";
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename() == "run.json.gz" && e.path() > newest) newest = e.path();
  EXPECT_FALSE(newest.empty());
  return nlohmann::ordered_json::parse(read_record_text(newest));
}

}  // namespace

TEST(Provenance, MapsToTheCommittedRecordsKeysInOrder) {
  const auto rec = committed_phase_record();
  Provenance p;
  EXPECT_EQ(keys(to_json(p)), keys(rec["provenance"]));
  EXPECT_EQ(keys(to_json(p)["gpu"]), keys(rec["provenance"]["gpu"]));
  EXPECT_EQ(keys(to_json(p)["build"]), keys(rec["provenance"]["build"]));
  EXPECT_EQ(keys(to_json(p)["versions"]), keys(rec["provenance"]["versions"]));
  RecordedOptions o;
  EXPECT_EQ(keys(to_json(o)), keys(rec["options"]));
  EXPECT_EQ(keys(to_json(o)["stopping_rule"]), keys(rec["options"]["stopping_rule"]));
  EXPECT_EQ(keys(shape_to_json(Shape{}, 0.125)), keys(rec["results"][0]["shape"]));
}

TEST(Provenance, WritesWhatItIsGiven) {
  Provenance p;
  p.git = {"abc", true};
  p.gpu.uuid = "GPU-1";
  p.gpu.sm_count = 132;
  p.seed = 18446744073709551615ull;  // the largest seed survives as an unsigned integer
  const auto j = to_json(p);
  EXPECT_EQ(j["git"]["commit"], "abc");
  EXPECT_EQ(j["git"]["dirty"], true);
  EXPECT_EQ(j["gpu"]["sm_count"], 132);
  EXPECT_EQ(j["seed"].get<std::uint64_t>(), 18446744073709551615ull);
  EXPECT_FALSE(j.contains("sweep_id"));  // outside a sweep the key is absent, as in older records
  p.sweep_id = "20261125T014004Z-43f53af";
  EXPECT_EQ(to_json(p)["sweep_id"], "20261125T014004Z-43f53af");
  EXPECT_EQ(to_json(p).items().begin().key(), "git");
  Shape s;
  s.B = 2;
  s.causal = true;
  s.dtype = DType::bf16;
  const auto sj = shape_to_json(s, 0.5);
  EXPECT_EQ(sj["B"], 2);
  EXPECT_EQ(sj["causal"], true);
  EXPECT_EQ(sj["dtype"], "bf16");
  EXPECT_EQ(sj["scale"], 0.5);
}

// The report reads a run's provenance through the writer's reader: the identity, the sweep and
// the seed come back as written (the largest seed survives; outside a sweep, none), and a record
// without a field the writer writes is refused, naming it.
TEST(Provenance, ReadsTheIdentitySweepAndSeedBack) {
  Provenance p;
  p.git = {"0123abcd", false};
  p.gpu.name = "NVIDIA H100 80GB HBM3";
  p.gpu.uuid = "GPU-5e687859";
  p.gpu.peak_dram_gbps = 3352.32;
  p.seed = 18446744073709551615ull;
  nlohmann::ordered_json rec;
  rec["provenance"] = to_json(p);
  const Provenance back = read_provenance(rec, "/provenance");
  EXPECT_EQ(back.git.commit, "0123abcd");
  EXPECT_FALSE(back.git.dirty);
  EXPECT_EQ(back.gpu.name, p.gpu.name);
  EXPECT_EQ(back.gpu.uuid, p.gpu.uuid);
  EXPECT_DOUBLE_EQ(back.gpu.peak_dram_gbps, p.gpu.peak_dram_gbps);
  EXPECT_EQ(back.seed, 18446744073709551615ull);
  EXPECT_EQ(back.sweep_id, "");
  EXPECT_EQ(to_json(back), rec["provenance"]);
  p.sweep_id = "20261125T014004Z-43f53af";
  rec["provenance"] = to_json(p);
  EXPECT_EQ(read_provenance(rec, "/provenance").sweep_id, p.sweep_id);
  rec["provenance"]["sweep_id"] = 7;
  EXPECT_THROW(read_provenance(rec, "/provenance"), FieldError);
  rec["provenance"] = to_json(p);
  rec["provenance"]["gpu"].erase("uuid");
  try {
    read_provenance(rec, "/provenance");
    FAIL() << "a record without a GPU uuid was read";
  } catch (const FieldError& e) {
    EXPECT_NE(std::string(e.what()).find("/provenance/gpu/uuid"), std::string::npos) << e.what();
  }
}

// The calibration and timeline records hold the run record's typed provenance (and the
// timeline its shape): each committed one reads into the structs and writes back the same
// blocks, and a block without a field the writer always writes is refused, naming it.
TEST(Provenance, CalibrationAndTimelineRecordsReadTheTypedBlocks) {
  const fs::path root = fs::path(ATTNLAB_COMMITTED_REPORTS);
  int read = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string name = e.path().filename().string();
    const bool calibration = name == "calibration.json.gz";
    if (!calibration && !(name == "run.json.gz" && e.path().string().find("/timeline/") != std::string::npos))
      continue;
    SCOPED_TRACE(e.path().string());
    auto raw = nlohmann::ordered_json::parse(read_record_text(e.path()));
    if (calibration) {
      const CalibrationRecord rec = read_calibration_record(raw);
      EXPECT_FALSE(rec.provenance.gpu.uuid.empty());
      EXPECT_EQ(to_json(rec)["provenance"], raw["provenance"]);
    } else {
      const TimelineRecord rec = read_timeline_record(raw);
      EXPECT_EQ(shape_name(rec.shape), raw["shape_name"].get<std::string>());
      EXPECT_EQ(to_json(rec)["shape"], raw["shape"]);
      EXPECT_EQ(to_json(rec)["provenance"], raw["provenance"]);
      auto renamed = raw;
      renamed["shape_name"] = "1x1x1x64";
      EXPECT_THROW(read_timeline_record(renamed), FieldError);
    }
    raw["provenance"]["gpu"].erase("uuid");
    try {
      if (calibration) read_calibration_record(raw);
      else read_timeline_record(raw);
      ADD_FAILURE() << "a provenance without its GPU's uuid was read";
    } catch (const FieldError& err) {
      EXPECT_NE(std::string(err.what()).find("/provenance/gpu/uuid"), std::string::npos) << err.what();
    }
    ++read;
  }
  EXPECT_GE(read, 2);
}

TEST(Provenance, UuidInNvidiaSmiForm) {
  unsigned char b[16];
  for (int i = 0; i < 16; ++i) b[i] = static_cast<unsigned char>(i * 17);
  EXPECT_EQ(gpu_uuid_string(b), "GPU-00112233-4455-6677-8899-aabbccddeeff");
}

// One headline rule for every writer (the harness and the SDPA importer): cold where it ran,
// else the first regime run.
TEST(Headline, ColdWhereItRanElseTheFirst) {
  EXPECT_EQ(headline_regime({"warm", "graph", "cold"}), "cold");
  EXPECT_EQ(headline_regime({"graph", "warm"}), "graph");
  EXPECT_EQ(headline_regime({}), "");
}

// The typed request names its headline once: the options written from it hold it after
// check_only (null for a check-only run), and a record written before the options named it
// reads it from its regimes, as its entries name theirs.
TEST(Headline, TheRequestNamesItOnceAndOlderRecordsReadItFromTheirRegimes) {
  TimingRequest t;
  t.regimes = {Regime::kGraph, Regime::kWarm};
  EXPECT_EQ(t.headline(), Regime::kGraph);
  ordered_json j = {{"options", to_json(sampling_options(t))}};
  EXPECT_EQ(keys(j["options"]), (std::vector<std::string>{"regimes", "check_only", "headline_regime", "stopping_rule"}));
  EXPECT_EQ(j["options"]["headline_regime"], "graph");
  EXPECT_EQ(read_recorded_options(j, "/options").headline(), "graph");
  t.check_only = true;
  EXPECT_FALSE(t.headline());
  j["options"] = to_json(sampling_options(t));
  EXPECT_TRUE(j["options"]["headline_regime"].is_null());
  EXPECT_EQ(read_recorded_options(j, "/options").headline(), "");

  j["options"] = to_json(sampling_options(TimingRequest{}));
  j["options"].erase("headline_regime");
  const RecordedOptions older = read_recorded_options(j, "/options");
  EXPECT_FALSE(older.headline_regime);
  EXPECT_EQ(older.headline(), "cold");
  EXPECT_FALSE(to_json(older).contains("headline_regime"));  // written back as it was read
  j["options"]["headline_regime"] = "warm";
  j["options"]["regimes"] = {"cold"};
  EXPECT_THROW(read_recorded_options(j, "/options"), FieldError);
}

// The options' one reader: a current harness record's options read back whole; an older
// committed record (the H100 fixture, written before metrics, throttled, inputs and
// profile_launch were recorded) reads with RecordedOptions' documented defaults; a field of the
// wrong type still throws.
TEST(Options, OneReaderForEveryLayoutWithTheDocumentedDefaults) {
  const auto rec = committed_phase_record();
  const RecordedOptions now = read_recorded_options(rec, "/options");
  EXPECT_EQ(now.metrics, rec["options"]["metrics"].get<std::string>());
  EXPECT_EQ(now.throttled, rec["options"]["throttled"].get<std::string>());
  EXPECT_EQ(now.inputs, rec["options"]["inputs"].get<std::string>());
  EXPECT_FALSE(now.metrics.empty());
  EXPECT_EQ(to_json(now), rec["options"]);
  const auto old = read_record(fs::path(ATTNLAB_FIXTURES_DIR) / "h100-phase1-run.json");
  ASSERT_FALSE(old["options"].contains("metrics"));
  const RecordedOptions o = read_recorded_options(old, "/options");
  EXPECT_EQ(o.metrics, "");
  EXPECT_EQ(o.throttled, "");
  EXPECT_EQ(o.inputs, "");
  EXPECT_FALSE(o.profile_launch);
  EXPECT_FALSE(o.backend);
  EXPECT_EQ(o.regimes, (std::vector<std::string>{"cold", "warm", "graph"}));
  EXPECT_EQ(o.headline(), "cold");
  ordered_json bad = old;
  bad["options"]["profile_launch"] = "no";
  EXPECT_THROW(read_recorded_options(bad, "/options"), FieldError);
  bad = old;
  bad["options"].erase("check_only");
  EXPECT_THROW(read_recorded_options(bad, "/options"), FieldError);
}

// The JSON Schema of attnlab.run/1 (record/schema/attnlab.run-1.schema.json) and the record
// library (record/record.hpp) state the same contract: its name, and every key the library
// requires is required along its whole path in the schema. Records themselves are validated
// against the schema by scripts/validate-records (ctest record.schema_*); the timing block's
// mapping is checked against every committed record.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "record/correctness.hpp"
#include "record/fields.hpp"
#include "record/metrics.hpp"
#include "record/record.hpp"
#include "record/result.hpp"
#include "record/sass.hpp"
#include "record/static_facts.hpp"
#include "record/timing.hpp"

using namespace attnlab;

namespace {

ordered_json load_schema() {
  std::ifstream in(ATTNLAB_RUN_SCHEMA);
  if (!in) throw std::runtime_error(std::string("cannot read ") + ATTNLAB_RUN_SCHEMA);
  return ordered_json::parse(in);
}

// The schema node a "$ref": "#/$defs/<name>" points to, or the node itself.
const ordered_json& resolve(const ordered_json& schema, const ordered_json& node) {
  if (!node.contains("$ref")) return node;
  const std::string ref = node["$ref"];
  const std::string prefix = "#/$defs/";
  if (ref.rfind(prefix, 0) != 0) throw std::runtime_error("unexpected $ref " + ref);
  return schema["$defs"].at(ref.substr(prefix.size()));
}

// Empty when every segment of `pointer` is required in its parent object, below `node`;
// otherwise the first segment that is not.
std::string first_unrequired(const ordered_json& schema, const ordered_json& start,
                             const std::string& pointer) {
  const ordered_json* node = &resolve(schema, start);
  std::stringstream segments(pointer.substr(1));
  std::string seg, path;
  while (std::getline(segments, seg, '/')) {
    path += "/" + seg;
    const auto& req = node->value("required", ordered_json::array());
    if (std::find(req.begin(), req.end(), seg) == req.end()) return path + " (not required)";
    if (!node->contains("properties") || !(*node)["properties"].contains(seg))
      return path + " (no property)";
    node = &resolve(schema, (*node)["properties"][seg]);
  }
  return "";
}

}  // namespace

TEST(RecordSchema, NamesTheLibrarysSchema) {
  const auto schema = load_schema();
  EXPECT_EQ(schema["properties"]["schema"]["const"], kRunSchema);
}

TEST(RecordSchema, RequiresEveryKeyTheLibraryRequires) {
  const auto schema = load_schema();
  for (const auto& k : required_record_keys())
    EXPECT_EQ(first_unrequired(schema, schema, k), "") << k;
  const ordered_json result = {{"$ref", "#/$defs/result"}};
  for (const auto& k : required_result_keys())
    EXPECT_EQ(first_unrequired(schema, result, k), "") << "/results/*" << k;
}

TEST(RecordSchema, StatusValuesMatchTheLibrary) {
  const auto schema = load_schema();
  // record_problems accepts exactly these; a record the schema accepts passes it too.
  EXPECT_EQ(schema["properties"]["status"]["enum"], ordered_json({"ok", "failed", "incomplete"}));
  ordered_json bad = {{"schema", kRunSchema}, {"status", "done"}};
  bool named = false;
  for (const auto& p : record_problems(bad)) named = named || p.find("/status") != std::string::npos;
  EXPECT_TRUE(named);
}

// The timing block's one mapping (record/timing.hpp): reading a regime of any committed record
// (C++ harness or sdpa_baseline.py) and writing it back gives the same bytes, keys in the same
// order, so the reader and the writer share one layout with the records already kept.
TEST(TimingMapping, EveryCommittedRegimeRoundTrips) {
  namespace fs = std::filesystem;
  int regimes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(ATTNLAB_COMMITTED_REPORTS)) {
    if (entry.path().filename() != "run.json.gz") continue;  // committed records are compressed
    const ordered_json record = ordered_json::parse(read_record_text(entry.path()));
    if (record.value("schema", "") != kRunSchema) continue;  // a timeline's run.json, say
    for (std::size_t i = 0; i < record["results"].size(); ++i) {
      const ordered_json& timing = record["results"][i]["timing"];
      if (!timing.is_object()) continue;
      for (const auto& [name, block] : timing.items()) {
        const std::string ptr = "/results/" + std::to_string(i) + "/timing/" + name;
        EXPECT_EQ(to_json(read_regime_timing(record, ptr)).dump(), block.dump())
            << entry.path() << " " << ptr;
        ++regimes;
      }
    }
  }
  EXPECT_GT(regimes, 100) << "too few committed timing blocks found under " << ATTNLAB_COMMITTED_REPORTS;
}

TEST(TimingMapping, ReaderNamesTheBadField) {
  ordered_json record;
  record["t"] = {{"median_ns", 5.0}, {"p10_ns", 4.0}, {"p90_ns", "6"}};
  try {
    read_regime_timing(record, "/t");
    FAIL() << "expected FieldError";
  } catch (const FieldError& e) {
    EXPECT_STREQ(e.what(), "/t/p90_ns is not a number");
  }
  record["t"]["p90_ns"] = 6.0;
  try {
    read_regime_timing(record, "/t");
    FAIL() << "expected FieldError";
  } catch (const FieldError& e) {
    EXPECT_STREQ(e.what(), "missing /t/min_ns");
  }
}

// The metrics block's one mapping (record/metrics.hpp), checked the same way on every
// committed record: read, written back, the same bytes.
TEST(MetricsMapping, EveryCommittedGroupRoundTrips) {
  namespace fs = std::filesystem;
  int groups = 0;
  for (const auto& entry : fs::recursive_directory_iterator(ATTNLAB_COMMITTED_REPORTS)) {
    if (entry.path().filename() != "run.json.gz") continue;  // committed records are compressed
    const ordered_json record = ordered_json::parse(read_record_text(entry.path()));
    if (record.value("schema", "") != kRunSchema) continue;  // a timeline's run.json, say
    for (std::size_t i = 0; i < record["results"].size(); ++i) {
      // operator[] of a const JSON object on a missing key is undefined behaviour (a record of
      // a run with --metrics none has no metrics key: the sweeps' records), so look it up.
      const ordered_json& result = record["results"][i];
      if (!result.contains("metrics") || !result["metrics"].is_object()) continue;
      const ordered_json& metrics = result["metrics"];
      for (const auto& [name, block] : metrics.items()) {
        const std::string ptr = "/results/" + std::to_string(i) + "/metrics/" + name;
        const GroupResult g = read_group_result(record, ptr);
        EXPECT_EQ(g.group, name);
        EXPECT_EQ(to_json(g).dump(), block.dump()) << entry.path() << " " << ptr;
        ++groups;
      }
    }
  }
  // The current records of phases 1 to 5 with their metric groups: dozens, not a handful.
  EXPECT_GT(groups, 50) << "too few committed metric groups found under " << ATTNLAB_COMMITTED_REPORTS;
}

// The correctness block's one mapping (record/correctness.hpp), on every committed record.
TEST(CorrectnessMapping, EveryCommittedBlockRoundTrips) {
  namespace fs = std::filesystem;
  int blocks = 0;
  for (const auto& entry : fs::recursive_directory_iterator(ATTNLAB_COMMITTED_REPORTS)) {
    if (entry.path().filename() != "run.json.gz") continue;  // committed records are compressed
    const ordered_json record = ordered_json::parse(read_record_text(entry.path()));
    if (record.value("schema", "") != kRunSchema) continue;  // a timeline's run.json, say
    for (std::size_t i = 0; i < record["results"].size(); ++i) {
      const ordered_json& block = record["results"][i]["correctness"];
      if (!block.is_object() || !block["passed"].is_boolean()) continue;
      const std::string ptr = "/results/" + std::to_string(i) + "/correctness";
      // Every key and value, in any order: the SDPA baseline's records of 8bb50a2 list
      // repeat_identical after the row rule's fields, the C++ mapping before them (key order
      // is not data; the baseline now writes the C++ order).
      EXPECT_EQ(nlohmann::json::parse(to_json(read_correctness(record, ptr)).dump()),
                nlohmann::json::parse(block.dump()))
          << entry.path() << " " << ptr;
      ++blocks;
    }
  }
  EXPECT_GT(blocks, 100) << "too few committed correctness blocks found under " << ATTNLAB_COMMITTED_REPORTS;
}

TEST(CorrectnessMapping, AFailureIsWrittenLast) {
  Correctness c;
  c.failure = "output after timing differs from the checked output";
  const ordered_json j = to_json(c);
  EXPECT_EQ(j.items().begin().key(), "passed");
  EXPECT_EQ(std::prev(j.end()).key(), "failure");
  EXPECT_EQ(read_correctness(ordered_json{{"c", j}}, "/c").failure, c.failure);
}

// A gate over several input distributions (record/correctness.hpp): each check is listed, in
// the order checked, and one failed check fails the block, by the name of its distribution.
namespace {
Correctness checked(const char* inputs, bool passed, double ratio) {
  Correctness c;
  c.passed = passed;
  c.inputs = inputs;
  c.row_err_ratio = ratio;
  c.max_abs_err = ratio * 1e-3;
  c.repeat_identical = true;
  if (!passed) c.failure = "worst row (b 0, h 1, row 1530): rms err 0.2 > tolerance 0.001";
  return c;
}
}  // namespace

// The block's one reader, which the reports read through too: an error written null (an output
// that held NaN or Inf) reads as inf, each check as listed; a figure missing or of the wrong
// type throws.
TEST(CorrectnessMapping, NullErrorsReadAsInfiniteAndAMissingOrMistypedFigureThrows) {
  Correctness c = with_checks(checked("normal", true, 0.5), {input_check(checked("normal", true, 0.5)),
                                                             input_check(checked("wide", false, 2.0))});
  c.rows_checked = 96;
  c.rows_total = 4096;
  ordered_json j = to_json(c);
  j["max_rel_err"] = nullptr;
  const Correctness r = read_correctness(ordered_json{{"c", j}}, "/c");
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.max_abs_err, c.max_abs_err);
  EXPECT_TRUE(std::isinf(r.max_rel_err));
  EXPECT_EQ(r.rows_checked, 96);
  EXPECT_EQ(r.rows_total, 4096);
  EXPECT_EQ(r.failure, c.failure);
  ASSERT_EQ(r.checks.size(), 2u);
  EXPECT_EQ(r.checks[1].inputs, "wide");

  j["rows_checked"] = "96";
  EXPECT_THROW(read_correctness(ordered_json{{"c", j}}, "/c"), FieldError);
  j.erase("rows_checked");
  EXPECT_THROW(read_correctness(ordered_json{{"c", j}}, "/c"), FieldError);
}

// The static block through the writer's reader (read_static_evidence): what the harness writes
// for a check-only run (no launch facts, and why) reads back to the same bytes; an older committed
// record's kernel, written before the occupancy limits, reads with none and no reason (the report
// says the record predates them) where one whose function was not resolved keeps its reason; the
// SASS counts carry the record's names in its order; a mistyped field throws.
TEST(StaticEvidence, OneReaderForWhatTheHarnessWritesAndOlderKernels) {
  EXPECT_FALSE(read_static_evidence(ordered_json::object(), "/s"));
  StaticFacts facts;
  facts.reason = "a --check-only run launches nothing it times";
  sass::PtxasEvidence ptxas;
  ptxas.available = true;
  ptxas.kernels.push_back({"gone", std::nullopt, "not compiled by this build"});
  ordered_json j = {{"s", to_json(facts)}};
  j["s"]["sass"] = to_json(sass::SassEvidence{});
  j["s"]["ptxas"] = to_json(ptxas);
  const auto st = read_static_evidence(j, "/s");
  ASSERT_TRUE(st && st->facts && st->sass && st->ptxas);
  EXPECT_FALSE(st->facts->available);
  EXPECT_EQ(st->facts->reason, "a --check-only run launches nothing it times");
  EXPECT_TRUE(st->facts->kernels.empty());
  EXPECT_FALSE(st->sass->available);
  ASSERT_EQ(st->ptxas->kernels.size(), 1u);
  EXPECT_FALSE(st->ptxas->kernels[0].function);
  EXPECT_EQ(to_json(*st->facts), to_json(facts));
  EXPECT_EQ(to_json(*st->ptxas), j["s"]["ptxas"]);

  const ordered_json old = ordered_json::parse(read_record_text(
      std::filesystem::path(ATTNLAB_COMMITTED_REPORTS) / "h100/records/4/20261124T230431Z-8bb50a2/run.json.gz"));
  ASSERT_FALSE(old["results"][0]["static"]["kernels"][0].contains("occupancy_limits"));
  const auto o = read_static_evidence(old, "/results/0/static");
  ASSERT_TRUE(o && o->facts && o->sass);
  const KernelFacts& k = o->facts->kernels.at(0);
  EXPECT_FALSE(k.occupancy);
  EXPECT_EQ(k.occupancy_reason, "");
  EXPECT_EQ(k.ctas(), old["results"][0]["static"]["kernels"][0]["grid"][0].get<long long>() *
                          old["results"][0]["static"]["kernels"][0]["grid"][1].get<long long>() *
                          old["results"][0]["static"]["kernels"][0]["grid"][2].get<long long>());
  const auto counts = sass::named_counts(o->sass->total);
  std::vector<std::string> names;
  for (const auto& [name, n] : counts) names.push_back(name);
  EXPECT_EQ(names.front(), "instructions");
  EXPECT_EQ(names.at(9), "BRA total");
  EXPECT_EQ(names.at(11), "BRA @P");
  EXPECT_EQ(counts.at(0).second, old["results"][0]["static"]["sass"]["instructions"].get<std::int64_t>());

  ordered_json unresolved = old;
  unresolved["results"][0]["static"]["kernels"][0]["occupancy_limits"] = nullptr;
  unresolved["results"][0]["static"]["kernels"][0]["occupancy_limits_reason"] = "the function's attributes were not resolved";
  EXPECT_EQ(read_static_evidence(unresolved, "/results/0/static")->facts->kernels.at(0).occupancy_reason,
            "the function's attributes were not resolved");
  ordered_json bad = old;
  bad["results"][0]["static"]["kernels"][0]["grid"] = "64x256x1";
  EXPECT_THROW(read_static_evidence(bad, "/results/0/static"), FieldError);
  bad = old;
  bad["results"][0]["static"]["sass"]["available"] = "yes";
  EXPECT_THROW(read_static_evidence(bad, "/results/0/static"), FieldError);
}

// A result's metrics through the writer's reader: absent or null, none collected; each group in
// record order as the harness wrote it; a group short of a field the writer writes, or with a
// field of the wrong type, throws.
TEST(MetricGroups, ReadAsTheHarnessWroteThemAndRefuseWhatItNeverWrites) {
  EXPECT_FALSE(read_metric_groups(ordered_json::object(), "/m"));
  EXPECT_FALSE(read_metric_groups(ordered_json{{"m", nullptr}}, "/m"));
  GroupResult full;
  full.group = "throughput";
  full.available = true;
  full.passes = 3;
  full.collection_wall_s = 0.5;
  full.values = {{"gpu__time_duration.sum", "ns", 1200.0}, {"sm__cycles_active.avg", "cycle", 9.0}};
  full.unavailable_metrics = {{"x.sum", "not on this chip"}};
  full.kernels = {{"k0", 0, {}}, {"k1", 1, {}}};
  full.kernel_passes = 4;
  GroupResult memory;
  memory.group = "memory";
  memory.reason = "CUPTI: not supported";
  const ordered_json m = {{"m", {{"memory", to_json(memory)}, {"throughput", to_json(full)}}}};
  const auto groups = read_metric_groups(m, "/m");
  ASSERT_TRUE(groups);
  ASSERT_EQ(groups->size(), 2u);
  EXPECT_EQ(groups->at(0).group, "memory");
  EXPECT_FALSE(find_group(*groups, "tensor"));
  const GroupResult* u = find_group(*groups, "memory");
  ASSERT_TRUE(u);
  EXPECT_FALSE(u->available);
  EXPECT_EQ(u->reason, "CUPTI: not supported");
  const GroupResult* t = find_group(*groups, "throughput");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->passes, 3);
  EXPECT_EQ(t->kernel_passes, 4);
  ASSERT_EQ(t->kernels.size(), 2u);
  EXPECT_EQ(t->kernels[1].name, "k1");
  EXPECT_EQ(t->kernels[1].index, 1);
  EXPECT_EQ(t->collection_wall_s, 0.5);
  EXPECT_EQ(t->value("gpu__time_duration.sum"), 1200.0);
  EXPECT_EQ(t->values[1].unit, "cycle");
  EXPECT_EQ(t->unavailable_metrics.at(0).second, "not on this chip");
  EXPECT_EQ(to_json(*t), m["m"]["throughput"]);
  ordered_json wrong = m;
  wrong["m"]["throughput"]["passes"] = "three";
  EXPECT_THROW(read_metric_groups(wrong, "/m"), FieldError);
  wrong = m;
  wrong["m"]["throughput"]["values"]["gpu__time_duration.sum"]["value"] = "fast";
  EXPECT_THROW(read_metric_groups(wrong, "/m"), FieldError);
  wrong = m;
  wrong["m"]["throughput"].erase("collection_wall_s");
  EXPECT_THROW(read_metric_groups(wrong, "/m"), FieldError);
  wrong = m;
  wrong["m"]["tensor"] = nullptr;
  EXPECT_THROW(read_metric_groups(wrong, "/m"), FieldError);
}

// metrics_config's one reader: a check-only run's block holds only groups and why nothing was
// collected; a mistyped field throws.
TEST(MetricsConfig, ACheckOnlyRunsBlockReadsItsReason) {
  MetricsConfig none;
  none.not_collected = "--check-only: nothing is timed";
  const MetricsConfig c = read_metrics_config(ordered_json{{"c", to_json(none)}}, "/c");
  EXPECT_TRUE(c.groups.empty());
  EXPECT_EQ(c.not_collected, "--check-only: nothing is timed");
  EXPECT_THROW(read_metrics_config(ordered_json{{"c", {{"groups", "tensor"}}}}, "/c"), FieldError);
}

TEST(CorrectnessChecks, AFailedCheckFailsTheBlockByItsInputs) {
  const Correctness normal = checked("normal", true, 0.1);
  const Correctness block = with_checks(
      normal, {input_check(normal), input_check(checked("wide", true, 0.2)),
               input_check(checked("negative", false, 240.0))});
  EXPECT_FALSE(block.passed);
  ASSERT_TRUE(block.failure.has_value());
  EXPECT_EQ(block.failure->rfind("negative inputs: worst row", 0), 0u) << *block.failure;
  EXPECT_EQ(block.inputs, "normal");         // the figures are the timed distribution's
  EXPECT_DOUBLE_EQ(*block.row_err_ratio, 0.1);
  const Correctness all = with_checks(normal, {input_check(normal), input_check(checked("wide", true, 0.2))});
  EXPECT_TRUE(all.passed);
  EXPECT_FALSE(all.failure.has_value());
}

TEST(CorrectnessChecks, EveryCheckRoundTripsInItsOrder) {
  const Correctness normal = checked("normal", true, 0.1);
  Correctness nan_output = checked("negative", false, 1.0);
  nan_output.max_abs_err = nan_output.row_err_ratio.emplace(std::numeric_limits<double>::infinity());
  const Correctness block =
      with_checks(normal, {input_check(normal), input_check(checked("wide", true, 0.2)), input_check(nan_output)});
  const ordered_json written = ordered_json::parse(to_json(block).dump());  // through the text
  ASSERT_TRUE(written.contains("checks"));
  std::vector<std::string> names;
  for (const auto& k : written["checks"]) names.push_back(k["inputs"]);
  EXPECT_EQ(names, (std::vector<std::string>{"normal", "wide", "negative"}));
  EXPECT_TRUE(written["checks"][2]["max_abs_err"].is_null());  // JSON has no infinity
  const Correctness back = read_correctness(ordered_json{{"c", written}}, "/c");
  ASSERT_EQ(back.checks.size(), 3u);
  EXPECT_FALSE(back.checks[2].passed);
  EXPECT_TRUE(std::isinf(back.checks[2].max_abs_err));
  EXPECT_EQ(to_json(back).dump(), written.dump());
  // A block of one distribution (every record before the list) writes no list.
  EXPECT_FALSE(to_json(normal).contains("checks"));
}

TEST(TimingMapping, BusyStatisticsRoundTripAfterTheBusyMedian) {
  RegimeTiming t;
  t.method = "m";
  t.median_ns = t.p10_ns = t.p90_ns = t.min_ns = t.max_ns = 5.0;
  t.count = 1;
  t.samples_ns = {5.0};
  t.kernels_per_launch = 2;
  t.busy_median_ns = 3.0;
  t.busy_p10_ns = 2.5;
  t.busy_p90_ns = 3.5;
  const ordered_json j = ordered_json{{"t", to_json(t)}};
  const std::string text = j["t"].dump();
  EXPECT_NE(text.find(R"("busy_median_ns":3.0,"busy_p10_ns":2.5,"busy_p90_ns":3.5)"), std::string::npos) << text;
  const RegimeTiming back = read_regime_timing(j, "/t");
  EXPECT_EQ(back.busy_p10_ns, 2.5);
  EXPECT_EQ(back.busy_p90_ns, 3.5);
  EXPECT_EQ(to_json(back).dump(), text);
  // And the schema knows them.
  const auto props = load_schema()["$defs"]["regime"]["properties"];
  EXPECT_TRUE(props.contains("busy_p10_ns"));
  EXPECT_TRUE(props.contains("busy_p90_ns"));
}

TEST(TimingMapping, GpuStateRoundTrips) {
  RegimeTiming t;
  t.method = "m";
  t.median_ns = t.p10_ns = t.p90_ns = t.min_ns = t.max_ns = 5.0;
  t.count = 1;
  t.samples_ns = {5.0};
  GpuState g;
  g.source = "NVML";
  g.readings = 3;
  g.max_sm_clock_mhz = 1980;
  g.sm_clock_min_mhz = 1590;
  g.sm_clock_median_mhz = 1785;
  g.sm_clock_max_mhz = 1980;
  g.power_max_w = 690.5;
  g.temperature_max_c = 61;
  g.clock_event_readings = {{"sw_power_cap", 2}};
  g.throttled_readings = 1;
  g.throttled_samples_ns = {7.5};
  g.throttled_policy = "left out of the statistics";
  t.gpu_state = g;
  const ordered_json j = ordered_json{{"t", to_json(t)}};
  EXPECT_EQ(to_json(read_regime_timing(j, "/t")).dump(), j["t"].dump());
  t.gpu_state = GpuState{};
  t.gpu_state->unavailable = "NVML not loadable";
  const ordered_json u = ordered_json{{"t", to_json(t)}};
  EXPECT_EQ(u["t"]["gpu_state"].dump(), R"({"unavailable":"NVML not loadable"})");
  EXPECT_EQ(read_regime_timing(u, "/t").gpu_state->unavailable, "NVML not loadable");
}

// Hardware-evidence pieces that need no GPU: the metric-group table and its parsing, the
// derived roofline figures, and the import of Nsight Compute's CSV into a run record.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/shapes.hpp"
#include "profiler/ncu_import.hpp"
#include "profiler/derived.hpp"
#include "profiler/metric_groups.hpp"

using namespace attnlab;
using namespace attnlab::profiler;

namespace {

TEST(MetricGroups, ParseKeepsTableOrderAndRejectsUnknownNames) {
  EXPECT_EQ(parse_metric_groups("all"),
            (std::vector<std::string>{"tensor", "memory", "throughput", "stalls"}));
  EXPECT_EQ(parse_metric_groups("stalls,tensor,stalls"), (std::vector<std::string>{"tensor", "stalls"}));
  EXPECT_TRUE(parse_metric_groups("none").empty());
  EXPECT_THROW(parse_metric_groups("tensor,bogus"), std::invalid_argument);
  EXPECT_THROW(parse_metric_groups(""), std::invalid_argument);
  EXPECT_THROW(parse_metric_groups("tensor,"), std::invalid_argument);
}

TEST(MetricGroups, NamesAreUniqueWithUnitsAndTheNineteenGh100Stalls) {
  std::set<std::string> seen;
  for (const auto& g : metric_groups())
    for (const auto& m : g.metrics) {
      EXPECT_TRUE(seen.insert(m.name).second) << m.name;
      EXPECT_FALSE(std::string(m.unit).empty()) << m.name;
    }
  const MetricGroup* stalls = find_metric_group("stalls");
  ASSERT_NE(stalls, nullptr);
  ASSERT_EQ(gh100_stall_reasons().size(), 19u);
  ASSERT_EQ(stalls->metrics.size(), 19u);
  EXPECT_STREQ(stalls->metrics[7].name,
               "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio");
  // This counter does not exist on GH100 (ncu --query-metrics --chip gh100 lacks it).
  EXPECT_EQ(find_metric("sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"),
            nullptr);
  const MetricGroup* group = nullptr;
  ASSERT_NE(find_metric("dram__bytes_write.sum", &group), nullptr);
  EXPECT_STREQ(group->name, "memory");
  EXPECT_EQ(metric_names({"throughput"}).size(), 6u);
}

TEST(MetricGroups, ProfileRangeNamesAvoidNcuFilterSyntax) {
  EXPECT_EQ(profile_range_name("4", "16x16x2048x64"), "attnlab.profile.4.16x16x2048x64");
  EXPECT_EQ(profile_range_name("4x", "1x8x512x64:causal:hkv=2"),
            "attnlab.profile.4x.1x8x512x64_causal_hkv_2");
  EXPECT_EQ(shape_slug("a/b@c[d]"), "a_b_c_d_");
}

TEST(Derived, ComputedOnlyFromMeasuredInputs) {
  DerivedInputs in;
  in.flops = 275e9;
  in.tflops = 494.7;
  in.dram_read_bytes = 200e6;
  in.dram_write_bytes = 68e6;
  in.duration_ns = 556e3;
  in.gpu_name = "NVIDIA H100 80GB HBM3";
  const auto d = to_json(derived_figures(in));
  EXPECT_NEAR(d["pct_of_tensor_peak"].get<double>(), 100.0 * 494.7 / 989.4, 1e-9);
  EXPECT_NEAR(d["arithmetic_intensity_flop_per_byte"].get<double>(), 275e9 / 268e6, 1e-9);
  EXPECT_NEAR(d["dram_gbps_measured"].get<double>(), 268e6 / 556e3, 1e-9);

  DerivedInputs missing;
  missing.flops = 1e9;
  missing.gpu_name = "NVIDIA A100-SXM4-80GB";
  missing.tflops = 100.0;
  const auto m = to_json(derived_figures(missing));
  EXPECT_TRUE(m["pct_of_tensor_peak"].is_null());
  EXPECT_TRUE(m.contains("pct_of_tensor_peak_reason"));
  EXPECT_TRUE(m["arithmetic_intensity_flop_per_byte"].is_null());
  EXPECT_TRUE(m.contains("arithmetic_intensity_flop_per_byte_reason"));
  EXPECT_TRUE(m["dram_gbps_measured"].is_null());
  EXPECT_TRUE(m.contains("dram_gbps_measured_reason"));
  EXPECT_FALSE(tensor_peak("unknown GPU").has_value());
}

TEST(Derived, AnFp8PhaseIsMeasuredAgainstTheFp8Peak) {
  // The same rate is half as much of the peak for e4m3 operands, whose dense peak is twice
  // fp16's; the record says which peak it used.
  DerivedInputs in;
  in.flops = 275e9;
  in.tflops = 830.0;
  in.gpu_name = "NVIDIA H200";
  const auto fp16 = derived_figures(in);
  in.e4m3_operands = true;
  const auto fp8 = derived_figures(in);
  ASSERT_TRUE(fp16.pct_of_tensor_peak.value && fp8.pct_of_tensor_peak.value);
  EXPECT_NEAR(*fp8.pct_of_tensor_peak.value, 100.0 * 830.0 / 1979.0, 1e-9);
  EXPECT_NEAR(*fp16.pct_of_tensor_peak.value, 100.0 * 830.0 / 989.4, 1e-9);
  EXPECT_EQ(to_json(fp8)["tensor_peak_tflops"].get<double>(), 1979.0);
  ASSERT_TRUE(fp8.tensor_peak_source && fp16.tensor_peak_source);
  EXPECT_NE(fp8.tensor_peak_source->find("FP8"), std::string::npos) << *fp8.tensor_peak_source;
  EXPECT_EQ(fp16.tensor_peak_source->rfind("dense fp16 peak", 0), 0u) << *fp16.tensor_peak_source;
}

TEST(Derived, ARateOverAReplayMuchLongerThanTheKernelIsNotTheKernels) {
  // d4 at the latency shape: a 5.95 us launch whose replay pass took 97.4 us.
  DerivedInputs in;
  in.flops = 4.0 * 1 * 8 * 512.0 * 512 * 64;
  in.tflops = in.flops / 5952.0 / 1e3;
  in.dram_read_bytes = 1.2e6;
  in.dram_write_bytes = 0.5e6;
  in.duration_ns = 97408;
  in.gpu_name = "NVIDIA H100 80GB HBM3";
  const auto d = to_json(derived_figures(in));
  EXPECT_NEAR(d["replay_over_kernel"].get<double>(), 97408.0 / 5952.0, 1e-6);
  EXPECT_TRUE(d["dram_gbps_measured"].is_null());
  EXPECT_NE(d["dram_gbps_measured_reason"].get<std::string>().find("replay overhead"), std::string::npos);
  // Within the ratio the rate stands.
  in.duration_ns = 2.9 * 5952.0;
  EXPECT_TRUE(to_json(derived_figures(in))["dram_gbps_measured"].is_number());
}

const char* kCsv =
    "==PROF== Connected to process\n"
    "\"ID\",\"Process ID\",\"Kernel Name\",\"Grid Size\",\"dram__bytes_read.sum\","
    "\"gpu__time_duration.sum\",\"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active\","
    "\"sm__inst_executed_pipe_tensor_op_hmma.sum\"\n"
    "\"\",\"\",\"\",\"\",\"byte\",\"usecond\",\"%\",\"inst\"\n"
    "\"0\",\"42\",\"attention_kernel<64>\",\"(64, 16, 16)\",\"1,000,000\",\"3\",\"90\",\"n/a\"\n"
    "\"1\",\"42\",\"combine_kernel\",\"(16, 1, 1)\",\"500,000\",\"1\",\"50\",\"n/a\"\n";

TEST(NcuImport, ParsesRawCsvWithUnitsAndThousandsSeparators) {
  std::istringstream in(kCsv);
  const NcuCsv csv = parse_ncu_csv(in);
  ASSERT_EQ(csv.rows.size(), 2u);
  EXPECT_EQ(csv.column("Kernel Name"), 2);
  EXPECT_EQ(csv.units[5], "usecond");
  EXPECT_EQ(csv.rows[0][3], "(64, 16, 16)");
  EXPECT_EQ(parse_ncu_number("1,073,741,824"), 1073741824.0);
  EXPECT_FALSE(parse_ncu_number("n/a").has_value());
  EXPECT_FALSE(parse_ncu_number("12 us").has_value());
  std::istringstream ragged("\"ID\",\"a\"\n\"0\",\"1\",\"2\"\n");
  EXPECT_THROW(parse_ncu_csv(ragged), std::runtime_error);
  std::istringstream no_header("x,y\n1,2\n");
  EXPECT_THROW(parse_ncu_csv(no_header), std::runtime_error);
}

TEST(NcuImport, ConvertsOnlyUnitsItUnderstands) {
  EXPECT_EQ(convert_ncu_unit(2.5, "usecond", "ns"), 2500.0);
  EXPECT_EQ(convert_ncu_unit(7, "byte", "bytes"), 7.0);
  EXPECT_FALSE(convert_ncu_unit(7, "Kbyte", "bytes").has_value());
  EXPECT_FALSE(convert_ncu_unit(7, "Kinst", "inst").has_value());
  EXPECT_EQ(convert_ncu_unit(7, "inst", "inst"), 7.0);
  EXPECT_EQ(convert_ncu_unit(7, "", "ratio"), 7.0);
  EXPECT_EQ(rel_diff_pct(103, 100), 3.0);
  EXPECT_EQ(rel_diff_pct(0, 0), 0.0);
  EXPECT_FALSE(rel_diff_pct(1, 0).has_value());
}

ordered_json cupti_metrics() {
  return ordered_json::parse(R"({
    "tensor": {"available": true, "passes": 1, "collection_wall_s": 0.01, "values": {
      "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active": {"value": 80.0, "unit": "%"}}},
    "memory": {"available": true, "passes": 1, "collection_wall_s": 0.02, "values": {
      "dram__bytes_read.sum": {"value": 1530000, "unit": "bytes"}}},
    "throughput": {"available": true, "passes": 8, "collection_wall_s": 0.05, "values": {
      "gpu__time_duration.sum": {"value": 4000, "unit": "ns"}}},
    "stalls": {"available": false, "reason": "test"}})");
}

// The groups as a result holds them.
std::vector<GroupResult> cupti_groups() {
  const ordered_json m = {{"metrics", cupti_metrics()}};
  std::vector<GroupResult> groups;
  for (const auto& [name, g] : m["metrics"].items()) groups.push_back(read_group_result(m, "/metrics/" + name));
  return groups;
}

TEST(NcuImport, CombinesKernelsAndComparesWithCupti) {
  std::istringstream in(kCsv);
  const auto e = to_json(ncu_result_entry(parse_ncu_csv(in), "ncu-x.ncu-rep", cupti_groups()));
  EXPECT_EQ(e["kernels"].get<int>(), 2);
  const auto& v = e["values"];
  EXPECT_DOUBLE_EQ(v["dram__bytes_read.sum"]["value"].get<double>(), 1.5e6);     // summed
  EXPECT_DOUBLE_EQ(v["gpu__time_duration.sum"]["value"].get<double>(), 4000.0);  // us -> ns, summed
  // Weighted by duration: (90*3 + 50*1) / 4.
  EXPECT_DOUBLE_EQ(v["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"]["value"].get<double>(), 80.0);
  EXPECT_NEAR(e["rel_diff_pct"]["dram__bytes_read.sum"].get<double>(), 2.0, 1e-9);
  EXPECT_DOUBLE_EQ(e["rel_diff_pct"]["gpu__time_duration.sum"].get<double>(), 0.0);
  EXPECT_TRUE(e["unavailable"].contains("sm__inst_executed_pipe_tensor_op_hmma.sum"));  // n/a
  EXPECT_TRUE(e["unavailable"].contains("lts__t_sector_hit_rate.pct"));  // not in the report
  EXPECT_TRUE(e.contains("combined"));
}

TEST(NcuImport, MergesOnceIntoTheRecordAndPrintsTheAgreementTable) {
  const auto dir = std::filesystem::temp_directory_path() / "attnlab-ncu-import-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "ncu-1x8x512x64_causal.csv") << kCsv;
  RunRecord record;
  ResultEntry timed;
  timed.shape = parse_shape("1x8x512x64:causal");
  timed.timing.emplace_back("warm", RegimeTiming{});
  timed.headline_regime = "warm";
  timed.metrics = cupti_groups();
  record.results.push_back(timed);
  ResultEntry failed;
  failed.shape = parse_shape("16x16x2048x64");
  record.results.push_back(failed);
  NcuProfileInfo info;
  info.wall_s["1x8x512x64_causal"] = 12.0;
  info.baseline_wall_s["1x8x512x64_causal"] = 2.0;
  merge_ncu(record, dir, info);
  const ordered_json j = to_json(record);
  EXPECT_TRUE(j["results"][0].contains("ncu"));
  EXPECT_FALSE(j["results"][1].contains("ncu"));
  EXPECT_DOUBLE_EQ(j["ncu_profile"]["shapes"]["1x8x512x64_causal"]["ncu_overhead_s"].get<double>(), 10.0);
  const std::string table = agreement_table(record);
  EXPECT_NE(table.find("within 3%"), std::string::npos) << table;
  EXPECT_NE(table.find("ncu overhead 10 s"), std::string::npos) << table;
  EXPECT_THROW(merge_ncu(record, dir, info), std::runtime_error);
  std::filesystem::remove_all(dir);
}

}  // namespace

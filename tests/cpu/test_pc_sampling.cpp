// The CPU-only pieces of PC sampling (record/pc_sampling.hpp, profiler/pc_sampling_plan.hpp):
// SASS by function offset from a cuobjdump listing, CUPTI's stall-reason names, source-line
// aggregation, executed-instruction counts (CUPTI SASS metrics) on PCs and lines, the record's
// JSON mapping, the --metrics spec, the sampling period and the per-kernel breakdown with its
// counters per kernel.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "profiler/pc_sampling_plan.hpp"
#include "record/fields.hpp"
#include "record/metrics.hpp"
#include "record/pc_sampling.hpp"
#include "tests/pc_sampling_json.hpp"

using namespace attnlab;

namespace {

std::string fixture_sass() {
  std::ifstream in(std::string(ATTNLAB_FIXTURES_DIR) + "/sm90a-kernels.sass");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const char* kD2 = "_Z13d2_branchlessPK6__halfS1_S1_PS_f";
const char* k4x =
    "_ZN7attnlab7phase4x48_GLOBAL__N__7f3c2a10_15_phase4x_wmma_cu_5d2e8a0116attention_kernelILi64EEEvPK6__"
    "halfS5_S5_PS3_iiifb";

TEST(PcSamplingSass, InstructionsByOffsetOfTheNamedFunctionOnly) {
  const std::string listing = fixture_sass();
  const auto d2 = sass_by_offset(listing, kD2);
  ASSERT_FALSE(d2.empty());
  EXPECT_EQ(d2.at(0x0), "LDC R1, c[0x0][0x28]");
  EXPECT_EQ(d2.at(0x60), "@!PT LDS RZ, [RZ]");
  EXPECT_EQ(d2.at(0x70), "@P0 EXIT");
  // Offsets step by 16 bytes, from 0, without gaps: every instruction line was read and no
  // encoding-only line was taken for one.
  std::uint64_t expect = 0;
  for (const auto& [off, text] : d2) {
    EXPECT_EQ(off, expect) << text;
    expect += 16;
    EXPECT_EQ(text.find("/*"), std::string::npos) << text;
  }
  // The next function's instructions are not the first one's.
  const auto p4x = sass_by_offset(listing, k4x);
  ASSERT_FALSE(p4x.empty());
  EXPECT_NE(p4x.size(), d2.size());
  EXPECT_TRUE(sass_by_offset(listing, "no_such_kernel").empty());
  EXPECT_TRUE(sass_by_offset("", kD2).empty());
}

TEST(PcSamplingSass, NvdisasmStyleLinesWithoutEncodingsAreRead) {
  const std::string listing =
      "\t\tFunction : k\n"
      "        /*0000*/                   MOV R1, c[0x0][0x28] ;\n"
      "        /*0010*/                   LDG.E R2, desc[UR4][R2.64] ;\n"
      "\t\tFunction : other\n"
      "        /*0000*/                   EXIT ;\n";
  const auto k = sass_by_offset(listing, "k");
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k.at(0x10), "LDG.E R2, desc[UR4][R2.64]");
}

TEST(PcSamplingStalls, CuptiNamesAreStrippedToTheRecordVocabulary) {
  EXPECT_EQ(strip_stall_reason("smsp__pcsamp_warps_issue_stalled_long_scoreboard"), "long_scoreboard");
  EXPECT_EQ(strip_stall_reason("smsp__pcsamp_warps_issue_stalled_math_pipe_throttle_not_issued"),
            "math_pipe_throttle_not_issued");
  EXPECT_TRUE(is_not_issued("math_pipe_throttle_not_issued"));
  EXPECT_FALSE(is_not_issued("long_scoreboard"));
  EXPECT_EQ(strip_stall_reason("smsp__pcsamp_sample_count"), "smsp__pcsamp_sample_count");
  const StallCounts top = top_reasons({{"wait", 5}, {"barrier", 9}, {"drain", 0}, {"alu", 5}}, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].first, "barrier");
  EXPECT_EQ(top[1].first, "alu");  // ties by name
}

std::string fake_source(const std::string& file, int line) { return file + "#" + std::to_string(line); }

TEST(PcSamplingLines, PcsAggregateIntoLinesWithSharesAndStalls) {
  std::vector<SampledPc> pcs(4);
  pcs[0] = {0x10, 30, {{"long_scoreboard", 20}, {"selected", 10}}, {}, "a.cu", 7, "LDG"};
  pcs[1] = {0x20, 50, {{"long_scoreboard", 40}, {"wait", 10}}, {}, "a.cu", 7, "LDG"};
  pcs[2] = {0x30, 15, {{"math_pipe_throttle", 15}}, {}, "a.cu", 9, "HMMA"};
  pcs[3] = {0x40, 5, {{"barrier", 5}}, {}, "", 0, "BAR"};
  const auto lines = aggregate_lines(pcs, &fake_source);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].line, 7);
  EXPECT_EQ(lines[0].samples, 80u);
  EXPECT_DOUBLE_EQ(lines[0].share_pct, 80.0);
  EXPECT_EQ(lines[0].text, "a.cu#7");
  EXPECT_EQ(lines[0].pcs, (std::vector<std::uint64_t>{0x10, 0x20}));
  ASSERT_EQ(lines[0].stalls.size(), 3u);
  EXPECT_EQ(lines[0].stalls[0], (std::pair<std::string, std::uint64_t>{"long_scoreboard", 60}));
  EXPECT_EQ(lines[1].line, 9);
  EXPECT_DOUBLE_EQ(lines[1].share_pct, 15.0);
  EXPECT_EQ(lines[2].line, 0);  // PCs without a line, gathered
  EXPECT_EQ(lines[2].text, "");
  double total = 0;
  for (const auto& l : lines) total += l.share_pct;
  EXPECT_DOUBLE_EQ(total, 100.0);
  EXPECT_TRUE(aggregate_lines({}, &fake_source).empty());
}

TEST(PcSamplingLines, SourceTextIsReadFromTheFile) {
  const std::string here = std::string(ATTNLAB_SOURCE_DIR) + "/tests/cpu/test_pc_sampling.cpp";
  EXPECT_EQ(read_source_line(here, 1).rfind("// The CPU-only pieces", 0), 0u);
  EXPECT_EQ(read_source_line(here, 1000000), "");
  EXPECT_EQ(read_source_line("/no/such/file.cu", 3), "");
}

TEST(PcSamplingRecord, JsonRoundTripsAndUnavailableKeepsOnlyItsReason) {
  PcSamplingResult r;
  r.available = true;
  r.method = "m";
  r.sampling_period_log2 = 9;
  r.total_samples = 100;
  r.dropped_samples = 2;
  r.sampled_launch_ns = 12.0;
  r.unsampled_launch_ns = 10.0;
  r.overhead_pct = 20.0;
  r.non_user_samples = 5;
  r.hardware_buffer_full = true;
  r.collection_wall_s = 0.25;
  r.stall_reason_names = {"smsp__pcsamp_warps_issue_stalled_wait", "smsp__pcsamp_warps_issue_stalled_wait_not_issued"};
  KernelPcSamples k;
  k.name = "k";
  k.samples = 95;
  k.pcs = {{0x10, 95, {{"wait", 95}}, {{"wait_not_issued", 3}}, "a.cu", 3, "MOV R1, R2"}};
  k.lines = aggregate_lines(k.pcs, nullptr);
  r.kernels = {k};
  const nlohmann::ordered_json j = {{"pc", to_json(r)}};
  EXPECT_EQ(j["pc"]["sampling_period_cycles"], 512);
  const PcSamplingResult back = read_pc_sampling(j, "/pc");
  EXPECT_EQ(to_json(back), to_json(r));
  EXPECT_EQ(back.stall_reason_names, r.stall_reason_names);
  PcSamplingResult no;
  no.reason = "why";
  const nlohmann::ordered_json n = {{"pc", to_json(no)}};
  EXPECT_EQ(n["pc"].size(), 2u);
  EXPECT_EQ(read_pc_sampling(n, "/pc").reason, "why");
  nlohmann::ordered_json bad = j;
  bad["pc"]["kernels"][0]["pcs"][0]["stalls"]["wait"] = "many";
  EXPECT_THROW(read_pc_sampling(bad, "/pc"), FieldError);
}

// A kernel sampled at three PCs of two lines and one line-less PC, counted at six instructions:
// the sampled ones, one more of line 7 and one of a line without samples.
KernelPcSamples counted_kernel() {
  KernelPcSamples k;
  k.name = "k";
  k.pcs = {{0x10, 30, {{"long_scoreboard", 30}}, {}, "a.cu", 7, "LDG"},
           {0x20, 15, {{"math_pipe_throttle", 15}}, {}, "a.cu", 9, "HMMA"},
           {0x40, 5, {{"barrier", 5}}, {}, "", 0, "BAR"},
           {0x50, 1, {{"wait", 1}}, {}, "a.cu", 11, "NOP"}};
  k.samples = 51;
  k.lines = aggregate_lines(k.pcs, nullptr);
  std::vector<CountedInstruction> counted = {
      {0x00, "a.cu", 7, {100, 3200}},  // unsampled, on a sampled line
      {0x10, "a.cu", 7, {400, 12800}},
      {0x20, "a.cu", 9, {400, 6400}},
      {0x30, "a.cu", 12, {7, 224}},    // a line without samples
      {0x40, "", 0, {4, 128}},
      {0x48, "b.cu", 0, {2, 64}}};     // no line (file without a line): the line-less entry
  attach_instruction_counts(k, counted);
  return k;
}

TEST(PcSamplingCounts, InstructionCountsGoToTheirPcsAndEveryInstructionOfALine) {
  const KernelPcSamples k = counted_kernel();
  // Sampled PCs take their own instruction's counts; a sampled PC CUPTI did not count keeps none.
  EXPECT_EQ(k.pcs[0].executed, 400u);
  EXPECT_EQ(k.pcs[0].thread_executed, 12800u);
  EXPECT_EQ(k.pcs[1].executed, 400u);
  EXPECT_EQ(k.pcs[1].thread_executed, 6400u);
  EXPECT_EQ(k.pcs[2].executed, 4u);
  EXPECT_FALSE(k.pcs[3].executed);
  EXPECT_FALSE(k.pcs[3].thread_executed);
  // Lines sum every counted instruction of theirs, sampled or not; the line-less PCs' entry
  // gathers every instruction without a line; a sampled line nothing counted keeps none.
  std::map<int, std::optional<std::uint64_t>> by_line;
  for (const auto& l : k.lines) by_line[l.line] = l.executed;
  EXPECT_EQ(by_line.at(7), 500u);
  EXPECT_EQ(by_line.at(9), 400u);
  EXPECT_EQ(by_line.at(0), 6u);
  EXPECT_FALSE(by_line.at(11));
  EXPECT_EQ(k.lines.size(), 4u);  // a counted line without samples adds no line to the table
  // The kernel's totals are over every counted instruction.
  EXPECT_EQ(k.executed, 913u);
  EXPECT_EQ(k.thread_executed, 3200u + 12800 + 6400 + 224 + 128 + 64);
  // Nothing counted: nothing attached.
  KernelPcSamples none;
  none.pcs = k.pcs;
  for (auto& pc : none.pcs) pc.executed = pc.thread_executed = std::nullopt;
  none.lines = aggregate_lines(none.pcs, nullptr);
  attach_instruction_counts(none, {});
  EXPECT_FALSE(none.executed);
  EXPECT_FALSE(none.pcs[0].executed);
  EXPECT_FALSE(none.lines[0].executed);
}

TEST(PcSamplingCounts, AKernelTakesTheFunctionOfItsNameAndAmongSeveralItsCubinsCrc) {
  std::vector<FunctionCounts> fns(3);
  fns[0].name = "a";
  fns[0].cubin_crc = 11;
  fns[1].name = "b";
  fns[1].cubin_crc = 22;
  fns[2].name = "b";
  fns[2].cubin_crc = 33;
  std::string why;
  EXPECT_EQ(counts_for_kernel(fns, "a", 999, why), &fns[0]);  // one of the name: the CRC is not needed
  EXPECT_EQ(counts_for_kernel(fns, "b", 33, why), &fns[2]);
  EXPECT_EQ(counts_for_kernel(fns, "b", (std::uint64_t(7) << 32) | 22, why), &fns[1]);  // low 32 bits
  EXPECT_EQ(counts_for_kernel(fns, "b", 44, why), nullptr);
  EXPECT_NE(why.find("2 functions of this name"), std::string::npos) << why;
  EXPECT_EQ(counts_for_kernel(fns, "c", 11, why), nullptr);
  EXPECT_EQ(why, "CUPTI gave no SASS counts for this function");
}

TEST(PcSamplingRecord, CountsRoundTripAndOlderBlocksWithoutThemReadAndWriteAsBefore) {
  PcSamplingResult r;
  r.available = true;
  r.method = "m";
  r.sampling_period_log2 = 9;
  r.kernels = {counted_kernel()};
  r.sass_counts = SassCountsInfo{true, "", "sass m", 1.5};
  const nlohmann::ordered_json j = {{"pc", to_json(r)}};
  EXPECT_EQ(j["pc"]["sass_counts"]["method"], "sass m");
  EXPECT_FALSE(j["pc"]["sass_counts"].contains("reason"));
  EXPECT_EQ(j["pc"]["kernels"][0]["executed"], 913);
  EXPECT_EQ(j["pc"]["kernels"][0]["pcs"][0]["thread_executed"], 12800);
  EXPECT_FALSE(j["pc"]["kernels"][0]["pcs"][3].contains("executed"));  // not counted: no key
  const PcSamplingResult back = read_pc_sampling(j, "/pc");
  EXPECT_EQ(to_json(back), to_json(r));
  ASSERT_TRUE(back.sass_counts);
  EXPECT_DOUBLE_EQ(back.sass_counts->collection_wall_s, 1.5);
  EXPECT_EQ(back.kernels[0].lines[0].executed, 500u);
  // Refused: the reason alone.
  r.sass_counts = SassCountsInfo{false, "cuptiSassMetricsEnable failed: X", "", 0.1};
  const nlohmann::ordered_json refused = {{"pc", to_json(r)}};
  EXPECT_EQ(refused["pc"]["sass_counts"].size(), 2u);
  EXPECT_EQ(read_pc_sampling(refused, "/pc").sass_counts->reason, "cuptiSassMetricsEnable failed: X");
  // An older block (no sass_counts, no executed keys) reads without counts and writes back
  // exactly as it was.
  nlohmann::ordered_json old = j;
  attnlab::testing::strip_sass_counts(old["pc"]);
  const PcSamplingResult o = read_pc_sampling(old, "/pc");
  EXPECT_FALSE(o.sass_counts);
  EXPECT_FALSE(o.kernels[0].executed);
  EXPECT_FALSE(o.kernels[0].pcs[0].executed);
  EXPECT_FALSE(o.kernels[0].lines[0].executed);
  EXPECT_EQ(to_json(o).dump(), old["pc"].dump());
  // A malformed count names its field.
  nlohmann::ordered_json bad = j;
  bad["pc"]["kernels"][0]["pcs"][1]["executed"] = -4;
  try {
    read_pc_sampling(bad, "/pc");
    FAIL() << "a negative count was read";
  } catch (const FieldError& e) {
    EXPECT_NE(std::string(e.what()).find("/pc/kernels/0/pcs/1/executed"), std::string::npos) << e.what();
  }
}

TEST(PcSamplingPlan, MetricsSpecSplitsOutPcsampling) {
  using attnlab::profiler::split_pcsampling;
  EXPECT_EQ(split_pcsampling("all"), std::make_pair(true, std::string("all")));
  EXPECT_EQ(split_pcsampling("none"), std::make_pair(false, std::string("none")));
  EXPECT_EQ(split_pcsampling("pcsampling"), std::make_pair(true, std::string("none")));
  EXPECT_EQ(split_pcsampling("tensor,pcsampling,stalls"), std::make_pair(true, std::string("tensor,stalls")));
  EXPECT_EQ(split_pcsampling("tensor"), std::make_pair(false, std::string("tensor")));
}

TEST(PcSamplingPlan, PeriodGrowsWithTheLaunchAndStaysInCuptisRange) {
  using attnlab::profiler::choose_period_log2;
  EXPECT_EQ(choose_period_log2(0, 132, 1980), 5);
  const int short_launch = choose_period_log2(1e4, 132, 1980);
  const int long_launch = choose_period_log2(1e7, 132, 1980);
  EXPECT_GE(short_launch, 5);
  EXPECT_GT(long_launch, short_launch);
  EXPECT_EQ(choose_period_log2(1e30, 132, 1980), 31);
  // The expected samples at the chosen period are under the target, and at half of it not.
  const double per_cycle = 1e7 * 1e-3 * 1980 * 132 * 4;
  EXPECT_LT(per_cycle / std::ldexp(1.0, long_launch), attnlab::profiler::kTargetSamples);
  EXPECT_GE(per_cycle / std::ldexp(1.0, long_launch - 1), attnlab::profiler::kTargetSamples);
}

TEST(PcSamplingPlan, KernelSharesAddUpAndTakeStallsFromTheSamples) {
  PcSamplingResult pc;
  pc.available = true;
  KernelPcSamples a;
  a.name = "gemm";
  a.samples = 10;
  a.pcs = {{0, 10, {{"wait", 7}, {"selected", 3}}, {}, "", 0, ""}};
  pc.kernels = {a};
  const auto ks = attnlab::profiler::kernel_shares(
      {{"gemm", {30, 30, 31}}, {"softmax", {10, 9, 10}}, {"never", {}}}, {{"gemm", 2}, {"softmax", 1}},
      "cold", &pc, {});
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_DOUBLE_EQ(ks[0].median_ns, 30);
  EXPECT_DOUBLE_EQ(ks[0].share_pct + ks[1].share_pct, 100.0);
  EXPECT_DOUBLE_EQ(ks[0].share_pct, 75.0);
  EXPECT_EQ(ks[0].instances_per_launch, 2);
  EXPECT_EQ(ks[0].pc_samples, 10u);
  EXPECT_EQ(ks[0].top_stalls.front().first, "wait");
  EXPECT_FALSE(ks[1].pc_samples);
  const nlohmann::ordered_json j = {{"k", {to_json(ks[0]), to_json(ks[1])}}};
  const auto back = read_kernel_shares(j, "/k");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(to_json(back[1]), to_json(ks[1]));
}

GroupResult per_kernel_group(const std::string& name) {
  GroupResult g;
  g.group = name;
  g.available = true;
  g.passes = 1;
  g.values = {{"gpu__time_duration.sum", "ns", 900}};
  g.kernel_passes = 1;
  g.kernels = {{"gemm", 0, {{"gpu__time_duration.sum", "ns", 400}}},
               {"softmax", 1, {{"gpu__time_duration.sum", "ns", 100}}},
               {"gemm", 2, {{"gpu__time_duration.sum", "ns", 380}}}};
  return g;
}

TEST(PcSamplingPlan, CounterNoteNamesTheGroupsHoldingAKernelOrWhyNot) {
  using attnlab::profiler::kernel_counters_note;
  EXPECT_EQ(kernel_counters_note({}, "gemm", 3), "not measured: no metric group was collected (--metrics)");
  GroupResult refused;
  refused.group = "stalls";
  refused.reason = "cuptiProfilerHostInitialize failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
  GroupResult launch_only = per_kernel_group("memory");
  launch_only.kernels.clear();
  launch_only.kernel_passes = 0;
  launch_only.kernels_reason = "per-kernel counters (CUPTI auto range, one range per kernel): dropped";
  const std::vector<GroupResult> groups = {per_kernel_group("throughput"), launch_only, refused};
  EXPECT_EQ(kernel_counters_note(groups, "gemm", 3),
            "metrics.<group>.kernels: throughput (2 instances); not measured: memory: per-kernel counters "
            "(CUPTI auto range, one range per kernel): dropped; stalls: cuptiProfilerHostInitialize failed: "
            "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_EQ(kernel_counters_note({per_kernel_group("throughput")}, "softmax", 3),
            "metrics.<group>.kernels: throughput");
  EXPECT_EQ(kernel_counters_note({per_kernel_group("throughput")}, "unknown", 3),
            "not measured: throughput: no range of this kernel");
  // A launch of one kernel: the launch-wide values are its own.
  EXPECT_EQ(kernel_counters_note({launch_only}, "gemm", 1), "metrics.<group> (the launch's only kernel): memory");
}

TEST(MetricsRecord, PerKernelValuesRoundTripAndAreReadBack) {
  const GroupResult g = per_kernel_group("throughput");
  const nlohmann::ordered_json j = {{"m", {{"throughput", to_json(g)}}}};
  EXPECT_EQ(j["m"]["throughput"]["kernel_passes"], 1);
  EXPECT_EQ(j["m"]["throughput"]["kernels"][2]["index"], 2);
  const GroupResult back = read_group_result(j, "/m/throughput");
  ASSERT_EQ(back.kernels.size(), 3u);
  EXPECT_EQ(back.kernels[1].name, "softmax");
  EXPECT_EQ(back.kernels[2].value("gpu__time_duration.sum"), 380.0);
  EXPECT_FALSE(back.kernels[2].value("dram__bytes_read.sum"));
  EXPECT_EQ(to_json(back).dump(), to_json(g).dump());
  // A malformed instance names its field.
  nlohmann::ordered_json bad = j;
  bad["m"]["throughput"]["kernels"][1].erase("index");
  try {
    read_group_result(bad, "/m/throughput");
    FAIL() << "a kernel without its index was read";
  } catch (const FieldError& e) {
    EXPECT_STREQ(e.what(), "missing /m/throughput/kernels/1/index");
  }
}

}  // namespace

// Speed-of-light floors (reports/speed_of_light.hpp) on known shapes and rates, the calibration
// record's summary, JSON round trip and read errors (record/calibration.hpp), and the run
// report's section and the calibration report rendered from the synthetic record in
// tests/reports/inputs/calibration/ (see its README.md).
#include <gtest/gtest.h>

#include "record/calibration.hpp"
#include "record/fields.hpp"
#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"
#include "reports/speed_of_light.hpp"
#include "report_test_util.hpp"

namespace attnlab::report {
namespace {

using testing::read_file;
using testing::TempDir;

const fs::path kCalibrationInputs = fs::path(ATTNLAB_GOLDEN_DIR).parent_path() / "inputs" / "calibration";

Shape shape(int B, int H, int S, int D, bool causal = false) {
  Shape s;
  s.B = B;
  s.H = H;
  s.H_kv = H;
  s.S = S;
  s.D = D;
  s.causal = causal;
  return s;
}

TEST(SpeedOfLight, ExponentialsAreOnePerScoreHalvedForCausal) {
  EXPECT_DOUBLE_EQ(sol::exponentials(shape(16, 16, 2048, 64)), 16.0 * 16 * 2048 * 2048);
  EXPECT_DOUBLE_EQ(sol::exponentials(shape(1, 8, 512, 64, true)), 8.0 * 512 * 512 / 2);
  // Head dim does not change the count: one exponential per score.
  EXPECT_DOUBLE_EQ(sol::exponentials(shape(1, 8, 512, 128)), sol::exponentials(shape(1, 8, 512, 64)));
}

TEST(SpeedOfLight, WaveFactorIsRoundsOverTheExactShare) {
  EXPECT_DOUBLE_EQ(sol::wave_factor(264, 132, 132), 1.0);                    // two whole rounds
  EXPECT_DOUBLE_EQ(sol::wave_factor(2816, 132, 132), 22.0 * 132 / 2816);     // 21.3 rounds take 22
  EXPECT_DOUBLE_EQ(sol::wave_factor(133, 132, 132), 2.0 * 132 / 133);        // a tail of one item
  EXPECT_DOUBLE_EQ(sol::wave_factor(24, 24, 132), 132.0 / 24);               // 24 of 132 SMs busy
  EXPECT_DOUBLE_EQ(sol::wave_factor(128, 132, 132), 132.0 / 128);
  EXPECT_THROW(sol::wave_factor(0, 132, 132), std::invalid_argument);
  EXPECT_THROW(sol::wave_factor(10, 0, 132), std::invalid_argument);
}

CalibrationRate rate(const char* name, double per_sm_per_clock, bool scales, double median) {
  CalibrationRate r;
  r.name = name;
  r.per_sm_per_clock = per_sm_per_clock;
  r.scales_with_sm_clock = scales;
  r.rate = {median, median, median};
  return r;
}

TEST(SpeedOfLight, RatesAreTheCalibrationsSustainedMedians) {
  // Per SM per clock and the clock flags do not enter: the floors take what was sustained.
  CalibrationRecord cal;
  cal.rates = {rate(calibration::kTensor, 4000, true, 9e14), rate(calibration::kExp2, 16, true, 4e12),
               rate(calibration::kDramRead, 7, false, 3e12), rate(calibration::kFfma, 256, true, 6e13)};
  const sol::Rates r = sol::rates_of(cal);
  EXPECT_DOUBLE_EQ(*r.tensor_flops_per_s, 9e14);
  EXPECT_DOUBLE_EQ(*r.ex2_per_s, 4e12);
  EXPECT_DOUBLE_EQ(*r.dram_bytes_per_s, 3e12);
  EXPECT_FALSE(sol::rates_of(CalibrationRecord{}).tensor_flops_per_s.has_value());
}

sol::Rates known_rates() {
  sol::Rates r;
  r.tensor_flops_per_s = 1e15;
  r.ex2_per_s = 1e12;
  r.dram_bytes_per_s = 2e12;
  return r;
}

TEST(SpeedOfLight, FloorsOfTheThroughputShape) {
  sol::Inputs in;
  in.shape = shape(16, 16, 2048, 64);
  const auto s = sol::speed_of_light(in, known_rates());
  const double flops = 4.0 * 16 * 16 * 2048 * 2048 * 64;
  EXPECT_DOUBLE_EQ(*s.floor(sol::FloorKind::kTensorUseful)->ns, flops / 1e15 * 1e9);
  EXPECT_DOUBLE_EQ(*s.floor(sol::FloorKind::kExp)->ns, 16.0 * 16 * 2048 * 2048 / 1e12 * 1e9);
  EXPECT_DOUBLE_EQ(*s.floor(sol::FloorKind::kDram)->ns, in.shape.min_bytes() / 2e12 * 1e9);
  EXPECT_FALSE(s.floor(sol::FloorKind::kLaunch)->ns.has_value());  // not measured
  EXPECT_EQ(s.floor(sol::FloorKind::kTensorExecuted), nullptr);    // not known
  // At these rates the exponentials (1.07 ms) outlast the matmuls (275 us).
  EXPECT_EQ(*s.binding, sol::FloorKind::kExp);
  EXPECT_DOUBLE_EQ(*s.sol_ns, *s.floor(sol::FloorKind::kExp)->ns);
  EXPECT_FALSE(s.wave_factor.has_value());
  // In series, the two SM pipes' floors add.
  EXPECT_DOUBLE_EQ(*s.serial_ns, *s.floor(sol::FloorKind::kTensorUseful)->ns + *s.floor(sol::FloorKind::kExp)->ns);
}

TEST(SpeedOfLight, CausalHalvesTensorAndExponentialFloorsNotDram) {
  sol::Inputs a, b;
  a.shape = shape(4, 16, 4096, 128);
  b.shape = shape(4, 16, 4096, 128, true);
  const auto full = sol::speed_of_light(a, known_rates());
  const auto causal = sol::speed_of_light(b, known_rates());
  for (auto k : {sol::FloorKind::kTensorUseful, sol::FloorKind::kExp})
    EXPECT_DOUBLE_EQ(*causal.floor(k)->ns * 2, *full.floor(k)->ns) << sol::floor_name(k);
  EXPECT_DOUBLE_EQ(*causal.floor(sol::FloorKind::kDram)->ns, *full.floor(sol::FloorKind::kDram)->ns);
}

// A backward run's floors: its FLOPs are 2.5 times the forward's (FlashAttention's convention,
// kernels/backward_problem.hpp) at the same fp16 tensor rate, its fewest bytes those of Q, K, V,
// O, dO and the LSE in and dQ, dK, dV out, and one exponential per score as the forward's.
TEST(SpeedOfLight, TheBackwardTakesItsFlopsAndBytesAtTheFp16Rate) {
  for (const bool causal : {false, true}) {
    sol::Inputs fwd, bwd;
    fwd.shape = bwd.shape = shape(4, 16, 4096, 128, causal);
    bwd.direction = Direction::kBackward;
    const auto f = sol::speed_of_light(fwd, known_rates());
    const auto b = sol::speed_of_light(bwd, known_rates());
    const double flops = 4.0 * 4 * 16 * 4096 * 4096 * 128 / (causal ? 2 : 1);
    EXPECT_DOUBLE_EQ(b.floor(sol::FloorKind::kTensorUseful)->work, 2.5 * flops);
    EXPECT_DOUBLE_EQ(*b.floor(sol::FloorKind::kTensorUseful)->ns, 2.5 * flops / 1e15 * 1e9);
    EXPECT_DOUBLE_EQ(*b.floor(sol::FloorKind::kTensorUseful)->ns, 2.5 * *f.floor(sol::FloorKind::kTensorUseful)->ns);
    EXPECT_DOUBLE_EQ(*b.floor(sol::FloorKind::kExp)->ns, *f.floor(sol::FloorKind::kExp)->ns);
    // fp16 Q, K, V, O, dO read and dQ, dK, dV written (8 tensors of 4x16x4096x128), fp32 LSE read.
    const double bytes = 8 * 2.0 * 4 * 16 * 4096 * 128 + 4.0 * 4 * 16 * 4096;
    EXPECT_DOUBLE_EQ(b.floor(sol::FloorKind::kDram)->work, bytes);
    EXPECT_DOUBLE_EQ(*b.floor(sol::FloorKind::kDram)->ns, bytes / 2e12 * 1e9);
    // At these rates the backward's matmuls bind where the forward's exponentials did.
    EXPECT_EQ(*f.binding, sol::FloorKind::kExp);
    EXPECT_EQ(*b.binding, sol::FloorKind::kTensorUseful);
  }
}

TEST(SpeedOfLight, LaunchFloorBindsTheLatencyShapeAndWavesStretchTheSchedulesComputeOnly) {
  sol::Inputs in;
  in.shape = shape(1, 8, 512, 64);
  in.work_items = 24;  // 24 items on 24 CTAs of 132 SMs: 5.5x
  in.concurrent = 24;
  in.slots = 132;
  in.launch_floor_ns = 5000;
  const auto s = sol::speed_of_light(in, known_rates());
  EXPECT_DOUBLE_EQ(*s.wave_factor, 5.5);
  const auto* exp = s.floor(sol::FloorKind::kExp);
  EXPECT_DOUBLE_EQ(*exp->scheduled_ns, *exp->ns * 5.5);
  const auto* dram = s.floor(sol::FloorKind::kDram);
  EXPECT_DOUBLE_EQ(*dram->scheduled_ns, *dram->ns);  // not quantised
  // The GPU's floor: exponentials 2.1e6 / 1e12 = 2.1 us, under the 5 us launch floor.
  EXPECT_EQ(*s.binding, sol::FloorKind::kLaunch);
  EXPECT_DOUBLE_EQ(*s.sol_ns, 5000);
  // This schedule's: 2.1 us x 5.5 = 11.5 us, over the launch floor.
  EXPECT_EQ(*s.schedule_binding, sol::FloorKind::kExp);
  EXPECT_DOUBLE_EQ(*s.schedule_ns, *exp->ns * 5.5);
  in.launch_floor_ns = 20000;
  const auto s2 = sol::speed_of_light(in, known_rates());
  EXPECT_EQ(*s2.schedule_binding, sol::FloorKind::kLaunch);
  EXPECT_DOUBLE_EQ(*s2.schedule_ns, 20000);
}

TEST(SpeedOfLight, TheWaveFactorOfTheLaunchDoesNotMoveTheSpeedOfLight) {
  // Two kernels of one shape on one GPU: one fills every slot in whole rounds, the other leaves
  // most SMs idle. The shape's work, and so the speed of light, is the same for both; only the
  // schedule's floor differs.
  sol::Inputs full, sparse;
  full.shape = sparse.shape = shape(16, 16, 2048, 64);
  full.work_items = 264;
  full.concurrent = 132;
  full.slots = 132;
  sparse.work_items = 24;
  sparse.concurrent = 24;
  sparse.slots = 132;
  const auto a = sol::speed_of_light(full, known_rates());
  const auto b = sol::speed_of_light(sparse, known_rates());
  const auto none = sol::speed_of_light(sol::Inputs{full.shape}, known_rates());
  EXPECT_DOUBLE_EQ(*a.wave_factor, 1.0);
  EXPECT_DOUBLE_EQ(*b.wave_factor, 5.5);
  EXPECT_DOUBLE_EQ(*a.sol_ns, *none.sol_ns);
  EXPECT_DOUBLE_EQ(*b.sol_ns, *none.sol_ns);
  EXPECT_EQ(*b.binding, *none.binding);
  EXPECT_DOUBLE_EQ(*a.schedule_ns, *a.sol_ns);
  EXPECT_DOUBLE_EQ(*b.schedule_ns, *b.sol_ns * 5.5);
  EXPECT_FALSE(none.schedule_ns.has_value());  // no wave factor: no schedule's floor to show
}

TEST(SpeedOfLight, ExecutedFlopsAreShownButNeverBind) {
  sol::Inputs in;
  in.shape = shape(16, 16, 2048, 64);
  in.executed_flops = in.shape.flops() * 100;  // far over every other floor
  const auto s = sol::speed_of_light(in, known_rates());
  const auto* ex = s.floor(sol::FloorKind::kTensorExecuted);
  ASSERT_NE(ex, nullptr);
  EXPECT_FALSE(ex->binding_candidate);
  EXPECT_DOUBLE_EQ(*ex->ns, *s.floor(sol::FloorKind::kTensorUseful)->ns * 100);
  EXPECT_NE(*s.binding, sol::FloorKind::kTensorExecuted);
}

TEST(SpeedOfLight, NoRatesNoBinding) {
  sol::Inputs in;
  in.shape = shape(1, 8, 512, 64);
  const auto s = sol::speed_of_light(in, sol::Rates{});
  EXPECT_FALSE(s.binding.has_value());
  EXPECT_FALSE(s.sol_ns.has_value());
  EXPECT_FALSE(s.serial_ns.has_value());
  // One of the two measured is no series.
  sol::Rates tensor_only;
  tensor_only.tensor_flops_per_s = 1e15;
  EXPECT_FALSE(sol::speed_of_light(in, tensor_only).serial_ns.has_value());
}

CalibrationRecord sample_record() {
  CalibrationRecord rec;
  rec.status = "ok";
  rec.started_utc = "2026-01-01T00:00:00Z";
  rec.provenance.gpu.name = "Test GPU";
  rec.provenance.gpu.uuid = "GPU-0";
  rec.provenance.gpu.sm_count = 100;
  rec.options = {3, 3, 1, 1.0, 1000};
  rec.method = "test";
  CalibrationRate r;
  r.name = calibration::kTensor;
  r.unit = "FLOP/s";
  r.method = "m";
  r.work_per_launch = 1e12;
  r.launch.grid = {100, 1, 1};
  r.launch.block = {256, 1, 1};
  r.time_ns = {1e6, 2e6, 4e6};
  r.sm_clock_mhz = {1000, 1000, 2000};
  summarize_rate(r, 100);
  rec.rates.push_back(r);
  CalibrationLaunch l;
  l.launch.grid = {16, 1, 8};
  l.launch.block = {256, 1, 1};
  l.launch.cluster = {2, 1, 1};
  l.launch.dynamic_smem_bytes = 100000;
  l.used_by = {"d4 1x8x512x64"};
  l.time_ns = {3000, 4000, 5000};
  l.sm_clock_mhz = {1900, 1900, 1900};
  summarize_launch(l);
  rec.launches.push_back(l);
  return rec;
}

TEST(CalibrationRecord, RatesArePerSampleWorkOverTimeAndPerSmPerClock) {
  const CalibrationRecord rec = sample_record();
  const CalibrationRate& r = rec.rates.front();
  EXPECT_DOUBLE_EQ(r.rate.median, 5e14);  // rates 1e15, 5e14, 2.5e14
  EXPECT_DOUBLE_EQ(r.rate.p10, 2.5e14 + 0.2 * 2.5e14);
  EXPECT_DOUBLE_EQ(r.rate.p90, 5e14 + 0.8 * 5e14);
  EXPECT_DOUBLE_EQ(r.sm_clock_median_mhz, 1000);
  EXPECT_DOUBLE_EQ(r.per_sm_per_clock, 5e14 / (100 * 1e9));
  EXPECT_DOUBLE_EQ(rec.launches.front().time.median, 4000);
  CalibrationRate empty;
  EXPECT_THROW(summarize_rate(empty, 100), std::invalid_argument);
}

TEST(CalibrationRecord, TheKernelsOwnClockOutranksNvmls) {
  CalibrationRecord rec = sample_record();
  CalibrationRate& r = rec.rates.front();
  r.kernel_sm_clock_mhz = {2000, 2000, 1000};  // NVML read 1000, 1000, 2000
  summarize_rate(r, 100);
  EXPECT_DOUBLE_EQ(r.sm_clock_median_mhz, 2000);
  EXPECT_DOUBLE_EQ(r.per_sm_per_clock, 5e14 / (100 * 2e9));
  const CalibrationRecord back = read_calibration_record(to_json(rec));
  EXPECT_EQ(back.rates.front().kernel_sm_clock_mhz, r.kernel_sm_clock_mhz);
  r.kernel_sm_clock_mhz.pop_back();
  EXPECT_THROW(summarize_rate(r, 100), std::invalid_argument);
  ordered_json j = to_json(rec);
  EXPECT_THROW(read_calibration_record(j), FieldError);  // two kernel clocks for three samples
}

TEST(CalibrationRecord, RoundTripsThroughJson) {
  const CalibrationRecord a = sample_record();
  const CalibrationRecord b = read_calibration_record(to_json(a));
  EXPECT_EQ(to_json(a).dump(), to_json(b).dump());
  EXPECT_EQ(b.rates.front().launch, a.rates.front().launch);
  ASSERT_NE(b.launch_used_by("d4", "1x8x512x64"), nullptr);
  EXPECT_EQ(b.launch_used_by("5", "1x8x512x64"), nullptr);
  EXPECT_NE(b.launch_of(a.launches.front().launch), nullptr);
  EXPECT_EQ(b.rate(calibration::kExp2), nullptr);
}

// The cold launch floor (the empty kernel behind an L2 flush) goes through the record beside the
// warm one; a record made before it was measured has none, and its samples pair up as the warm ones.
TEST(CalibrationRecord, TheColdLaunchFloorRoundTripsAndAnOlderRecordHasNone) {
  CalibrationRecord rec = sample_record();
  EXPECT_FALSE(rec.launches.front().cold_time);
  EXPECT_FALSE(to_json(rec)["launches"][0].contains("cold"));
  CalibrationLaunch& l = rec.launches.front();
  l.cold_time_ns = {9000, 7000, 8000};
  l.cold_sm_clock_mhz = {1900, 1900, 1900};
  summarize_launch(l);
  ASSERT_TRUE(l.cold_time);
  EXPECT_DOUBLE_EQ(l.cold_time->median, 8000);
  EXPECT_DOUBLE_EQ(l.time.median, 4000);
  const ordered_json j = to_json(rec);
  const CalibrationRecord back = read_calibration_record(j);
  EXPECT_EQ(to_json(back).dump(), j.dump());
  EXPECT_EQ(back.launches.front().cold_time_ns, l.cold_time_ns);
  auto uneven = j;
  uneven["launches"][0]["cold"]["sm_clock_mhz"].push_back(1900.0);
  EXPECT_THROW(read_calibration_record(uneven), FieldError);
  l.cold_sm_clock_mhz.pop_back();
  EXPECT_THROW(summarize_launch(l), std::invalid_argument);
}

TEST(CalibrationRecord, ReadErrorsNameTheField) {
  auto j = to_json(sample_record());
  j["schema"] = "attnlab.calibration/0";
  EXPECT_THROW(read_calibration_record(j), FieldError);
  j = to_json(sample_record());
  j["rates"][0]["sm_clock_mhz"].push_back(1.0);
  try {
    read_calibration_record(j);
    FAIL() << "lengths that differ were accepted";
  } catch (const FieldError& e) {
    EXPECT_NE(std::string(e.what()).find("/rates/0: time_ns and sm_clock_mhz differ in length"), std::string::npos);
  }
  j = to_json(sample_record());
  j["launches"][0]["launch"]["cluster"] = {2, 1};
  EXPECT_THROW(read_calibration_record(j), FieldError);
  j = to_json(sample_record());
  j["rates"][0].erase("per_sm_per_clock");
  EXPECT_THROW(read_calibration_record(j), FieldError);
}

// The synthetic record beside a copy of the phase 4 fixture (same GPU uuid).
struct CalibratedRoot {
  TempDir dir;
  fs::path run_dir;
  CalibratedRoot() {
    for (const auto& d : testing::make_fixture_root(dir.path / "records"))
      if (d.parent_path().filename() == "4") run_dir = d;
    fs::copy(kCalibrationInputs, dir.path / "calibration", fs::copy_options::recursive);
  }
};

TEST(SpeedOfLightSection, RunReportStatesTheBindingFloorFromTheGpusCalibration) {
  CalibratedRoot t;
  const report::Run run = load_run(t.run_dir);
  render_run(run, {});
  const std::string md = read_file(t.run_dir / "report.md");
  EXPECT_NE(md.find("## Speed of light"), std::string::npos);
  EXPECT_NE(md.find("of the same GPU (GPU-43697a0f)"), std::string::npos) << md;
  EXPECT_NE(md.find("of the speed of light; bound by "), std::string::npos);
  EXPECT_NE(md.find("The tensor and exponential floors in series"), std::string::npos) << md;
  // The synthetic launch floor of phase 4 at the latency shape, 4 us (p10 3.9, p90 4.1).
  EXPECT_NE(md.find("the calibration's launch of 4 1x8x512x64"), std::string::npos);
  // The record's headline is cold and this calibration predates cold floors: the warm one, said so.
  EXPECT_NE(md.find("warm: the calibration has no cold launch floor"), std::string::npos) << md;
}

// Where the calibration has the cold floor, a cold headline is set against it, the warm one beside.
TEST(SpeedOfLightSection, AColdHeadlineTakesTheColdLaunchFloor) {
  CalibratedRoot t;
  const fs::path file = t.dir.path / "calibration" / "20260101T000000Z-0000000" / kCalibrationFile;
  CalibrationRecord cal = read_calibration_file(file);
  for (auto& l : cal.launches) {
    l.cold_time_ns = std::vector<double>(l.time_ns.size(), 6000.0);
    l.cold_sm_clock_mhz = l.sm_clock_mhz;
    summarize_launch(l);
  }
  write_text(file, to_json(cal).dump(2));
  const report::Run run = load_run(t.run_dir);
  render_run(run, {});
  const std::string md = read_file(t.run_dir / "report.md");
  EXPECT_NE(md.find("- Launch floor: 6.000 us (p10-p90 "), std::string::npos) << md;
  EXPECT_NE(md.find(" cold, each empty launch behind an L2 flush as the headline's cold samples are (warm 4.000 us), "
                    "the calibration's launch of 4 1x8x512x64"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("no cold launch floor"), std::string::npos) << md;
}

// The same record as a backward run (its direction, and its shapes' flops as the harness writes
// a backward record's): the section's tensor floor takes the backward's FLOPs at
// the fp16 rate, and says so; the forward record's section says nothing of the backward.
TEST(SpeedOfLightSection, ABackwardRecordsFloorsTakeTheBackwardsFlopsAtTheFp16Rate) {
  CalibratedRoot t;
  const report::Run forward = load_run(t.run_dir);
  render_run(forward, {});
  const std::string fwd_md = read_file(t.run_dir / "report.md");
  auto j = ordered_json::parse(read_file(t.run_dir / "run.json"));
  j["direction"] = "backward";
  for (auto& r : j["results"]) r["flops"] = r["flops"].get<double>() * 2.5;
  testing::write_file(t.run_dir / "run.json", j.dump(2));
  const report::Run backward = load_run(t.run_dir);
  ASSERT_EQ(backward.direction, Direction::kBackward);
  render_run(backward, {});
  const std::string md = read_file(t.run_dir / "report.md");
  const Result* timed = nullptr;
  for (const Result& r : backward.results)
    if (r.timed()) timed = timed ? timed : &r;
  ASSERT_NE(timed, nullptr);
  const std::string fwd_row = "| tensor (useful FLOPs) | " + sig(timed->shape.flops()) + " FLOP | 792.0 TFLOP/s |";
  const std::string bwd_row = "| tensor (useful FLOPs) | " + sig(2.5 * timed->shape.flops()) + " FLOP | 792.0 TFLOP/s |";
  EXPECT_NE(fwd_md.find(fwd_row), std::string::npos) << fwd_md;
  EXPECT_NE(md.find(bwd_row), std::string::npos) << md;
  EXPECT_EQ(md.find(fwd_row), std::string::npos) << md;
  EXPECT_NE(md.find("- Backward pass: the tensor floor's FLOPs are the backward's, 2.5 times the forward's"),
            std::string::npos) << md;
  EXPECT_EQ(fwd_md.find("- Backward pass:"), std::string::npos) << fwd_md;
}

TEST(SpeedOfLightSection, WithoutACalibrationSaysNotMeasured) {
  TempDir dir;
  const fs::path run_dir = testing::make_fixture_root(dir.path / "records").front();
  render_run(load_run(run_dir), {});
  const std::string md = read_file(run_dir / "report.md");
  EXPECT_NE(md.find("## Speed of light\n\nNot measured: no calibration record"), std::string::npos) << md;
}

TEST(SpeedOfLightSection, AnExplicitCalibrationOfAnotherModelIsNotUsed) {
  CalibratedRoot t;
  auto j = ordered_json::parse(read_file(t.dir.path / "calibration" / "20260101T000000Z-0000000" / kCalibrationFile));
  j["provenance"]["gpu"]["name"] = "Another GPU";
  j["provenance"]["gpu"]["uuid"] = "GPU-ffffffff";
  const fs::path other = t.dir.path / "other.json";
  testing::write_file(other, j.dump(2));
  render_run(load_run(t.run_dir), {}, other);
  EXPECT_NE(read_file(t.run_dir / "report.md").find("Not measured: no calibration record"), std::string::npos);
}

// The clock column says whose clock it is; a per-clock rate above what an SM can issue is marked
// impossible, and a calibration with a newer one of the same GPU beside it superseded.
TEST(CalibrationReport, ClocksSayWhoseAndImpossibleOrSupersededCalibrationsAreMarked) {
  TempDir dir;
  fs::copy(kCalibrationInputs, dir.path, fs::copy_options::recursive);
  const fs::path file = dir.path / "20260101T000000Z-0000000" / kCalibrationFile;
  render_calibration(read_calibration_file(file), file);
  std::string md = read_file(file.parent_path() / "report.md");
  EXPECT_NE(md.find("| SM clock (MHz, NVML's reading around the samples) |"), std::string::npos) << md;
  EXPECT_EQ(md.find("IMPOSSIBLE"), std::string::npos) << md;   // 16 ex2 per SM per clock: at the ceiling
  EXPECT_EQ(md.find("SUPERSEDED"), std::string::npos) << md;
  // ex2 at 18.75 per SM per clock, above the 16 an SM issues, and a newer record of the same GPU
  // beside it.
  auto j = ordered_json::parse(read_file(file));
  for (auto& r : j["rates"])
    if (r["name"] == calibration::kExp2) r["per_sm_per_clock"] = 18.75;
  testing::write_file(file, j.dump(2));
  j["started_utc"] = "2026-02-01T00:00:00Z";
  const fs::path newer = dir.path / "20260201T000000Z-1111111" / kCalibrationFile;
  fs::create_directories(newer.parent_path());
  testing::write_file(newer, j.dump(2));
  render_calibration(read_calibration_file(file), file);
  md = read_file(file.parent_path() / "report.md");
  EXPECT_NE(md.find("| 18.75 IMPOSSIBLE |"), std::string::npos) << md;
  EXPECT_NE(md.find("**IMPOSSIBLE as recorded:** `mufu_ex2`: 18.75 per SM per clock, above the 16 ex2 per SM per clock"),
            std::string::npos) << md;
  EXPECT_NE(md.find("**SUPERSEDED** by [`20260201T000000Z-1111111`]"), std::string::npos) << md;
  // The newest is superseded by none.
  render_calibration(read_calibration_file(newer), newer);
  EXPECT_EQ(read_file(newer.parent_path() / "report.md").find("SUPERSEDED"), std::string::npos);
}

TEST(CalibrationReport, RendersRatesAndLaunchFloors) {
  TempDir dir;
  fs::copy(kCalibrationInputs, dir.path, fs::copy_options::recursive);
  const fs::path file = dir.path / "20260101T000000Z-0000000" / kCalibrationFile;
  render_calibration(read_calibration_file(file), file);
  const std::string md = read_file(file.parent_path() / "report.md");
  EXPECT_NE(md.find("`wgmma_fp16_m64n256k16`"), std::string::npos);
  EXPECT_NE(md.find("## Launch floors"), std::string::npos);
  EXPECT_NE(md.find("| 16x16x16 | 128x1x1 | 1x1x1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("4 1x8x512x64"), std::string::npos);
}

}  // namespace
}  // namespace attnlab::report

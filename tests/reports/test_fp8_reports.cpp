// The instruments on e4m3 records: the speed of light takes the calibration's e4m3 wgmma rate
// for a record whose inputs were e4m3 (reports/speed_of_light.hpp) and says so, the calibration
// report shows that rate against its per-clock ceiling, and the run report's correctness section
// shows an e4m3 record's input format, scales and error against the unquantised inputs. The
// runs are the phase 4 fixture with its correctness blocks marked e4m3 by hand (placeholder
// figures), against the synthetic calibration of tests/reports/inputs/calibration/.
#include <gtest/gtest.h>

#include <cmath>

#include "record/calibration.hpp"
#include "reports/render.hpp"
#include "reports/speed_of_light.hpp"
#include "report_test_util.hpp"

namespace attnlab::report {
namespace {

using testing::read_file;
using testing::TempDir;
using testing::write_file;

const fs::path kCalibrationInputs = fs::path(ATTNLAB_GOLDEN_DIR).parent_path() / "inputs" / "calibration";
const fs::path kSyntheticCalibration = fs::path("20260101T000000Z-0000000") / kCalibrationFile;

CalibrationRate rate(const char* name, double median) {
  CalibrationRate r;
  r.name = name;
  r.rate = {median, median, median};
  return r;
}

TEST(Fp8SpeedOfLight, E4m3InputsTakeTheE4m3RateAndNoOther) {
  EXPECT_STREQ(sol::tensor_rate_for(std::nullopt), calibration::kTensor);  // before the FP8 path
  EXPECT_STREQ(sol::tensor_rate_for(std::string("fp16")), calibration::kTensor);
  EXPECT_STREQ(sol::tensor_rate_for(std::string("e4m3")), calibration::kTensorFp8);
  CalibrationRecord cal;
  cal.rates = {rate(calibration::kTensor, 8e14), rate(calibration::kTensorFp8, 1.6e15), rate(calibration::kExp2, 4e12)};
  const sol::Rates fp16 = sol::rates_of(cal);
  EXPECT_EQ(fp16.tensor_rate, calibration::kTensor);
  EXPECT_DOUBLE_EQ(*fp16.tensor_flops_per_s, 8e14);
  const sol::Rates fp8 = sol::rates_of(cal, calibration::kTensorFp8);
  EXPECT_EQ(fp8.tensor_rate, calibration::kTensorFp8);
  EXPECT_DOUBLE_EQ(*fp8.tensor_flops_per_s, 1.6e15);
  EXPECT_DOUBLE_EQ(*fp8.ex2_per_s, 4e12);
  // The tensor floor halves with the rate; the others stay.
  sol::Inputs in;
  in.shape.B = 4;
  in.shape.H = in.shape.H_kv = 16;
  in.shape.S = 4096;
  in.shape.D = 128;
  const auto a = sol::speed_of_light(in, fp16), b = sol::speed_of_light(in, fp8);
  EXPECT_DOUBLE_EQ(*b.floor(sol::FloorKind::kTensorUseful)->ns * 2, *a.floor(sol::FloorKind::kTensorUseful)->ns);
  EXPECT_DOUBLE_EQ(*b.floor(sol::FloorKind::kExp)->ns, *a.floor(sol::FloorKind::kExp)->ns);
  // A calibration made before the e4m3 rate has none: the fp16 rate does not stand in for it.
  cal.rates.erase(cal.rates.begin() + 1);
  EXPECT_FALSE(sol::rates_of(cal, calibration::kTensorFp8).tensor_flops_per_s.has_value());
}

TEST(Fp8SpeedOfLight, TheE4m3CeilingIsTwiceFp16s) {
  const auto fp16 = per_clock_ceiling("9.0", calibration::kTensor);
  const auto fp8 = per_clock_ceiling("9.0", calibration::kTensorFp8);
  ASSERT_TRUE(fp16 && fp8);
  EXPECT_DOUBLE_EQ(fp8->per_sm_per_clock, 2 * fp16->per_sm_per_clock);
  EXPECT_FALSE(per_clock_ceiling("8.0", calibration::kTensorFp8).has_value());
}

// The phase 4 fixture and the synthetic calibration in one results root; `e4m3` marks every
// shape's correctness block as an FP8 gate's (the first with a check per distribution).
struct Fp8Root {
  TempDir dir;
  fs::path run_dir;
  explicit Fp8Root(bool e4m3) {
    for (const auto& d : testing::make_fixture_root(dir.path / "records"))
      if (d.parent_path().filename() == "4") run_dir = d;
    fs::copy(kCalibrationInputs, dir.path / "calibration", fs::copy_options::recursive);
    if (!e4m3) return;
    auto j = ordered_json::parse(read_file(run_dir / "run.json"));
    for (auto& r : j["results"]) {
      auto& c = r["correctness"];
      c["input_format"] = "e4m3";
      c["input_scales"] = {{"q", 64.0}, {"k", 128.0}, {"v", 32.0}};
      c["rmse_unquantised"] = 0.0123;
    }
    j["results"][0]["correctness"]["checks"] = {
        {{"inputs", "normal"}, {"passed", true}, {"row_err_ratio", 0.5}, {"max_abs_err", 1e-3}, {"nonfinite", 0},
         {"repeat_identical", true}, {"rmse_unquantised", 0.0123}},
        {{"inputs", "wide"}, {"passed", true}, {"row_err_ratio", 0.5}, {"max_abs_err", 1e-3}, {"nonfinite", 0},
         {"repeat_identical", true}, {"rmse_unquantised", nullptr},
         {"input_scales", {{"q", 4.0}, {"k", 128.0}, {"v", 32.0}}}}};
    write_file(run_dir / "run.json", j.dump(2));
  }
  std::string report(const std::optional<fs::path>& calibration = std::nullopt) const {
    render_run(load_run(run_dir), {}, calibration);
    return read_file(run_dir / "report.md");
  }
};

TEST(Fp8RunReport, TheSpeedOfLightOfAnE4m3RecordTakesAndNamesTheE4m3Rate) {
  const std::string md = Fp8Root(true).report();
  // 8000 FLOP per SM per clock at 1500 MHz on 132 SMs; the fp16 rate (792 TFLOP/s) not used.
  EXPECT_NE(md.find("| 1584 TFLOP/s |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| 792.0 TFLOP/s |"), std::string::npos) << md;
  EXPECT_NE(md.find("- Tensor rate: `wgmma_e4m3_m64n256k32`, the calibration's e4m3 wgmma rate"), std::string::npos)
      << md;
  EXPECT_EQ(md.find("not measured: the calibration has no such rate"), std::string::npos) << md;
}

TEST(Fp8RunReport, AnFp16RecordKeepsTheFp16RateAndSaysNothingNew) {
  const std::string md = Fp8Root(false).report();
  EXPECT_NE(md.find("| 792.0 TFLOP/s |"), std::string::npos) << md;
  EXPECT_EQ(md.find("Tensor rate:"), std::string::npos) << md;
  EXPECT_EQ(md.find("### E4m3 inputs"), std::string::npos) << md;
}

TEST(Fp8RunReport, ACalibrationWithoutTheE4m3RateLeavesTheTensorFloorUnmeasured) {
  Fp8Root t(true);
  const fs::path file = t.dir.path / "calibration" / kSyntheticCalibration;
  auto j = ordered_json::parse(read_file(file));
  auto& rates = j["rates"];
  for (auto it = rates.begin(); it != rates.end(); ++it)
    if ((*it)["name"] == calibration::kTensorFp8) {
      rates.erase(it);
      break;
    }
  write_file(file, j.dump(2));
  const std::string md = t.report();
  EXPECT_NE(md.find("not measured: the calibration has no such rate"), std::string::npos) << md;
  EXPECT_EQ(md.find("| 792.0 TFLOP/s |"), std::string::npos) << md;
}

TEST(Fp8RunReport, CorrectnessShowsTheFormatScalesAndUnquantisedError) {
  const std::string md = Fp8Root(true).report();
  const auto at = md.find("### E4m3 inputs");
  ASSERT_NE(at, std::string::npos) << md;
  EXPECT_LT(md.find("## Correctness"), at);
  const std::string section = md.substr(at, md.find("\n## ", at) - at);
  EXPECT_NE(section.find("| throughput 16x16x2048x64 | e4m3 | 64.00 | 128.0 | 32.00 | 1.23e-02 | normal 1.23e-02 "
                         "(scales not recorded); wide not finite (NaN or Inf output) (scales 4.000, 128.0, 32.00) | "
                         "max abs 5.88e-05 | 1.56e-03 |"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("| latency 1x8x512x64 | e4m3 | 64.00 | 128.0 | 32.00 | 1.23e-02 | not recorded |"), std::string::npos)
      << section;
}

TEST(Fp8CalibrationReport, ShowsTheE4m3RateAndMarksItImpossibleAboveItsCeiling) {
  TempDir dir;
  fs::copy(kCalibrationInputs, dir.path, fs::copy_options::recursive);
  const fs::path file = dir.path / kSyntheticCalibration;
  render_calibration(read_calibration_file(file), file);
  std::string md = read_file(file.parent_path() / "report.md");
  EXPECT_NE(md.find("| `wgmma_e4m3_m64n256k32` | 1584000000000000 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("IMPOSSIBLE"), std::string::npos) << md;  // 8000 of 8192
  auto j = ordered_json::parse(read_file(file));
  for (auto& r : j["rates"])
    if (r["name"] == calibration::kTensorFp8) r["per_sm_per_clock"] = 9000.0;
  write_file(file, j.dump(2));
  render_calibration(read_calibration_file(file), file);
  md = read_file(file.parent_path() / "report.md");
  EXPECT_NE(md.find("`wgmma_e4m3_m64n256k32`: 9000 per SM per clock, above the 2048 dense e4m3 FMA"),
            std::string::npos)
      << md;
}

}  // namespace
}  // namespace attnlab::report

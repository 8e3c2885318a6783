// The instruments on e4m3 records: the speed of light takes the calibration's e4m3 wgmma rate
// for a record whose inputs were e4m3 (reports/speed_of_light.hpp) and says so, the calibration
// report shows that rate against its per-clock ceiling, the run report's correctness section
// shows an e4m3 record's input format, scales and error against the unquantised inputs, and the
// A/B report of an e4m3 pair gives each side's TFLOPS beside the published FP8 figures at the
// same shape. The runs are the phase 4 fixture with its correctness blocks marked e4m3 by hand
// (placeholder figures), against the synthetic calibration of tests/reports/inputs/calibration/;
// the A/B records are synthetic (A at 600 us a pair).
#include <gtest/gtest.h>

#include <cmath>

#include "common/shapes.hpp"
#include "common/stats.hpp"
#include "record/calibration.hpp"
#include "reports/format.hpp"
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


const fs::path kPublished = fs::path(ATTNLAB_COMMITTED_REPORTS) / "published";

// The committed FP8 files: every series complete, each with its board, clock and shape rule, and
// a figure only at a shape of its source's (its batch, heads and key/value heads), so that a
// figure of another problem never stands beside a lab figure.
TEST(Fp8Published, TheCommittedFilesGiveAFigureOnlyAtTheirSourcesShapes) {
  const Published fa3 = read_published(kPublished / "fa3_fp8_h100_sxm.json");
  const Published fa3_cudnn = read_published(kPublished / "fa3_paper_cudnn_fp8_h100_sxm.json");
  const Published cudnn = read_published(kPublished / "cudnn_fp8_h200.json");
  for (const Published* p : {&fa3, &fa3_cudnn, &cudnn}) {
    EXPECT_EQ(p->precision, "fp8") << p->label;
    EXPECT_TRUE(incomplete_series(*p).empty()) << p->label;
    EXPECT_FALSE(p->board.empty());
    EXPECT_FALSE(p->clock.empty());
  }
  EXPECT_EQ(fa3.S, (std::vector<int>{512, 1024, 2048, 4224, 8448, 16896}));
  EXPECT_EQ(fa3.series.size(), 6u);  // D 64, 128 and 256, causal and not
  EXPECT_EQ(fa3.shapes.str(), "B*S = 16384, H*D = 2048, H_kv = H");
  EXPECT_EQ(cudnn.shapes.str(), "B = 1, H = 64, H_kv = 8");
  // FA3's sweep: 16 heads at D 128, 32 at D 64, the batch making 16384 tokens.
  EXPECT_EQ(fa3.at(parse_shape("16x16x1024x128")), fa3.series[2].tflops[1]);
  EXPECT_EQ(fa3.at(parse_shape("32x32x512x64:causal")), fa3.series[1].tflops[0]);
  EXPECT_EQ(fa3_cudnn.at(parse_shape("8x16x2048x128:causal")), fa3_cudnn.series[3].tflops[2]);
  EXPECT_FALSE(fa3.at(parse_shape("16x16x1024x64")));  // H*D 1024: another problem
  EXPECT_FALSE(fa3.at(parse_shape("4x16x4096x128")));   // not on the FP8 axis (4224)
  EXPECT_FALSE(fa3.at(parse_shape("4x16x4224x128")));   // no batch makes 16384 tokens
  EXPECT_FALSE(fa3.at(parse_shape("16x16x1024x128:hkv=8")));   // GQA: not the source's heads
  EXPECT_EQ(cudnn.at(parse_shape("1x64x4096x128:hkv=8")), cudnn.series[0].tflops[1]);
  EXPECT_EQ(cudnn.at(parse_shape("1x64x16384x128:causal:hkv=8")), cudnn.series[1].tflops[3]);
  EXPECT_FALSE(cudnn.at(parse_shape("1x64x4096x128")));  // not GQA
  EXPECT_FALSE(cudnn.at(parse_shape("2x64x4096x128:hkv=8")));   // another batch
  EXPECT_FALSE(cudnn.at(parse_shape("1x64x4096x64:hkv=8")));    // no D 64 series
  // The FP16 file states its precision, so it never stands beside an FP8 pair.
  EXPECT_EQ(read_published(kPublished / "fa3_h100_sxm.json").precision, "fp16");
}

// An A/B shape of `name` (BxHxSxD[:causal][:hkv=N]) whose blocks' gates read `a_format` and
// `b_format` inputs: A at 600 us a pair, B at `ratio` times that.
AbShape fp8_shape(const std::string& name, double ratio, const std::string& a_format = "e4m3",
                  const std::string& b_format = "e4m3") {
  AbShape s = testing::synth_ab_shape(name, ratio, 0.01, 3, 10);
  s.shape = parse_shape(name);
  s.flops = s.shape.flops();
  for (AbBlock& b : s.blocks) {
    b.a_correctness.input_format = a_format;
    b.b_correctness.input_format = b_format;
  }
  return s;
}

std::vector<Published> committed_published() {
  std::vector<Published> out;
  for (const char* f : {"fa3_fp8_h100_sxm.json", "fa3_paper_cudnn_fp8_h100_sxm.json", "cudnn_fp8_h200.json",
                        "fa3_h100_sxm.json"})
    out.push_back(read_published(kPublished / f));
  return out;
}

std::string tflops_section(const std::string& md) {
  const auto at = md.find("## TFLOPS beside published FP8 figures");
  if (at == std::string::npos) return "";
  return md.substr(at, md.find("## Blocks") - at);
}

// Each side's TFLOPS at its busy median, and beside them every published FP8 figure at exactly
// the shape, marked published with its source's board and clock; "no published figure" elsewhere.
TEST(Fp8AbReport, GivesEachSidesTflopsBesideThePublishedFiguresAtTheSameShape) {
  TempDir t;
  const fs::path dir = testing::write_ab(
      t.path, "f8", "cudnn_fp8",
      {fp8_shape("16x16x1024x128", 1.25),
       fp8_shape("1x64x4096x128:hkv=8", 0.8),
       fp8_shape("4x16x4096x128", 1.0)});
  render_ab(read_ab_file(dir / "run.json"), dir, committed_published());
  const std::string section = tflops_section(read_file(dir / "report.md"));
  ASSERT_FALSE(section.empty()) << read_file(dir / "report.md");
  // 16x16x1024x128: 1.374e11 FLOPs in 600 us (A) and 750 us (B).
  EXPECT_NE(section.find("| 16x16x1024x128 |  | 229.1 | 183.3 | 596 published, `FA3 FP8 (paper)` (board H100 80GB "
                         "SXM5 (700W; Appendix C.1, p. 21); clock fixed at 1830 MHz (Appendix C.1, p. 21)); 751 "
                         "published, `cuDNN 9.1.1 FP8 (FA3 paper)` (board H100 80GB SXM5 (700W; Appendix C.1, p. 21); "
                         "clock fixed at 1830 MHz (Appendix C.1, p. 21)) |"),
            std::string::npos)
      << section;
  // 1x64x4096x128:hkv=8: 5.498e11 FLOPs in 600 us and 480 us.
  EXPECT_NE(section.find("| 1x64x4096x128:hkv=8 |  | 916.3 | 1145 | 973 published, `cuDNN 9.19.1 FP8 "
                         "(cudnn-frontend)` (board NVIDIA H200 (the CSV's gpu_name); clock not stated) |"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("| 4x16x4096x128 |  | 916.3 | 916.3 | no published figure |"), std::string::npos) << section;
  EXPECT_NE(section.find("- `cuDNN 9.19.1 FP8 (cudnn-frontend)`: NVIDIA cudnn-frontend at commit "
                         "df73764adb98b7445b77662ce07b1ea434c8f3ee"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("its shapes: B*S = 16384, H*D = 2048, H_kv = H"), std::string::npos) << section;
  EXPECT_EQ(section.find("FA3 (paper)"), std::string::npos) << section;  // the FP16 figures stay out
}

// Only a pair whose sides both read e4m3 inputs gets the section; without published files it
// still gives the TFLOPS and says that none were given.
TEST(Fp8AbReport, OnlyAnE4m3PairGetsTheTflopsAndOnlyGivenFilesArePublished) {
  TempDir t;
  const fs::path mixed = testing::write_ab(
      t.path, "f8", "cudnn", {fp8_shape("16x16x1024x128", 1.25, "e4m3", "fp16")});
  render_ab(read_ab_file(mixed / "run.json"), mixed, committed_published());
  EXPECT_EQ(tflops_section(read_file(mixed / "report.md")), "");
  const fs::path unsaid = testing::write_ab(t.path, "5", "cudnn", {testing::synth_ab_shape("16x16x1024x128", 1.25, 0.01)});
  render_ab(read_ab_file(unsaid / "run.json"), unsaid, committed_published());
  EXPECT_EQ(tflops_section(read_file(unsaid / "report.md")), "");
  const fs::path bare = testing::write_ab(
      t.path, "f8", "cudnn_fp8", {fp8_shape("16x16x1024x128", 1.25)});
  render_ab(read_ab_file(bare / "run.json"), bare);
  const std::string section = tflops_section(read_file(bare / "report.md"));
  EXPECT_NE(section.find("No published FP8 figures were given (`attnlab-report ab --published FILE`)."), std::string::npos)
      << section;
  EXPECT_NE(section.find("| 16x16x1024x128 |  | 229.1 | 183.3 |\n"), std::string::npos) << section;
  EXPECT_EQ(section.find("published,"), std::string::npos) << section;
}

// The committed FP8 A/B record, copied to a temporary folder and rendered with the committed
// published files: a row per timed shape, each side's TFLOPS its FLOPs over its busy median.
TEST(Fp8AbReport, TheCommittedFp8RecordGetsEachSidesTflops) {
  const fs::path pair = fs::path(ATTNLAB_COMMITTED_REPORTS) / "h200" / "records" / "ab" / "f8-vs-cudnn_fp8";
  ASSERT_TRUE(fs::is_directory(pair));
  for (const auto& run : fs::directory_iterator(pair)) {
    if (!fs::exists(run.path() / "run.json.gz")) continue;
    TempDir t;
    fs::copy_file(run.path() / "run.json.gz", t.path / "run.json.gz");
    const AbRecord rec = read_ab_file(t.path / "run.json");
    render_ab(rec, t.path, committed_published());
    const std::string section = tflops_section(read_file(t.path / "report.md"));
    ASSERT_FALSE(section.empty()) << run.path();
    for (const AbShape& s : rec.results) {
      if (!s.wall) continue;
      const auto tflops = [&](bool a) { return sig(s.flops / (stats::median(s.pooled(a).busy_ns) * 1e3), 4); };
      EXPECT_NE(section.find("| " + s.name + " |  | " + tflops(true) + " | " + tflops(false) + " | "), std::string::npos)
          << section;
    }
  }
}

}  // namespace
}  // namespace attnlab::report

// The rate a timeline's tensor pipe divides by (record/timeline_rate.hpp): this GPU's newest
// calibration among the folders named, its board's before its model's; a record named as a file,
// as it is; else the architecture's per-clock ceiling. The rate's source says which, and
// from_calibration carries it to the report, which flags the ceiling.
#include <gtest/gtest.h>

#include "record/calibration.hpp"
#include "record/timeline_rate.hpp"
#include "reports/render.hpp"
#include "report_test_util.hpp"

namespace attnlab::report {
namespace {

using testing::TempDir;
using testing::read_file;

constexpr const char* kThisBoard = "GPU-aaaaaaaa-0000";
constexpr const char* kOtherBoard = "GPU-bbbbbbbb-0000";
constexpr int kSms = 132;

GpuIdentity this_gpu() {
  GpuIdentity g;
  g.name = "NVIDIA H200";
  g.uuid = kThisBoard;
  g.compute_capability = "9.0";
  g.sm_count = kSms;
  return g;
}

// A calibration of `name` and `uuid`, started at `started`, whose fp16 wgmma rate is
// `per_clock` FLOP per SM per cycle (one sample at 1000 MHz).
CalibrationRecord calibration_of(const std::string& name, const std::string& uuid, const std::string& started,
                                 double per_clock, const std::string& status = "ok") {
  CalibrationRecord rec;
  rec.status = status;
  rec.started_utc = started;
  rec.provenance.gpu.name = name;
  rec.provenance.gpu.uuid = uuid;
  rec.provenance.gpu.sm_count = kSms;
  rec.method = "test";
  CalibrationRate r;
  r.name = calibration::kTensor;
  r.unit = "FLOP/s";
  r.method = "m";
  r.work_per_launch = per_clock * kSms * 1e6;  // over 1 ms at 1000 MHz
  r.time_ns = {1e6};
  r.sm_clock_mhz = {1000};
  summarize_rate(r, kSms);
  rec.rates.push_back(r);
  return rec;
}

fs::path write_at(const fs::path& dir, const std::string& run, const CalibrationRecord& rec) {
  const fs::path file = dir / run / kCalibrationFile;
  fs::create_directories(file.parent_path());
  write_calibration_file(file, rec);
  return file;
}

TEST(TimelineRate, TakesThisGpusNewestCalibrationAmongTheFolders) {
  TempDir t;
  const fs::path results = t.path / "results" / "calibration", reports = t.path / "reports" / "h200" / "calibration";
  write_at(results, "20261101T000000Z-a", calibration_of("NVIDIA H200", kThisBoard, "2026-11-01T00:00:00Z", 3900));
  write_at(reports, "20261110T000000Z-b", calibration_of("NVIDIA H200", kOtherBoard, "2026-11-10T00:00:00Z", 3950));
  // Newer, but failed, and of another model: neither is taken.
  write_at(results, "20261120T000000Z-c",
           calibration_of("NVIDIA H200", kThisBoard, "2026-11-20T00:00:00Z", 3000, "failed"));
  const fs::path h100 = write_at(reports.parent_path().parent_path() / "h100" / "calibration", "20261121T000000Z-d",
                                 calibration_of("NVIDIA H100 80GB HBM3", "GPU-cccc", "2026-11-21T00:00:00Z", 3800));
  const std::vector<std::string> folders = {results.string(), reports.string(), h100.parent_path().parent_path().string()};

  TensorPipeRate rate;
  set_tensor_pipe_rate(rate, calibration::kTensor, folders, this_gpu());
  EXPECT_TRUE(rate.from_calibration);
  EXPECT_NEAR(rate.flop_per_sm_cycle, 3900, 1e-6);
  EXPECT_EQ(rate.rate_name, calibration::kTensor);
  EXPECT_NE(rate.rate_source.find("calibration " + (results / "20261101T000000Z-a" / kCalibrationFile).string()),
            std::string::npos)
      << rate.rate_source;
  EXPECT_NE(rate.rate_source.find("the newest of this board's in "), std::string::npos) << rate.rate_source;

  // Another board of the model: the model's newest.
  GpuIdentity other = this_gpu();
  other.uuid = "GPU-dddd";
  set_tensor_pipe_rate(rate, calibration::kTensor, folders, other);
  EXPECT_NEAR(rate.flop_per_sm_cycle, 3950, 1e-6);
  EXPECT_NE(rate.rate_source.find("the newest of this model's in "), std::string::npos) << rate.rate_source;

  // None of this GPU's, or no rate of the kind asked for: the ceiling, said so.
  GpuIdentity unknown = this_gpu();
  unknown.name = "NVIDIA H20";
  unknown.uuid = "GPU-eeee";
  set_tensor_pipe_rate(rate, calibration::kTensor, folders, unknown);
  EXPECT_FALSE(rate.from_calibration);
  EXPECT_DOUBLE_EQ(rate.flop_per_sm_cycle, 4096);
  EXPECT_EQ(rate.rate_source.find("no calibration of this GPU (NVIDIA H20, GPU-eeee) with wgmma_fp16_m64n256k16 in "),
            0u)
      << rate.rate_source;
  set_tensor_pipe_rate(rate, calibration::kTensorFp8, folders, this_gpu());
  EXPECT_FALSE(rate.from_calibration);
  EXPECT_DOUBLE_EQ(rate.flop_per_sm_cycle, 8192);

  // Nothing named: the ceiling, as before folders could be named.
  set_tensor_pipe_rate(rate, calibration::kTensor, {}, this_gpu());
  EXPECT_FALSE(rate.from_calibration);
  EXPECT_EQ(rate.rate_source.find("no calibration given: the architecture's ceiling, "), 0u) << rate.rate_source;

  // A record named as a file is taken as it is, whichever GPU it measured; one without the rate
  // is refused.
  set_tensor_pipe_rate(rate, calibration::kTensor, {results.string(), h100.string()}, this_gpu());
  EXPECT_TRUE(rate.from_calibration);
  EXPECT_NEAR(rate.flop_per_sm_cycle, 3800, 1e-6);
  EXPECT_NE(rate.rate_source.find(", named as a file)"), std::string::npos) << rate.rate_source;
  EXPECT_THROW(set_tensor_pipe_rate(rate, calibration::kTensorFp8, {h100.string()}, this_gpu()),
               std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::report

// The run report's per-kernel sections: launch statistics and occupancy per kernel, the
// headline time side by side with the SDPA baselines of the same records tree, and the Nsight
// Compute cross-check, rendered from tests/reports/inputs/side-by-side (placeholder values) and
// from records that lack them ("not measured").
#include <gtest/gtest.h>

#include <functional>

#include "reports/format.hpp"
#include "reports/render.hpp"
#include "report_test_util.hpp"

using namespace attnlab;
using namespace attnlab::report;
using namespace attnlab::report::testing;

namespace {

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The report of the side-by-side root's phase 4 record, after `edit` changed that record.
std::string side_by_side_report(const TempDir& t, const std::function<void(ordered_json&)>& edit = nullptr) {
  const fs::path run = make_side_by_side_root(t.path);
  if (edit) {
    auto rec = ordered_json::parse(read_file(run / "run.json"));
    edit(rec);
    write_file(run / "run.json", rec.dump(2));
  }
  const auto runs = load_root(t.path);
  render_run(load_run(run), runs);
  return read_file(run / "report.md");
}

// The section of `md` from its "## <title>" line to the next "## ".
std::string section(const std::string& md, const std::string& title) {
  const auto at = md.find("## " + title + "\n");
  if (at == std::string::npos) return "";
  const auto end = md.find("\n## ", at + 1);
  return md.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

TEST(SideBySide, WavesAreComputedFromTheRecordAndUnderOneWaveIsSaidInWords) {
  TempDir t;
  const std::string md = section(side_by_side_report(t), "Launch statistics and occupancy");
  ASSERT_FALSE(md.empty());
  const auto rec = ordered_json::parse(read_file(t.path / "4" / "20261122T215639Z-dcabdff" / "run.json"));
  const double sms = rec["provenance"]["gpu"]["sm_count"];
  for (const auto& res : rec["results"]) {
    const auto& k = res["static"]["kernels"][0];
    const long long ctas = k["grid"][0].get<long long>() * k["grid"][1].get<long long>() * k["grid"][2].get<long long>();
    const int per_sm = k["active_blocks_per_sm"];
    const double waves = double(ctas) / (sms * per_sm);
    EXPECT_TRUE(contains(md, "| " + std::to_string(ctas) + " | " + std::to_string(per_sm) + " | " + sig(waves) + " | "))
        << md;
    if (waves < 1) {
      EXPECT_TRUE(contains(md, sig(waves) + " waves, under one wave")) << md;
      if (ctas < sms) {
        EXPECT_TRUE(contains(md, "at most " + std::to_string(ctas) + " of the " + count(sms) + " SMs get a CTA"))
            << md;
      }
    } else {
      EXPECT_FALSE(contains(md, sig(waves) + " waves, under one wave")) << md;
    }
  }
  // The limit per resource, what limits, achieved occupancy and the SM balance where measured.
  EXPECT_TRUE(contains(md, "| registers | 5 | 15 | 16 | 32 |")) << md;
  const auto& thr = rec["results"][0]["metrics"]["throughput"]["values"];
  const double achieved = thr["sm__warps_active.avg.pct_of_peak_sustained_active"]["value"];
  EXPECT_TRUE(contains(md, "- Achieved occupancy: " + pct(achieved) + " of the warp slots")) << md;
  const double lo = thr["sm__cycles_active.min"]["value"], avg = thr["sm__cycles_active.avg"]["value"],
               hi = thr["sm__cycles_active.max"]["value"];
  EXPECT_TRUE(contains(md, "min " + count(lo) + ", mean " + count(avg) + ", max " + count(hi))) << md;
  EXPECT_TRUE(contains(md, sig(hi / avg, 3) + "x the mean")) << md;
  // The latency shape's group was unavailable: said, with the reason.
  EXPECT_TRUE(contains(md, "- Achieved occupancy: not measured (metric group `throughput` unavailable: "
                           "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")) << md;
}

TEST(SideBySide, SeveralKernelsAreNamedAndADisagreementWithTheDriverIsSaid) {
  TempDir t;
  const std::string md = section(side_by_side_report(t, [](ordered_json& rec) {
    auto& kernels = rec["results"][0]["static"]["kernels"];
    ordered_json second = kernels[0];
    second["name"] = "combine_kernel";
    second["grid"] = {8, 1, 1};
    second["active_blocks_per_sm"] = second["occupancy_limits"]["active_blocks_per_sm"].get<int>() - 1;
    kernels.push_back(second);
    rec["results"][1]["static"]["kernels"][0].erase("occupancy_limits");
  }), "Launch statistics and occupancy");
  EXPECT_TRUE(contains(md, "- `combine_kernel`: 8 CTAs on 132 SMs")) << md;
  EXPECT_TRUE(contains(md, "- `attention_kernel<64>`: ")) << md;
  EXPECT_TRUE(contains(md, "- `combine_kernel`: the least computed limit (5) differs from the driver's")) << md;
  EXPECT_TRUE(contains(md, "Achieved occupancy (over the launch's 2 kernels)")) << md;
  EXPECT_TRUE(contains(md, "- CTA limits per resource: not measured (the record predates them).")) << md;
}

TEST(SideBySide, BaselinesAreTheNewestOfTheSameGpuAndJudgedAsCompareJudges) {
  TempDir t;
  const std::string md = section(side_by_side_report(t), "Side by side with the baselines");
  ASSERT_FALSE(md.empty());
  const auto runs = load_root(t.path);
  const report::Run* four = nullptr;
  for (const auto& r : runs) if (r.phase == "4") four = &r;
  ASSERT_TRUE(four);
  // cuDNN at the throughput shape: the same-GPU record, not the newer one on another GPU.
  EXPECT_TRUE(contains(md, "[`20261122T221000Z-dcabdff`](../../sdpa-cudnn/20261122T221000Z-dcabdff/report.md) (same session)")) << md;
  EXPECT_FALSE(contains(md, "20261123T100000Z")) << md;
  for (const auto& [phase, shape] : {std::pair<std::string, std::string>{"sdpa-cudnn", "16x16x2048x64"},
                                     {"sdpa-flash", "1x8x512x64"}}) {
    const report::Run* b = newest_ok(runs, phase, four->gpu_name(), [&](const report::Run& r) {
      return r.gpu_uuid() == four->gpu_uuid() && r.result(shape);
    });
    ASSERT_TRUE(b) << phase;
    const Result& br = *b->result(shape);
    const Result& mr = *four->result(shape);
    const DeviceTime tb = device_time(br, *br.headline()), tm = device_time(mr, *mr.headline());
    EXPECT_TRUE(contains(md, device_time_cell(tb) + " | " + device_time_cell(tm) + " | " +
                                 sig(tm.median_ns / tb.median_ns, 3) + " | " +
                                 pct(100.0 * (tm.median_ns - tb.median_ns) / tb.median_ns) + " | **" +
                                 change_name(compare_times(tb, tm)) + "** |"))
        << phase << "\n" << md;
  }
  // The fixture's verdicts: twice cuDNN's time is SLOWER, flash's own samples SAME.
  EXPECT_TRUE(contains(md, "| **SLOWER** |")) << md;
  EXPECT_TRUE(contains(md, "| **SAME** |")) << md;
  // No same-GPU record with the shape: not measured, however many on another GPU.
  EXPECT_TRUE(contains(md, "| latency 1x8x512x64 | cuDNN | not measured: no ok `sdpa-cudnn` record of this GPU")) << md;
  EXPECT_TRUE(contains(md, "| throughput 16x16x2048x64 | flash | not measured: no ok `sdpa-flash` record of this GPU")) << md;
}

TEST(SideBySide, ABaselinesOwnReportSaysItIsThatBaseline) {
  TempDir t;
  make_side_by_side_root(t.path);
  const auto runs = load_root(t.path);
  for (const auto& r : runs) {
    if (r.phase != "sdpa-cudnn" || r.gpu_uuid() == "GPU-another-h100") continue;
    render_run(r, runs);
    const std::string md = section(read_file(r.dir / "report.md"), "Side by side with the baselines");
    EXPECT_TRUE(contains(md, "| throughput 16x16x2048x64 | cuDNN | this record is that baseline |")) << md;
    EXPECT_TRUE(contains(md, "| throughput 16x16x2048x64 | flash | not measured")) << md;
  }
}

TEST(SideBySide, TheNcuCrossCheckShowsEachMetricAndLinksTheReport) {
  TempDir t;
  const std::string md = section(side_by_side_report(t), "Nsight Compute cross-check");
  ASSERT_FALSE(md.empty());
  EXPECT_TRUE(contains(md, "Nsight Compute report: [`ncu-16x16x2048x64.ncu-rep`](ncu-16x16x2048x64.ncu-rep)")) << md;
  const auto rec = ordered_json::parse(read_file(t.path / "4" / "20261122T215639Z-dcabdff" / "run.json"));
  const auto& n = rec["results"][0]["ncu"];
  const auto& cupti = rec["results"][0]["metrics"]["throughput"]["values"];
  const std::string m = "gpu__time_duration.sum";
  EXPECT_TRUE(contains(md, "| `" + m + "` | ns | " + sig(cupti[m]["value"].get<double>()) + " | " +
                               sig(n["values"][m]["value"].get<double>()) + " | " +
                               pct(n["rel_diff_pct"][m].get<double>()) + " |"))
      << md;
  EXPECT_TRUE(contains(md, "| not computed: ncu's value is 0 and CUPTI's is not |")) << md;
  EXPECT_TRUE(contains(md, "| `dram__bytes_read.sum` | bytes | not measured |")) << md;
  EXPECT_TRUE(contains(md, "- `sm__cycles_active.min`: not in the ncu report")) << md;
  EXPECT_TRUE(contains(md, "Not measured: no ncu-1x8x512x64.csv beside the record.")) << md;
  // Without the report file beside the record, no link to it.
  fs::remove(t.path / "4" / "20261122T215639Z-dcabdff" / "ncu-16x16x2048x64.ncu-rep");
  render_run(load_run(t.path / "4" / "20261122T215639Z-dcabdff"), load_root(t.path));
  const std::string gone = read_file(t.path / "4" / "20261122T215639Z-dcabdff" / "report.md");
  EXPECT_TRUE(contains(gone, "Nsight Compute report: `ncu-16x16x2048x64.ncu-rep` (not beside the record)")) << gone;
}

TEST(SideBySide, ARecordWithoutThemSaysNotMeasured) {
  TempDir t;
  make_fixture_root(t.path);
  const auto runs = load_root(t.path);
  render_run(runs.front(), runs);
  const std::string md = read_file(runs.front().dir / "report.md");
  EXPECT_TRUE(contains(md, "Not measured: this record has no `static` evidence (launch configuration")) << md;
  EXPECT_TRUE(contains(md, "Not measured: this record has no `ncu` values.")) << md;
  EXPECT_TRUE(contains(md, "| cuDNN | not measured: no ok `sdpa-cudnn` record of this GPU")) << md;
  EXPECT_TRUE(contains(md, "| flash | not measured: no ok `sdpa-flash` record of this GPU")) << md;
}

}  // namespace

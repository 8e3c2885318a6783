// Every committed report under reports/h100, rendered afresh into a copy of its records, read
// as a reviewer would against the records themselves: no SUPPORTED inside the noise, no "no
// tail" for a grid whose CTAs may walk several work items, every board named, flagged replay
// overhead, labelled clocks and bounds. The sentences are checked, not the bytes (the goldens
// and readme.results_current do that).
#include <gtest/gtest.h>

#include <set>

#include "record/metrics.hpp"
#include "reports/judge.hpp"
#include "reports/paired_view.hpp"
#include "reports/render.hpp"
#include "report_test_util.hpp"

namespace attnlab::report {
namespace {

using testing::read_file;
using testing::TempDir;

// A copy of reports/h100/records (the records, compressed as committed, and phases.json only),
// rendered there.
struct Committed {
  TempDir dir;
  fs::path root;
  std::vector<report::Run> runs;
  std::size_t phase_records = 0;  // run.json(.gz) files outside ab/
  Committed() : root(dir.path / "records") {
    const fs::path from = fs::path(ATTNLAB_COMMITTED_REPORTS) / "h100" / "records";
    for (const auto& e : fs::recursive_directory_iterator(from)) {
      const std::string n = e.path().filename().string();
      const bool record = n == "run.json" || n == "run.json.gz";
      if (!record && n != "phases.json") continue;
      if (record && fs::relative(e.path(), from).begin()->string() != "ab") ++phase_records;
      const fs::path to = root / fs::relative(e.path(), from);
      fs::create_directories(to.parent_path());
      fs::copy_file(e.path(), to);
    }
    runs = load_root(root);
    for (const report::Run& r : runs) render_run(r, runs);
    render_notebook(runs, root, dir.path);
  }
  std::string report(const report::Run& r) const { return read_file(r.dir / "report.md"); }
};

const Committed& committed() {
  static const Committed c;
  return c;
}

TEST(CommittedReports, AreAllThere) {
  EXPECT_GE(committed().phase_records, 10u);
  EXPECT_EQ(committed().runs.size(), committed().phase_records);
}

TEST(CommittedReports, NoClaimIsSupportedInsideTheNoise) {
  const auto& c = committed();
  int supported_intervals = 0;
  for (const report::Run& run : c.runs) {
    for (const Judgement& j : judge_claims(run, c.runs)) {
      if (j.verdict != Verdict::kSupported) continue;
      if (!j.claim.paired_against.empty()) {
        // Paired: SUPPORTED only when the whole interval of the paired ratio is at or above the
        // claimed factor (the non-inferiority margin for "as fast as").
        const auto p = paired_for(run.dir.parent_path().parent_path(), j.claim.paired_against,
                                  shape_name(parse_shape(j.claim.shape)), run);
        ASSERT_TRUE(p && p->result.shape.wall) << run.id() << " " << j.claim.id;
        EXPECT_GE(p->result.shape.wall->estimate.lo, j.claim.factor) << run.id() << " " << j.claim.id;
        ++supported_intervals;
        continue;
      }
      const Result* mine = run.result(shape_name(parse_shape(j.claim.shape)));
      ASSERT_NE(mine, nullptr);
      const Lookup lhs = measure_metric(*mine, j.claim.metric);
      ASSERT_TRUE(lhs.measure) << run.id() << " " << j.claim.id;
      Measure rhs{j.claim.value.value_or(0), j.claim.value.value_or(0), j.claim.value.value_or(0), "", ""};
      if (j.compared) {
        const Lookup l = measure_metric(*j.compared->result(mine->name), j.claim.metric);
        ASSERT_TRUE(l.measure);
        rhs = l.measure->scaled(j.claim.factor);
      }
      if (lhs.measure->spread.empty() && rhs.spread.empty()) continue;  // points: exact
      ++supported_intervals;
      const auto [lo, hi] = lhs.measure->interval(true);
      const auto [rlo, rhi] = rhs.interval(true);
      if (j.claim.op == "within_pct") {
        const double t = j.claim.tolerance_pct / 100;
        EXPECT_TRUE(lo >= rlo * (1 - t) && hi <= rhi * (1 + t)) << run.id() << " " << j.claim.id << ": " << j.evidence;
      } else {
        EXPECT_NE(relate(lo, hi, rlo, rhi), Relation::kOverlap) << run.id() << " " << j.claim.id << ": " << j.evidence;
      }
    }
    const std::string md = c.report(run);
    for (const char* s : {"intervals overlap: as claimed", "equal within noise"})
      EXPECT_EQ(md.find(s), std::string::npos) << run.id() << ": " << s;
  }
  EXPECT_GT(supported_intervals, 0);  // the check saw timed claims
}

TEST(CommittedReports, APersistentGridIsNeverSaidToHaveNoTail) {
  const auto& c = committed();
  int one_wave = 0;
  for (const report::Run& run : c.runs) {
    const std::string md = c.report(run);
    EXPECT_EQ(md.find("no tail"), std::string::npos) << run.id();
    const auto sms = optional_number_at(run.json, "/provenance/gpu/sm_count");
    for (const Result& r : run.results) {
      const ordered_json* ks = find(r.json, "/static/kernels");
      if (!ks || !ks->is_array() || !sms) continue;
      for (const auto& k : *ks) {
        const ordered_json* grid = find(k, "/grid");
        const ordered_json* per = find(k, "/active_blocks_per_sm");
        if (!grid || !per || !per->is_number() || per->get<int>() < 1) continue;
        long long ctas = 1;
        for (const auto& x : *grid) ctas *= x.get<long long>();
        if (ctas != static_cast<long long>(*sms) * per->get<int>()) continue;
        ++one_wave;
        // A grid of exactly one wave: its tail is that of its work items' last round.
        EXPECT_TRUE(k.contains("work_items") ? md.find("per CTA, ") != std::string::npos
                                             : md.find("Work items per CTA: not measured") != std::string::npos)
            << run.id() << " " << r.name;
      }
    }
  }
  EXPECT_GT(one_wave, 0);  // phase 5's persistent grid is among the records
}

TEST(CommittedReports, EveryBoardIsNamed) {
  const auto& c = committed();
  const std::string notebook = read_file(c.dir.path / "NOTEBOOK.md");
  const std::string index = read_file(c.dir.path / "index.jsonl");
  std::set<std::string> uuids;
  for (const report::Run& run : c.runs) {
    ASSERT_FALSE(run.gpu_uuid().empty()) << run.id();
    uuids.insert(run.gpu_uuid());
    EXPECT_NE(c.report(run).find("board `" + run.gpu_uuid() + "`"), std::string::npos) << run.id();
    EXPECT_NE(index.find("\"run\":\"" + run.id() + "\""), std::string::npos) << run.id();
  }
  EXPECT_GT(uuids.size(), 1u);  // the records come from several boards
  for (const auto& u : uuids) {
    EXPECT_NE(notebook.find("`" + u.substr(0, u.find('-', 4)) + "`"), std::string::npos) << u;
    EXPECT_NE(index.find("\"gpu_uuid\":\"" + u + "\""), std::string::npos) << u;
  }
}

TEST(CommittedReports, ReplayDominatedCountersAreFlagged) {
  const auto& c = committed();
  int flagged = 0;
  for (const report::Run& run : c.runs)
    for (const Result& r : run.results) {
      const auto replay = optional_number_at(r.json, "/metrics/throughput/values/gpu__time_duration.sum/value");
      if (!replay || !r.timed()) continue;
      const double device = device_time(r, *r.headline()).median_ns;
      if (*replay <= kReplayDominatedRatio * device) continue;
      ++flagged;
      EXPECT_NE(c.report(run).find("Replay overhead: "), std::string::npos) << run.id() << " " << r.name;
    }
  EXPECT_GT(flagged, 0);  // d4's short launches replay for far longer than they run
}

TEST(CommittedReports, ClocksAndBoundsSayWhatTheyAre) {
  const auto& c = committed();
  for (const report::Run& run : c.runs) {
    const std::string md = c.report(run);
    bool clocks = false, probe = false, row_rule = false;
    for (const Result& r : run.results) {
      for (const Regime& g : r.timing) {
        clocks = clocks || (g.clock_before_mhz && g.clock_after_mhz);
        probe = probe || (g.clock_before_mhz && g.clock_source.rfind("NVML", 0) != 0);
      }
      const std::string rule = optional_string_at(r.json, "/correctness/rule").value_or("");
      row_rule = row_rule || rule == "row_rms" || rule == "backward_row_rms";
    }
    if (probe) {
      EXPECT_NE(md.find(" (probe) |"), std::string::npos) << run.id();
    }
    if (clocks && !probe) {
      EXPECT_NE(md.find(" (NVML) |"), std::string::npos) << run.id();
    }
    if (row_rule) {
      EXPECT_NE(md.find("(row-RMS bound)"), std::string::npos) << run.id();
    }
    EXPECT_EQ(md.find("| tolerance |"), std::string::npos) << run.id();
  }
}

}  // namespace
}  // namespace attnlab::report

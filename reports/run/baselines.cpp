// A run's report, side by side with the baselines: the headline time beside PyTorch SDPA's
// records at the same shape.
#include "reports/run/sections.hpp"

namespace attnlab::report::detail {

namespace {

// The baselines every run's report sets its headline time beside: phase directory, name.
constexpr std::pair<const char*, const char*> kBaselines[] = {{"sdpa-cudnn", "cuDNN"}, {"sdpa-flash", "flash"}};

}  // namespace

void baselines_section(std::ostringstream& md, const Run& run, const std::vector<Run>& root_runs) {
  md << "## Side by side with the baselines\n\n";
  md << "Per shape, this run's headline device time (busy time, as the progression and `attnlab-report "
        "compare` use it) against the newest ok record of each PyTorch SDPA baseline in this records "
        "tree (sibling phase directories ";
  for (std::size_t i = 0; i < std::size(kBaselines); ++i) md << (i ? ", " : "") << code(kBaselines[i].first);
  md << ") that timed the shape on the same GPU (`provenance.gpu.uuid` " << code(run.gpu_uuid())
     << "). Time ratio: this run's median device time over the baseline's (below 1: this run is "
        "quicker); difference: (this run - baseline) / "
        "baseline. Verdict, this run against the baseline, by the rule of `attnlab-report compare`: "
        "FASTER when this run's p10-p90 interval lies wholly below the baseline's, SLOWER when wholly "
        "above, SAME when they overlap (a difference within the noise). Records of another device "
        "session on the GPU are marked: figures move between sessions.\n\n";
  Table t({"shape", "baseline", "baseline record", "regimes", "baseline device time", "this run",
           "time ratio", "difference", "verdict"},
          "llllrrrrl");
  std::set<TimeBasis> marked;
  const std::string session = session_key(run, root_runs);
  for (const auto& r : run.results) {
    for (const auto& [phase, label] : kBaselines) {
      auto missing = [&](const std::string& why) {
        t.row({shape_label(r.name), label, why, "", "", "", "", "", ""});
      };
      if (run.phase == phase) {
        missing("this record is that baseline");
        continue;
      }
      if (!r.timed()) {
        missing("not measured: this run did not time the shape (" + r.untimed_reason() + ")");
        continue;
      }
      const Run* b = newest_ok(root_runs, phase, run.gpu_name(), [&](const Run& x) {
        const Result* xr = x.result(r.name);
        return x.gpu_uuid() == run.gpu_uuid() && xr && xr->timed();
      });
      if (!b) {
        missing("not measured: no ok " + code(phase) + " record of this GPU that timed the shape in "
                "this records tree");
        continue;
      }
      const Result& br = *b->result(r.name);
      const Regime& bg = *br.headline();
      const Regime& g = *r.headline();
      const DeviceTime tb = device_time(br, bg), tr = device_time(r, g);
      marked.insert({tb.basis, tr.basis});
      const std::string when = session_key(*b, root_runs) == session ? "same session" : "another session";
      t.row({shape_label(r.name), label,
             "[" + code(b->name) + "](" + link(run.dir, b->dir / "report.md") + ") (" + when + ")",
             bg.name == g.name ? g.name : bg.name + " (baseline), " + g.name + " (this run)",
             device_time_cell(tb), device_time_cell(tr), sig(tr.median_ns / tb.median_ns, 3),
             pct(100.0 * (tr.median_ns - tb.median_ns) / tb.median_ns),
             std::string("**") + change_name(compare_times(tb, tr)) + "**"});
    }
  }
  if (t.empty()) {
    md << "No shape in this record.\n\n";
    return;
  }
  md << t.str() << "\n";
  for (TimeBasis b : marked)
    if (!basis_footnote(b).empty()) md << basis_footnote(b) << "\n\n";
}

}  // namespace attnlab::report::detail

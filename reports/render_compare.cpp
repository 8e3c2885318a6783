// Two runs side by side: per shape and regime, SAME / FASTER / SLOWER by separation of the
// samples' p10-p90 intervals (see judge.hpp for why not a rank test).
#include <set>
#include <sstream>

#include "reports/format.hpp"
#include "reports/render.hpp"

namespace attnlab::report {
namespace {

std::string describe(const char* letter, const Run& r) {
  return std::string("- **") + letter + ":** phase " + r.phase + ", run " + code(r.id()) +
         ", status " + r.status + ", commit " + code(r.short_commit()) +
         (r.provenance.git.dirty ? " (dirty)" : "") + ", " + r.gpu_name() + ", started " +
         (r.started_utc.empty() ? "(not recorded)" : r.started_utc) + "\n";
}

}  // namespace

std::string compare_markdown(const Run& a, const Run& b) {
  std::ostringstream md;
  md << "# Compare: B (phase " << b.phase << ") against A (phase " << a.phase << ")\n\n";
  md << describe("A", a) << describe("B", b) << "\n";
  if (a.gpu_name() != b.gpu_name())
    md << "The runs are on different GPUs; the verdicts compare the GPUs as much as the "
          "kernels.\n\n";
  md << "Times are device time: the time during which a launch's kernels ran (busy time, "
        "idle gaps between kernels left out; for one kernel per launch, the span of its "
        "samples), with TFLOPS at that time. Verdict per shape and regime, B against A: FASTER "
        "when B's p10-p90 interval of samples lies wholly below A's, SLOWER when wholly above, "
        "SAME when the intervals overlap (a difference within the noise).\n\n";
  Table t({"shape", "regime", "A busy median (p10-p90)", "B busy median (p10-p90)", "B/A",
           "A TFLOPS", "B TFLOPS", "verdict"},
          "llrrrrrl");
  std::vector<std::string> only_a, only_b, untimed;
  std::set<TimeBasis> marked;
  int counts[3] = {0, 0, 0};
  for (const auto& ra : a.results) {
    const Result* rb = b.result(ra.name);
    if (!rb) {
      only_a.push_back(ra.name);
      continue;
    }
    if (!ra.timed() || !rb->timed()) {
      untimed.push_back(ra.name + " (not timed in " +
                        (!ra.timed() && !rb->timed() ? "A and B" : !ra.timed() ? "A" : "B") + ")");
      continue;
    }
    for (const auto& ga : ra.timing) {
      const Regime* gb = rb->regime(ga.name);
      if (!gb) continue;
      const DeviceTime ta = device_time(ra, ga), tb = device_time(*rb, *gb);
      marked.insert({ta.basis, tb.basis});
      const Change ch = compare_times(ta, tb);
      const bool headline = ga.name == ra.headline_regime && ga.name == rb->headline_regime;
      if (headline) ++counts[int(ch)];
      t.row({shape_label(ra.name), headline ? ga.name + " (headline)" : ga.name, device_time_cell(ta),
             device_time_cell(tb), sig(tb.median_ns / ta.median_ns, 3),
             sig(ta.rate_at(ga, ga.tflops, ta.median_ns)), sig(tb.rate_at(*gb, gb->tflops, tb.median_ns)),
             std::string("**") + change_name(ch) + "**"});
    }
  }
  for (const auto& rb : b.results)
    if (!a.result(rb.name)) only_b.push_back(rb.name);
  if (t.empty()) {
    md << "No shape was timed in both runs.\n";
  } else {
    md << t.str() << "\n";
    for (TimeBasis b : marked)
      if (!basis_footnote(b).empty()) md << basis_footnote(b) << "\n\n";
    md << "Headline regime: FASTER at " << counts[int(Change::kFaster)] << ", SLOWER at "
       << counts[int(Change::kSlower)] << ", SAME at " << counts[int(Change::kSame)]
       << " shape(s).\n";
  }
  auto list = [&](const char* what, const std::vector<std::string>& v) {
    if (v.empty()) return;
    md << "\n" << what << ": ";
    for (std::size_t i = 0; i < v.size(); ++i) md << (i ? ", " : "") << v[i];
    md << ".\n";
  };
  list("Shapes only in A", only_a);
  list("Shapes only in B", only_b);
  list("Shapes not compared", untimed);
  return md.str();
}

}  // namespace attnlab::report

// The lab notebook: every record of a results root, newest first, as markdown and as JSON
// lines (one object per run) that pandas reads in one call.
#include <sstream>

#include "record/index_line.hpp"
#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"

namespace attnlab::report {
namespace {

std::string date_text(const Run& run) {
  if (run.started_utc.empty()) return "(not recorded)";
  std::string s = run.started_utc;  // "2026-11-22T21:56:42Z" -> "2026-11-22 21:56:42"
  for (char& ch : s)
    if (ch == 'T') ch = ' ';
  if (!s.empty() && s.back() == 'Z') s.pop_back();
  return s;
}

std::string headline_cell(const Run& run) {
  std::string out;
  for (const auto& r : run.results) {
    out += out.empty() ? "" : "<br>";
    out += shape_label(r.name) + ": ";
    if (!r.timed()) {
      out += r.unavailable() || r.passed() ? r.untimed_reason() : "FAILED correctness";
      continue;
    }
    const Regime& g = *r.headline();
    const DeviceTime t = device_time(r, g);
    // Words only where the record gives less than busy time with its interval.
    const std::string less = basis_marker(t.basis).empty() ? "" : " (" + basis_words(t) + ")";
    // Median, interval and noise of one quantity: the busy time has no recorded noise.
    const auto noise = device_noise_pct(g, t);
    out += "**" + sig(t.rate_at(g, g.tflops, t.median_ns)) + "** TFLOPS (" + g.name + " median " +
           duration(t.median_ns) + less + span_beside(t) +
           (t.has_interval() ? ", p10-p90 " + duration_range(t.p10_ns, t.p90_ns, t.median_ns) : "") +
           (noise ? ", noise " + pct(*noise) : "") + ")";
  }
  return out.empty() ? "no shapes" : out;
}

IndexShape index_shape(const Result& r) {
  IndexShape s;
  s.name = r.name;
  s.passed = r.passed();
  if (!r.timed()) return s;
  const Regime& g = *r.headline();
  const DeviceTime t = device_time(r, g);
  IndexHeadline& h = s.headline.emplace();
  h.regime = g.name;
  h.median_ns = g.median_ns;
  h.p10_ns = g.p10_ns;
  h.p90_ns = g.p90_ns;
  h.noise_pct = g.noise_pct;
  h.samples = g.count;
  h.tflops = g.tflops;
  h.dram_gbps_min_bytes = g.dram_gbps_min_bytes;
  h.device_time = basis_words(t);
  h.device_median_ns = t.median_ns;
  if (t.has_interval()) {
    h.device_p10_ns = t.p10_ns;
    h.device_p90_ns = t.p90_ns;
  }
  h.device_tflops = t.rate_at(g, g.tflops, t.median_ns);
  return s;
}

IndexLine index_line(const Run& run, const std::vector<Judgement>& js, const fs::path& out_dir,
                     const std::optional<std::string>& report) {
  IndexLine l;
  l.run = run.id();
  l.phase = run.phase;
  l.title = run.experiment.title;
  l.status = run.status;
  l.started_utc = run.started_utc;
  l.commit = run.commit();
  l.dirty = run.provenance.git.dirty;
  l.gpu = run.gpu_name();
  if (!run.gpu_uuid().empty()) l.gpu_uuid = run.gpu_uuid();
  l.seed = json_seed(run);
  l.record = link(out_dir, run.file);
  l.report = report;
  for (const auto& r : run.results) l.shapes.push_back(index_shape(r));
  for (const auto& jd : js) l.claims.emplace_back(jd.claim.id, verdict_name(jd.verdict));
  return l;
}

}  // namespace

std::string json_seed(const Run& run) {
  return std::to_string(run.provenance.seed);
}

Rendered render_notebook(const std::vector<Run>& runs, const fs::path& root, const fs::path& out_dir) {
  Rendered out;
  std::ostringstream md, lines;
  std::string where = link(out_dir, root);
  where = where == "." ? "this directory" : code(where + "/");
  md << "# Lab notebook\n\n"
     << "Every run record under " << where << ", newest first (" << runs.size()
     << (runs.size() == 1 ? " run" : " runs")
     << "). Rendered by `attnlab-report notebook` from the records; edits are overwritten. "
        "The same figures, one JSON object per run: [`index.jsonl`](index.jsonl) "
        "(`pandas.read_json(\"index.jsonl\", lines=True)`; `pandas.json_normalize` flattens "
        "`headline`). Headline figures are device time, the time during which a launch's "
        "kernels ran (busy time: idle gaps between kernels left out; for one kernel per launch, "
        "the span of its samples), and TFLOPS at that time; each says where a record gives "
        "less; median, p10-p90 and noise are of that one quantity (busy time has no recorded "
        "noise). Board: the GPU by its uuid (`gpu_uuid` in the index); compare figures only on "
        "one board. Claims: SUPPORTED, REFUTED, INCONCLUSIVE (intervals overlap: a difference "
        "within the noise is never SUPPORTED) or NOT TESTED.\n\n";
  if (runs.empty()) md << "No run records yet: `make experiment PHASE=<id>` writes one.\n";
  Table t({"started (UTC)", "phase", "board", "commit", "status", "shapes: headline figures", "claims",
           "report"},
          "llllllll");
  for (const auto& run : runs) {
    const std::vector<Judgement> js = judge_claims(run, runs);
    std::string claims;
    for (const auto& jd : js)
      claims += (claims.empty() ? "" : "<br>") + code(jd.claim.id) + " " + verdict_name(jd.verdict);
    if (claims.empty()) claims = "none stated";
    std::optional<std::string> report;
    if (fs::exists(run.dir / "report.md")) report = link(out_dir, run.dir / "report.md");
    const std::string& title = run.experiment.title;
    t.row({date_text(run), run.phase + (title.empty() ? "" : " " + title), code(board(run)),
           code(run.short_commit()) + (run.provenance.git.dirty ? " (dirty)" : ""), run.status, headline_cell(run),
           claims,
           report ? "[report](" + *report + ")"
                  : "[record](" + link(out_dir, run.file) + "), report not rendered"});
    lines << index_jsonl_line(index_line(run, js, out_dir, report)) << "\n";
  }
  if (!t.empty()) md << t.str();
  const fs::path nb = out_dir / "NOTEBOOK.md", idx = out_dir / "index.jsonl";
  write_text(nb, md.str());
  write_text(idx, lines.str());
  out.files = {nb, idx};
  return out;
}

}  // namespace attnlab::report

// The lab notebook: every record of a results root, newest first, as markdown and as JSON
// lines (one object per run) that pandas reads in one call.
#include <sstream>

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
      out += r.unavailable ? r.untimed_reason() : r.passed ? "not timed" : "FAILED correctness";
      continue;
    }
    const Regime& g = *r.headline_regime();
    const DeviceTime t = device_time(r, g);
    // Words only where the record gives less than busy time with its interval.
    const std::string less = basis_marker(t.basis).empty() ? "" : " (" + basis_words(t) + ")";
    // Median, interval and noise of one quantity: the busy time has no recorded noise.
    const auto noise = device_noise_pct(g, t);
    out += "**" + sig(t.rate_at(g, g.tflops, t.median_ns)) + "** TFLOPS (" + g.name + " median " +
           duration(t.median_ns) + less +
           (t.has_interval() ? ", p10-p90 " + duration_range(t.p10_ns, t.p90_ns, t.median_ns) : "") +
           (noise ? ", noise " + pct(*noise) : "") + ")";
  }
  return out.empty() ? "no shapes" : out;
}

ordered_json index_line(const Run& run, const std::vector<Judgement>& js, const fs::path& out_dir,
                        const std::optional<std::string>& report) {
  ordered_json j;
  j["run"] = run.id();
  j["phase"] = run.phase;
  j["title"] = run.json.contains("experiment") ? run.json["experiment"].value("title", "") : "";
  j["status"] = run.status;
  j["started_utc"] = run.started_utc;
  j["commit"] = run.commit;
  j["dirty"] = run.dirty;
  j["gpu"] = run.gpu_name;
  j["gpu_uuid"] = run.gpu_uuid.empty() ? ordered_json(nullptr) : ordered_json(run.gpu_uuid);
  // A string: seeds are 64-bit unsigned and pandas would read them as lossy floats.
  j["seed"] = json_seed(run);
  j["record"] = link(out_dir, run.file);
  j["report"] = report ? ordered_json(*report) : ordered_json(nullptr);
  ordered_json shapes = ordered_json::object();
  for (const auto& r : run.results) {
    ordered_json s;
    s["passed"] = r.passed;
    if (r.timed()) {
      const Regime& g = *r.headline_regime();
      s["regime"] = g.name;
      s["median_ns"] = g.median_ns;
      s["p10_ns"] = g.p10_ns;
      s["p90_ns"] = g.p90_ns;
      s["noise_pct"] = g.noise_pct;
      s["samples"] = g.count;
      s["tflops"] = g.tflops;
      s["dram_gbps_min_bytes"] = g.dram_gbps_min_bytes;
      // The headline quantity of the reports: device (busy) time, and what the record gave.
      const DeviceTime t = device_time(r, g);
      s["device_time"] = basis_words(t);
      s["device_median_ns"] = t.median_ns;
      s["device_p10_ns"] = t.has_interval() ? ordered_json(t.p10_ns) : ordered_json(nullptr);
      s["device_p90_ns"] = t.has_interval() ? ordered_json(t.p90_ns) : ordered_json(nullptr);
      s["device_tflops"] = t.rate_at(g, g.tflops, t.median_ns);
    } else {
      s["regime"] = nullptr;
    }
    shapes[r.name] = s;
  }
  j["headline"] = shapes;
  ordered_json claims = ordered_json::object();
  for (const auto& jd : js) claims[jd.claim.id] = verdict_name(jd.verdict);
  j["claims"] = claims;
  return j;
}

}  // namespace

std::string json_seed(const Run& run) {
  const ordered_json* s = find(run.json, "/provenance/seed");
  return s ? (s->is_string() ? s->get<std::string>() : s->dump()) : "";
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
    std::vector<Judgement> js;
    try {
      js = judge_claims(run, runs);
    } catch (const FieldError& e) {
      throw InputError(run.file.string() + ": " + e.what());
    }
    std::string claims;
    for (const auto& jd : js)
      claims += (claims.empty() ? "" : "<br>") + code(jd.claim.id) + " " + verdict_name(jd.verdict);
    if (claims.empty()) claims = "none stated";
    std::optional<std::string> report;
    if (fs::exists(run.dir / "report.md")) report = link(out_dir, run.dir / "report.md");
    const std::string title =
        run.json.contains("experiment") ? run.json["experiment"].value("title", "") : "";
    t.row({date_text(run), run.phase + (title.empty() ? "" : " " + title), code(board(run)),
           code(run.short_commit()) + (run.dirty ? " (dirty)" : ""), run.status, headline_cell(run),
           claims,
           report ? "[report](" + *report + ")"
                  : "[record](" + link(out_dir, run.file) + "), report not rendered"});
    lines << index_line(run, js, out_dir, report).dump() << "\n";
  }
  if (!t.empty()) md << t.str();
  const fs::path nb = out_dir / "NOTEBOOK.md", idx = out_dir / "index.jsonl";
  write_text(nb, md.str());
  write_text(idx, lines.str());
  out.files = {nb, idx};
  return out;
}

}  // namespace attnlab::report

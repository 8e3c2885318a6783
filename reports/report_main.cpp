// attnlab-report: renders run records into markdown reports with gnuplot figures, the lab
// notebook, run comparisons and the progression over phases.
//   attnlab-report run results/4/20261122T215639Z-dcabdff     (or: make report RUN=...)
//   attnlab-report notebook results                          (make notebook)
//   attnlab-report compare results/1/<run> results/4/<run>   (make compare A=... B=...)
//   attnlab-report progression results results/progression   (make progression)
//   attnlab-report timeline results/timeline/5/<run>           (make timeline)
//   attnlab-report readme-table reports/h100/records README.md (make readme-results)
//   attnlab-report calibration results/calibration/<run>      (make report-calibration RUN=...)
// Exit codes: 0 ok, 1 an input record is missing or bad, 2 bad command line, 3 an output
// cannot be written or gnuplot rejected a script.
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <CLI/CLI.hpp>

#include "reports/plots.hpp"
#include "reports/published.hpp"
#include "reports/render.hpp"
#include "reports/timeline_paths.hpp"

namespace {

using namespace attnlab::report;

constexpr int kExitOk = 0, kExitInput = 1, kExitUsage = 2, kExitOutput = 3;

int fail(int code, const std::string& msg) {
  std::cerr << "attnlab-report: " << msg << std::endl;
  return code;
}

// Runs gnuplot on every script, or says how to once it is installed.
void render_figures(const std::vector<fs::path>& scripts, bool run_plots) {
  if (scripts.empty() || !run_plots) return;
  if (const auto gnuplot = find_gnuplot()) {
    run_gnuplot(*gnuplot, scripts);
    return;
  }
  std::set<fs::path> dirs;
  for (const auto& s : scripts) dirs.insert(s.parent_path());
  for (const auto& d : dirs)
    std::cout << "attnlab-report: gnuplot not found; render with: cd " << d.string()
              << " && gnuplot *.gp" << std::endl;
}

// What the subcommand wrote: its figures' gnuplot scripts, run at the end, and a line per file.
struct Output {
  std::vector<fs::path> scripts;
  void wrote(const Rendered& r, const fs::path& main_file) {
    scripts.insert(scripts.end(), r.scripts.begin(), r.scripts.end());
    std::cout << "attnlab-report: wrote " << main_file.string() << std::endl;
  }
};

// One subcommand: its options live in its action's closure, which runs once it is parsed.
struct Subcommand {
  CLI::App* app;
  std::function<void(Output&)> run;
};

// A record read by `read`, its failure an InputError (exit 1).
template <class Read>
auto read_input(Read read, const fs::path& file) {
  try {
    return read(file);
  } catch (const std::exception& e) {
    throw InputError(e.what());
  }
}

// A run directory given as itself or as its record file (run.json, or run.json.gz as committed).
fs::path record_dir(const std::string& d) {
  const std::string name = fs::path(d).filename().string();
  return name == "run.json" || name == "run.json.gz" ? fs::path(d).parent_path() : fs::path(d);
}

// The runs of r's results root, loaded once per root into `roots`. Every report sets its run
// beside the baselines of its results root, so the root is read for every run; only claims
// against another phase make an unreadable root fatal.
const std::vector<Run>& baselines(const Run& r, std::map<fs::path, std::vector<Run>>& roots) {
  static const std::vector<Run> none;
  bool need = false;
  try {
    need = needs_root(r);
  } catch (const FieldError& e) {
    throw InputError(r.file.string() + ": " + e.what());
  }
  const fs::path root = fs::absolute(r.dir).lexically_normal().parent_path().parent_path();
  if (!roots.count(root)) {
    try {
      roots[root] = load_root(root);
    } catch (const InputError& e) {
      if (need) throw;
      std::cerr << "attnlab-report: warning: no baselines for " << r.dir.string()
                << ": its results root cannot be read: " << e.what() << std::endl;
    }
  }
  return roots.count(root) ? roots[root] : none;
}

Subcommand add_run(CLI::App& app) {
  struct Options {
    std::vector<std::string> dirs;
    std::string calibration;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("run", "write <run-dir>/report.md and <run-dir>/plots/ for each run");
  sub->add_option("run-dir", o->dirs, "run directory (holding run.json)")->required();
  sub->add_option("--calibration", o->calibration,
                  "calibration record, or a folder of them, for the speed-of-light floors (default: "
                  "<results-root>/calibration/ and <results-root>/../calibration/)");
  return {sub, [o](Output& out) {
            std::map<fs::path, std::vector<Run>> roots;
            const auto calibration = o->calibration.empty() ? std::nullopt : std::optional<fs::path>(o->calibration);
            for (const auto& d : o->dirs) {
              const Run r = load_run(d);
              out.wrote(render_run(r, baselines(r, roots), calibration), r.dir / "report.md");
            }
          }};
}

Subcommand add_calibration(CLI::App& app) {
  auto dirs = std::make_shared<std::vector<std::string>>();
  auto* sub = app.add_subcommand("calibration", "write <run-dir>/report.md for calibration records (make calibrate)");
  sub->add_option("run", *dirs, "calibration run directories (results/calibration/<run>) or their calibration.json")
      ->required();
  return {sub, [dirs](Output& out) {
            for (const auto& d : *dirs) {
              const std::string name = fs::path(d).filename().string();
              const bool is_file = name == attnlab::kCalibrationFile || name == std::string(attnlab::kCalibrationFile) + ".gz";
              const fs::path file = is_file ? fs::path(d) : attnlab::record_file(fs::path(d) / attnlab::kCalibrationFile);
              const auto rec = read_input(attnlab::read_calibration_file, file);
              out.wrote(render_calibration(rec, file), file.parent_path() / "report.md");
            }
          }};
}

Subcommand add_ab(CLI::App& app) {
  auto dirs = std::make_shared<std::vector<std::string>>();
  auto across = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("ab", "write <run-dir>/report.md and plots/ for paired A/B records (make ab)");
  sub->add_option("run", *dirs, "A/B run directories (results/ab/<A>-vs-<B>/<run>) or their run.json")->required();
  sub->add_option("--across", *across,
                  "also write DIR/report.md: every measurement of each shape across these records (of one "
                  "pair), combined per commit and GPU")
      ->type_name("DIR");
  auto published = std::make_shared<std::vector<std::string>>();
  sub->add_option("--published", *published,
                  "published figures (reports/published/*.json): an FP8 pair's report shows the FP8 ones beside its TFLOPS; repeatable")
      ->type_name("FILE");
  return {sub, [dirs, across, published](Output& out) {
            std::vector<Published> sources;
            for (const auto& f : *published) sources.push_back(read_published(f));
            std::vector<std::pair<fs::path, attnlab::AbRecord>> records;
            for (const auto& d : *dirs) {
              const fs::path dir = record_dir(d);
              records.emplace_back(dir / "run.json", read_input(attnlab::read_ab_file, dir / "run.json"));
              out.wrote(render_ab(records.back().second, dir, sources), dir / "report.md");
            }
            if (!across->empty()) {
              fs::create_directories(*across);
              out.wrote(render_ab_across(records, *across), fs::path(*across) / "report.md");
            }
          }};
}

Subcommand add_timeline(CLI::App& app) {
  auto dirs = std::make_shared<std::vector<std::string>>();
  auto* sub = app.add_subcommand("timeline", "write <run-dir>/report.md and plots/ for warp-role timeline records (make timeline)");
  sub->add_option("run", *dirs, "timeline run directories (results/timeline/<phase>/<run>) or their run.json")->required();
  return {sub, [dirs](Output& out) {
            for (const auto& d : *dirs) {
              const fs::path dir = record_dir(d);
              const auto rec = read_input(attnlab::read_timeline_file, dir / "run.json");
              out.wrote(render_timeline(rec, dir), dir / "report.md");
              if (rec.timeline)
                std::cout << "attnlab-report: " << dir.string() << ": " << paths_line(*rec.timeline) << std::endl;
            }
          }};
}

Subcommand add_notebook(CLI::App& app) {
  auto o = std::make_shared<std::pair<std::string, std::string>>();  // root, out
  auto* sub = app.add_subcommand("notebook", "write NOTEBOOK.md and index.jsonl for a results root");
  sub->add_option("results-root", o->first, "root of <phase>/<run>/run.json")->required();
  sub->add_option("--out", o->second, "directory for NOTEBOOK.md and index.jsonl (default: the root)");
  return {sub, [o](Output& out) {
            const auto runs = load_root(o->first);
            const fs::path dir = o->second.empty() ? fs::path(o->first) : fs::path(o->second);
            out.wrote(render_notebook(runs, o->first, dir), dir / "NOTEBOOK.md");
          }};
}

Subcommand add_compare(CLI::App& app) {
  struct Options {
    std::string a, b, out;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("compare", "compare run B against run A, per shape and regime");
  sub->add_option("A", o->a, "run directory A (the reference)")->required();
  sub->add_option("B", o->b, "run directory B")->required();
  sub->add_option("-o,--output", o->out, "also write the markdown to this file");
  return {sub, [o](Output&) {
            const Run a = load_run(o->a);
            const Run b = load_run(o->b);
            const std::string md = compare_markdown(a, b);
            std::cout << md;
            if (!o->out.empty()) write_text(o->out, md);
          }};
}

Subcommand add_progression(CLI::App& app) {
  struct Opts {
    std::string root, out, published;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("progression", "every phase compared, each shape from its newest ok record");
  sub->add_option("results-root", o->root, "root of <phase>/<run>/run.json")->required();
  sub->add_option("out-dir", o->out, "directory for report.md and plots/")->required();
  sub->add_option("--published", o->published,
                  "published figures drawn beside the TFLOPS-against-S lines (reports/published/*.json)");
  return {sub, [o](Output& out) {
            const auto runs = load_root(o->root);
            std::optional<Published> pub;
            if (!o->published.empty()) pub = read_published(o->published);
            out.wrote(render_progression(runs, o->root, o->out, pub ? &*pub : nullptr),
                      fs::path(o->out) / "report.md");
          }};
}

Subcommand add_readme_table(CLI::App& app) {
  struct Options {
    std::string root, readme, progression, out;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
      "readme-table", "write the results table (every phase at the seed shapes, from the records the "
                      "progression takes) into README between its attnlab:results markers");
  sub->add_option("results-root", o->root, "root of <phase>/<run>/run.json")->required();
  sub->add_option("readme", o->readme, "the README (links are relative to its directory)")->required();
  sub->add_option("--progression", o->progression, "the progression's directory, linked (default: <results-root>/../progression)");
  sub->add_option("--out", o->out, "write the result here instead of over the README (links stay relative to the README)");
  return {sub, [o](Output&) {
            const auto runs = load_root(o->root);
            const std::string text = read_text(o->readme);
            fs::path root = fs::path(o->root).lexically_normal();
            if (root.filename().empty()) root = root.parent_path();  // "records/"
            const fs::path prog = o->progression.empty() ? root.parent_path() / "progression" : fs::path(o->progression);
            const fs::path out = o->out.empty() ? fs::path(o->readme) : fs::path(o->out);
            write_text(out, readme_with_results(runs, o->root, prog, o->readme, text));
            std::cout << "attnlab-report: wrote " << out.string() << std::endl;
          }};
}

Subcommand add_boards(CLI::App& app) {
  struct Options {
    std::string root, sweep, out;
    std::vector<std::string> phases;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
      "boards", "write boards.md and plots/: how much boards differ, from the records of one sweep in which "
                "a phase timed a shape on several GPUs (make sweep on several GPUs), or from every record of a "
                "board folder (sweep-id `any`), A/B records' sides included");
  sub->add_option("results-root", o->root, "root of <phase>/<run>/run.json (and ab/)")->required();
  sub->add_option("sweep-id", o->sweep, "the sweep (provenance.sweep_id of its records), or `any` for every record")
      ->required();
  sub->add_option("out-dir", o->out, "directory for boards.md and plots/")->required();
  sub->add_option("--phase", o->phases, "only this phase (repeatable), e.g. --phase cudnn");
  return {sub, [o](Output& out) {
            const auto runs = load_root(o->root);
            BoardSelection sel;
            if (o->sweep != "any") sel.sweep = o->sweep;
            sel.phases = o->phases;
            out.wrote(render_boards(runs, o->root, sel, o->out), fs::path(o->out) / "boards.md");
          }};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attnlab-report: run records rendered to markdown and gnuplot figures; claims "
               "judged against the evidence"};
  app.require_subcommand(1);
  app.footer("Exit codes: 0 ok, 1 an input record is missing or bad, 2 bad command line, 3 an "
             "output cannot be written or gnuplot failed.");
  bool no_plots = false;
  app.add_flag("--no-plots", no_plots, "write the gnuplot scripts and data but do not run gnuplot");
  const std::vector<Subcommand> subcommands = {add_run(app),      add_calibration(app), add_ab(app),
                                               add_timeline(app), add_notebook(app),    add_compare(app),
                                               add_progression(app), add_readme_table(app), add_boards(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(kExitUsage, e.what());
  }

  try {
    Output out;
    for (const Subcommand& s : subcommands)
      if (s.app->parsed()) s.run(out);
    render_figures(out.scripts, !no_plots);
  } catch (const InputError& e) {
    return fail(kExitInput, e.what());
  } catch (const OutputError& e) {
    return fail(kExitOutput, e.what());
  } catch (const std::exception& e) {
    return fail(kExitOutput, e.what());
  }
  return kExitOk;
}

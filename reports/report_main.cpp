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
#include <iostream>
#include <sstream>
#include <map>
#include <set>

#include <CLI/CLI.hpp>

#include "reports/plots.hpp"
#include "reports/render.hpp"

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

// A text file's contents; InputError naming it where it cannot be read.
std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": no such file or not readable");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
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

  std::vector<std::string> run_dirs;
  auto* run = app.add_subcommand("run", "write <run-dir>/report.md and <run-dir>/plots/ for each run");
  run->add_option("run-dir", run_dirs, "run directory (holding run.json)")->required();
  std::string run_calibration;
  run->add_option("--calibration", run_calibration,
                  "calibration record, or a folder of them, for the speed-of-light floors (default: "
                  "<results-root>/calibration/ and <results-root>/../calibration/)");

  std::vector<std::string> cal_dirs;
  auto* cal = app.add_subcommand("calibration", "write <run-dir>/report.md for calibration records (make calibrate)");
  cal->add_option("run", cal_dirs, "calibration run directories (results/calibration/<run>) or their calibration.json")
      ->required();

  std::string nb_root, nb_out;
  std::vector<std::string> ab_dirs;
  auto* ab = app.add_subcommand("ab", "write <run-dir>/report.md and plots/ for paired A/B records (make ab)");
  ab->add_option("run", ab_dirs, "A/B run directories (results/ab/<A>-vs-<B>/<run>) or their run.json")->required();
  std::vector<std::string> tl_dirs;
  auto* tl = app.add_subcommand("timeline", "write <run-dir>/report.md and plots/ for warp-role timeline records (make timeline)");
  tl->add_option("run", tl_dirs, "timeline run directories (results/timeline/<phase>/<run>) or their run.json")->required();
  auto* notebook = app.add_subcommand("notebook", "write NOTEBOOK.md and index.jsonl for a results root");
  notebook->add_option("results-root", nb_root, "root of <phase>/<run>/run.json")->required();
  notebook->add_option("--out", nb_out, "directory for NOTEBOOK.md and index.jsonl (default: the root)");

  std::string cmp_a, cmp_b, cmp_out;
  auto* compare = app.add_subcommand("compare", "compare run B against run A, per shape and regime");
  compare->add_option("A", cmp_a, "run directory A (the reference)")->required();
  compare->add_option("B", cmp_b, "run directory B")->required();
  compare->add_option("-o,--output", cmp_out, "also write the markdown to this file");

  std::string pr_root, pr_out;
  auto* progression = app.add_subcommand("progression", "every phase compared, each shape from its newest ok record");
  progression->add_option("results-root", pr_root, "root of <phase>/<run>/run.json")->required();
  progression->add_option("out-dir", pr_out, "directory for report.md and plots/")->required();

  std::string rd_root, rd_readme, rd_prog, rd_out;
  auto* readme = app.add_subcommand(
      "readme-table", "write the results table (every phase at the seed shapes, from the records the "
                      "progression takes) into README between its attnlab:results markers");
  readme->add_option("results-root", rd_root, "root of <phase>/<run>/run.json")->required();
  readme->add_option("readme", rd_readme, "the README (links are relative to its directory)")->required();
  readme->add_option("--progression", rd_prog, "the progression's directory, linked (default: <results-root>/../progression)");
  readme->add_option("--out", rd_out, "write the result here instead of over the README (links stay relative to the README)");

  std::string bd_root, bd_sweep, bd_out;
  auto* boards = app.add_subcommand(
      "boards", "write boards.md and plots/: how much boards differ, from the records of one sweep in which "
                "a phase timed a shape on several GPUs (make sweep on several GPUs)");
  boards->add_option("results-root", bd_root, "root of <phase>/<run>/run.json")->required();
  boards->add_option("sweep-id", bd_sweep, "the sweep (provenance.sweep_id of its records)")->required();
  boards->add_option("out-dir", bd_out, "directory for boards.md and plots/")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(kExitUsage, e.what());
  }

  try {
    std::vector<fs::path> scripts;
    auto done = [&](const Rendered& r, const fs::path& main_file) {
      scripts.insert(scripts.end(), r.scripts.begin(), r.scripts.end());
      std::cout << "attnlab-report: wrote " << main_file.string() << std::endl;
    };
    if (*run) {
      std::map<fs::path, std::vector<Run>> roots;  // loaded once per results root
      for (const auto& d : run_dirs) {
        const Run r = load_run(d);
        std::vector<Run> none;
        const std::vector<Run>* root_runs = &none;
        bool need = false;
        try {
          need = needs_root(r);
        } catch (const FieldError& e) {
          throw InputError(r.file.string() + ": " + e.what());
        }
        // Every report sets its run beside the baselines of its results root, so the root is
        // read for every run; only claims against another phase make an unreadable root fatal.
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
        if (roots.count(root)) root_runs = &roots[root];
        done(render_run(r, *root_runs,
                        run_calibration.empty() ? std::nullopt : std::optional<fs::path>(run_calibration)),
             r.dir / "report.md");
      }
    } else if (*cal) {
      for (const auto& d : cal_dirs) {
        const fs::path file = fs::path(d).filename() == attnlab::kCalibrationFile ? fs::path(d)
                                                                                   : fs::path(d) / attnlab::kCalibrationFile;
        attnlab::CalibrationRecord rec;
        try {
          rec = attnlab::read_calibration_file(file);
        } catch (const std::exception& e) {
          throw InputError(e.what());
        }
        done(render_calibration(rec, file), file.parent_path() / "report.md");
      }
    } else if (*ab) {
      for (const auto& d : ab_dirs) {
        const fs::path dir = fs::path(d).filename() == "run.json" ? fs::path(d).parent_path() : fs::path(d);
        attnlab::AbRecord rec;
        try {
          rec = attnlab::read_ab_file(dir / "run.json");
        } catch (const std::exception& e) {
          throw InputError(e.what());
        }
        done(render_ab(rec, dir), dir / "report.md");
      }
    } else if (*tl) {
      for (const auto& d : tl_dirs) {
        const fs::path dir = fs::path(d).filename() == "run.json" ? fs::path(d).parent_path() : fs::path(d);
        attnlab::TimelineRecord rec;
        try {
          rec = attnlab::read_timeline_file(dir / "run.json");
        } catch (const std::exception& e) {
          throw InputError(e.what());
        }
        done(render_timeline(rec, dir), dir / "report.md");
      }
    } else if (*notebook) {
      const auto runs = load_root(nb_root);
      const fs::path out = nb_out.empty() ? fs::path(nb_root) : fs::path(nb_out);
      done(render_notebook(runs, nb_root, out), out / "NOTEBOOK.md");
    } else if (*compare) {
      const Run a = load_run(cmp_a);
      const Run b = load_run(cmp_b);
      const std::string md = compare_markdown(a, b);
      std::cout << md;
      if (!cmp_out.empty()) write_text(cmp_out, md);
    } else if (*readme) {
      const auto runs = load_root(rd_root);
      const std::string text = read_text(rd_readme);
      fs::path root = fs::path(rd_root).lexically_normal();
      if (root.filename().empty()) root = root.parent_path();  // "records/"
      const fs::path prog = rd_prog.empty() ? root.parent_path() / "progression" : fs::path(rd_prog);
      const fs::path out = rd_out.empty() ? fs::path(rd_readme) : fs::path(rd_out);
      write_text(out, readme_with_results(runs, rd_root, prog, rd_readme, text));
      std::cout << "attnlab-report: wrote " << out.string() << std::endl;
    } else if (*boards) {
      const auto runs = load_root(bd_root);
      done(render_boards(runs, bd_sweep, bd_out), fs::path(bd_out) / "boards.md");
    } else if (*progression) {
      const auto runs = load_root(pr_root);
      done(render_progression(runs, pr_root, pr_out), fs::path(pr_out) / "report.md");
    }
    render_figures(scripts, !no_plots);
  } catch (const InputError& e) {
    return fail(kExitInput, e.what());
  } catch (const OutputError& e) {
    return fail(kExitOutput, e.what());
  } catch (const std::exception& e) {
    return fail(kExitOutput, e.what());
  }
  return kExitOk;
}

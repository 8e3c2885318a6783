// The four documents the report tool renders from run records: a run's report, the lab
// notebook with its JSON-lines index, a comparison of two runs, and the progression over
// phases. Each returns what it wrote; running gnuplot on the scripts is the caller's choice.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "record/ab.hpp"
#include "record/calibration.hpp"
#include "record/timeline.hpp"
#include "reports/judge.hpp"
#include "reports/peaks.hpp"
#include "reports/published.hpp"
#include "reports/record_view.hpp"

namespace attnlab::report {

namespace fs = std::filesystem;

struct Rendered {
  std::vector<fs::path> files;    // text outputs: markdown, JSON lines, scripts, data
  std::vector<fs::path> scripts;  // gnuplot scripts still to be run
};

// <run.dir>/report.md and <run.dir>/plots/. `root_runs`: every record of the run's results
// root (<root>/<phase>/<run>/), for claims against other phases; may be empty otherwise.
// `calibration`: a calibration record or a folder of them for the speed-of-light floors
// (default: <root>/calibration/ and <root>/../calibration/).
Rendered render_run(const Run& run, const std::vector<Run>& root_runs,
                    const std::optional<fs::path>& calibration = std::nullopt);

// <dir>/report.md of the calibration record `file` (attnlab.calibration/1) in <dir>.
Rendered render_calibration(const CalibrationRecord& rec, const fs::path& file);

// <out_dir>/NOTEBOOK.md and <out_dir>/index.jsonl from every record of a results root
// (`runs` newest first, as load_root returns them).
Rendered render_notebook(const std::vector<Run>& runs, const fs::path& root, const fs::path& out_dir);

// <dir>/report.md and <dir>/plots/ of a paired A/B record (attnlab.ab/2 or /1) in <dir>/run.json.
// Where both sides read e4m3 inputs, each side's TFLOPS per shape, beside the figures of the
// `published` sources of FP8 inputs at the same shape.
Rendered render_ab(const AbRecord& rec, const fs::path& dir, const std::vector<Published>& published = {});
// <out>/report.md: every measurement of each shape in the A/B records of one pair (each given
// with its run.json path), a row each with its record, commit and GPU, and per shape the
// measurements of one commit on one GPU combined where there are several. Throws InputError
// for records of different pairs.
Rendered render_ab_across(const std::vector<std::pair<fs::path, AbRecord>>& records, const fs::path& out);

// <dir>/report.md and <dir>/plots/ of a warp-role timeline record (attnlab.timeline/1).
Rendered render_timeline(const TimelineRecord& rec, const fs::path& dir);

// Markdown comparing run B against run A, shape by shape and regime by regime.
std::string compare_markdown(const Run& a, const Run& b);

// <out_dir>/report.md and its plots: every phase, each shape from the newest ok record of that
// phase (on the GPU of its newest ok record) that timed it.
// published: figures drawn beside the lines against S (reports/published.hpp), or none.
Rendered render_progression(const std::vector<Run>& runs, const fs::path& root, const fs::path& out_dir,
                            const Published* published = nullptr);

// The progression's choice of figures, for other renderers that must agree with it: per phase
// (the root's phase table in order, then other ids such as baselines, sorted), the newest ok
// record (`newest`) and, per shape name, the result and record that supply its figure.
struct ProgressionRow {
  std::string id;
  const Run* newest = nullptr;
  std::map<std::string, const Result*> at;
  std::map<std::string, const Run*> from;
};
std::vector<ProgressionRow> progression_rows(const std::vector<Run>& runs, const fs::path& root);

// `readme` with the text between its markers "<!-- attnlab:results begin -->" and
// "<!-- attnlab:results end -->" replaced by the results table: every phase and baseline at the
// seed shapes, TFLOPS and device time from the record the progression takes (linked relative
// to `readme`'s directory), and links to the progression in `progression_dir`. Throws
// InputError when the markers are missing or out of order.
std::string readme_with_results(const std::vector<Run>& runs, const fs::path& root,
                                const fs::path& progression_dir, const fs::path& readme,
                                const std::string& readme_text);

// Which records a board spread reads: those of one sweep (provenance.sweep_id), or any where
// unset (a board folder gathered from many sessions); phases: only these, where not empty.
struct BoardSelection {
  std::optional<std::string> sweep;
  std::vector<std::string> phases;
};

// How much boards of one model differ, from the selected run records in which one phase timed
// one shape on two boards or more, and the selected phases' sides of the A/B records under
// <root>/ab: <out_dir>/boards.md and <out_dir>/plots/board_spread.*. Throws InputError when no
// such group exists.
Rendered render_boards(const std::vector<Run>& runs, const fs::path& root, const BoardSelection& sel,
                       const fs::path& out_dir);

// One board's device time in a group: its median and p10-p90, and the samples behind them
// (empty where the record keeps none of the device time per sample).
struct BoardSamples {
  double median_ns = 0, p10_ns = 0, p90_ns = 0;
  std::vector<double> samples_ns;
};
struct MedianInterval {
  double lo_ns = 0, hi_ns = 0;
};
// The spread of one group: between boards, 100 * (slowest - fastest median) / fastest; within a
// board, the widest 100 * (p90 - p10) / median; per board, the bootstrap interval of its median
// from its samples (paired::estimate; none under two samples); differ: each pair (faster,
// slower) of boards whose intervals are disjoint. All zero and empty for no boards.
struct BoardSpread {
  double between_pct = 0, within_pct = 0;
  std::vector<std::optional<MedianInterval>> intervals;
  std::vector<std::pair<std::size_t, std::size_t>> differ;
};
BoardSpread board_spread(const std::vector<BoardSamples>& boards);

// --- shared by the renderers -------------------------------------------------------------

// The ceilings a record's GPU has: DRAM from the record, the rest from the datasheet table.
struct Ceilings {
  double dram_gbps = 0;                // provenance.gpu.peak_dram_gbps
  std::optional<DatasheetPeaks> sheet;  // when the GPU is in the table
  std::optional<double> tensor_tflops;  // fp16 dense: the record's derived figure, else datasheet
  std::string tensor_source;            // where tensor_tflops comes from
  std::optional<double> fp32_tflops;    // SMs x lanes x 2 x max SM clock
};
Ceilings ceilings_of(const Run& run);

// Path of `to` relative to directory `from`, with forward slashes, for markdown links.
std::string link(const fs::path& from, const fs::path& to);

// The record's input seed as text (64-bit unsigned: JSON readers may round it as a number).
std::string json_seed(const Run& run);

// The run report's "Hot lines (PC sampling)" and "Per-kernel breakdown" sections
// (render_hotlines.cpp), appended to `md`; their charts go to `plots`, scripts to `scripts`.
void hotlines_sections(std::ostream& md, const Run& run, const fs::path& plots, const std::string& origin,
                       std::vector<fs::path>& scripts);

// The run report's "Speed of light" section (render_sol.cpp): per timed shape the floors from
// the newest ok calibration record of the run's GPU (same uuid, else same name) and the binding
// one; "not measured" without one. Throws InputError for an unreadable calibration record.
void speed_of_light_section(std::ostream& md, const Run& run, const std::optional<fs::path>& calibration);

// One claim-verdict count line: "2 SUPPORTED, 1 REFUTED" or "none stated".
std::string verdict_counts(const std::vector<Judgement>& js);

}  // namespace attnlab::report

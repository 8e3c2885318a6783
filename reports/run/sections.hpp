// The sections of one run's report (attnlab-report run), one unit each under reports/run/, as
// nvbench splits its printers; reports/render_run.cpp calls them in the report's order.
// Internal to the report tool: nothing outside reports/ includes this header.
//
// A new section is one unit here: a function that appends its markdown to `md` (and, for a
// figure, one that returns its Plot, written by render_run before the markdown), declared
// below and called once from render_run. The "speed of light" section
// (reports/render_sol.cpp) hooks in that way.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "record/constants.hpp"
#include "record/metrics.hpp"
#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"

namespace attnlab::report::detail {

// Latency plots draw a regime with fewer samples as its samples: a box of a handful says
// nothing (timing.cpp says so beside the table, latency.cpp draws them).
constexpr std::size_t kMinBoxSamples = 10;

// --- shared helpers (helpers.cpp) ---
std::string fixed_line(const std::string& s);  // newlines as spaces, for a table cell
std::string pct_of(double v, const std::optional<double>& peak);  // "not known" without a peak
std::string dims(const std::array<unsigned, 3>& d);  // [a, b, c] as "axbxc"

// --- sections, in the report's order ---
void summary(std::ostringstream& md, const Run& run, const std::vector<Judgement>& js,
             const Ceilings& c);                                                     // summary.cpp
void claims_section(std::ostringstream& md, const Run& run, const std::vector<Judgement>& js);
void correctness_section(std::ostringstream& md, const Run& run);                    // correctness.cpp
void timing_section(std::ostringstream& md, const Run& run, const Ceilings& c, bool has_plot);  // timing.cpp
void baselines_section(std::ostringstream& md, const Run& run, const std::vector<Run>& root_runs);  // baselines.cpp
void metrics_section(std::ostringstream& md, const Run& run);                        // metrics.cpp
void ncu_section(std::ostringstream& md, const Run& run);                            // ncu.cpp
void stall_section(std::ostringstream& md, bool plotted);                            // stalls.cpp
void launch_stats_section(std::ostringstream& md, const Run& run);                   // launch_stats.cpp
// (hot lines: hotlines_sections, reports/render_hotlines.cpp, declared in render.hpp)
void static_section(std::ostringstream& md, const Run& run);                         // static_facts.cpp
struct RoofPoint {
  std::string label;
  double intensity;  // [FLOP/byte]
  double tflops;
  std::string basis;
};
void roofline_section(std::ostringstream& md, const Ceilings& c, const std::vector<RoofPoint>& pts);  // roofline.cpp
void provenance_section(std::ostringstream& md, const Run& run);                     // summary.cpp

// --- figures (plots/): nullopt or empty where the record has nothing to draw ---
std::optional<Plot> latency_plot(const Run& run, const std::string& origin);         // latency.cpp
std::optional<Plot> stall_plot(const Run& run, const std::string& origin);           // stalls.cpp
std::vector<RoofPoint> roof_points(const Run& run);                                  // roofline.cpp
Plot roofline_plot(const Run& run, const Ceilings& c, const std::vector<RoofPoint>& pts,
                   const std::string& origin);

}  // namespace attnlab::report::detail

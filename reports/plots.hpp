// Figures as gnuplot scripts: each plot is a .gp script and a .dat file written beside the
// .png they render, so a reviewer can re-render or restyle any figure with `gnuplot x.gp`.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab::report {

namespace fs = std::filesystem;

// An output that cannot be written, or a gnuplot script that gnuplot rejects: exit 3.
struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writes `text` to `path` (creating its directory), replacing what was there.
void write_text(const fs::path& path, const std::string& text);

struct Plot {
  std::string stem;    // "latency": latency.gp, latency.dat, latency.png
  std::string origin;  // where the numbers come from, named in the script's header
  int height = 500;    // [px] the width is always 900
  std::string script;  // gnuplot commands after the terminal and output settings
  std::string data;    // contents of <stem>.dat
};

// Removes the .gp, .dat and .png files a previous render left in `dir`, so a figure that no
// longer applies (no stall metrics now, say) does not linger.
void clear_plots(const fs::path& dir);
// Writes <dir>/<stem>.gp and <dir>/<stem>.dat; returns the script's path.
fs::path write_plot(const fs::path& dir, const Plot& p);

// A string as a single-quoted gnuplot literal ('it''s').
std::string gp_quote(const std::string& s);
// A string as a double-quoted token of a gnuplot data file.
std::string dat_quote(const std::string& s);
// Fixed-format number for data files and scripts ("%.9g": exact enough, same bytes each run).
std::string gp_num(double v);

// Colour i of a fixed palette of 20 distinct colours (matplotlib's tab10, then its light
// tab20 partners), as "#rrggbb"; wraps around.
std::string palette_colour(std::size_t i);

// The gnuplot executable on PATH; nullopt when there is none.
std::optional<fs::path> find_gnuplot();
// Runs `gnuplot <script>` in each script's directory. Throws OutputError naming the script
// when gnuplot fails.
void run_gnuplot(const fs::path& gnuplot, const std::vector<fs::path>& scripts);

}  // namespace attnlab::report

// gnuplot scripts and running gnuplot on them.
#include "reports/plots.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace attnlab::report {

void write_text(const fs::path& path, const std::string& text) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) throw OutputError(path.parent_path().string() + ": cannot create: " + ec.message());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw OutputError(path.string() + ": cannot write: " + std::strerror(errno));
  out << text;
  out.flush();
  if (!out) throw OutputError(path.string() + ": write failed");
}

void clear_plots(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto ext = e.path().extension();
    if (e.is_regular_file() && (ext == ".gp" || ext == ".dat" || ext == ".png"))
      fs::remove(e.path(), ec);
  }
}

fs::path write_plot(const fs::path& dir, const Plot& p) {
  const fs::path script = dir / (p.stem + ".gp");
  std::string text;
  text += "# " + p.stem + ".gp: rendered by attnlab-report from " + p.origin + ".\n";
  text += "# Edits are overwritten on the next render; to restyle, copy this file. Render it\n";
  text += "# from this directory with: gnuplot " + p.stem + ".gp (reads " + p.stem +
          ".dat, writes " + p.stem + ".png)\n";
  // libgd's png terminal, not pngcairo: it writes an indexed-colour PNG, about a quarter of
  // pngcairo's anti-aliased RGB at the same size and font, and every rendered figure is
  // committed evidence that each clone carries. What it gives up is anti-aliasing and dash
  // patterns (a `dt` draws solid), so no figure tells lines apart by dashes alone.
  text += "set terminal png size 900," + std::to_string(p.height) +
          " enhanced font 'DejaVu Sans,10'\n";
  text += "set output '" + p.stem + ".png'\n";
  text += p.script;
  write_text(script, text);
  write_text(dir / (p.stem + ".dat"), p.data);
  return script;
}

std::string gp_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string dat_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? '\'' : c;
  return out + "\"";
}

std::string gp_num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string palette_colour(std::size_t i) {
  static const char* const colours[] = {
      "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
      "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896",
      "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"};
  return colours[i % (sizeof colours / sizeof colours[0])];
}

std::optional<fs::path> find_gnuplot() {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::string dirs = path;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t colon = dirs.find(':', start);
    const std::string d = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!d.empty()) {
      const fs::path candidate = fs::path(d) / "gnuplot";
      if (::access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate)) return candidate;
    }
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return std::nullopt;
}

void run_gnuplot(const fs::path& gnuplot, const std::vector<fs::path>& scripts) {
  for (const auto& script : scripts) {
    const fs::path dir = script.parent_path().empty() ? fs::path(".") : script.parent_path();
    const std::string name = script.filename().string();
    // fork and exec rather than system(): no shell, so no quoting of paths.
    const pid_t pid = ::fork();
    if (pid < 0) throw OutputError(script.string() + ": cannot start gnuplot: " + std::strerror(errno));
    if (pid == 0) {
      if (::chdir(dir.c_str()) != 0) ::_exit(126);
      ::execl(gnuplot.c_str(), "gnuplot", name.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw OutputError(script.string() + ": gnuplot failed (" +
                        (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                           : std::string("killed by a signal")) +
                        ")");
  }
}

}  // namespace attnlab::report

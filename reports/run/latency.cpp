// A run's report, latency distributions: one panel per timed shape, its regimes' samples as
// boxes (or every sample where there are few).
#include "reports/run/sections.hpp"

#include "common/stats.hpp"

namespace attnlab::report::detail {

namespace {

// Tukey's box: quartiles, whiskers to the furthest samples within 1.5 interquartile ranges
// of the box, and the samples beyond them, each drawn where it is (no spreading of equal ones).
struct Box {
  double q1 = 0, median = 0, q3 = 0, lo = 0, hi = 0;
  std::vector<double> outliers;
};

Box box_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  Box b;
  b.q1 = b.lo = stats::percentile(v, 0.25);
  b.median = stats::percentile(v, 0.5);
  b.q3 = b.hi = stats::percentile(v, 0.75);
  const double reach = 1.5 * (b.q3 - b.q1);
  for (double x : v) {
    if (x < b.q1 - reach || x > b.q3 + reach) {
      b.outliers.push_back(x);
      continue;
    }
    b.lo = std::min(b.lo, x);
    b.hi = std::max(b.hi, x);
  }
  return b;
}

// One data block ("x value" per line) of `values`; returns its plot clause.
std::string points_block(Plot& p, int& block, int x, const std::vector<double>& values,
                         const char* unit, const std::string& colour, const char* size) {
  for (double v : values) p.data += std::to_string(x) + " " + gp_num(in_unit(v, unit)) + "\n";
  p.data += "\n\n";
  return "'latency.dat' index " + std::to_string(block++) +
         " using 1:2 with points pt 7 ps " + size + " lc rgb '" + colour + "'";
}

// One regime's samples at x: a box with its outliers, or every sample where there are few.
std::string regime_clauses(Plot& p, int& block, int x, const Regime& g, const char* unit,
                           const std::string& colour) {
  if (g.samples_ns.size() < kMinBoxSamples) {
    p.data += "# samples (fewer than " + std::to_string(kMinBoxSamples) + ")\n";
    return points_block(p, block, x, g.samples_ns, unit, colour, "0.8");
  }
  const Box b = box_of(g.samples_ns);
  p.data += "# x q1 whisker_lo whisker_hi q3 median\n" + std::to_string(x);
  for (double v : {b.q1, b.lo, b.hi, b.q3, b.median}) p.data += " " + gp_num(in_unit(v, unit));
  p.data += "\n\n\n";
  const std::string box = "'latency.dat' index " + std::to_string(block++);
  std::string out = box + " using 1:2:3:4:5 with candlesticks whiskerbars lc rgb '" + colour +
                    "', \\\n     " + box + " using 1:6:6:6:6 with candlesticks lc rgb '#000000'";
  if (b.outliers.empty()) return out;
  p.data += "# beyond the whiskers\n";
  return out + ", \\\n     " + points_block(p, block, x, b.outliers, unit, colour, "0.35");
}

// The panel's y axis: a log axis where it spans more than a decade, so the bulk is not
// squashed, over the samples' own range a quarter beyond each end (autoscaling a log axis
// rounds out to whole decades and can leave most of the panel empty), labelled at 1, 2 and 5
// of every decade; else linear, with the decimals its range needs on every tick.
std::string y_axis(double lo, double hi) {
  if (lo > 0 && hi / lo > 10) {
    const double ylo = lo / 1.25, yhi = hi * 1.25;
    std::string tics;
    for (int e = int(std::floor(std::log10(ylo))); e <= int(std::ceil(std::log10(yhi))); ++e)
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, e);
        if (v >= ylo && v <= yhi) tics += (tics.empty() ? "" : ", ") + gp_num(v);
      }
    return "set logscale y\nset yrange [" + gp_num(ylo) + ":" + gp_num(yhi) + "]\nset ytics (" +
           tics + ")\nset format y '%g'\n";
  }
  const int decimals = hi > lo ? std::max(0, 1 - int(std::floor(std::log10(hi - lo)))) : 2;
  return "unset logscale y\nset autoscale y\nset ytics autofreq\nset format y '%." +
         std::to_string(decimals) + "f'\n";
}

// One panel: the shape's regimes side by side.
void latency_panel(Plot& p, int& block, const Result& r) {
  const char* unit = time_unit(r.headline()->median_ns);
  std::string& s = p.script;
  s += "\nset title " + gp_quote(shape_label(r.name)) + " noenhanced\n";
  s += "set ylabel " + gp_quote(std::string("time per launch [") + unit + "]") + "\n";
  double lo = 1e300, hi = -1e300;
  for (const auto& g : r.timing)
    for (double v : g.samples_ns) {
      lo = std::min(lo, in_unit(v, unit));
      hi = std::max(hi, in_unit(v, unit));
    }
  s += y_axis(lo, hi);
  std::string xtics, plot;
  int x = 0;
  for (const auto& g : r.timing) {
    if (g.samples_ns.empty()) continue;
    ++x;
    p.data += "# " + r.name + " " + g.name + " [" + unit + "], " +
              std::to_string(g.samples_ns.size()) + " samples\n";
    xtics += (xtics.empty() ? "" : ", ") + gp_quote(g.name) + " " + std::to_string(x);
    plot += std::string(plot.empty() ? "plot " : ", \\\n     ") +
            regime_clauses(p, block, x, g, unit, palette_colour(std::size_t(x - 1)));
  }
  s += "set xtics (" + xtics + ")\n";
  s += "set xrange [0.4:" + std::to_string(x) + ".6]\n";
  s += plot + "\n";
}

}  // namespace

// Latency distributions: one panel per timed shape with samples; nullopt when none has any.
std::optional<Plot> latency_plot(const Run& run, const std::string& origin) {
  std::vector<const Result*> sampled;
  for (const auto& r : run.results)
    if (std::any_of(r.timing.begin(), r.timing.end(), [](const Regime& g) { return !g.samples_ns.empty(); }))
      sampled.push_back(&r);
  if (sampled.empty()) return std::nullopt;
  Plot p;
  p.stem = "latency";
  p.origin = origin;
  const std::size_t cols = std::min<std::size_t>(sampled.size(), 3);
  const std::size_t rows = (sampled.size() + cols - 1) / cols;
  p.height = rows == 1 ? 500 : int(rows * 400);
  p.script += "set multiplot layout " + std::to_string(rows) + "," + std::to_string(cols) +
              " title " + gp_quote("Phase " + run.phase + " run " + run.name +
                                   ": time per launch (boxes; every sample where fewer than " +
                                   std::to_string(kMinBoxSamples) + ")") + " noenhanced\n"
              "set style fill solid 0.35 border -1\n"
              "set boxwidth 0.5\n"
              "unset key\n"
              "set grid ytics lc rgb '#dddddd'\n"
              "set offsets 0,0,graph 0.05,graph 0.05\n";
  int block = 0;
  for (const Result* r : sampled) latency_panel(p, block, *r);
  p.script += "unset multiplot\n";
  return p;
}

}  // namespace attnlab::report::detail

// A run's report, roofline: each timed shape's arithmetic intensity and TFLOPS against the
// GPU's ceilings, as a plot and its section.
#include "reports/run/sections.hpp"

namespace attnlab::report::detail {

std::vector<RoofPoint> roof_points(const Run& run) {
  std::vector<RoofPoint> out;
  for (const auto& r : run.results) {
    if (!r.timed()) continue;
    const DerivedFigure none;
    const std::optional<double>& measured = (r.derived ? r.derived->arithmetic_intensity_flop_per_byte : none).value;
    const Regime& g = *r.headline();
    const DeviceTime t = device_time(r, g);
    out.push_back({r.name, measured ? *measured : r.flops() / r.min_bytes(),
                   t.rate_at(g, g.tflops, t.median_ns),
                   measured ? "measured DRAM bytes (derived.arithmetic_intensity_flop_per_byte)" : "minimum bytes"});
  }
  return out;
}

namespace {

constexpr std::size_t kMaxLabelledRoofPoints = 4;

}  // namespace

Plot roofline_plot(const Run& run, const Ceilings& c, const std::vector<RoofPoint>& pts,
                   const std::string& origin) {
  Plot p;
  p.stem = "roofline";
  p.origin = origin;
  p.data = "# shape  arithmetic_intensity[FLOP/byte]  TFLOPS(headline regime, device time)\n";
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
  for (const auto& q : pts) {
    p.data += dat_quote(shape_label(q.label)) + " " + gp_num(q.intensity) + " " + gp_num(q.tflops) + "\n";
    xmin = std::min(xmin, q.intensity);
    xmax = std::max(xmax, q.intensity);
    ymin = std::min(ymin, q.tflops);
    ymax = std::max(ymax, q.tflops);
  }
  std::vector<double> peaks;
  if (c.tensor_tflops) peaks.push_back(*c.tensor_tflops);
  if (c.fp32_tflops) peaks.push_back(*c.fp32_tflops);
  for (double pk : peaks) {
    const double ridge = pk * 1000.0 / c.dram_gbps;  // [FLOP/byte] where the roofs meet
    xmin = std::min(xmin, ridge);
    xmax = std::max(xmax, ridge);
    ymax = std::max(ymax, pk);
  }
  // Whole decades around everything drawn, with room for the labels.
  const double x0 = std::pow(10.0, std::floor(std::log10(xmin / 4)));
  const double x1 = std::pow(10.0, std::ceil(std::log10(xmax * 4)));
  const double y0 = std::pow(10.0, std::floor(std::log10(std::min(ymin, c.dram_gbps * x0 / 1000.0) / 2)));
  const double y1 = std::pow(10.0, std::ceil(std::log10(ymax * 2)));
  // Which intensity the points use: measured DRAM bytes where the record has them.
  const bool all_measured = std::all_of(pts.begin(), pts.end(), [](const RoofPoint& q) { return q.basis != "minimum bytes"; });
  const bool any_measured = std::any_of(pts.begin(), pts.end(), [](const RoofPoint& q) { return q.basis != "minimum bytes"; });
  const std::string xlabel =
      all_measured ? "arithmetic intensity [FLOP/byte], FLOPs / measured DRAM bytes"
      : !any_measured ? "arithmetic intensity [FLOP/byte], FLOPs / minimum bytes (Q, K, V read once, O written once)"
                      : "arithmetic intensity [FLOP/byte], FLOPs / measured DRAM bytes where measured, else / minimum bytes (Q, K, V read once, O written once)";
  std::string& s = p.script;
  s += "bw = " + gp_num(c.dram_gbps) + "  # [GB/s] provenance.gpu.peak_dram_gbps of the record\n";
  if (c.tensor_tflops)
    s += "tensor = " + gp_num(*c.tensor_tflops) + "  # [TFLOPS] fp16 dense tensor peak: " + c.tensor_source + "\n";
  if (c.fp32_tflops)
    s += "fp32 = " + gp_num(*c.fp32_tflops) + "  # [TFLOPS] SMs x " +
         std::to_string(c.sheet->fp32_lanes_per_sm) + " FP32 lanes x 2 FLOP x max SM clock\n";
  s += "dram(x) = bw * x / 1000.0  # [TFLOPS] at x FLOP/byte\n"
       "roof(x, peak) = dram(x) < peak ? dram(x) : peak\n"
       "set title " + gp_quote("Roofline: phase " + run.phase + ", run " + run.name) + " noenhanced\n"
       "set logscale xy\n"
       "set xrange [" + gp_num(x0) + ":" + gp_num(x1) + "]\n"
       "set yrange [" + gp_num(y0) + ":" + gp_num(y1) + "]\n"
       "set xlabel " + gp_quote(xlabel) + " noenhanced\n"
       "set ylabel 'TFLOPS'\n"
       "set format x '10^{%L}'\n"
       "set format y '10^{%L}'\n"
       "set grid xtics ytics mxtics mytics lc rgb '#d0d0d0', lc rgb '#ececec'\n"
       "set key top left Left reverse noenhanced box opaque\n"
       "set samples 2000\n";
  std::string plot = "plot ";
  if (c.tensor_tflops)
    plot += "roof(x, tensor) with lines lw 2 lc rgb '#1f77b4' title sprintf('DRAM %.0f GB/s (record), fp16 tensor peak %.1f TFLOPS', bw, tensor), \\\n     ";
  else
    plot += "dram(x) with lines lw 2 lc rgb '#1f77b4' title sprintf('DRAM %.0f GB/s (record); compute peak not known', bw), \\\n     ";
  if (c.fp32_tflops)
    plot += "roof(x, fp32) with lines lw 2 lc rgb '#ff7f0e' title sprintf('FP32 FMA peak %.1f TFLOPS (no tensor cores)', fp32), \\\n     ";
  plot += "'roofline.dat' using 2:3 with points pt 7 ps 1.6 lc rgb '#d62728' title " + gp_quote(std::string("this run, headline regime; x: ") + (all_measured ? "measured DRAM bytes" : !any_measured ? "minimum bytes" : "measured DRAM bytes where measured, else minimum bytes"));
  // Beyond a few points (a sweep) the labels pile up at similar intensities; the section's
  // table names every point instead.
  if (pts.size() <= kMaxLabelledRoofPoints)
    plot += ", \\\n     '' using 2:3:1 with labels left offset 1.2,0.6 font ',9' noenhanced notitle";
  plot += "\n";
  s += plot;
  return p;
}

void roofline_section(std::ostringstream& md, const Ceilings& c, const std::vector<RoofPoint>& pts) {
  md << "## Roofline\n\n";
  if (pts.empty()) {
    md << "Not plotted: no shape was timed.\n\n";
    return;
  }
  md << "![Roofline](plots/roofline.png)\n\n";
  md << "Ceilings: DRAM " << sig(c.dram_gbps) << " GB/s from the record";
  if (c.tensor_tflops)
    md << "; fp16 dense tensor peak " << sig(*c.tensor_tflops) << " TFLOPS (" << c.tensor_source << ")";
  if (c.fp32_tflops)
    md << "; FP32 FMA peak " << sig(*c.fp32_tflops) << " TFLOPS (SM count x "
       << c.sheet->fp32_lanes_per_sm << " lanes x 2 FLOP x max SM clock, from the record)";
  if (!c.tensor_tflops) md << "; the compute peaks of this GPU are not known to this tool";
  md << ". A point's intensity uses the fewest bytes any implementation must move unless the "
        "record measured DRAM bytes; a kernel that moves more sits further left than drawn. "
        "Its TFLOPS is at the headline regime's device time.";
  if (std::any_of(pts.begin(), pts.end(), [](const RoofPoint& q) { return q.basis != "minimum bytes"; }))
    md << " Measured DRAM bytes come from the CUPTI range profiler's replay pass (one launch "
          "with a clean L2, after timing), the time from the timing regime: two different "
          "passes over the kernel, so a point pairs the bytes of one with the time of another.";
  md << "\n\n";
  Table t({"shape", "FLOP/byte", "bytes counted", "TFLOPS"}, "lrlr");
  for (const auto& q : pts) t.row({shape_label(q.label), count(q.intensity), q.basis, sig(q.tflops)});
  md << t.str() << "\n";
}

}  // namespace attnlab::report::detail

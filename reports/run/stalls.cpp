// A run's report, warp stalls: the stall reasons of each shape as a plot and its section.
#include "reports/run/sections.hpp"

namespace attnlab::report::detail {

namespace {

// Stall metrics are the ratio of warps stalled for a reason per issued instruction, as Nsight
// Compute's WarpStateStats section reports it, named prefix + reason + suffix.
const std::string& kStallPrefix = metric_vocabulary().stall_prefix;
const std::string& kStallSuffix = metric_vocabulary().stall_suffix;

// Stall reason -> value, for one result; empty when it has no stall metrics.
std::map<std::string, double> stall_values(const Result& r) {
  std::map<std::string, double> out;
  const GroupResult* g = r.group("stalls");
  if (!g || !g->available) return out;
  for (const MetricValue& v : g->values) {
    const std::string& k = v.name;
    if (k.rfind(kStallPrefix, 0) != 0 || k.size() <= kStallPrefix.size() + kStallSuffix.size() ||
        k.compare(k.size() - kStallSuffix.size(), kStallSuffix.size(), kStallSuffix) != 0)
      continue;
    std::string reason = k.substr(kStallPrefix.size(), k.size() - kStallPrefix.size() - kStallSuffix.size());
    std::replace(reason.begin(), reason.end(), '_', ' ');
    out[reason] = v.value;
  }
  return out;
}

}  // namespace

std::optional<Plot> stall_plot(const Run& run, const std::string& origin) {
  std::vector<std::pair<const Result*, std::map<std::string, double>>> rows;
  for (const auto& r : run.results) {
    auto v = stall_values(r);
    if (!v.empty()) rows.emplace_back(&r, std::move(v));
  }
  if (rows.empty()) return std::nullopt;
  // Reasons in the fixed canonical order of the GH100 stall reasons (record/constants.json,
  // from profiler/metric_groups.cpp), each with its own colour, so one colour means one reason
  // in every record's plot. `selected` is left out: it is the warp that issued (always 1.0),
  // not a stall. Reasons that are zero in every bar are left out too; reasons outside the
  // canonical list follow, alphabetically.
  static const std::vector<std::string> kCanonical = [] {
    std::vector<std::string> v = metric_vocabulary().stall_reasons;
    for (auto& r : v) std::replace(r.begin(), r.end(), '_', ' ');  // as stall_values() names them
    return v;
  }();
  std::set<std::string> nonzero;
  for (const auto& [r, v] : rows)
    for (const auto& [k, x] : v)
      if (k != "selected" && x != 0.0) nonzero.insert(k);
  std::vector<std::pair<std::string, std::size_t>> reasons;  // reason, colour index
  for (std::size_t i = 0; i < kCanonical.size(); ++i)
    if (nonzero.count(kCanonical[i])) reasons.emplace_back(kCanonical[i], i);
  std::size_t extra = kCanonical.size();
  for (const auto& k : nonzero)
    if (std::find(kCanonical.begin(), kCanonical.end(), k) == kCanonical.end()) reasons.emplace_back(k, extra++);
  if (reasons.empty()) return std::nullopt;
  Plot p;
  p.stem = "stalls";
  p.origin = origin;
  std::string& d = p.data;
  d = "# warps stalled per issued instruction, by reason (" + kStallPrefix + "<reason>" + kStallSuffix +
      "); 'selected' (the warp that issued, always 1) and reasons zero in every shape left out\n";
  d += dat_quote("shape");
  for (const auto& [k, c] : reasons) d += " " + dat_quote(k);
  d += "\n";
  for (const auto& [r, v] : rows) {
    d += dat_quote(shape_label(r->name));
    for (const auto& [k, c] : reasons) d += " " + gp_num(v.count(k) ? v.at(k) : 0.0);
    d += "\n";
  }
  std::string& s = p.script;
  s += "set title \"Warp stall breakdown: warps stalled per issued instruction, by reason\\n"
       "fixed order and colour per reason; 'selected' (the issuing warp, always 1) not stacked\" noenhanced\n"
       "set ylabel 'stalled warps per issued instruction'\n"
       "set style data histograms\n"
       "set style histogram rowstacked\n"
       "set style fill solid 0.9 border rgb '#333333'\n"
       "set boxwidth 0.6\n"
       "set key outside right top vertical invert noenhanced title 'reason (as stacked)'\n"
       "set grid ytics\n"
       "set yrange [0:*]\n"
       // Shape labels are wider than a bar: slanted, smaller, with room below, so they don't collide.
       "set xtics noenhanced rotate by -25 font ',8'\n"
       "set bmargin 6\n";
  std::string plot;
  int col = 2;
  for (const auto& [k, c] : reasons) {
    plot += std::string(plot.empty() ? "plot 'stalls.dat'" : ", \\\n     ''") + " using " + std::to_string(col) +
            (col == 2 ? ":xtic(1)" : "") + " lc rgb '" + palette_colour(c) + "' title columnheader(" +
            std::to_string(col) + ")";
    ++col;
  }
  s += plot + "\n";
  return p;
}

void stall_section(std::ostringstream& md, bool plotted) {
  md << "## Stall breakdown\n\n";
  if (!plotted) {
    md << "Not measured: no shape of this record has stall metrics (`metrics.stalls`).\n\n";
    return;
  }
  md << "![Warp stall breakdown](plots/stalls.png)\n\n"
        "Each bar stacks, per stall reason, the average number of warps stalled for that reason "
        "per issued instruction (`" << kStallPrefix << "<reason>" << kStallSuffix
     << "`). Reasons keep one order and one colour in every record; `selected` (the warp that "
        "issued, always 1.0) is not a stall and is not stacked, and reasons that are zero in every "
        "bar are left out. Script and data: `plots/stalls.gp`, `plots/stalls.dat`.\n\n";
}

}  // namespace attnlab::report::detail

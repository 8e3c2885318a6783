// Nsight Compute CSV import, unit conversion, combination over kernels, and the merge into a
// run record with the CUPTI-vs-ncu agreement table.
#include "profiler/ncu_import.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "common/shapes.hpp"
#include "profiler/metric_groups.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;

constexpr double kHeadlineTolerancePct = 3.0;  // [%] the bar for CUPTI-ncu agreement
constexpr const char* kDurationMetric = "gpu__time_duration.sum";

std::vector<std::vector<std::string>> parse_records(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, started = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        quoted = started = true;
        break;
      case ',':
        record.push_back(std::move(field));
        field.clear();
        started = true;
        break;
      case '\r':
        break;
      case '\n':
        if (started) {
          record.push_back(std::move(field));
          records.push_back(std::move(record));
        }
        record.clear();
        field.clear();
        started = false;
        break;
      default:
        field += c;
        started = true;
    }
  }
  if (quoted) throw std::runtime_error("ncu CSV: unbalanced quote");
  if (started) {
    record.push_back(std::move(field));
    records.push_back(std::move(record));
  }
  return records;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f%%", v);
  return buf;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

int NcuCsv::column(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return int(i);
  return -1;
}

NcuLaunchTotals ncu_launch_totals(const NcuCsv& csv) {
  const int tc = csv.column(kDurationMetric), cc = csv.column("sm__cycles_elapsed.max");
  if (tc < 0 || cc < 0)
    throw std::runtime_error("ncu CSV: needs columns gpu__time_duration.sum and sm__cycles_elapsed.max");
  if (csv.rows.empty()) throw std::runtime_error("ncu CSV: no profiled kernel");
  NcuLaunchTotals t;
  for (const auto& row : csv.rows) {
    const auto time = parse_ncu_number(row[std::size_t(tc)]);
    const auto ns = time ? convert_ncu_unit(*time, csv.units[std::size_t(tc)], "ns") : std::nullopt;
    const auto cycles = parse_ncu_number(row[std::size_t(cc)]);
    if (!ns || !cycles)
      throw std::runtime_error("ncu CSV: a kernel lacks a duration in a time unit or its cycles");
    t.time_ns += *ns;
    t.cycles += *cycles;
    ++t.kernels;
  }
  return t;
}

NcuCsv parse_ncu_csv(std::istream& in) {
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto records = parse_records(text);
  std::size_t i = 0;
  while (i < records.size() && (records[i].empty() || records[i][0] != "ID")) ++i;
  if (i == records.size())
    throw std::runtime_error("ncu CSV: no header row (a first field \"ID\"); was it written by "
                             "ncu --import <report> --csv --page raw?");
  NcuCsv csv;
  csv.columns = records[i++];
  csv.units.assign(csv.columns.size(), "");
  if (i < records.size() && !records[i].empty() && records[i][0].empty()) {
    if (records[i].size() != csv.columns.size())
      throw std::runtime_error("ncu CSV: the units row has " + std::to_string(records[i].size()) +
                               " fields, the header " + std::to_string(csv.columns.size()));
    csv.units = records[i++];
  }
  for (; i < records.size(); ++i) {
    if (records[i].size() != csv.columns.size())
      throw std::runtime_error("ncu CSV: a row has " + std::to_string(records[i].size()) +
                               " fields, the header " + std::to_string(csv.columns.size()));
    csv.rows.push_back(records[i]);
  }
  return csv;
}

std::optional<double> parse_ncu_number(std::string text) {
  std::string digits;
  for (char c : text)
    if (c != ',' && c != ' ') digits += c;
  if (digits.empty() || digits == "n/a") return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<double> convert_ncu_unit(double value, const std::string& ncu_unit,
                                       const std::string& unit) {
  if (unit == "bytes") {
    // Only base units: ncu's scaled byte units are not needed with --print-units base.
    if (ncu_unit == "byte" || ncu_unit == "bytes") return value;
    return std::nullopt;
  }
  if (unit == "ns") {
    if (ncu_unit == "nsecond" || ncu_unit == "ns") return value;
    if (ncu_unit == "usecond" || ncu_unit == "us") return value * 1e3;
    if (ncu_unit == "msecond" || ncu_unit == "ms") return value * 1e6;
    if (ncu_unit == "second" || ncu_unit == "s") return value * 1e9;
    return std::nullopt;
  }
  if (unit == "%") {
    if (ncu_unit == "%") return value;
    return std::nullopt;
  }
  // Counts and ratios: any unit name, but not a scaled one ("Kinst", "Mwarp").
  if (ncu_unit.size() > 1 && std::string("KMGT").find(ncu_unit[0]) != std::string::npos &&
      std::islower(static_cast<unsigned char>(ncu_unit[1])))
    return std::nullopt;
  return value;
}

std::optional<double> rel_diff_pct(double cupti, double ncu) {
  if (ncu == 0) return cupti == 0 ? std::optional<double>(0.0) : std::nullopt;
  return 100.0 * (cupti - ncu) / std::fabs(ncu);
}

const std::vector<std::string>& headline_metrics() {
  static const std::vector<std::string> names = {
      kDurationMetric, "dram__bytes_read.sum", "dram__bytes_write.sum",
      "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"};
  return names;
}

namespace {

// Per-kernel weights for the non-additive metrics: each kernel's duration, where every kernel
// has one; else 1 each. `weighted` says which.
std::vector<double> kernel_weights(const NcuCsv& csv, bool* weighted) {
  std::vector<double> weights(csv.rows.size(), 1.0);
  *weighted = false;
  const int dc = csv.column(kDurationMetric);
  if (dc < 0 || csv.rows.size() < 2) return weights;
  *weighted = true;
  for (std::size_t k = 0; k < csv.rows.size(); ++k) {
    const auto v = parse_ncu_number(csv.rows[k][std::size_t(dc)]);
    const auto ns = v ? convert_ncu_unit(*v, csv.units[std::size_t(dc)], "ns") : std::nullopt;
    if (!ns || *ns <= 0) *weighted = false;
    if (ns) weights[k] = *ns;
  }
  if (!*weighted) weights.assign(csv.rows.size(), 1.0);
  return weights;
}

// One metric over the launch's kernels: ".sum" metrics summed, the others averaged with
// `weights`; or why it cannot be (in *why).
std::optional<NcuValue> combine(const NcuCsv& csv, const profiler::MetricSpec& m,
                                const std::vector<double>& weights, std::string* why) {
  const int c = csv.column(m.name);
  if (c < 0) return *why = "not in the ncu report", std::nullopt;
  const std::string& ncu_unit = csv.units[std::size_t(c)];
  double sum = 0, weighted_sum = 0, weight_total = 0;
  for (std::size_t k = 0; k < csv.rows.size(); ++k) {
    const auto v = parse_ncu_number(csv.rows[k][std::size_t(c)]);
    if (!v) return *why = "ncu reported '" + csv.rows[k][std::size_t(c)] + "'", std::nullopt;
    const auto converted = convert_ncu_unit(*v, ncu_unit, m.unit);
    if (!converted)
      return *why = "ncu's unit '" + ncu_unit + "' does not convert to " + m.unit +
                    " (import with --print-units base)",
             std::nullopt;
    sum += *converted;
    weighted_sum += weights[k] * *converted;
    weight_total += weights[k];
  }
  if (csv.rows.empty()) return *why = "ncu profiled no kernel", std::nullopt;
  const bool additive = ends_with(m.name, ".sum");
  return NcuValue{m.name, additive ? sum : weighted_sum / weight_total, m.unit, ncu_unit};
}

}  // namespace

NcuEntry ncu_result_entry(const NcuCsv& csv, const std::string& report_file,
                          const std::vector<GroupResult>& cupti_metrics) {
  NcuEntry e;
  e.report = report_file;
  e.kernels = static_cast<long long>(csv.rows.size());
  if (const int name_col = csv.column("Kernel Name"); name_col >= 0)
    for (const auto& row : csv.rows) e.kernel_names.push_back(row[std::size_t(name_col)]);
  bool weighted = false;
  const std::vector<double> weights = kernel_weights(csv, &weighted);
  for (const auto& group : profiler::metric_groups())
    for (const auto& m : group.metrics) {
      std::string why;
      if (auto v = combine(csv, m, weights, &why)) e.values.push_back(std::move(*v));
      else e.unavailable.emplace_back(m.name, why);
    }
  if (csv.rows.size() > 1)
    e.combined = "over " + std::to_string(csv.rows.size()) +
                 " kernels: .sum metrics summed, the others averaged " +
                 (weighted ? "weighted by each kernel's gpu__time_duration.sum" : "unweighted");
  for (const NcuValue& v : e.values) {
    std::optional<double> cupti;
    for (const GroupResult& g : cupti_metrics)
      if (g.available)
        if (auto c = g.value(v.name)) cupti = c;
    if (!cupti) {
      e.rel_diff_pct.emplace_back(v.name, std::nullopt);
      e.rel_diff_reason.emplace_back(v.name, "no CUPTI value for this metric");
      continue;
    }
    const auto d = rel_diff_pct(*cupti, v.value);
    e.rel_diff_pct.emplace_back(v.name, d);
    if (!d) e.rel_diff_reason.emplace_back(v.name, "ncu's value is 0 and CUPTI's is not");
  }
  return e;
}

namespace {

// The result's "ncu" from run_dir/ncu-<slug>.csv, or why there is none.
NcuEntry import_shape(const ResultEntry& r, const fs::path& run_dir, const std::string& slug) {
  const std::string report = "ncu-" + slug + ".ncu-rep";
  const fs::path csv_path = run_dir / ("ncu-" + slug + ".csv");
  NcuEntry entry;
  if (!fs::exists(csv_path)) {
    if (fs::exists(run_dir / report)) entry.report = report;
    entry.unavailable_reason = "no " + csv_path.filename().string() + " beside the record";
    return entry;
  }
  std::ifstream in(csv_path);
  if (!in) throw std::runtime_error("cannot read " + csv_path.string());
  const NcuCsv csv = parse_ncu_csv(in);
  if (csv.rows.empty()) {
    entry.report = report;
    entry.unavailable_reason =
        "ncu profiled no kernel: the NVTX filter matched no launch (check --nvtx-include "
        "against the range the experiment printed)";
    return entry;
  }
  return ncu_result_entry(csv, report, r.metrics ? *r.metrics : std::vector<GroupResult>{});
}

}  // namespace

void merge_ncu(RunRecord& record, const fs::path& run_dir, const NcuProfileInfo& info) {
  for (const auto& r : record.results)
    if (r.ncu) throw std::runtime_error("the record already holds ncu values; a run is imported once");
  NcuProfile profile;
  profile.ncu_version = info.ncu_version;
  profile.ncu_command = info.ncu_command;
  profile.method =
      "each timed shape rerun with --profile-launch under ncu; the one launch in NVTX range "
      "attnlab.profile.<phase>.<shape> profiled; report imported with --csv --page raw "
      "--print-units base";
  profile.wall_s_meaning =
      "wall_s: the whole experiment process under ncu; baseline_wall_s: the same command "
      "without ncu; ncu_overhead_s: their difference";
  for (auto& r : record.results) {
    if (!r.headline()) continue;
    const std::string slug = profiler::shape_slug(shape_name(r.shape));
    r.ncu = import_shape(r, run_dir, slug);
    NcuShapeWall w{slug, std::nullopt, std::nullopt};
    if (const auto it = info.wall_s.find(slug); it != info.wall_s.end()) w.wall_s = it->second;
    if (const auto it = info.baseline_wall_s.find(slug); it != info.baseline_wall_s.end())
      w.baseline_wall_s = it->second;
    profile.shapes.push_back(w);
  }
  if (profile.shapes.empty()) throw std::runtime_error("the record has no timed result to compare with ncu");
  record.ncu_profile = std::move(profile);
}

namespace {

// The closing line of a shape: CUPTI's collection wall against ncu's process.
std::string wall_line(const RunRecord& record, const ResultEntry& r) {
  std::ostringstream out;
  double cupti_wall = 0;
  int passes = 0;
  bool all = true;
  for (const GroupResult& g : r.metrics ? *r.metrics : std::vector<GroupResult>{}) {
    if (!g.available) {
      all = false;
      continue;
    }
    cupti_wall += g.collection_wall_s;
    passes += g.passes;
  }
  out << "wall: CUPTI " << (all ? "all groups " : "available groups ") << num(cupti_wall) << " s ("
      << passes << " passes)";
  const std::string slug = profiler::shape_slug(shape_name(r.shape));
  for (const NcuShapeWall& w : record.ncu_profile ? record.ncu_profile->shapes : std::vector<NcuShapeWall>{}) {
    if (w.slug != slug) continue;
    if (w.wall_s) out << "; ncu process " << num(*w.wall_s) << " s";
    if (w.baseline_wall_s)
      out << " (without ncu " << num(*w.baseline_wall_s) << " s, ncu overhead "
          << num(w.wall_s ? *w.wall_s - *w.baseline_wall_s : 0) << " s)";
  }
  return out.str();
}

}  // namespace

std::string agreement_table(const RunRecord& record) {
  std::ostringstream out;
  for (const ResultEntry& r : record.results) {
    if (!r.ncu) continue;
    const NcuEntry& n = *r.ncu;
    out << "== " << shape_name(r.shape);
    if (n.unavailable_reason) {
      out << ": no ncu values (" << *n.unavailable_reason << ")\n";
      continue;
    }
    out << " (ncu report " << n.report.value_or("") << ", " << n.kernels << " kernel"
        << (n.kernels == 1 ? "" : "s") << ")\n";
    out << pad("metric", 76) << pad("CUPTI", 14) << pad("ncu", 14) << "diff\n";
    for (const NcuValue& v : n.values) {
      std::optional<double> cupti, d;
      for (const GroupResult& g : r.metrics ? *r.metrics : std::vector<GroupResult>{})
        if (auto c = g.value(v.name)) cupti = c;
      for (const auto& [name, diff] : n.rel_diff_pct)
        if (name == v.name) d = diff;
      std::string diff = d ? pct(*d) : "-";
      const bool headline =
          std::find(headline_metrics().begin(), headline_metrics().end(), v.name) != headline_metrics().end();
      if (headline && d) diff += std::fabs(*d) <= kHeadlineTolerancePct ? "  within 3%" : "  OUTSIDE 3%";
      out << pad(v.name + " [" + profiler::find_metric(v.name)->unit + "]", 76)
          << pad(cupti ? num(*cupti) : "-", 14) << pad(num(v.value), 14) << diff << "\n";
    }
    // Context for the duration: CUPTI's user range also spans the launch latency before the
    // kernel starts, ncu times the kernel alone, and the timing regimes time kernels.
    if (const TimedRegime* t = r.regime("cold"))
      out << "timing.cold median (kernel only, memset-flushed L2): " << num(t->median_ns) << " ns\n";
    out << wall_line(record, r) << "\n";
  }
  return out.str();
}

}  // namespace attnlab

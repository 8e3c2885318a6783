// Loading and unpacking run records for the reports.
#include "reports/record_view.hpp"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <sstream>

#include "common/shapes.hpp"
#include "record/provenance.hpp"
#include "record/reader.hpp"
#include "record/result.hpp"
#include "reports/format.hpp"

namespace attnlab::report {
namespace {

// The entry keeps its JSON beside the typed blocks: a claim names its metric by a JSON pointer
// into it (record/claims.hpp), which the judge resolves.
Result view_of(ResultEntry e, const ordered_json& root, std::size_t i, const SamplingOptions& options) {
  Result r;
  static_cast<ResultEntry&>(r) = std::move(e);
  r.check_only = options.check_only;
  r.pointer = "/results/" + std::to_string(i);
  r.json = *find(root, r.pointer);
  r.name = shape_name(r.shape);
  return r;
}

}  // namespace

std::string Result::untimed_reason() const {
  if (const std::string* why = unavailable()) return "not run: " + *why;
  if (!passed()) return "failed its correctness check";
  if (check_only) return "not timed: a --check-only run";
  return "not timed";
}

const std::vector<KernelFacts>& Result::launched_kernels() const {
  static const std::vector<KernelFacts> kNone;
  return static_evidence && static_evidence->facts ? static_evidence->facts->kernels : kNone;
}

std::string Run::id() const { return phase + "/" + name; }

std::string Run::time_key() const {
  return started_utc.empty() ? name : started_utc;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": no such file or not readable");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::optional<long long> utc_seconds(const std::string& stamp) {
  // "2026-11-23T21:41:55Z", or a run directory's "20261123T214155Z".
  std::string digits;
  for (char ch : stamp) {
    if (ch >= '0' && ch <= '9') digits += ch;
    if (ch == 'Z' || digits.size() == 14) break;
  }
  if (digits.size() != 14) return std::nullopt;
  std::tm t{};
  t.tm_year = std::stoi(digits.substr(0, 4)) - 1900;
  t.tm_mon = std::stoi(digits.substr(4, 2)) - 1;
  t.tm_mday = std::stoi(digits.substr(6, 2));
  t.tm_hour = std::stoi(digits.substr(8, 2));
  t.tm_min = std::stoi(digits.substr(10, 2));
  t.tm_sec = std::stoi(digits.substr(12, 2));
  return static_cast<long long>(timegm(&t));
}

std::optional<long long> Run::start_seconds() const { return utc_seconds(time_key()); }

std::string session_key(const Run& run, const std::vector<Run>& runs) {
  const auto start = run.start_seconds();
  if (!start) return run.gpu_uuid() + "@" + run.time_key();
  std::vector<long long> starts = {*start};
  for (const auto& r : runs)
    if (r.gpu_uuid() == run.gpu_uuid())
      if (const auto s = r.start_seconds()) starts.push_back(*s);
  std::sort(starts.begin(), starts.end());
  // Back from this record's start while the records before it follow on closely enough.
  auto i = std::lower_bound(starts.begin(), starts.end(), *start);
  while (i != starts.begin() && *i - *(i - 1) < kSessionGapSeconds) --i;
  return run.gpu_uuid() + "@" + std::to_string(*i);
}

namespace {

// Kernels one launch ran: the regime's own count, else the distinct kernels it names, else
// the most another regime of the shape (the same launch) says.
std::optional<int> kernels_per_launch(const Result& r, const Regime& g) {
  auto own = [](const Regime& x) -> std::optional<int> {
    if (x.kernels_per_launch) return *x.kernels_per_launch;
    if (!x.kernels.empty()) return int(x.kernels.size());
    return std::nullopt;
  };
  if (const auto k = own(g)) return k;
  std::optional<int> most;
  for (const auto& x : r.timing)
    if (const auto k = own(x)) most = std::max(most.value_or(0), *k);
  return most;
}

}  // namespace

DeviceTime device_time(const Result& r, const Regime& g) {
  DeviceTime t;
  t.median_ns = g.median_ns;
  t.p10_ns = t.wide_p10_ns = g.p10_ns;
  t.p90_ns = t.wide_p90_ns = g.p90_ns;
  t.kernels = kernels_per_launch(r, g);
  if (t.kernels && *t.kernels <= 1) {
    t.basis = TimeBasis::kOneKernel;
    return t;
  }
  if (!g.busy_median_ns) return t;
  t.median_ns = *g.busy_median_ns;
  t.span_median_ns = g.median_ns;
  if (g.busy_p10_ns && g.busy_p90_ns) {
    t.p10_ns = t.wide_p10_ns = *g.busy_p10_ns;
    t.p90_ns = t.wide_p90_ns = *g.busy_p90_ns;
    t.basis = TimeBasis::kBusy;
    return t;
  }
  // No spread is invented for the figure (the span's carries the jitter of the idle gaps that
  // busy time leaves out); the wide interval moves the span's onto the busy median, scaled
  // instead where that would reach zero.
  t.basis = TimeBasis::kBusyMedian;
  t.p10_ns = t.p90_ns = t.median_ns;
  const double idle = g.median_ns - t.median_ns;
  t.wide_p10_ns = g.p10_ns > idle ? g.p10_ns - idle : g.p10_ns * t.median_ns / g.median_ns;
  t.wide_p90_ns = g.p90_ns - idle;
  return t;
}

std::string board(const Run& r) { return board_of_uuid(r.gpu_uuid()); }

std::string board_of_uuid(const std::string& uuid) {
  if (uuid.empty()) return "board not recorded";
  return uuid.substr(0, uuid.find('-', 4));
}

std::optional<double> device_noise_pct(const Regime& g, const DeviceTime& t) {
  if (t.basis == TimeBasis::kOneKernel || t.basis == TimeBasis::kSpan) return g.noise_pct;
  return std::nullopt;
}

std::string device_noise_cell(const Regime& g, const DeviceTime& t) {
  const auto n = device_noise_pct(g, t);
  return n ? pct(*n) : "not recorded for busy time";
}

std::string span_beside(const DeviceTime& t, const char* unit) {
  if (!t.span_median_ns) return "";
  return " (span " + (unit ? sig(in_unit(*t.span_median_ns, unit)) : duration(*t.span_median_ns)) + ")";
}

std::string basis_words(const DeviceTime& t) {
  switch (t.basis) {
    case TimeBasis::kBusy: return "busy";
    case TimeBasis::kOneKernel: return "busy = span, one kernel";
    case TimeBasis::kBusyMedian: return "busy median only, its p10-p90 not recorded";
    default:
      return t.kernels ? "span of " + std::to_string(*t.kernels) + " kernels, busy not recorded"
                       : "span, kernels per launch not recorded";
  }
}

std::string basis_marker(TimeBasis b) {
  return b == TimeBasis::kSpan ? "†" : b == TimeBasis::kBusyMedian ? "‡" : "";
}

std::string basis_footnote(TimeBasis b) {
  if (b == TimeBasis::kSpan)
    return "† Span, not busy time: the record has no busy time for this launch of several "
           "kernels (or does not say how many it ran), so the time runs from the first "
           "kernel's start to the last one's end, idle gaps included, and overstates the "
           "device time.";
  if (b == TimeBasis::kBusyMedian)
    return "‡ Busy median only: the record gives the median of the busy time but not its "
           "p10-p90 (`busy_p10_ns`, `busy_p90_ns`), so the figure has no range. Verdicts take "
           "it both ways, as a single value and spread as its span (the span's p10-p90 moved "
           "onto the busy median), and stand only where the two agree: otherwise a comparison "
           "says SAME and a claim INCONCLUSIVE.";
  return "";
}

const Result* Run::result(const std::string& shape_name) const {
  for (const auto& r : results)
    if (r.name == shape_name) return &r;
  return nullptr;
}

Run load_run(const fs::path& path) {
  Run run;
  // A run directory, or a record file; a path that does not exist names a run directory
  // unless it ends in .json.
  std::error_code ec;
  const bool dir = fs::is_directory(path, ec) ||
                   (!fs::exists(path, ec) && path.extension() != ".json" && path.extension() != ".gz");
  run.file = record_file(dir ? path / "run.json" : path);
  run.dir = run.file.parent_path().empty() ? fs::path(".") : run.file.parent_path();
  // Paths in messages stay as the user gave them; a trailing "/" would read "dir//run.json".
  run.file = run.file.lexically_normal();
  run.dir = run.dir.lexically_normal();
  if (run.dir.filename().empty()) run.dir = run.dir.parent_path();
  run.name = fs::weakly_canonical(fs::absolute(run.dir), ec).filename().string();
  const std::string file = run.file.string();
  try {
    run.json = read_record(run.file);
  } catch (const RecordError& e) {
    throw InputError(e.what());
  }
  try {
    const ordered_json& j = run.json;
    RunRecord rec = read_run_record(j);
    static_cast<RunHeader&>(run) = std::move(rec);
    for (std::size_t i = 0; i < rec.results.size(); ++i)
      run.results.push_back(view_of(std::move(rec.results[i]), j, i, run.options));
  } catch (const FieldError& e) {
    throw InputError(file + ": " + e.what());
  }
  return run;
}

std::vector<Run> load_root(const fs::path& root) {
  std::vector<fs::path> files;
  try {
    files = find_records(root);
  } catch (const RecordError& e) {
    throw InputError(e.what());
  }
  std::vector<Run> runs;
  for (const auto& f : files) runs.push_back(load_run(f));
  std::stable_sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) {
    if (a.time_key() != b.time_key()) return a.time_key() > b.time_key();
    return a.file < b.file;
  });
  return runs;
}

std::string shape_label(const std::string& name) {
  for (const auto& p : shape_presets())
    if (shape_name(p.shape) == name) return std::string(p.name) + " " + name;
  return name;
}

}  // namespace attnlab::report

// Nsight Compute's values in a run record (make profile): the raw-page CSV of a report
// (`ncu --import R.ncu-rep --csv --page raw --print-units base`) parsed, combined over the
// kernels of the profiled launch, converted to the record's units and set beside the CUPTI
// values of the same result with their relative difference. Host-only; no GPU needed.
#pragma once

#include <filesystem>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "record/record.hpp"
#include "record/result.hpp"

namespace attnlab {

struct NcuCsv {
  std::vector<std::string> columns;            // "ID", "Kernel Name", ..., metric names
  std::vector<std::string> units;              // per column; empty where ncu gives none
  std::vector<std::vector<std::string>> rows;  // one per profiled kernel
  int column(const std::string& name) const;   // index, or -1
};

// Skips anything before the header (the first record whose first field is "ID"); takes the
// row after it as units when its "ID" field is empty. Throws std::runtime_error on an
// unbalanced quote or a row whose width differs from the header's.
NcuCsv parse_ncu_csv(std::istream& in);

// "1,073,741,824" -> 1073741824 (ncu groups thousands); nullopt for "n/a", "" and non-numbers.
std::optional<double> parse_ncu_number(std::string text);

// `value` in ncu's `ncu_unit` expressed in the record's `unit` (metric_groups.hpp); nullopt
// when ncu's unit is not one that unit can be converted from.
std::optional<double> convert_ncu_unit(double value, const std::string& ncu_unit,
                                       const std::string& unit);

// 100 * (cupti - ncu) / |ncu|; 0 when both are 0; nullopt when only ncu is 0.
std::optional<double> rel_diff_pct(double cupti, double ncu);

// The result entry's "ncu" (record/ncu.hpp) against `cupti_metrics`, the result's counter
// groups. Over several kernels, ".sum" metrics are summed and the others averaged weighted by
// each kernel's gpu__time_duration.sum.
NcuEntry ncu_result_entry(const NcuCsv& csv, const std::string& report_file,
                          const std::vector<GroupResult>& cupti_metrics);

// What make profile measured around each shape's ncu run.
struct NcuProfileInfo {
  std::string ncu_version;                        // `ncu --version`, last line
  std::string ncu_command;                        // the ncu options used
  std::map<std::string, double> wall_s;           // shape slug -> [s] wall time under ncu
  std::map<std::string, double> baseline_wall_s;  // shape slug -> [s] same command without ncu
};

// Adds "ncu" to every timed result of `record` from run_dir/ncu-<slug>.csv (report
// ncu-<slug>.ncu-rep), and "ncu_profile" at the top. Throws std::runtime_error when the record
// already has ncu values (a run is never rewritten twice) or has no timed result.
void merge_ncu(RunRecord& record, const std::filesystem::path& run_dir,
               const NcuProfileInfo& info);

// The agreement table of a merged record: per shape and metric, CUPTI, ncu and the relative
// difference, the headline metrics (duration, DRAM bytes, tensor pipe) marked against 3%, and
// the wall time of CUPTI's collection against ncu's.
std::string agreement_table(const RunRecord& record);

// One profiled launch in ncu's CSV (make profile-ab): its kernels' gpu__time_duration.sum
// summed [ns] and sm__cycles_elapsed.max summed (each kernel's cycles on its busiest SM).
// Throws std::runtime_error when a column or value is missing or not convertible.
struct NcuLaunchTotals {
  double time_ns = 0;
  double cycles = 0;
  std::size_t kernels = 0;
};
NcuLaunchTotals ncu_launch_totals(const NcuCsv& csv);

// The headline metrics make profile judges at 3%.
const std::vector<std::string>& headline_metrics();

}  // namespace attnlab

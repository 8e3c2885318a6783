#include "record/timeline_rate.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "record/calibration.hpp"

namespace attnlab {

namespace {

namespace fs = std::filesystem;

std::string short_uuid(const std::string& uuid) { return uuid.substr(0, std::min<std::size_t>(uuid.size(), 12)); }

// The calibration `calibration` gives for `rate` on `gpu` (set_tensor_pipe_rate's order), with the
// words rate_source adds after the file; none, with the words saying why, where it gives none.
std::optional<CalibrationPick> pick(const std::string& rate, const std::vector<std::string>& calibration,
                                    const GpuIdentity& gpu, std::string& words) {
  for (auto it = calibration.rbegin(); it != calibration.rend(); ++it) {
    if (fs::is_directory(*it)) continue;
    CalibrationRecord rec = read_calibration_file(*it);
    const CalibrationRate* r = rec.rate(rate);
    if (!r || !(r->per_sm_per_clock > 0)) throw std::invalid_argument("the calibration " + *it + " has no rate " + rate);
    const bool same_board = rec.provenance.gpu.uuid == gpu.uuid;
    words = ", named as a file";
    return CalibrationPick{std::move(rec), *it, same_board};
  }
  if (calibration.empty()) {
    words = "no calibration given";
    return std::nullopt;
  }
  std::vector<fs::path> files;
  std::string dirs;
  for (const auto& d : calibration) {
    for (auto& f : find_calibration_records(d)) files.push_back(f);
    dirs += (dirs.empty() ? "" : ", ") + d;
  }
  auto found = newest_calibration_of(files, gpu, rate);
  if (!found)
    words = "no calibration of this GPU (" + gpu.name + ", " + short_uuid(gpu.uuid) + ") with " + rate + " in " + dirs;
  else if (found->same_board)
    words = ", the newest of this board's in " + dirs;
  else
    words = ", the newest of this model's in " + dirs + " (board " + short_uuid(found->rec.provenance.gpu.uuid) +
            "; this one is " + short_uuid(gpu.uuid) + ")";
  return found;
}

}  // namespace

void set_tensor_pipe_rate(TensorPipeRate& t, const std::string& rate, const std::vector<std::string>& calibration,
                          const GpuIdentity& gpu) {
  t.rate_name = rate;
  std::string words;
  if (const auto cal = pick(rate, calibration, gpu, words)) {
    t.flop_per_sm_cycle = cal->rec.rate(rate)->per_sm_per_clock;
    t.rate_source = "calibration " + cal->file.string() + " (" + rate + ", per SM per cycle" + words + ")";
    t.from_calibration = true;
    return;
  }
  const auto ceiling = per_clock_ceiling(gpu.compute_capability, rate);
  if (!ceiling)
    throw std::invalid_argument(words + ", and no per-clock ceiling of " + rate + " known on compute capability " +
                                gpu.compute_capability);
  t.flop_per_sm_cycle = ceiling->per_sm_per_clock;
  t.rate_source = words + ": the architecture's ceiling, " + ceiling->source;
  t.from_calibration = false;
}

}  // namespace attnlab

// The dense wgmma rate a warp-role timeline's tensor pipe (record/timeline.hpp TimelineTensorPipe)
// divides by: a calibration record's measured rate of this GPU where one is at hand
// (record/calibration.hpp), else the architecture's per-clock ceiling, which no kernel sustains,
// the record saying which.
#pragma once

#include <string>
#include <vector>

#include "record/provenance.hpp"
#include "record/timeline.hpp"

namespace attnlab {

// Sets t's rate_name, flop_per_sm_cycle, rate_source and from_calibration for `rate`
// (calibration::kTensor or kTensorFp8) on `gpu`, from `calibration`, calibration records
// (calibration.json, plain or gzipped) and folders of them (<dir>/<run>/calibration.json), as
// attnlab-timeline --calibration names them:
//  - the last record named as a file, taken as it is, whichever GPU it measured;
//  - else, among the folders' records, this GPU's newest with the rate (newest_calibration_of:
//    its board's, else its model's);
//  - else the per-clock ceiling of gpu.compute_capability (per_clock_ceiling).
// rate_source says which, and from which file or among which folders. Throws
// std::invalid_argument where a record named as a file lacks the rate, or where nothing gives
// one (no calibration found and no ceiling known); std::runtime_error for a file that cannot be
// read.
void set_tensor_pipe_rate(TensorPipeRate& t, const std::string& rate, const std::vector<std::string>& calibration,
                          const GpuIdentity& gpu);

}  // namespace attnlab

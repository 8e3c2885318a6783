// The PyTorch SDPA baseline's run record (phases sdpa-cudnn, sdpa-flash, sdpa-efficient), typed:
// attnlab.run/1 in the layout its records have always had (PyTorch's versions, the backend in the
// options, each entry "available"), with its one JSON mapping. attnlab-sdpa-import fills it from
// the baseline's raw measurements (record/sdpa_raw.hpp); the round-trip test holds the mapping to
// the committed records byte for byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/shape.hpp"
#include "record/correctness.hpp"
#include "record/pc_sampling.hpp"
#include "record/provenance.hpp"
#include "record/result.hpp"
#include "record/timing.hpp"

namespace attnlab {

// What ran the kernels: the driver, the CUDA torch was built with, torch and its cuDNN. The build
// keys (type "pytorch", the rest null) and nvcc and cupti (null) are written as constants: no
// kernel of such a run was built by this project.
struct SdpaVersions {
  int driver = 0;   // cuDriverGetVersion
  int runtime = 0;  // torch.version.cuda as 1000 * major + 10 * minor
  std::string torch, torch_cuda;
  std::optional<long long> cudnn;  // torch.backends.cudnn.version(); null: no cuDNN
};

struct SdpaProvenance {
  GitState git;
  std::vector<std::string> argv;
  SdpaVersions versions;
  GpuIdentity gpu;
  std::uint64_t seed = 0;
  std::string sweep_id;  // scripts/sweep.sh; empty: not written
  std::string inputs;    // how the inputs were drawn (torch's generator, not the C++ phases')
  std::string host;
};

struct SdpaOptions : SamplingOptions {
  std::string backend;  // cudnn, flash or efficient
};

// One shape. A backend that refused the shape has only its reason; one that failed its check
// or ran --check-only has no timing.
struct SdpaResult {
  Shape shape;
  double scale = 0;
  std::string unavailable_reason;  // empty: the backend ran the shape
  Correctness correctness;         // unused when unavailable
  std::vector<std::pair<std::string, RegimeTiming>> timing;  // regime -> timing, run order
  std::string headline_regime;                               // empty: not timed
  std::optional<std::vector<KernelShare>> kernels;           // the headline CUPTI regime's
};

struct SdpaRunRecord {
  std::string phase;
  std::string status = "incomplete";
  ExperimentInfo experiment;
  std::string started_utc;  // ISO 8601
  SdpaProvenance provenance;
  SdpaOptions options;
  std::vector<SdpaResult> results;
  std::optional<std::string> error;  // a fault mid-run
};

// The record's layout, keys in the baseline's order; "unavailable_shapes" lists the entries
// whose backend refused the shape, when there are any.
nlohmann::ordered_json to_json(const SdpaRunRecord& r);
void write_sdpa_record(const std::filesystem::path& file, const SdpaRunRecord& r);

// Reads a record of this layout back; throws FieldError (record/fields.hpp) naming the field.
SdpaRunRecord read_sdpa_record(const nlohmann::ordered_json& record);

}  // namespace attnlab

// Where a run came from and how it was run: the record's "provenance", "options" and each
// result's "shape", as typed structs with their one JSON mapping. The harness fills them from
// CUDA, CUPTI and its build; the report tool reads them back (`read_provenance`, `read_recorded_options`).
// The PyTorch SDPA baseline's runs (experiments/baselines/sdpa_import.hpp) fill the same structs; their
// build and versions name PyTorch's (Provenance::torch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/shape.hpp"
#include "record/timing.hpp"

namespace attnlab {

struct GitState {
  std::string commit;  // full SHA, or "unknown" outside a git checkout
  bool dirty = false;  // tracked files differed from the commit at build time
};

struct BuildFlags {
  std::string type, cuda_architectures, cuda_flags, cxx_flags, cxx_compiler;
};

struct ToolVersions {
  std::string nvcc;
  int driver = 0;   // cudaDriverGetVersion
  int runtime = 0;  // cudaRuntimeGetVersion
  std::uint32_t cupti = 0;
  // Runs of a cuDNN baseline only, absent otherwise: the cuDNN the process loaded
  // (cudnnGetVersion, e.g. 91900, the same number the SDPA baseline's records hold from
  // torch.backends.cudnn.version()) and the CUDNN_VERSION of the headers it was built with.
  std::optional<long long> cudnn;
  std::optional<long long> cudnn_header;
};

// The GPU as CUDA describes it; the uuid tells two boards of one model apart.
struct GpuIdentity {
  std::string name;
  std::string uuid;  // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  std::string compute_capability;
  int sm_count = 0;
  int sm_clock_mhz = 0;  // maximum (boost) clock the driver reports
  int mem_clock_mhz = 0;
  long long l2_bytes = 0;
  unsigned long long global_mem_bytes = 0;
  unsigned long long smem_per_sm_bytes = 0;
  double peak_dram_gbps = 0;  // two transfers per memory clock over the whole bus
};

// What the driver says of a GPU, from which its GpuIdentity follows: the harness reads it
// through the runtime, the SDPA baseline through the driver API (record/sdpa_raw.hpp).
struct GpuAttributes {
  std::string name;
  unsigned char uuid[16] = {};
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  long long sm_clock_khz = 0, mem_clock_khz = 0, bus_width_bits = 0;
  long long l2_bytes = 0;
  unsigned long long global_mem_bytes = 0, smem_per_sm_bytes = 0;
};
GpuIdentity gpu_identity(const GpuAttributes& a);

// The PyTorch that ran a baseline's kernels: torch's version and the CUDA it was built with.
struct TorchVersions {
  std::string torch, torch_cuda;
};

struct Provenance {
  GitState git;
  std::vector<std::string> argv;
  BuildFlags build;  // unused where `torch` is set
  ToolVersions versions;
  GpuIdentity gpu;
  std::uint64_t seed = 0;
  std::string host;
  std::string sweep_id;  // the sweep the run belongs to (scripts/sweep.sh); empty: none, not written
  // A run of PyTorch's kernels (the SDPA baseline): no kernel was built here, so the build block
  // names PyTorch with its flags null, and the versions hold torch's, nvcc and CUPTI null and
  // cuDNN's null where torch has none. nullopt: a run of this project's build.
  std::optional<TorchVersions> torch;
  // How the baseline drew its inputs (torch's generator, not the harness's); the harness records
  // its input distributions in the options instead. Empty: not written.
  std::string inputs;
};

// The timing a run was asked for (a TimingRequest), as both the phases' records and the SDPA
// records hold it: "regimes", "check_only", "headline_regime" and "stopping_rule" of their
// "options".
struct SamplingOptions {
  std::vector<std::string> regimes;
  bool check_only = false;
  std::size_t min_samples = 0;
  std::size_t max_samples = 0;
  double noise_target_pct = 0;
  double max_seconds = 0;
  // The regime every timed shape leads with (TimingRequest::headline), as recorded: "" where
  // the run times nothing (written null); nullopt in a record written before the options named
  // it (and written back without it).
  std::optional<std::string> headline_regime;
  // The headline regime as recorded or, in those older records, as their entries name theirs:
  // headline_regime(regimes), "" for a check-only run.
  std::string headline() const;
};
// The record's form of the request: regimes by name, the headline named.
SamplingOptions sampling_options(const TimingRequest& t);

// What a run was asked to do, as recorded (options that only steer the process, such as
// --results-dir or --device, are not): the harness and the SDPA baseline write it, the report
// reads it back through read_recorded_options. Harness records written before metrics,
// throttled, inputs and profile_launch were recorded hold only the sampling options; for them the
// reader leaves the three strings empty (not recorded) and profile_launch false.
struct RecordedOptions : SamplingOptions {
  std::string metrics;    // the --metrics groups asked for ("none", "all", a list); "": not recorded
  std::string throttled;  // keep or exclude; "": not recorded
  std::string inputs;     // the gate's input distributions; "": not recorded
  bool profile_launch = false;
  // The PyTorch SDPA backend a baseline run called (cudnn, flash, efficient). Where set, the
  // record holds it in place of the four options above, which only the harness has.
  std::optional<std::string> backend;
};

// "uuid" of 16 bytes as CUDA's cudaUUID_t holds them, in the 8-4-4-4-12 form nvidia-smi prints.
std::string gpu_uuid_string(const unsigned char (&bytes)[16]);

nlohmann::ordered_json to_json(const GpuIdentity& g);
nlohmann::ordered_json to_json(const Provenance& p);
// The keys of SamplingOptions, in that order; the records add their own after them.
nlohmann::ordered_json to_json(const SamplingOptions& o);
nlohmann::ordered_json to_json(const RecordedOptions& o);
// A result's "shape": sizes, masking, dtype and the softmax scale the kernel used.
nlohmann::ordered_json shape_to_json(const Shape& s, double scale);

// Read the blocks as to_json wrote them; throw FieldError
// (record/fields.hpp) naming the field.
Provenance read_provenance(const nlohmann::ordered_json& root, const std::string& base);
// The "gpu" block of any writer's provenance (the SDPA baseline's too).
GpuIdentity read_gpu_identity(const nlohmann::ordered_json& root, const std::string& base);
// Any writer's "options" (the harness's, the SDPA baseline's, older layouts as RecordedOptions
// says); FieldError on a missing sampling option, a field of the wrong type, an unknown regime or
// a headline regime the run did not time.
RecordedOptions read_recorded_options(const nlohmann::ordered_json& root, const std::string& base);
// A result's "shape" and its "scale".
Shape read_shape(const nlohmann::ordered_json& root, const std::string& base, double* scale);

}  // namespace attnlab

// PC sampling of a shape in a child process of its own (--metrics pcsampling).
//
// Why: in the timing process CUPTI kernel activity tracing (profiler/kernel_activity.hpp) and
// the static-facts callback subscriber (profiler/static_facts.hpp) have been CUPTI clients
// before the sampled launch, and there CUPTI gave every PC sample as a "non-user kernel"
// sample without PCs (H100, CUDA 13.0); keeping PC sampling enabled for the whole run instead
// makes CUPTI refuse the activity tracing (CUPTI_ERROR_NOT_COMPATIBLE). A process in which PC
// sampling is the only CUPTI client gets PCs (tests/gpu/test_pc_sampling.cu). So the harness
// runs its own executable with the hidden option --pc-sampling-child <out.json>, the shape,
// seed, input distribution and device of the run, and the timed launch's duration (which sets
// the sampling period as before). The child builds the same inputs, passes the same
// correctness gate (whose first launch loads the module), samples one launch and writes the
// PcSamplingResult's JSON to <out.json>; the parent reads it back.
//
// The command line and the spawn-wait-read are here, CUDA-free, so the CPU tests check them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "record/pc_sampling.hpp"

namespace attnlab {

// What the child needs to sample the launch the parent timed.
struct PcSamplingChildRequest {
  std::string executable = "/proc/self/exe";
  std::string out_file;     // where the child writes the result's JSON
  std::string shape;        // a spec parse_shape reads back to the same shape
  std::uint64_t seed = 0;
  std::string inputs = "normal";  // --inputs
  std::string forward;      // --forward of a backward phase's run; empty: none given
  int device = 0;
  double expected_ns = 0;   // [ns] the timed launch (0: the child measures it)
};

// The hidden options of child mode, filled by the parse (`out_file` empty: not a child).
struct PcSamplingChildOptions {
  std::string out_file;
  double expected_ns = 0;
};

inline constexpr const char* kPcSamplingChildOption = "--pc-sampling-child";
inline constexpr const char* kPcSamplingExpectedNsOption = "--pc-sampling-expected-ns";

// Adds the hidden options (CLI11 group "": not in --help) to `app`.
void add_pc_sampling_child_options(CLI::App& app, PcSamplingChildOptions& opt);

// argv of the child, argv[0] first: exe, the hidden options, then --shape, --seed, --inputs,
// --device with their values, and --forward where the request names one. The duration is written with 17 significant digits, so the
// child reads back the very double.
std::vector<std::string> pc_sampling_child_argv(const PcSamplingChildRequest& req);

// Runs `argv` (posix_spawn, no shell; the environment inherited, stdout to /dev/null, stderr
// passed through), waits for it and reads `result_file`. Never throws: a spawn failure, a
// non-zero exit, a signal, or a missing or malformed file gives an unavailable result whose
// reason says which.
PcSamplingResult run_pc_sampling_child(const std::vector<std::string>& argv, const std::string& result_file);

// The whole of it for one shape: a private temporary directory, the child, the result, the
// directory removed. `req.out_file` is set here.
PcSamplingResult sample_in_child_process(PcSamplingChildRequest req);

// The sentence the parent appends to the method of a result sampled in a child.
std::string pc_sampling_child_method_note();

}  // namespace attnlab

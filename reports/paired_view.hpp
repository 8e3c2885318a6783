// Paired A/B records (record/ab.hpp, <root>/ab/<A>-vs-<B>/<run>/run.json) as the reports use
// them: the newest ok one of a pair at a shape, and one cell of its ratio.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "record/ab.hpp"

namespace attnlab::report {

// The registry id of cuDNN's fused SDPA phase, the yardstick of the "vs cuDNN (paired)" column.
inline constexpr const char* kCudnnPhase = "cudnn";

struct PairedResult {
  std::filesystem::path file;  // the record's run.json
  std::string gpu_name;        // provenance.gpu.name
  AbShape shape;               // its timed result at the shape
};

// The newest ok A/B record of `a` against `b` under <root>/ab with a timed result at shape name
// `shape` (and, when `gpu_name` is not empty, on that GPU model). Throws InputError for a
// record that cannot be read.
std::optional<PairedResult> newest_paired(const std::filesystem::path& root, const std::string& a,
                                          const std::string& b, const std::string& shape,
                                          const std::string& gpu_name = "");

// Every phase with an ok A/B record against `b` under <root>/ab: phase -> shape name -> the
// newest. Empty when there is none (the reports then render exactly as without A/B records).
std::map<std::string, std::map<std::string, PairedResult>> paired_against(
    const std::filesystem::path& root, const std::string& b);

// "1.071x (95% CI 1.065-1.077) FASTER": the wall-time ratio t_B / t_A with its interval and verdict.
std::string paired_cell(const AbShape& s);

}  // namespace attnlab::report

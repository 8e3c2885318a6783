// Paired A/B records (record/ab.hpp, <root>/ab/<A>-vs-<B>/<run>/run.json) as the reports use
// them: the one that judges a run's paired claim, the newest of each pair per shape, and one
// cell of a ratio.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "record/ab.hpp"
#include "reports/record_view.hpp"  // Run

namespace attnlab::report {

// The registry id of cuDNN's fused SDPA phase, the yardstick of the "vs cuDNN (paired)" column.
inline constexpr const char* kCudnnPhase = "cudnn";

struct PairedResult {
  std::filesystem::path file;  // the record's run.json
  std::string gpu_name;        // provenance.gpu.name
  std::string gpu_uuid;        // provenance.gpu.uuid
  std::string commit;          // provenance.git.commit: the kernels it timed
  AbShape shape;               // its timed result at the shape; a shape it measured more than
                               // once, those measurements combined (combine_measurements)
};

// "ab/5-vs-cudnn/20261126T142659Z-8913e75": the record's name under its results root.
std::string paired_name(const PairedResult& p);

// Where an A/B record timed another commit or board than `run` (the run record whose figures or
// claims it stands beside, called `whose`): "it timed commit 8913e75, not <whose> 8bb50a2; on
// GPU-fdbd2029, not <whose> GPU-5e687859". Empty where both are the same. A ratio of another
// commit's kernels, or of another board's, is not this record's, so every use says so.
std::string paired_elsewhere(const PairedResult& p, const Run& run, const std::string& whose);

// The ok A/B record of run's phase against `b` under <root>/ab with a timed result at shape
// name `shape` that judges run's paired claims, chosen as a claim against another phase chooses
// its record (kernels' evidence stays with its session): on run's board within a session's gap
// of its start, the nearest in start time; else the newest on that board; else the newest on
// another board of the same model; none when there is none. `because` says which. Throws
// InputError for a record that cannot be read.
struct PairedChoice {
  PairedResult result;
  std::string because;
};
std::optional<PairedChoice> paired_for(const std::filesystem::path& root, const std::string& b,
                                      const std::string& shape, const Run& run);

// Every phase with an ok A/B record against `b` under <root>/ab: phase -> shape name -> the
// newest. Empty when there is none (the reports then render exactly as without A/B records).
std::map<std::string, std::map<std::string, PairedResult>> paired_against(
    const std::filesystem::path& root, const std::string& b);

// "1.071x (95% CI 1.065-1.077) FASTER": the wall-time ratio t_B / t_A with its interval and
// verdict, followed by how many measurements it combines where more than one, or that its
// interval is of one block (an attnlab.ab/1 record's), which holds within one run only.
std::string paired_cell(const AbShape& s);

}  // namespace attnlab::report

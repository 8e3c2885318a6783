// Pieces of a run that the phase harness (harness.cpp) and the paired A/B runner (ab_main.cpp)
// share: provenance, the correctness block from a gate, command-line number checks.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/shape.hpp"
#include "experiments/gate.hpp"
#include "experiments/reference.hpp"
#include "kernels/registry.hpp"
#include "record/correctness.hpp"
#include "record/provenance.hpp"

namespace attnlab {

// The GPU as CUDA describes device `dev`.
GpuIdentity gpu_identity(int dev);
// Git state and build of this binary, argv, tool versions, the GPU, the input seed and host;
// runs_cudnn (a baseline phase takes part: cuDNN is what it measures) adds cuDNN's versions.
Provenance provenance(int argc, char** argv, std::uint64_t seed, int dev, bool runs_cudnn);
// Prepares every shape (phase.prepare) before anything is recorded; a shape the phase declines
// only then (cuDNN's own refusal) throws PhaseRefusal saying "phase <id> cannot run shape <s>:
// <why>", which callers report as a usage error (exit 2).
void prepare_shapes(const Phase& phase, const std::vector<Shape>& shapes);
// The record's correctness block of one shape from its gate.
Correctness correctness_block(const GateResult& g, const Shape& s, Inputs inputs);

// A bad argument or a shape the phase or the machine cannot take: one line, exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A failure of the environment rather than of the phase: one line, exit 3.
struct EnvironmentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// One line on stderr, "<program>: <msg>"; returns code.
int fail(const char* program, int code, const std::string& msg);
// Parses the command line: nullopt to go on, else the exit code (0 after --help, 2 with one
// line for a bad argument).
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const char* program);

// CLI11's number checks let NaN and infinities through (NaN <= 0 is false) and parse "-1" into
// an unsigned option by wrapping; these refuse both with one line.
extern const CLI::Validator kPositiveFinite;
extern const CLI::Validator kNonNegativeInteger;

}  // namespace attnlab

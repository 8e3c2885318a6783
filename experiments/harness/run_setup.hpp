// Pieces of a run's record that the phase harness (harness.cpp), attnlab-ab, -calibrate and
// -timeline share: provenance, every shape prepared, the correctness block from a gate. The
// skeleton of their mains (command line, exit codes, device, run directory) is run_main.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/shape.hpp"
#include "experiments/harness/gate.hpp"
#include "experiments/harness/reference.hpp"
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

}  // namespace attnlab

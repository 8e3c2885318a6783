// The attention phases. Each declares itself once, with ATTNLAB_PHASE in its kernel file
// (kernels/phase_<id>_<what>.cu, or kernels/phase_cudnn.cpp for cuDNN's baseline); the registry,
// the experiment binaries, run records, tests and `make help` all follow from those
// declarations, so adding a phase means one kernel file (tests/cpu/test_fake_phase.cpp shows it).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/direction.hpp"
#include "kernels/backward_problem.hpp"
#include "kernels/problem.hpp"
#include "common/claim.hpp"

namespace attnlab {

// nullopt: the phase can run this shape; otherwise the reason it cannot.
using Refusal = std::optional<std::string>;

// One launcher signature for every phase. Launchers enqueue work on the stream, never
// synchronise, and check the launch error of every kernel they start.
using LaunchFn = void (*)(const Problem&, cudaStream_t);
using CanImplementFn = Refusal (*)(const Shape&);
// Optional, for phases with library handles or workspaces (cuBLASLt plans, S/P buffers):
// called once per shape before the first launch, outside every timed region, so launch
// itself never allocates. Resources live until the process ends.
using PrepareFn = void (*)(const Shape&);
using WorkItemsFn = std::optional<std::int64_t> (*)(const Shape&, int sms);
using WorkspaceBytesFn = std::size_t (*)(const Shape&);

// One kernel launch as the driver sees it: what an empty kernel must be launched with to
// cost what this launch costs before any work (the launch floor, attnlab-calibrate).
struct LaunchGeometry {
  dim3 grid, block;
  dim3 cluster{1, 1, 1};
  std::size_t dynamic_smem_bytes = 0;  // [bytes] per block
};
// The launch a phase makes for a shape on a GPU of `sms` SMs, from the same code its launcher
// uses; nullopt where the phase cannot run the shape.
using LaunchGeometryFn = std::optional<LaunchGeometry> (*)(const Shape&, int sms);

// The tensor-core work behind one warp's QK^T and PV issue spans of a stamped kernel
// (kernels/timeline.cuh): the warp's share of its warpgroup's wgmma, 2 x its rows x the tile's
// keys x D each, issued whole whatever the mask leaves of the tile. The timeline spreads it
// between the issue and the wgmma wait that covers it, for the tensor pipe over time.
struct TensorIssueWork {
  double qk_flops = 0;  // [FLOP] one QK^T issue span of one warp
  double pv_flops = 0;  // [FLOP] one PV issue span of one warp
};
// At a shape on a GPU of `sms` SMs, from the traits the launch picks; nullopt where the phase
// cannot run the shape.
using TensorIssueWorkFn = std::optional<TensorIssueWork> (*)(const Shape&, int sms);

// Thrown by prepare() when the library behind a phase declines a shape that can_implement
// could not judge without a GPU (cuDNN's engines, say); what() is the library's own reason.
// The harness prepares every shape before it records anything and ends the run with exit 2.
struct PhaseRefusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Phase {
  const char* id;         // "1", "4", "4x", ...
  const char* title;      // short name
  const char* technique;  // one line: what the phase does
  int required_cc;        // 0: any GPU the build targets; 90: needs sm_90a (Hopper only)
  CanImplementFn can_implement;
  // A forward phase launches with `launch` and leaves launch_backward nullptr; a backward phase
  // (direction kBackward) the other way round. Code that launches phases asks direction first.
  LaunchFn launch;
  PrepareFn prepare;      // nullptr when the phase needs no set-up (either direction)
  // Instrumented phases (kernels/timeline.cuh): the same kernels with warp-role stamps, which
  // attnlab-timeline launches beside `launch`, and the role of warp w of a block (for the
  // timeline's rows); nullptr for the others.
  LaunchFn launch_timeline = nullptr;
  std::string (*warp_role)(std::uint32_t warp) = nullptr;
  // Instrumented phases: the FLOPs of a warp's QK^T and PV issue spans (the timeline's tensor
  // pipe over time); nullptr where the phase declares none.
  TensorIssueWorkFn tensor_issue_work = nullptr;
  // A library's kernel run for comparison (cuDNN's fused attention), not a kernel of ours.
  bool baseline = false;
  // The format of the Q, K and V it reads (kernels/problem.hpp); the harness quantises its
  // inputs for a kE4m3 phase and gates it with the FP8 rule.
  InputFormat input_format = InputFormat::kFp16;
  // Persistent phases: the work items a launch's CTAs share on a GPU of `sms` SMs (each walks
  // items blockIdx.x, + gridDim.x, ...), or nullopt where a CTA is one item; recorded with the launch's static
  // facts so that the report shows items per CTA and the last round's tail.
  WorkItemsFn work_items = nullptr;
  // Single-kernel phases whose launch configuration the calibration's launch floors measure
  // (phases 5 and d4); nullptr elsewhere.
  LaunchGeometryFn launch_geometry = nullptr;
  // Phases whose launches need scratch in global memory (phase 5's scheduler counter and key-split
  // partials): its size at a shape, which the caller allocates and zeroes once per problem and
  // passes in Problem::workspace; nullptr where a phase needs none (workspace_bytes() below).
  WorkspaceBytesFn workspace_bytes = nullptr;
  // A forward phase that also writes each query row's log-sum-exp into Problem::lse (the LSE a
  // backward phase reads); the gate then checks it beside O, and a backward phase's experiment
  // can take its O and LSE from it (--forward).
  bool emits_lse = false;
  // The pass it computes. A backward phase reads Q, K, V, O, dO and LSE and writes dQ, dK and dV
  // (kernels/backward_problem.hpp); the harness makes O and LSE with its own fp32 forward and
  // gates the gradients on the backward rule (experiments/harness/backward_reference.hpp).
  Direction direction = Direction::kForward;
  BackwardLaunchFn launch_backward = nullptr;
  // Its scratch at a shape (BackwardProblem::workspace), allocated and zeroed once per problem
  // by the caller; nullptr where it needs none. Forward phases use workspace_bytes above.
  WorkspaceBytesFn backward_workspace_bytes = nullptr;
  // Its experiment (attnlab-phase-<id>): what it asks, one line; the shapes it runs without
  // --shape; the hypotheses the report judges, copied into every record it writes (may be none).
  std::string question;
  std::vector<std::string> default_shapes;
  std::vector<Claim> claims;
};

// A phase's one declaration, in its kernel file after the kernel's namespace:
//   ATTNLAB_PHASE(4x) {
//     p.title = "fused WMMA";
//     p.can_implement = &can_implement;
//     ...
//   }
// defines attnlab::phase_4x::declaration(), which returns the Phase with id "4x" as the block
// fills `p`. The block's unqualified names are looked up in attnlab::phase_4x, the kernel's
// namespace, so the id names the namespace, the phase and (attnlab-phase-4x) its experiment
// alike. cmake/AttnlabPhases.cmake finds these lines (the macro at the start of a line) in
// kernels/phase_* and generates the list phases() reads; the list calls every declaration(),
// so no phase's object is left out of a static library and no static initialisation order
// matters.
// ID: letters, digits and underscores (it names a namespace).
#define ATTNLAB_PHASE(ID)                 \
  namespace attnlab::phase_##ID {         \
  void declare(::attnlab::Phase& p);      \
  ::attnlab::Phase declaration() {        \
    ::attnlab::Phase p{#ID};              \
    declare(p);                           \
    return p;                             \
  }                                       \
  }                                       \
  void attnlab::phase_##ID::declare(::attnlab::Phase& p)

// Every ATTNLAB_PHASE of the build, in the order of their files' names (generated).
std::vector<Phase> declared_phases();
// Phases a binary adds beside the declared ones (another commit's kernels built into the A/B
// tool: experiments/bin/base_phases.cpp), from a static initialiser, before phases() is first read.
using PhaseSource = std::vector<Phase> (*)();
bool add_phase_source(PhaseSource source);

// The declared phases: ours in declared_phases()'s order (their files' names), then the baselines.
const std::vector<Phase>& phases();
// The ids of the instrumented phases (Phase::launch_timeline and warp_role: the timeline tool's
// phases), in phases()'s order, joined by sep.
std::string instrumented_phase_ids(const char* sep = ", ");
// The ids of the forward phases that emit the LSE (Phase::emits_lse), in phases()'s order.
std::string lse_phase_ids(const char* sep = ", ");
const Phase* find_phase(std::string_view id);
// The phase `id` that phase `by` launches (a phase that picks another's kernel per shape, as d5
// and f8d do); throws std::logic_error naming both where the build lacks it.
const Phase& required_phase(std::string_view id, std::string_view by);
std::string phase_ids_joined(const char* sep = ", ");

// Shape checks every phase shares (positive sizes, H % H_kv); nullopt if fine.
Refusal common_shape_refusal(const Shape& s);
// common_shape_refusal plus what every phase implemented so far supports: fp16 and head dim
// 64 or 128. `phase` names it in the reason ("phase 4").
Refusal fp16_head_dim_refusal(const Shape& s, const std::string& phase);
// fp16_head_dim_refusal plus the grid limit of the query-tiled phases: blocks of query rows
// along x, one (batch, head) per y, so B*H must fit the 65535 y-blocks.
Refusal query_tiled_refusal(const Shape& s, const std::string& phase);
// The bytes of workspace a launch of `p` at `s` needs (Phase::workspace_bytes, or for a backward
// phase backward_workspace_bytes; 0 where none).
std::size_t workspace_bytes(const Phase& p, const Shape& s);
bool is_backward(const Phase& p);
// The SMs of the process's current device, read once per process: what a launcher that sizes
// its grid or picks a kernel by the SM count asks.
int device_sm_count();
// Whether the phase can run on a device of compute capability major.minor.
Refusal device_refusal(const Phase& p, int cc_major, int cc_minor);

}  // namespace attnlab

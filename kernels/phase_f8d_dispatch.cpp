// Phase f8d (FP8): V's layout by shape, as a rule that picks one of two registered phases. Both
// run phase 5's kernel on e4m3 operands; they differ in how V reaches the PV wgmma K-major:
// f8's pre-pass writes V^T to the workspace (one more read and write of V and a second kernel,
// a fixed cost per KV head), f8v's producer warpgroup turns each V tile in shared memory (no
// pre-pass, but its transposers take issue slots and shared-memory cycles from the consumers
// on every tile, a cost that grows with the attention). So the pre-pass weighs most where the
// attention is short. Paired against each other over FlashAttention-3's grid, f8v was ahead or
// level up to S = 2048 at D = 64 (4096 under the causal mask) and S = 1024 at D = 128 (2048
// causal), f8 from the next S up (kernels/NOTES.md, "FP8: phase f8": The transposer's walk).
// The rule reads that off: f8v while S_eff D <= 131072, S_eff = S (S / 2 under the causal mask,
// whose rows see half the keys on average): the pre-pass's share of a launch falls as 1 / S_eff,
// and at D = 64 f8v stayed ahead to twice the S it did at D = 128. With grouped KV heads the
// pre-pass turns each KV head once while f8v turns it in every query head's blocks, so the
// group multiplies the left side (that part follows from the costs; no grouped shape was in
// the A/B).
// It adds no kernel of its own: its launches are exactly those of the phase it picks, so its
// records name the kernels that ran.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/shapes.hpp"
#include "kernels/registry.hpp"

namespace attnlab::phase_f8d {
namespace {

// The two phases f8d chooses between, looked up once (the registry's table never changes).
const Phase& f8() {
  static const Phase& p = required_phase("f8", "f8d");
  return p;
}
const Phase& f8v() {
  static const Phase& p = required_phase("f8v", "f8d");
  return p;
}

// The rule's bound on S_eff D group (above).
constexpr std::int64_t kInKernelMaxKeyElements = 131072;

// Whether f8d turns V in the kernel (f8v) at `s`, else by f8's pre-pass.
bool transposes_in_kernel(const Shape& s) {
  const std::int64_t s_eff = s.causal ? (s.S + 1) / 2 : s.S;
  const std::int64_t group = s.H_kv > 0 ? s.H / s.H_kv : 1;
  return s_eff * s.D * group <= kInKernelMaxKeyElements;
}

const Phase& pick(const Shape& s) { return transposes_in_kernel(s) ? f8v() : f8(); }

Refusal can_implement(const Shape& s) { return pick(s).can_implement(s); }
void launch(const Problem& p, cudaStream_t stream) { pick(p.shape).launch(p, stream); }
void launch_timeline(const Problem& p, cudaStream_t stream) { pick(p.shape).launch_timeline(p, stream); }
std::optional<LaunchGeometry> launch_geometry(const Shape& s, int sms) { return pick(s).launch_geometry(s, sms); }
std::optional<TensorIssueWork> tensor_issue_work(const Shape& s, int sms) {
  return pick(s).tensor_issue_work(s, sms);
}
std::optional<std::int64_t> work_items(const Shape& s, int sms) { return pick(s).work_items(s, sms); }
std::size_t workspace_bytes(const Shape& s) { return pick(s).workspace_bytes(s); }
// Both run phase 5's kernel, whose warps have phase 5's roles.
std::string warp_role(std::uint32_t warp) { return f8().warp_role(warp); }

}  // namespace
}  // namespace attnlab::phase_f8d

// Does choosing V's path by the attention's length put the FP8 phase ahead of cuDNN's FP8 SDPA
// over FlashAttention-3's grid?
ATTNLAB_PHASE(f8d) {
  namespace self = attnlab::phase_f8d;
  p.title = "f8 or f8v by length";
  p.technique =
      "no kernel of its own: f8v's in-kernel V transpose while the keys a row sees times D (times "
      "the GQA group) are at most 131072, f8's pre-pass from there on";
  p.required_cc = 90;
  p.input_format = attnlab::InputFormat::kE4m3;
  p.can_implement = &self::can_implement;
  p.launch = &self::launch;
  p.launch_timeline = &self::launch_timeline;
  p.warp_role = &self::warp_role;
  p.tensor_issue_work = &self::tensor_issue_work;
  p.work_items = &self::work_items;
  p.launch_geometry = &self::launch_geometry;
  p.workspace_bytes = &self::workspace_bytes;
  p.question =
      "The FP8 phase over FlashAttention-3's grid: V turned in the kernel where the attention is "
      "short, by a pre-pass where it is long, against cuDNN's FP8 SDPA at every shape.";
  p.default_shapes = {"32x16x512x128", "16x16x1024x128:causal", "4x16x4096x128", "4x16x4096x128:causal"};
  // The FP8 issue's bars against cuDNN's FP8 SDPA, paired: 1.10 at D = 128 and S >= 4096, causal
  // and not; at least level everywhere else on the grid.
  for (const auto& spec : attnlab::expand_shape_specs({"@fa3-sweep"})) {
    const attnlab::Shape s = attnlab::parse_shape(spec);
    const bool long_d128 = s.D == 128 && s.S >= 4096;
    std::string id = "cudnn-fp8-ratio-";  // the spec with ':' as '-'
    for (char c : spec) id += c == ':' ? '-' : c;
    p.claims.push_back(
        attnlab::claim(id, std::string("At least ") + (long_d128 ? "1.10x" : "1.0x") +
                               " cuDNN's FP8 SDPA speed at " + spec +
                               ", paired: the lower bound of t_cudnn_fp8 / t_f8d (wall time).")
            .at(spec)
            .paired_against("cudnn_fp8", long_d128 ? 1.10 : 1.0)
            .source("kernels/TARGETS.md: phase f8d over FlashAttention-3's grid"));
  }
}

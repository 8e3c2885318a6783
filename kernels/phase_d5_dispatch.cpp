// Phase d5 (latency series): the latency phase over a family of small shapes, as a rule that
// picks one of two registered kernels per shape. d4 (split-KV inside a cluster, 64-row query
// tiles) keeps every SM busy where a tile-per-CTA grid would leave most of them idle, but it
// has no producer warpgroup, no ping-pong and, at D = 128, one warpgroup per block: once phase
// 5's persistent grid has work items for half the SMs or more, phase 5 is the faster kernel.
// d5 launches d4 below that and phase 5 from there on; the threshold is read off the paired
// A/Bs of d4 and 5 against cuDNN over the latency sweep, d4 ahead up to 64 items on 132 SMs
// and phase 5 from 112 (kernels/NOTES.md, "Latency sweep"). It adds no
// kernel of its own: its launches are exactly those of the phase it picks, so its records name
// the kernels that ran (the static facts' kernel names).
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/shapes.hpp"
#include "kernels/registry.hpp"

namespace attnlab::phase_d5 {
namespace {

// The two phases d5 chooses between, looked up once (the registry's table never changes).
const Phase& d4() {
  static const Phase& p = required_phase("d4", "d5");
  return p;
}
const Phase& five() {
  static const Phase& p = required_phase("5", "d5");
  return p;
}

// The phase whose kernel d5 runs at `s` on a GPU of `sms` SMs.
const Phase& pick(const Shape& s, int sms) {
  const auto items = five().work_items(s, sms);
  return items && 2 * *items >= sms ? five() : d4();
}

}  // namespace

Refusal can_implement(const Shape& s) {
  // Either kernel may run a shape of the family, so d5 takes what both take.
  if (auto r = d4().can_implement(s)) return r;
  return five().can_implement(s);
}

void launch(const Problem& p, cudaStream_t stream) { pick(p.shape, device_sm_count()).launch(p, stream); }

std::optional<LaunchGeometry> launch_geometry(const Shape& s, int sms) { return pick(s, sms).launch_geometry(s, sms); }

std::optional<std::int64_t> work_items(const Shape& s, int sms) {
  const Phase& p = pick(s, sms);
  return p.work_items ? p.work_items(s, sms) : std::nullopt;
}

// Phase 5's scratch (d4 needs none), whichever kernel runs: the size needs no GPU to answer.
std::size_t workspace_bytes(const Shape& s) { return five().workspace_bytes(s); }

}  // namespace attnlab::phase_d5

// Does choosing between d4 and phase 5 by the size of the grid put the latency phase at least
// level with cuDNN over the whole latency sweep, and keep d4's lead at the latency shape?
ATTNLAB_PHASE(d5) {
  p.title = "d4 or 5 by grid";
  p.technique =
      "no kernel of its own: d4's split-KV kernel while phase 5's persistent grid has work items "
      "for fewer than half the SMs, phase 5's kernel from there on";
  p.required_cc = 90;
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.launch_geometry = &launch_geometry;
  p.work_items = &work_items;
  p.workspace_bytes = &workspace_bytes;
  p.question =
      "The latency phase over the latency sweep: d4's kernel for small grids, phase 5's for the "
      "rest, against cuDNN at every shape of the family.";
  p.default_shapes = {"latency", "1x16x777x64", "2x8x1000x128", "1x32x1024x128:hkv=8",
                      "1x8x512x64:causal"};
  p.claims.push_back(
      claim("cudnn-ratio-latency-130",
            "At least 1.30x cuDNN's speed at the latency shape, paired: the lower bound of the "
            "paired A/B interval of t_cudnn / t_d5 (wall time) at least 1.30.")
          .at("latency")
          .paired_against("cudnn", 1.30)
          .source("kernels/TARGETS.md: the latency phase at 1x8x512x64, paired A/B ratio"));
  for (const auto& spec : expand_shape_specs({"@latency-sweep"})) {
    std::string id = "as-fast-as-cudnn-";  // the spec with ':' as '-' and no '=' (1x8x512x64-causal)
    for (char c : spec)
      if (c != '=') id += c == ':' ? '-' : c;
    p.claims.push_back(claim(id,
                             "As fast as cuDNN at " + spec +
                                 ", paired: the lower bound of t_cudnn / t_d5 at least the 0.98 "
                                 "non-inferiority margin.")
                           .at(spec)
                           .paired_as_fast_as("cudnn")
                           .source("kernels/TARGETS.md: the latency phase over @latency-sweep"));
  }
}

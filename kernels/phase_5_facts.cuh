// What the declarations of phase 5 (kernels/phase_5_wgmma.cu) and of its LSE variant 5lse
// (kernels/phase_5lse_wgmma.cu) say of their kernels at a shape: the work items, the workspace's
// bytes, the launch geometry and the tensor-core work of an issue span of the traits that Pick chooses per shape and SM count, the one
// choice their launches read too. Pick::with<D>(s, sms, fn) calls fn with the TraitsTag of the
// shape's traits on a GPU of `sms` SMs.
// Included by those files only: its namespace is anonymous, like the rest of a phase's
// translation unit. The callers refuse the shapes their phase cannot run first.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "kernels/phase_5_launch.cuh"

namespace attnlab::phase_5 {
namespace {

template <class Pick, class Fn>
auto with_picked(const Shape& s, int sms, Fn&& fn) {
  return s.D == 64 ? Pick::template with<64>(s, sms, fn) : Pick::template with<128>(s, sms, fn);
}

template <class Pick>
std::int64_t work_items_with(const Shape& s, int sms) {
  return with_picked<Pick>(s, sms, [&](auto tag) {
    return std::int64_t(ceil_div(s.S, decltype(tag)::type::kTileQ)) * s.B * s.H;
  });
}

// The traits depend on the SM count (short grids at D = 64), which a workspace's size may not ask
// for (no GPU): the larger of the layouts of one SM, where no grid is short, and of unboundedly
// many, where every grid is.
template <class Pick>
std::size_t workspace_bytes_with(const Shape& s) {
  const auto at = [&](int sms) {
    return with_picked<Pick>(s, sms, [&](auto tag) { return scratch_layout_of<typename decltype(tag)::type>(s).bytes; });
  };
  return std::max(at(1), at(1 << 30));
}

template <class Pick>
LaunchGeometry launch_geometry_with(const Shape& s, int sms) {
  return with_picked<Pick>(s, sms, [&](auto tag) { return geometry_of<typename decltype(tag)::type>(s, sms); });
}

template <class Pick>
TensorIssueWork tensor_issue_work_with(const Shape& s, int sms) {
  return with_picked<Pick>(s, sms, [&](auto tag) { return issue_work_of<typename decltype(tag)::type>(); });
}

}  // namespace
}  // namespace attnlab::phase_5

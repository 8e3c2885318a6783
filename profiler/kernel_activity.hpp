// Device start and end of every kernel from CUPTI activity records, tagged with the caller's
// sample id: kernel time without launch overhead or host jitter. Host-only; links CUPTI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attnlab::profiler {

// The CUPTI version this process loaded (cuptiGetVersion), for the record's provenance.
std::uint32_t cupti_version();

struct KernelRecord {
  std::uint64_t tag;             // innermost tag pushed on the launching thread, 0 if none
  std::uint64_t start_ns;        // [ns] device timestamp, CUPTI clock
  std::uint64_t end_ns;          // [ns] device timestamp, CUPTI clock
  std::uint32_t correlation_id;  // CUPTI's id of the launching API call; a graph's kernels share it
  std::uint32_t graph_id;        // 0 when not launched from a graph
  std::string name;              // as CUPTI reports it: mangled for C++ kernels, not demangled
  int grid_x, grid_y, grid_z;
  int block_x, block_y, block_z;
  int registers_per_thread;
  std::int64_t static_smem_bytes;   // [bytes] per block
  std::int64_t dynamic_smem_bytes;  // [bytes] per block
};

namespace detail {
struct ActivityState;
}

// CUPTI's activity buffers, callbacks and enabled kinds are process-wide, so at most one
// KernelActivity may be alive: a second constructor throws std::logic_error. Keep it alive
// only around the kernel-time regime: CUPTI tracing adds host overhead to every CUDA API call,
// which would bias the per-call (event) regimes.
class KernelActivity {
 public:
  // Throws CudaError when no GPU is usable and CuptiError (with a hint) when CUPTI refuses
  // activity tracing, e.g. another profiler is attached.
  KernelActivity();
  // Delivers and frees every outstanding buffer and disables tracing; reports failures on
  // stderr instead of throwing.
  ~KernelActivity();
  KernelActivity(const KernelActivity&) = delete;
  KernelActivity& operator=(const KernelActivity&) = delete;
  KernelActivity(KernelActivity&&) = delete;
  KernelActivity& operator=(KernelActivity&&) = delete;

  // Kernels launched by this thread until the matching pop_tag() carry `tag` (nested pushes:
  // the innermost). CUPTI keeps the tag stack per thread, so push, launch and pop on one
  // thread. Tag 0 is refused (std::invalid_argument): it means "no tag" in KernelRecord.
  void push_tag(std::uint64_t tag);
  void pop_tag();

  // The kernels completed since the previous collect(), sorted by start. The caller must have
  // synchronised every stream that ran them (cudaDeviceSynchronize): CUPTI writes a kernel's
  // timestamps only when it completes. Throws std::runtime_error when CUPTI dropped or could
  // not complete records since the previous collect(), since a silently incomplete sample
  // set would bias the statistics; the records of that window are discarded.
  std::vector<KernelRecord> collect();

 private:
  std::unique_ptr<detail::ActivityState> state_;
};

// Suspends the live KernelActivity's tracing for its scope (a no-op when none is alive), so
// that the kernels the range profiler replays and the static-facts launch neither meet CUPTI
// activity instrumentation nor leave records in a timing window. Throws CuptiError when CUPTI
// refuses to disable a kind; re-enabling failures are reported on stderr.
class ActivityPause {
 public:
  ActivityPause();
  ~ActivityPause();
  ActivityPause(const ActivityPause&) = delete;
  ActivityPause& operator=(const ActivityPause&) = delete;
  ActivityPause(ActivityPause&&) = delete;
  ActivityPause& operator=(ActivityPause&&) = delete;

 private:
  std::size_t disabled_ = 0;  // kinds this pause disabled, re-enabled by the destructor
};

// Tags the kernels launched in its scope; the pop cannot throw, so a failing pop (a push/pop
// mismatch elsewhere) is reported on stderr.
class TagScope {
 public:
  TagScope(KernelActivity& activity, std::uint64_t tag);
  ~TagScope();
  TagScope(const TagScope&) = delete;
  TagScope& operator=(const TagScope&) = delete;
  TagScope(TagScope&&) = delete;
  TagScope& operator=(TagScope&&) = delete;

 private:
  KernelActivity& activity_;
};

}  // namespace attnlab::profiler

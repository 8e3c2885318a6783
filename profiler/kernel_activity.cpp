// CUPTI activity tracing behind KernelActivity: buffer callbacks, record parsing, and the join
// of kernel records with the external-correlation records that carry the caller's tags.
#include "profiler/kernel_activity.hpp"

#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "common/check.hpp"
#include "profiler/detail/cupti_check.hpp"

namespace attnlab::profiler {

namespace {

// CUPTI recommends activity buffers of 1-10 MB. A tagged launch costs a few hundred bytes of
// records (a 216-byte kernel record, 40 bytes per traced API call, 24 per correlation
// record), so one buffer holds some 20k samples and a sampling window rarely needs a second.
constexpr std::size_t kBufferBytes = std::size_t{8} << 20;  // [bytes]
// CUPTI requires activity buffers aligned to its record alignment (8 bytes).
constexpr std::size_t kBufferAlign = ACTIVITY_RECORD_ALIGNMENT;  // [bytes]
static_assert(kBufferBytes % kBufferAlign == 0,
              "std::aligned_alloc needs a size that is a multiple of the alignment");

// CUSTOM0 is reserved for tools like this one; CUPTI keeps one tag stack per kind and thread.
constexpr CUpti_ExternalCorrelationKind kTagKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;

// Enabled in this order, disabled in reverse.
constexpr CUpti_ActivityKind kKinds[] = {
    // The timings. CONCURRENT_KERNEL, unlike KIND_KERNEL, does not serialise kernels.
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    // Never read, but CUPTI emits an external-correlation record only for an API call it
    // traces as an activity record. Runtime launches (<<<>>>, cudaGraphLaunch) are traced as
    // runtime records, libraries that call cuLaunchKernel directly only as driver records.
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,
};
constexpr std::size_t kNumKinds = std::size(kKinds);

struct FreeBuffer {
  void operator()(std::uint8_t* buffer) const noexcept { std::free(buffer); }
};

void warn_on_failure(CUptiResult code, const char* call) {
  if (code != CUPTI_SUCCESS) {
    std::fprintf(stderr, "attnlab: warning: %s failed: %s\n", call,
                 CuptiError::describe(code).c_str());
  }
}

}  // namespace

namespace detail {

struct ActivityState {
  struct Tag {
    std::uint64_t tag;
    std::uint64_t generation;  // collect() calls made before the record arrived
  };

  std::vector<KernelRecord> pending;  // delivered since the last collect(), tags not joined yet
  // correlation id -> tag. Kept across one further collect(): a kernel launched after the
  // caller's synchronisation arrives in the next window, after its correlation record.
  std::unordered_map<std::uint32_t, Tag> tags;
  std::uint64_t generation = 0;
  std::size_t incomplete = 0;  // records CUPTI could not complete, or that could not be stored

  // Runs inside a CUPTI callback, so nothing may escape it.
  void parse(std::uint8_t* buffer, std::size_t valid_bytes) noexcept {
    try {
      CUpti_Activity* record = nullptr;
      for (;;) {
        const CUptiResult status = cuptiActivityGetNextRecord(buffer, valid_bytes, &record);
        if (status == CUPTI_ERROR_MAX_LIMIT_REACHED) return;  // end of the buffer
        if (status != CUPTI_SUCCESS) {
          // CUPTI_ERROR_INVALID_KIND: a record still being written, which a forced flush
          // hands over when the device was not synchronised; the rest is unreadable.
          ++incomplete;
          return;
        }
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
          // cupti_activity.h: CUPTI 13 delivers CONCURRENT_KERNEL as CUpti_ActivityKernel10.
          add_kernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(record));
        } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
          const auto& correlation =
              *reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
          if (correlation.externalKind == kTagKind) {
            tags[correlation.correlationId] = Tag{correlation.externalId, generation};
          }
        }
      }
    } catch (...) {  // std::bad_alloc: a record that cannot be stored is a record lost
      ++incomplete;
    }
  }

  void add_kernel(const CUpti_ActivityKernel10& kernel) {
    // Zero timestamps: CUPTI had no device memory to record them.
    if (kernel.start == 0 || kernel.end < kernel.start) {
      ++incomplete;
      return;
    }
    KernelRecord r;
    r.tag = 0;
    r.start_ns = kernel.start;
    r.end_ns = kernel.end;
    r.correlation_id = kernel.correlationId;
    r.graph_id = kernel.graphId;
    r.name = kernel.name != nullptr ? kernel.name : "";
    r.grid_x = kernel.gridX;
    r.grid_y = kernel.gridY;
    r.grid_z = kernel.gridZ;
    r.block_x = kernel.blockX;
    r.block_y = kernel.blockY;
    r.block_z = kernel.blockZ;
    r.registers_per_thread = kernel.registersPerThread;
    r.static_smem_bytes = kernel.staticSharedMemory;
    r.dynamic_smem_bytes = kernel.dynamicSharedMemory;
    pending.push_back(std::move(r));
  }
};

}  // namespace detail

namespace {

// CUPTI's callbacks are plain functions that may run on CUPTI's own thread, so they reach
// the single live instance through this pointer, under this mutex.
std::mutex g_mutex;
detail::ActivityState* g_state = nullptr;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  // Declining (null) makes CUPTI drop records, which collect() then reports.
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // fill the buffer
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                               std::size_t valid_bytes) {
  const std::unique_ptr<std::uint8_t, FreeBuffer> owned(buffer);
  const std::lock_guard<std::mutex> lock(g_mutex);
  // Null after the owner's destructor: the buffer is only freed.
  if (g_state != nullptr) g_state->parse(buffer, valid_bytes);
}

// Undoes the first `enabled` kinds of kKinds and detaches the state from the callbacks.
void release(std::size_t enabled) {
  for (std::size_t i = enabled; i-- > 0;) {
    warn_on_failure(cuptiActivityDisable(kKinds[i]), "cuptiActivityDisable");
  }
  // Hands back every buffer CUPTI holds, so none leaks.
  if (enabled > 0) {
    warn_on_failure(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED),
                    "cuptiActivityFlushAll");
  }
  const std::lock_guard<std::mutex> lock(g_mutex);
  g_state = nullptr;
}

}  // namespace

KernelActivity::KernelActivity() : state_(std::make_unique<detail::ActivityState>()) {
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (g_state != nullptr) {
      throw std::logic_error(
          "attnlab::profiler::KernelActivity: one is already alive, and CUPTI activity tracing "
          "is process-wide");
    }
    g_state = state_.get();
  }
  std::size_t enabled = 0;
  try {
    // CUPTI reports a missing driver or GPU only as CUPTI_ERROR_UNKNOWN; the runtime names it.
    int devices = 0;
    ATTNLAB_CUDA_CHECK(cudaGetDeviceCount(&devices));
    ATTNLAB_CUPTI_CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    for (const CUpti_ActivityKind kind : kKinds) {
      ATTNLAB_CUPTI_CHECK(cuptiActivityEnable(kind));
      ++enabled;
    }
  } catch (const CuptiError& e) {
    release(enabled);
    const std::string fix = CuptiError::fix(e.code());
    throw CuptiError(e.code(), "attnlab::profiler::KernelActivity: CUPTI activity tracing is unavailable" +
                                   (fix.empty() ? std::string() : " (" + fix + ")") + ": " + e.what());
  } catch (...) {
    release(enabled);
    throw;
  }
}

KernelActivity::~KernelActivity() { release(kNumKinds); }

void KernelActivity::push_tag(std::uint64_t tag) {
  if (tag == 0) {
    throw std::invalid_argument(
        "attnlab::profiler::KernelActivity::push_tag: tag 0 is reserved for untagged kernels");
  }
  ATTNLAB_CUPTI_CHECK(cuptiActivityPushExternalCorrelationId(kTagKind, tag));
}

void KernelActivity::pop_tag() {
  ATTNLAB_CUPTI_CHECK(cuptiActivityPopExternalCorrelationId(kTagKind, nullptr));
}

std::vector<KernelRecord> KernelActivity::collect() {
  // Forced: also hands over buffers that are not full. It runs the completion callback,
  // which takes g_mutex, so the mutex is not held here.
  ATTNLAB_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  // CUPTI resets the count on every read, so each window is judged on its own drops.
  std::size_t dropped = 0;
  ATTNLAB_CUPTI_CHECK(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped));

  std::vector<KernelRecord> kernels;
  std::size_t incomplete = 0;
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    detail::ActivityState& state = *state_;
    kernels.swap(state.pending);
    incomplete = std::exchange(state.incomplete, 0);
    // Not erased on a match: all kernels of one graph launch share its correlation id.
    for (KernelRecord& kernel : kernels) {
      const auto it = state.tags.find(kernel.correlation_id);
      if (it != state.tags.end()) kernel.tag = it->second.tag;
    }
    // A tagged API call that launched no kernel (an event record, a memset) leaves an entry
    // nothing will match; dropping entries after their second collect() bounds the map.
    for (auto it = state.tags.begin(); it != state.tags.end();) {
      it = it->second.generation < state.generation ? state.tags.erase(it) : std::next(it);
    }
    ++state.generation;
  }

  if (dropped != 0 || incomplete != 0) {
    throw std::runtime_error(
        "attnlab::profiler::KernelActivity::collect: CUPTI dropped " + std::to_string(dropped) +
        " and could not complete " + std::to_string(incomplete) +
        " activity records since the previous collect(); the window's " +
        std::to_string(kernels.size()) +
        " kernel records are discarded (synchronise the device before collect(), and collect "
        "more often if buffers ran out)");
  }
  std::sort(kernels.begin(), kernels.end(), [](const KernelRecord& a, const KernelRecord& b) {
    return a.start_ns < b.start_ns;
  });
  return kernels;
}

ActivityPause::ActivityPause() {
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (g_state == nullptr) return;
  }
  try {
    for (std::size_t i = kNumKinds; i-- > 0;) {
      ATTNLAB_CUPTI_CHECK(cuptiActivityDisable(kKinds[i]));
      ++disabled_;
    }
  } catch (...) {
    for (std::size_t i = kNumKinds - disabled_; i < kNumKinds; ++i) {
      warn_on_failure(cuptiActivityEnable(kKinds[i]), "cuptiActivityEnable");
    }
    throw;
  }
}

ActivityPause::~ActivityPause() {
  for (std::size_t i = kNumKinds - disabled_; i < kNumKinds; ++i) {
    warn_on_failure(cuptiActivityEnable(kKinds[i]), "cuptiActivityEnable");
  }
}

TagScope::TagScope(KernelActivity& activity, std::uint64_t tag) : activity_(activity) {
  activity_.push_tag(tag);
}

TagScope::~TagScope() {
  try {
    activity_.pop_tag();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab: warning: %s\n", e.what());
  }
}

std::uint32_t cupti_version() {
  std::uint32_t v = 0;
  ATTNLAB_CUPTI_CHECK(cuptiGetVersion(&v));
  return v;
}

}  // namespace attnlab::profiler

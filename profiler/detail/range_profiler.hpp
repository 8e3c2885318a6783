// The range profiler's CUPTI plumbing for the counter groups (metrics.cpp): parameter structs
// made as CUPTI requires, refusals as reasons, and RAII for its host object, session and pass.
#pragma once

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>

#include <cstdio>
#include <string>

#include "profiler/detail/cupti_check.hpp"

namespace attnlab::profiler::detail {

// CUPTI parameter structs: zeroed, with structSize set, as every CUPTI call requires.
template <class T>
inline T params(std::size_t struct_size) {
  T p{};
  p.structSize = struct_size;
  return p;
}
#define ATTNLAB_CUPTI_PARAMS(T) ::attnlab::profiler::detail::params<T>(T##_STRUCT_SIZE)

// True (and `why` set) when `code` is a failure.
inline bool failed(CUptiResult code, const char* call, std::string& why) {
  if (code == CUPTI_SUCCESS) return false;
  why = CuptiError::refusal(call, code);
  return true;
}

inline void warn_on_failure(CUptiResult code, const char* call) {
  if (code != CUPTI_SUCCESS)
    std::fprintf(stderr, "attnlab: warning: %s failed: %s\n", call, CuptiError::describe(code).c_str());
}

class HostObject {
 public:
  HostObject() = default;
  ~HostObject() {
    if (object == nullptr) return;
    auto p = ATTNLAB_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    p.pHostObject = object;
    warn_on_failure(cuptiProfilerHostDeinitialize(&p), "cuptiProfilerHostDeinitialize");
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  CUpti_Profiler_Host_Object* object = nullptr;
};

class RangeProfiler {
 public:
  RangeProfiler() = default;
  ~RangeProfiler() {
    if (object == nullptr) return;
    auto p = ATTNLAB_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
    p.pRangeProfilerObject = object;
    warn_on_failure(cuptiRangeProfilerDisable(&p), "cuptiRangeProfilerDisable");
  }
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;
  CUpti_RangeProfiler_Object* object = nullptr;
};

// Closes a pass left open when a launch throws between start and stop.
class OpenPass {
 public:
  explicit OpenPass(CUpti_RangeProfiler_Object* object) : object_(object) {}
  ~OpenPass() {
    if (pushed) {
      auto p = ATTNLAB_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params);
      p.pRangeProfilerObject = object_;
      warn_on_failure(cuptiRangeProfilerPopRange(&p), "cuptiRangeProfilerPopRange");
    }
    if (started) {
      auto p = ATTNLAB_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
      p.pRangeProfilerObject = object_;
      warn_on_failure(cuptiRangeProfilerStop(&p), "cuptiRangeProfilerStop");
    }
  }
  OpenPass(const OpenPass&) = delete;
  OpenPass& operator=(const OpenPass&) = delete;
  bool started = false;
  bool pushed = false;

 private:
  CUpti_RangeProfiler_Object* object_;
};

}  // namespace attnlab::profiler::detail

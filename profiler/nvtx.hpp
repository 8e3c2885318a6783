// NVTX ranges in the "attnlab" domain: Nsight Systems shows which sample and regime a kernel
// belongs to, and Nsight Compute selects kernels by range (--nvtx --nvtx-include). Header-only.
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <string>

namespace attnlab::profiler {

// A domain of its own keeps the project's ranges apart from those cuDNN and cuBLAS push, and
// gives filters a stable prefix ("attnlab@..."). Created once, on first use: each create
// registers a domain with the attached tool.
inline nvtxDomainHandle_t nvtx_domain() {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA("attnlab");
  return domain;
}

// A push/pop range, named by the caller like "4/16x16x2048x64/cold". NVTX keeps one range
// stack per thread and domain, so the range must end on the thread that began it. The name
// is copied by the tool at push time, so a temporary string is fine.
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) : NvtxRange(name.c_str()) {}
  explicit NvtxRange(const char* name) {
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = name;
    // The returned depth is informational: with no tool attached it is a sentinel, not an
    // error, and a range that fails to record must not stop the measurement.
    nvtxDomainRangePushEx(nvtx_domain(), &attributes);
  }
  ~NvtxRange() { nvtxDomainRangePop(nvtx_domain()); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
  NvtxRange(NvtxRange&&) = delete;
  NvtxRange& operator=(NvtxRange&&) = delete;
};

}  // namespace attnlab::profiler

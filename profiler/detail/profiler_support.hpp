// Why cuptiProfilerDeviceSupported said no, in words, for the counter groups (metrics.cpp) and
// the SASS counts (sass_metrics.cpp). Host-only.
#pragma once

#include <cupti_profiler_target.h>

#include <string>

namespace attnlab::profiler::detail {

// "<api> is not supported on this device configuration (architecture, vGPU ...)": the support
// levels CUPTI reported unsupported or disabled.
inline std::string unsupported_configuration(const CUpti_Profiler_DeviceSupported_Params& p, const std::string& api) {
  std::string why;
  const auto add = [&why](CUpti_Profiler_Support_Level level, const char* what) {
    if (level == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED || level == CUPTI_PROFILER_CONFIGURATION_DISABLED)
      why += std::string(why.empty() ? "" : ", ") + what;
  };
  add(p.architecture, "architecture");
  add(p.sli, "SLI");
  add(p.vGpu, "vGPU (profiling not enabled for this vGPU)");
  add(p.confidentialCompute, "confidential computing");
  add(p.cmp, "CMP device");
  add(p.wsl, "WSL");
  return api + " is not supported on this device configuration (" + (why.empty() ? std::string("no reason given") : why) +
         ")";
}

}  // namespace attnlab::profiler::detail

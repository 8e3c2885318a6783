// libnvperf_host loaded on demand for CUPTI's profiler API (nvperf_host.hpp).
#include "profiler/detail/nvperf_host.hpp"

#include <dlfcn.h>

namespace attnlab::profiler::detail {

void preload_nvperf_host() {
  // RTLD_GLOBAL and never closed: CUPTI resolves the library's symbols for the process's life.
  static void* const lib = dlopen("libnvperf_host.so", RTLD_NOW | RTLD_GLOBAL);
  (void)lib;
}

}  // namespace attnlab::profiler::detail

// The few CUDA driver functions the metrics collector and static facts need, reached through
// the runtime's entry-point query instead of linking libcuda: the experiment binaries must
// still start, and exit 3 with one line, on a machine without a driver.
#pragma once

#include <cuda.h>

#include <string>

namespace attnlab::profiler::detail {

struct DriverApi {
  CUresult(CUDAAPI* ctx_get_current)(CUcontext*) = nullptr;
  CUresult(CUDAAPI* func_get_attribute)(int*, CUfunction_attribute, CUfunction) = nullptr;
  CUresult(CUDAAPI* func_get_name)(const char**, CUfunction) = nullptr;
  CUresult(CUDAAPI* kernel_get_function)(CUfunction*, CUkernel) = nullptr;
  CUresult(CUDAAPI* occupancy_max_active_blocks)(int*, CUfunction, int, size_t) = nullptr;
  CUresult(CUDAAPI* get_error_name)(CUresult, const char**) = nullptr;

  // "CUDA_ERROR_X", or the number when the name is unknown.
  std::string describe(CUresult code) const;
};

// Resolved once; throws attnlab::CudaError when the runtime cannot find a symbol.
const DriverApi& driver_api();

}  // namespace attnlab::profiler::detail

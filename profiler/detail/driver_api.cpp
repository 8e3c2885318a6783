// Driver entry points through cudaGetDriverEntryPointByVersion, each at the ABI version its
// typedef in cudaTypedefs.h names.
#include "profiler/detail/driver_api.hpp"

#include <cuda_runtime.h>

#include "common/check.hpp"

namespace attnlab::profiler::detail {
namespace {

template <class Fn>
void resolve(Fn& fn, const char* symbol, unsigned int version) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  ATTNLAB_CUDA_CHECK(cudaGetDriverEntryPointByVersion(symbol, &p, version, cudaEnableDefault, &status));
  if (status != cudaDriverEntryPointSuccess || p == nullptr) {
    throw CudaError(cudaErrorSymbolNotFound, symbol, __FILE__, __LINE__);
  }
  fn = reinterpret_cast<Fn>(p);
}

DriverApi load() {
  DriverApi api;
  resolve(api.ctx_get_current, "cuCtxGetCurrent", 4000);
  resolve(api.func_get_attribute, "cuFuncGetAttribute", 2020);
  resolve(api.func_get_name, "cuFuncGetName", 12030);
  resolve(api.kernel_get_function, "cuKernelGetFunction", 12000);
  resolve(api.occupancy_max_active_blocks, "cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050);
  resolve(api.get_error_name, "cuGetErrorName", 6000);
  return api;
}

}  // namespace

std::string DriverApi::describe(CUresult code) const {
  const char* name = nullptr;
  if (get_error_name != nullptr && get_error_name(code, &name) == CUDA_SUCCESS && name != nullptr)
    return name;
  return "CUresult " + std::to_string(static_cast<int>(code));
}

const DriverApi& driver_api() {
  static const DriverApi api = load();
  return api;
}

}  // namespace attnlab::profiler::detail

// experiments/harness/gpu_attributes.hpp: the runtime's device queries, none of which creates a context.
#include "experiments/harness/gpu_attributes.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <stdexcept>

#include "common/check.hpp"

namespace attnlab {

namespace {

// Why cudaGetDeviceCount found no device, in a newcomer's words: without a driver the runtime
// says "CUDA driver version is insufficient", which reads as an old driver rather than none.
std::string no_device_reason(cudaError_t e) {
  // The runtime dlopens the driver; not loaded after the call means none is installed.
  const bool driver_loaded = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) != nullptr;
  if (!driver_loaded) return "no NVIDIA driver found (libcuda.so.1 cannot be loaded)";
  if (e == cudaSuccess || e == cudaErrorNoDevice) return "the NVIDIA driver found no GPU";
  return cudaGetErrorString(e);
}

}  // namespace

std::optional<std::string> missing_cuda_device(int ordinal) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) return "no CUDA device: " + no_device_reason(e);
  if (ordinal < 0 || ordinal >= count)
    return "no CUDA device " + std::to_string(ordinal) + " (found " + std::to_string(count) + ")";
  return std::nullopt;
}

GpuAttributes gpu_attributes(int ordinal) {
  if (const auto why = missing_cuda_device(ordinal)) throw std::runtime_error(*why);
  cudaDeviceProp p{};
  ATTNLAB_CUDA_CHECK(cudaGetDeviceProperties(&p, ordinal));
  int sm_khz = 0, mem_khz = 0, bus_bits = 0;
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, ordinal));
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, ordinal));
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, ordinal));
  GpuAttributes a;
  a.name = p.name;
  for (int i = 0; i < 16; ++i) a.uuid[i] = static_cast<unsigned char>(p.uuid.bytes[i]);
  a.cc_major = p.major;
  a.cc_minor = p.minor;
  a.sm_count = p.multiProcessorCount;
  a.sm_clock_khz = sm_khz;
  a.mem_clock_khz = mem_khz;
  a.bus_width_bits = bus_bits;
  a.l2_bytes = p.l2CacheSize;
  a.global_mem_bytes = p.totalGlobalMem;
  a.smem_per_sm_bytes = p.sharedMemPerMultiprocessor;
  return a;
}

int driver_version() {
  int v = 0;
  ATTNLAB_CUDA_CHECK(cudaDriverGetVersion(&v));
  return v;
}

}  // namespace attnlab

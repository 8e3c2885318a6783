// Static facts: CUPTI launch callbacks record which functions one launch starts, then the
// driver reports each function's attributes and occupancy.
//
// CUDA 13 compiles <<<>>> to __cudaLaunchKernel(cudaKernel_t, ...); libraries call the driver
// (cuLaunchKernel, cuLaunchKernelEx) directly. Both domains are subscribed. A driver launch
// made while a runtime launch callback is open on the same thread is that runtime launch
// seen one level down, and supplies its CUfunction; any other driver launch is a kernel of
// its own.
#include "profiler/static_facts.hpp"

#include <cuda.h>
#include <cupti.h>  // with the launch parameter structs of generated_cuda*_meta.h

#include <cstddef>
#include <cstdio>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>

#include "common/check.hpp"
#include "profiler/detail/cupti_check.hpp"
#include "profiler/detail/driver_api.hpp"
#include "profiler/kernel_activity.hpp"

namespace attnlab::profiler {
namespace {

// cupti_runtime_cbid.h has CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 but
// generated_cuda_runtime_api_meta.h (CUDA 13.0) declares no parameter struct for it. CUPTI's
// parameter structs list a function's parameters in order, and the signature in
// crt/device_functions.h is (cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t): the
// layout of cudaLaunchKernel_v7000_params with a kernel handle in place of the stub.
struct LaunchKernelV13000Params {
  cudaKernel_t kernel;
  dim3 gridDim;
  dim3 blockDim;
  void** args;
  size_t sharedMem;
  cudaStream_t stream;
};
static_assert(sizeof(LaunchKernelV13000Params) == sizeof(cudaLaunchKernel_v7000_params) &&
                  offsetof(LaunchKernelV13000Params, gridDim) ==
                      offsetof(cudaLaunchKernel_v7000_params, gridDim) &&
                  offsetof(LaunchKernelV13000Params, sharedMem) ==
                      offsetof(cudaLaunchKernel_v7000_params, sharedMem),
              "__cudaLaunchKernel parameters must lay out like cudaLaunchKernel's");

enum class Handle { kNone, kStub, kKernel, kFunction };

struct Launch {
  Handle kind = Handle::kNone;
  const void* handle = nullptr;  // host stub, CUkernel or CUfunction, per `kind`
  std::array<unsigned, 3> grid{};
  std::array<unsigned, 3> block{};
  std::int64_t dynamic_smem_bytes = 0;
  std::string symbol;  // CUPTI's symbolName
  std::string api;     // CUPTI's functionName
  bool open = false;   // a runtime launch whose callback has not exited yet
};

struct Capture {
  std::mutex mutex;
  std::vector<Launch> launches;
  bool failed = false;  // a callback could not record (allocation failure)
};

// Runtime launch callbacks open on this thread; CUPTI calls back on the launching thread.
thread_local int t_runtime_depth = 0;

std::array<unsigned, 3> dims(const dim3& d) { return {d.x, d.y, d.z}; }

void set_from_runtime(Launch& l, CUpti_CallbackId cbid, const void* params) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000: {
      const auto& p = *static_cast<const LaunchKernelV13000Params*>(params);
      l.kind = Handle::kKernel;
      l.handle = p.kernel;
      l.grid = dims(p.gridDim);
      l.block = dims(p.blockDim);
      l.dynamic_smem_bytes = std::int64_t(p.sharedMem);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
      // The _ptsz struct has the same members in the same order.
      const auto& p = *static_cast<const cudaLaunchKernel_v7000_params*>(params);
      l.kind = Handle::kStub;
      l.handle = p.func;
      l.grid = dims(p.gridDim);
      l.block = dims(p.blockDim);
      l.dynamic_smem_bytes = std::int64_t(p.sharedMem);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
      const auto& p = *static_cast<const cudaLaunchKernelExC_v11060_params*>(params);
      l.kind = Handle::kStub;
      l.handle = p.func;
      if (p.config != nullptr) {
        l.grid = dims(p.config->gridDim);
        l.block = dims(p.config->blockDim);
        l.dynamic_smem_bytes = std::int64_t(p.config->dynamicSmemBytes);
      }
      return;
    }
    default:
      return;
  }
}

// Fills the CUfunction and configuration of a driver launch; false for a cbid not handled.
bool set_from_driver(Launch& l, CUpti_CallbackId cbid, const void* params) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      // All four start with f, the grid, the block and sharedMemBytes, in that order.
      const auto& p = *static_cast<const cuLaunchKernel_params*>(params);
      l.kind = Handle::kFunction;
      l.handle = p.f;
      l.grid = {p.gridDimX, p.gridDimY, p.gridDimZ};
      l.block = {p.blockDimX, p.blockDimY, p.blockDimZ};
      l.dynamic_smem_bytes = p.sharedMemBytes;
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto& p = *static_cast<const cuLaunchKernelEx_params*>(params);
      l.kind = Handle::kFunction;
      l.handle = p.f;
      if (p.config != nullptr) {
        l.grid = {p.config->gridDimX, p.config->gridDimY, p.config->gridDimZ};
        l.block = {p.config->blockDimX, p.config->blockDimY, p.config->blockDimZ};
        l.dynamic_smem_bytes = p.config->sharedMemBytes;
      }
      return true;
    }
    default:
      return false;
  }
}

static_assert(offsetof(cuLaunchCooperativeKernel_params, sharedMemBytes) ==
                      offsetof(cuLaunchKernel_params, sharedMemBytes) &&
                  offsetof(cuLaunchKernel_ptsz_params, sharedMemBytes) ==
                      offsetof(cuLaunchKernel_params, sharedMemBytes) &&
                  offsetof(cuLaunchCooperativeKernel_ptsz_params, sharedMemBytes) ==
                      offsetof(cuLaunchKernel_params, sharedMemBytes),
              "driver launch parameter structs must share cuLaunchKernel's prefix");
static_assert(offsetof(cudaLaunchKernel_ptsz_v7000_params, sharedMem) ==
                  offsetof(cudaLaunchKernel_v7000_params, sharedMem),
              "cudaLaunchKernel_ptsz parameters must lay out like cudaLaunchKernel's");
static_assert(offsetof(cudaLaunchKernelExC_ptsz_v11060_params, func) ==
                  offsetof(cudaLaunchKernelExC_v11060_params, func),
              "cudaLaunchKernelExC_ptsz parameters must lay out like cudaLaunchKernelExC's");

constexpr std::pair<CUpti_CallbackDomain, CUpti_CallbackId> kCallbacks[] = {
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz},
};

// Runs inside CUPTI, so nothing may escape it.
void CUPTIAPI on_launch(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                        const void* cbdata) noexcept {
  auto& capture = *static_cast<Capture*>(userdata);
  const auto& data = *static_cast<const CUpti_CallbackData*>(cbdata);
  try {
    const std::lock_guard<std::mutex> lock(capture.mutex);
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
      if (data.callbackSite == CUPTI_API_ENTER) {
        Launch l;
        l.api = data.functionName != nullptr ? data.functionName : "";
        l.symbol = data.symbolName != nullptr ? data.symbolName : "";
        if (data.functionParams != nullptr) set_from_runtime(l, cbid, data.functionParams);
        l.open = true;
        // A runtime launch inside another is the same launch: keep the first that names a
        // function.
        if (t_runtime_depth > 0 && !capture.launches.empty() && capture.launches.back().open) {
          Launch& outer = capture.launches.back();
          if (outer.kind == Handle::kNone) outer = std::move(l);
        } else {
          capture.launches.push_back(std::move(l));
        }
        ++t_runtime_depth;
      } else if (t_runtime_depth > 0 && --t_runtime_depth == 0 && !capture.launches.empty()) {
        capture.launches.back().open = false;
      }
      return;
    }
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API || data.callbackSite != CUPTI_API_ENTER) return;
    Launch driver;
    if (data.functionParams == nullptr || !set_from_driver(driver, cbid, data.functionParams)) return;
    driver.api = data.functionName != nullptr ? data.functionName : "";
    driver.symbol = data.symbolName != nullptr ? data.symbolName : "";
    if (t_runtime_depth > 0 && !capture.launches.empty() && capture.launches.back().open) {
      // The open runtime launch, one level down: keep its API name, take the driver's handle.
      Launch& outer = capture.launches.back();
      outer.kind = driver.kind;
      outer.handle = driver.handle;
      outer.grid = driver.grid;
      outer.block = driver.block;
      outer.dynamic_smem_bytes = driver.dynamic_smem_bytes;
      if (outer.symbol.empty()) outer.symbol = driver.symbol;
    } else {
      capture.launches.push_back(std::move(driver));
    }
  } catch (...) {
    capture.failed = true;
  }
}

std::string cupti_reason(const char* call, CUptiResult code) {
  std::string hint;
  switch (code) {
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      hint = "another CUPTI client (nsys, ncu, DCGM) is attached: run without it";
      break;
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_UNKNOWN:
      hint = "no usable driver, or a libcupti that does not match the driver";
      break;
    default:
      hint = "see the CUPTI error";
  }
  return std::string(call) + " failed: " + CuptiError::describe(code) + "; " + hint;
}

class Subscription {
 public:
  explicit Subscription(Capture& capture) {
    code_ = cuptiSubscribe(&handle_, on_launch, &capture);
  }
  ~Subscription() {
    if (code_ == CUPTI_SUCCESS) {
      const CUptiResult code = cuptiUnsubscribe(handle_);
      if (code != CUPTI_SUCCESS)
        std::fprintf(stderr, "attnlab: warning: cuptiUnsubscribe failed: %s\n",
                     CuptiError::describe(code).c_str());
    }
  }
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;
  CUptiResult code() const { return code_; }
  CUpti_SubscriberHandle handle() const { return handle_; }

 private:
  CUpti_SubscriberHandle handle_ = nullptr;
  CUptiResult code_ = CUPTI_ERROR_UNKNOWN;
};

// The device properties that bound CTAs per SM, for the current device.
DeviceLimits device_limits() {
  int device = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&device));
  auto get = [&](cudaDeviceAttr attr) {
    int v = 0;
    ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&v, attr, device));
    return v;
  };
  DeviceLimits d;
  d.cc_major = get(cudaDevAttrComputeCapabilityMajor);
  d.cc_minor = get(cudaDevAttrComputeCapabilityMinor);
  d.sm_count = get(cudaDevAttrMultiProcessorCount);
  d.warp_size = get(cudaDevAttrWarpSize);
  d.max_threads_per_block = get(cudaDevAttrMaxThreadsPerBlock);
  d.max_threads_per_sm = get(cudaDevAttrMaxThreadsPerMultiProcessor);
  d.max_blocks_per_sm = get(cudaDevAttrMaxBlocksPerMultiprocessor);
  d.regs_per_sm = get(cudaDevAttrMaxRegistersPerMultiprocessor);
  d.regs_per_block = get(cudaDevAttrMaxRegistersPerBlock);
  d.smem_per_sm_bytes = get(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  d.smem_per_block_optin_bytes = get(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  d.reserved_smem_per_block_bytes = get(cudaDevAttrReservedSharedMemoryPerBlock);
  return d;
}

// The CUfunction a launch ran, from whichever handle CUPTI gave; false, with
// k.attributes_reason set, where it cannot be had (f stays nullptr where the launch named none).
bool function_of(const detail::DriverApi& api, const Launch& l, KernelFacts& k, CUfunction& f) {
  switch (l.kind) {
    case Handle::kFunction: {
      f = static_cast<CUfunction>(const_cast<void*>(l.handle));
      // The runtime passes a CUkernel where cuLaunchKernel takes a CUfunction; function
      // queries reject that handle (CUDA_ERROR_INVALID_HANDLE, seen on the H100 with CUDA
      // 13.0) until cuKernelGetFunction resolves it for the current context.
      int probe = 0;
      if (api.func_get_attribute(&probe, CU_FUNC_ATTRIBUTE_NUM_REGS, f) == CUDA_ERROR_INVALID_HANDLE) {
        CUfunction resolved = nullptr;
        if (api.kernel_get_function(&resolved, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS) f = resolved;
      }
      return true;
    }
    case Handle::kKernel: {
      const CUresult code = api.kernel_get_function(&f, static_cast<CUkernel>(const_cast<void*>(l.handle)));
      if (code == CUDA_SUCCESS) return true;
      k.attributes_reason = "cuKernelGetFunction failed: " + api.describe(code);
      return false;
    }
    case Handle::kStub: {
      cudaFunction_t rf = nullptr;
      const cudaError_t code = cudaGetFuncBySymbol(&rf, l.handle);
      if (code != cudaSuccess) {
        cudaGetLastError();  // the failed lookup must not surface at the next launch check
        k.attributes_reason = std::string("cudaGetFuncBySymbol failed: ") + cudaGetErrorName(code);
        return false;
      }
      f = rf;
      return true;
    }
    case Handle::kNone:
      break;
  }
  k.attributes_reason = "CUPTI reported the launch (" + l.api + ") without parameters this code can read";
  return false;
}

// The function's name (where CUPTI gave none), registers, memory, and the blocks per SM the
// driver's occupancy calculator allows; what the launch uses of an SM, or nullopt, with
// k.attributes_reason set, at a refusal.
std::optional<FunctionUse> function_attributes(const detail::DriverApi& api, CUfunction f, KernelFacts& k,
                                               const DeviceLimits& device) {
  if (k.name.empty()) {
    const char* name = nullptr;
    if (api.func_get_name(&name, f) == CUDA_SUCCESS && name != nullptr) k.name = name;
  }
  int regs = 0, smem = 0, local = 0, max_threads = 0;
  for (auto [attr, out] : {std::pair{CU_FUNC_ATTRIBUTE_NUM_REGS, &regs},
                           std::pair{CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &smem},
                           std::pair{CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &local},
                           std::pair{CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &max_threads}}) {
    const CUresult code = api.func_get_attribute(out, attr, f);
    if (code != CUDA_SUCCESS) {
      k.attributes_reason = "cuFuncGetAttribute failed: " + api.describe(code);
      return std::nullopt;
    }
  }
  k.registers = regs;
  k.static_smem_bytes = smem;
  k.local_bytes = local;
  k.max_threads_per_block = max_threads;
  const long long threads = 1LL * k.block[0] * k.block[1] * k.block[2];
  int blocks = 0;
  // Ignores thread-block clusters: for a cluster launch this is the per-block bound only.
  const CUresult code = api.occupancy_max_active_blocks(&blocks, f, int(threads), std::size_t(k.dynamic_smem_bytes));
  if (code != CUDA_SUCCESS) {
    k.attributes_reason = "cuOccupancyMaxActiveBlocksPerMultiprocessor failed: " + api.describe(code);
    return std::nullopt;
  }
  k.active_blocks_per_sm = blocks;
  const long long warps_per_block = (threads + device.warp_size - 1) / device.warp_size;
  k.theoretical_occupancy_pct =
      100.0 * double(blocks * warps_per_block) / (device.max_threads_per_sm / device.warp_size);
  FunctionUse use;
  use.threads_per_block = int(threads);
  use.registers_per_thread = regs;
  use.static_smem_bytes = smem;
  use.dynamic_smem_bytes = k.dynamic_smem_bytes;
  return use;
}

// Which resource sets the occupancy: each one's CTA limit, computed as CUDA's occupancy
// calculator does, and checked against the driver's answer (function_attributes).
void occupancy_of(const detail::DriverApi& api, CUfunction f, KernelFacts& k, const DeviceLimits& device,
                  FunctionUse use) {
  int carveout = -1;
  if (const CUresult c = api.func_get_attribute(&carveout, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, f);
      c != CUDA_SUCCESS) {
    k.occupancy_reason = "cuFuncGetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT) failed: " + api.describe(c);
    return;
  }
  k.carveout_pct = carveout;
  use.carveout_pct = carveout;
  k.occupancy = occupancy_limits(device, use, &k.occupancy_reason);
}

// Driver attributes and occupancy of one launched function.
void resolve(const Launch& l, KernelFacts& k, const DeviceLimits& device) {
  const detail::DriverApi* api = nullptr;
  try {
    api = &detail::driver_api();
  } catch (const std::exception& e) {
    k.attributes_reason = std::string("the CUDA driver lacks an entry point: ") + e.what();
    return;
  }
  CUfunction f = nullptr;
  if (!function_of(*api, l, k, f)) return;
  if (f == nullptr) {
    k.attributes_reason = "the launch named no function";
    return;
  }
  if (const auto use = function_attributes(*api, f, k, device)) occupancy_of(*api, f, k, device, *use);
}

}  // namespace

StaticFacts capture_static_facts(const LaunchFn& launch, cudaStream_t stream) {
  StaticFacts out;
  // Earlier work on the stream is not this launch's.
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  Capture capture;
  t_runtime_depth = 0;
  {
    std::optional<ActivityPause> pause;
    try {
      pause.emplace();
    } catch (const CuptiError& e) {
      out.reason = std::string("cannot pause CUPTI activity tracing for the capture: ") + e.what();
      return out;
    }
    Subscription sub(capture);
    if (sub.code() != CUPTI_SUCCESS) {
      out.reason = cupti_reason("cuptiSubscribe", sub.code());
      return out;
    }
    for (const auto& [domain, cbid] : kCallbacks) {
      const CUptiResult code = cuptiEnableCallback(1, sub.handle(), domain, cbid);
      if (code != CUPTI_SUCCESS) {
        out.reason = cupti_reason("cuptiEnableCallback", code);
        return out;
      }
    }
    launch(stream);
    ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  if (capture.failed) {
    out.reason = "a CUPTI launch callback could not record a launch (out of memory)";
    return out;
  }
  if (capture.launches.empty()) {
    out.reason = "CUPTI saw no kernel launch API call during the launch";
    return out;
  }
  out.device = device_limits();
  for (const Launch& l : capture.launches) {
    KernelFacts k;
    k.name = l.symbol;
    k.launch_api = l.api;
    k.grid = l.grid;
    k.block = l.block;
    k.dynamic_smem_bytes = l.dynamic_smem_bytes;
    resolve(l, k, *out.device);
    out.kernels.push_back(std::move(k));
  }
  out.available = true;
  return out;
}

}  // namespace attnlab::profiler

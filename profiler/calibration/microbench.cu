#include "profiler/calibration/microbench.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "common/check.hpp"
#include "common/hopper.cuh"

namespace attnlab::profiler::calibration {

namespace {

constexpr int kThreads = 256;  // block size of every kernel but wgmma's
// Independent accumulator chains per thread: enough to cover the FMA pipe's and the MUFU's
// latency at full occupancy without the loop waiting on its own results.
constexpr int kChains = 8;
constexpr int kUnroll = 8;  // loop bodies per iteration of the counted loops: loop overhead < 2%

// wgmma: two warpgroups per block, one block per SM, each warpgroup issuing m64n256k16 (fp16) or
// m64n256k32 (e4m3) with A (64 rows) and B (256 rows) of 128 bytes from shared memory, K-major
// with the 128-byte swizzle as phase 5 and phase f8 lay their tiles out. Either k-step reads 32
// bytes of each row (16 halves or 32 e4m3), so both take the same tiles and descriptors: four
// k-steps per row, one commit group each, one group left in flight so the tensor pipe never
// drains.
constexpr int kWgmmaWarpgroups = 2;
constexpr int kWgmmaThreads = kWgmmaWarpgroups * 128;
constexpr int kWgmmaN = 256;
constexpr int kWgmmaKStepBytes = 32;
constexpr int kWgmmaKSteps = hopper::kSwizzleBytes / kWgmmaKStepBytes;
// [FLOP] one wgmma: 2 x 64 x N x K, K = 16 halves or 32 e4m3 per k-step.
constexpr double wgmma_flops(bool e4m3) { return 2.0 * 64 * kWgmmaN * (e4m3 ? 32 : 16); }
constexpr std::size_t kWgmmaABytes = 64 * hopper::kSwizzleBytes;
constexpr std::size_t kWgmmaBBytes = kWgmmaN * hopper::kSwizzleBytes;
constexpr std::size_t kWgmmaSmem = kWgmmaABytes + kWgmmaBBytes + 1024;  // + alignment slack

constexpr int kSmemVecs = 1024;  // float4 per block: 16 KB, eight blocks to an SM

// Thread 0 of block 0 reads clock64 and %globaltimer when it starts its work and when it ends:
// the SM clock the kernel ran at, from the SM's own cycle counter (an NVML reading is a sample
// of the board's clock taken from the host, which on the H100 at b453bb2 read 1740 MHz during
// the ex2 kernel while clock64 over %globaltimer gave 1980 MHz throughout).
class ClockSpan {
 public:
  __device__ __forceinline__ explicit ClockSpan(KernelClock* out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    out_ = out;
    cycles_ = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns_)::"memory");
  }
  __device__ __forceinline__ ~ClockSpan() {
    if (out_ == nullptr) return;
    std::uint64_t ns;
    const long long cycles = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns)::"memory");
    *out_ = KernelClock{std::uint64_t(cycles - cycles_), ns - ns_};
  }
  ClockSpan(const ClockSpan&) = delete;
  ClockSpan& operator=(const ClockSpan&) = delete;

 private:
  KernelClock* out_ = nullptr;
  long long cycles_ = 0;
  std::uint64_t ns_ = 0;
};

// E4m3: the FP8 kernel (wgmma ...k32.f32.e4m3.e4m3); else fp16 in, fp32 accumulate.
template <bool E4m3>
__global__ void __launch_bounds__(kWgmmaThreads, 1) wgmma_kernel(std::int64_t iterations, float* sink, KernelClock* clock) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace hopper;
  extern __shared__ unsigned char smem_raw[];
  const auto raw = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_raw));
  unsigned char* base = smem_raw + ((1024 - raw % 1024) % 1024);
  // Zeros: finite products at any iteration count, and the timing does not depend on values.
  for (std::size_t i = threadIdx.x; i < (kWgmmaABytes + kWgmmaBBytes) / 4; i += blockDim.x)
    reinterpret_cast<std::uint32_t*>(base)[i] = 0;
  // The tiles were written by the generic proxy and are read by wgmma's async proxy.
  fence_proxy_async_shared();
  __syncthreads();
  std::uint64_t da[kWgmmaKSteps], db[kWgmmaKSteps];
#pragma unroll
  for (int k = 0; k < kWgmmaKSteps; ++k) {
    da[k] = smem_desc_sw128(base + k * kWgmmaKStepBytes, 16, kSwizzleAtomBytes);
    db[k] = smem_desc_sw128(base + kWgmmaABytes + k * kWgmmaKStepBytes, 16, kSwizzleAtomBytes);
  }
  float d[kWgmmaN / 2];
#pragma unroll
  for (int i = 0; i < kWgmmaN / 2; ++i) d[i] = 0.f;
  wgmma_fence();
  const ClockSpan span(clock);  // to the kernel's end: the loop and its drain
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma unroll
    for (int k = 0; k < kWgmmaKSteps; ++k) {
      if constexpr (E4m3)
        wgmma_ss_e4m3<kWgmmaN>(d, da[k], db[k], 1);
      else
        wgmma_ss<kWgmmaN>(d, da[k], db[k], 1);
    }
    wgmma_commit();
    wgmma_wait<1>();
  }
  wgmma_wait<0>();
  fence_operands(d);
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < kWgmmaN / 2; ++i) s += d[i];
  sink[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x] = s;
#else
  __trap();  // built without sm_90a: Microbenchmarks refuses before launching
#endif
}

__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// x <- 2^-x keeps every chain in [0.5, 1]: no overflow or denormals at any iteration count.
__global__ void ex2_kernel(std::int64_t iterations, float* sink, KernelClock* clock) {
  float x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = 0.5f + 0.01f * float(c) + 1e-6f * float(threadIdx.x);
  const ClockSpan span(clock);
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int c = 0; c < kChains; ++c) x[c] = ex2(-x[c]);
  }
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += x[c];
  sink[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x] = s;
}

// a <- a * b + c with |b| < 1 converges: finite at any iteration count; b and c are arguments
// so the compiler cannot fold the chain.
__global__ void ffma_kernel(std::int64_t iterations, float b, float c, float* sink, KernelClock* clock) {
  float a[kChains];
#pragma unroll
  for (int i = 0; i < kChains; ++i) a[i] = float(i) + 1e-3f * float(threadIdx.x);
  const ClockSpan span(clock);
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int i = 0; i < kChains; ++i) a[i] = fmaf(a[i], b, c);
  }
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < kChains; ++i) s += a[i];
  sink[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x] = s;
}

// Every byte of `in` read once in 16-byte vectors, grid-stride, four loads in flight per thread.
__global__ void dram_read_kernel(const int4* __restrict__ in, std::size_t vecs, int* sink, KernelClock* clock) {
  const ClockSpan span(clock);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  int acc = 0;
  for (; i + 3 * stride < vecs; i += 4 * stride) {
    int4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = __ldcs(in + i + u * stride);
#pragma unroll
    for (int u = 0; u < 4; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < vecs; i += stride) {
    const int4 v = __ldcs(in + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  sink[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x] = acc;
}

// Shared memory read in 16-byte vectors, consecutive threads on consecutive vectors (no bank
// conflicts); the index moves with the iteration so no load can be hoisted out of the loop.
__global__ void smem_read_kernel(std::int64_t iterations, int* sink, KernelClock* clock) {
  __shared__ int4 buf[kSmemVecs];
  for (int i = threadIdx.x; i < kSmemVecs; i += blockDim.x) buf[i] = make_int4(i, i + 1, i + 2, i + 3);
  __syncthreads();
  int4 acc = make_int4(0, 0, 0, 0);
  unsigned idx = threadIdx.x;
  const ClockSpan span(clock);
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int4 v = buf[(idx + unsigned(u) * blockDim.x) % kSmemVecs];
      acc.x ^= v.x;
      acc.y ^= v.y;
      acc.z ^= v.z;
      acc.w ^= v.w;
    }
    idx += kUnroll * blockDim.x + 1;
  }
  sink[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x] = acc.x ^ acc.y ^ acc.z ^ acc.w;
}

__global__ void empty_kernel() {}

int device_attribute(cudaDeviceAttr a) {
  int dev = 0, v = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&dev));
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}

template <class Kernel>
int blocks_per_sm(Kernel kernel, int threads, std::size_t smem) {
  int n = 0;
  ATTNLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, smem));
  if (n < 1) throw std::runtime_error("a calibration kernel does not fit an SM");
  return n;
}

}  // namespace

Microbenchmarks::Microbenchmarks(std::size_t dram_bytes) {
  if (device_attribute(cudaDevAttrComputeCapabilityMajor) != 9)
    throw std::runtime_error("the wgmma calibration needs a compute capability 9.0 GPU (sm_90a)");
  sms_ = device_attribute(cudaDevAttrMultiProcessorCount);
  ATTNLAB_CUDA_CHECK(cudaFuncSetAttribute(wgmma_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kWgmmaSmem)));
  ATTNLAB_CUDA_CHECK(cudaFuncSetAttribute(wgmma_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kWgmmaSmem)));
  blocks_per_sm_[int(Kind::kTensor)] = 1;
  blocks_per_sm_[int(Kind::kTensorFp8)] = 1;
  blocks_per_sm_[int(Kind::kExp2)] = blocks_per_sm(ex2_kernel, kThreads, 0);
  blocks_per_sm_[int(Kind::kFfma)] = blocks_per_sm(ffma_kernel, kThreads, 0);
  blocks_per_sm_[int(Kind::kDramRead)] = blocks_per_sm(dram_read_kernel, kThreads, 0);
  blocks_per_sm_[int(Kind::kSmemRead)] = blocks_per_sm(smem_read_kernel, kThreads, 0);
  int most = 0;
  for (Kind k : {Kind::kTensor, Kind::kTensorFp8, Kind::kExp2, Kind::kFfma, Kind::kDramRead, Kind::kSmemRead}) {
    const Launch l = launch_of(k);
    most = std::max(most, int(l.grid.x * l.block.x));
  }
  sink_bytes_ = std::size_t(most) * sizeof(float);
  ATTNLAB_CUDA_CHECK(cudaMalloc(&sink_, sink_bytes_));
  if (const cudaError_t e = cudaMalloc(&clock_, sizeof(KernelClock)); e != cudaSuccess) {
    cudaFree(sink_);
    ATTNLAB_CUDA_CHECK(e);
  }
  const std::size_t vec_bytes = sizeof(int4);
  dram_bytes_ = dram_bytes / vec_bytes * vec_bytes;
  if (dram_bytes_ == 0) throw std::invalid_argument("the DRAM buffer must hold at least one 16-byte vector");
  if (const cudaError_t e = cudaMalloc(&dram_, dram_bytes_); e != cudaSuccess) {
    cudaFree(sink_);
    cudaFree(clock_);
    ATTNLAB_CUDA_CHECK(e);
  }
  // Written once, so that every timed read finds its pages resident.
  ATTNLAB_CUDA_CHECK(cudaMemset(dram_, 0, dram_bytes_));
  ATTNLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

Microbenchmarks::~Microbenchmarks() {
  for (void* p : {dram_, sink_, static_cast<void*>(clock_)})
    if (const cudaError_t e = cudaFree(p); e != cudaSuccess)
      std::fprintf(stderr, "attnlab: warning: cudaFree of a calibration buffer failed: %s\n", cudaGetErrorString(e));
}

Launch Microbenchmarks::launch_of(Kind k) const {
  Launch l;
  if (k == Kind::kTensor || k == Kind::kTensorFp8) {
    l.grid = dim3(unsigned(sms_));
    l.block = dim3(kWgmmaThreads);
    l.dynamic_smem_bytes = kWgmmaSmem;
    return l;
  }
  l.grid = dim3(unsigned(sms_ * blocks_per_sm_[int(k)]));
  l.block = dim3(kThreads);
  return l;
}

double Microbenchmarks::work(Kind k, std::int64_t iterations) const {
  const Launch l = launch_of(k);
  const double threads = double(l.grid.x) * l.block.x;
  const double n = double(iterations);
  switch (k) {
    case Kind::kTensor:
    case Kind::kTensorFp8:
      return double(l.grid.x) * kWgmmaWarpgroups * n * kWgmmaKSteps * wgmma_flops(k == Kind::kTensorFp8);
    case Kind::kExp2: return threads * n * kUnroll * kChains;
    case Kind::kFfma: return 2.0 * threads * n * kUnroll * kChains;
    case Kind::kDramRead: return double(dram_bytes_);
    case Kind::kSmemRead: return threads * n * kUnroll * sizeof(int4);
  }
  return 0;
}

void Microbenchmarks::launch(Kind k, std::int64_t iterations, cudaStream_t stream) {
  const Launch l = launch_of(k);
  switch (k) {
    case Kind::kTensor:
      wgmma_kernel<false><<<l.grid, l.block, l.dynamic_smem_bytes, stream>>>(iterations, static_cast<float*>(sink_), clock_);
      break;
    case Kind::kTensorFp8:
      wgmma_kernel<true><<<l.grid, l.block, l.dynamic_smem_bytes, stream>>>(iterations, static_cast<float*>(sink_), clock_);
      break;
    case Kind::kExp2:
      ex2_kernel<<<l.grid, l.block, 0, stream>>>(iterations, static_cast<float*>(sink_), clock_);
      break;
    case Kind::kFfma:
      ffma_kernel<<<l.grid, l.block, 0, stream>>>(iterations, 0.999f, 1e-3f, static_cast<float*>(sink_), clock_);
      break;
    case Kind::kDramRead:
      dram_read_kernel<<<l.grid, l.block, 0, stream>>>(static_cast<const int4*>(dram_), dram_bytes_ / sizeof(int4),
                                                       static_cast<int*>(sink_), clock_);
      break;
    case Kind::kSmemRead:
      smem_read_kernel<<<l.grid, l.block, 0, stream>>>(iterations, static_cast<int*>(sink_), clock_);
      break;
  }
  ATTNLAB_CHECK_LAUNCH();
}

double Microbenchmarks::last_sm_clock_mhz() const {
  KernelClock c{};
  ATTNLAB_CUDA_CHECK(cudaMemcpy(&c, clock_, sizeof c, cudaMemcpyDeviceToHost));
  if (c.ns == 0) throw std::runtime_error("a calibration kernel's clock span is empty (no %globaltimer tick)");
  return double(c.cycles) / double(c.ns) * 1e3;
}

void launch_empty(const Launch& l, cudaStream_t stream) {
  ATTNLAB_CUDA_CHECK(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          int(l.dynamic_smem_bytes)));
  const hopper::ClusterLaunchConfig cfg(l.grid, l.block, l.cluster, l.dynamic_smem_bytes, stream);
  ATTNLAB_CUDA_CHECK(cudaLaunchKernelEx(&cfg.config, empty_kernel));
  ATTNLAB_CHECK_LAUNCH();
}

}  // namespace attnlab::profiler::calibration

// Hopper (sm_90a) PTX wrappers, below the kernels that use them and the calibration's
// microbenchmarks that time them: wgmma with shared-memory descriptors, register
// reallocation, ldmatrix, the cluster barrier and DSMEM stores, bulk copies to global memory,
// and host-made TMA tensor maps. mbarriers and bulk tensor copies come from CCCL's cuda::ptx;
// what has no wrapper there is inline PTX here, and only here (tests/cli/hopper_ptx.py).
#pragma once

#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cuda/ptx>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/check.hpp"

namespace attnlab::hopper {

// 128-byte swizzle: a row of 64 halves is one 128-byte line, and an atom of 8 such lines
// (1024 bytes) is the unit TMA writes and wgmma reads. Tiles start on 1024-byte boundaries so
// that the swizzle phase, taken from address bits 7-9, matches between the two.
constexpr int kSwizzleBytes = 128;
constexpr int kSwizzleHalves = kSwizzleBytes / 2;
constexpr int kSwizzleAtomBytes = 8 * kSwizzleBytes;

// A wgmma shared-memory matrix descriptor (PTX ISA "Matrix Descriptor Format"): start address,
// leading and stride byte offsets, all in 16-byte units, and the layout type in bits 62-63
// (1, 2, 3: 128-, 64-, 32-byte swizzle). K-major operands: stride = the distance between 8-row
// groups, leading unused. MN-major operands: stride = the distance between groups of 8 K rows,
// leading = the distance between 64-element MN blocks. SwizzleBytes is the width of a swizzled
// row: 128 for fp16 tiles of 64 columns, and for e4m3 rows of D = 64 bytes, 64 (the TMA map's
// swizzle must match).
template <int SwizzleBytes>
__device__ __forceinline__ std::uint64_t smem_desc(const void* smem, std::uint32_t leading, std::uint32_t stride) {
  static_assert(SwizzleBytes == 128 || SwizzleBytes == 64 || SwizzleBytes == 32, "a swizzle mode of wgmma");
  constexpr std::uint64_t kLayoutType = SwizzleBytes == 128 ? 1 : SwizzleBytes == 64 ? 2 : 3;
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  return std::uint64_t((addr & 0x3FFFF) >> 4) | (std::uint64_t(leading >> 4) << 16) |
         (std::uint64_t(stride >> 4) << 32) | (kLayoutType << 62);
}
__device__ __forceinline__ std::uint64_t smem_desc_sw128(const void* smem, std::uint32_t leading,
                                                         std::uint32_t stride) {
  return smem_desc<kSwizzleBytes>(smem, leading, stride);
}
// The same descriptor `bytes` further into its operand (a multiple of 16): only the start
// address field changes, and the sum cannot carry out of it (shared memory ends below the 256 KB
// that its 14 bits of 16-byte units address), so a 32-bit add of a constant where smem_desc
// takes four uniform instructions (mask, shift, or, and the upper word) per k-step. The GEMMs
// build one descriptor per operand and advance it per k-step.
__device__ __forceinline__ std::uint64_t desc_advance(std::uint64_t desc, std::uint32_t bytes) {
  const std::uint32_t lo = static_cast<std::uint32_t>(desc) + (bytes >> 4);
  return (desc & 0xFFFFFFFF00000000ull) | lo;
}

// Spins until the mbarrier's phase with the given parity has completed.
__device__ __forceinline__ void wait_barrier(std::uint64_t* bar, std::uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}
// Whether that phase has completed, without waiting (test_wait; acquire, as the wait is).
__device__ __forceinline__ bool barrier_ready(std::uint64_t* bar, std::uint32_t parity) {
  return cuda::ptx::mbarrier_test_wait_parity(bar, parity);
}

// Thread-block clusters and distributed shared memory (sm_90). cuda::ptx has the cluster rank
// (get_sreg_cluster_ctarank) and mbarriers, but neither the .aligned forms of the cluster
// barrier (one instruction per warp, where every thread of the warp reaches it) nor mapa, and
// its copies into the cluster take generic addresses; these take shared::cluster addresses
// from mapa.
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// The shared::cluster address of the same shared-memory location in block `rank`.
__device__ __forceinline__ unsigned map_rank(unsigned addr, unsigned rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
}
// Four 8x8 matrices of 16-bit elements from shared memory into a warp's registers, the
// mma/wgmma A-fragment layout (ldmatrix .x4): lane i gives the address of row i % 8 of
// matrix i / 8, and r[m] receives the thread's two elements of matrix m.
__device__ __forceinline__ void ldmatrix_x4(unsigned addr, std::uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

// The same four matrices transposed (ldmatrix .x4 .trans): r[m] receives the thread's two
// elements of matrix m's column lane / 4, rows 2 (lane % 4) and 2 (lane % 4) + 1 (low half first).
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned addr, std::uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

// Four 8x8 matrices of 16-bit elements from a warp's registers into shared memory (stmatrix .x4,
// sm_90): lane i gives the address of row i % 8 of matrix i / 8, and r[m] holds the thread's two
// elements of matrix m, row lane / 4, columns 2 (lane % 4) and 2 (lane % 4) + 1.
__device__ __forceinline__ void stmatrix_x4(unsigned addr, const std::uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
               :
               : "r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}

// Bulk copies from shared to global memory (the async proxy; sm_90), in bulk groups: what the
// thread wrote to the source through the generic proxy is made visible to the copy first
// (fence_proxy_async_shared), each copy joins the thread's open group, commit closes it, and
// the waits hold the thread until all but Pending groups have read their source (the source
// may then be rewritten) or have completed (their bytes are in global memory).
__device__ __forceinline__ void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void bulk_copy_to_global(void* dst, unsigned src, unsigned bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// A bulk copy from this block's shared memory into another block's of the cluster (dst and bar
// from map_rank) that completes its bytes on that block's mbarrier (sm_90); the source written
// through the generic proxy needs fence_proxy_async_shared first.
__device__ __forceinline__ void bulk_copy_to_cluster(unsigned dst, unsigned src, unsigned bytes, unsigned bar) {
  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "r"(src), "r"(bytes), "r"(bar)
               : "memory");
}
template <int Pending>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
}
template <int Pending>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(Pending) : "memory");
}

// Brings a TMA descriptor (a __grid_constant__ kernel parameter) into the descriptor cache
// ahead of its first copy.
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}

// Copies rows [row0, row0 + rows) of plane z of a tensor map made by make_tensor_map_sw128
// into a column-blocked tile (D / 64 blocks of `rows` swizzled 128-byte rows); one box per 64
// columns, all completing on `bar`, whose expected bytes the caller has announced.
template <int D>
__device__ __forceinline__ void tma_load_tile(__half* dst, const CUtensorMap* map, int rows,
                                              int row0, int z, std::uint64_t* bar) {
#pragma unroll
  for (int cb = 0; cb < D / kSwizzleHalves; ++cb) {
    const std::int32_t coords[3] = {cb * kSwizzleHalves, row0, z};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                    dst + cb * rows * kSwizzleHalves, map, coords, bar);
  }
}

// Named barriers (ids: NamedBarrier, kernels/named_barrier.hpp) of `threads` threads (a multiple
// of 32), or of every thread of the block where no count is given (id 0 is __syncthreads'): wait
// for the others, or arrive without waiting (a producer of the event the others wait for).
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_sync(int id) { asm volatile("bar.sync %0;\n" ::"r"(id) : "memory"); }
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Orders this thread's register writes (accumulators, A fragments) before the wgmma that
// reads them.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
}

// Pins accumulator registers at this point: wgmma writes them asynchronously, and the
// compiler must not move their reads or writes across a wgmma_wait.
template <int R>
__device__ __forceinline__ void fence_operands(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
// The same for A fragments in registers, which wgmma also reads until its group completes.
template <int K>
__device__ __forceinline__ void fence_operands(std::uint32_t (&a)[K][4]) {
#pragma unroll
  for (int k = 0; k < K; ++k)
#pragma unroll
    for (int i = 0; i < 4; ++i) asm volatile("" : "+r"(a[k][i])::"memory");
}

// m64nNk16, fp16 inputs, fp32 accumulators (N/2 per thread). scale_d 0 overwrites D.
template <int N>
__device__ void wgmma_ss(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b,
                         int scale_d);
// A in registers (the fragment of mma.m16n8k16's A per warp: pack_p's layout, or
// load_q_fragment's), B K-major (QK^T with Q in registers) or MN-major (PV) in shared memory.
template <int N>
__device__ void wgmma_rs(float (&d)[N / 2], const std::uint32_t (&a)[4], std::uint64_t desc_b, int scale_d);
template <int N>
__device__ void wgmma_rs_mn(float (&d)[N / 2], const std::uint32_t (&a)[4],
                            std::uint64_t desc_b, int scale_d);
// Both operands MN-major in shared memory (A M-major, B N-major): the backward's dQ = dS K, dS
// staged as [keys][queries] and K as loaded, [keys][D].
template <int N>
__device__ void wgmma_ss_mn(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b, int scale_d);
// m64nNk32, e4m3 inputs (both K-major: e4m3 has no transposed operand), fp32 accumulators; A
// from shared memory (ss) or from registers, four e4m3 per register (rs).
template <int N>
__device__ void wgmma_ss_e4m3(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b, int scale_d);
template <int N>
__device__ void wgmma_rs_e4m3(float (&d)[N / 2], const std::uint32_t (&a)[4], std::uint64_t desc_b,
                              int scale_d);

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#include "common/hopper_wgmma.inc"

// Register reallocation between warpgroups; needs a register cap at entry
// (__launch_bounds__(threads, 1)), and every warp of the warpgroup executes it.
template <int Regs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Regs));
}
template <int Regs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Regs));
}

// v[0] = op over v[0 .. N): pairwise, depth ceil(log2 N).
template <int N, class Op>
__device__ __forceinline__ void tree_reduce(float (&v)[N], Op op) {
#pragma unroll
  for (int w = 1; w < N; w *= 2)
#pragma unroll
    for (int i = 0; i + w < N; i += 2 * w) v[i] = op(v[i], v[i + w]);
}
#endif

// A tensor map for [planes, rows, cols] elements of elem_bytes (cols contiguous, rows pitch
// elements apart), read in boxes of box_rows x box_cols with the given swizzle; rows and columns
// past the tensor's end read as zeros, so tails need no guard. Made on the host through the
// driver entry point: the binary needs no libcuda at link time.
inline CUtensorMap make_tensor_map(const void* base, CUtensorMapDataType type, int elem_bytes, int planes,
                                   int rows, int cols, std::int64_t pitch, int box_rows, int box_cols,
                                   CUtensorMapSwizzle swizzle) {
  static const auto encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    ATTNLAB_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                        cudaEnableDefault, &status));
    if (status != cudaDriverEntryPointSuccess || fn == nullptr)
      throw std::runtime_error("the CUDA driver has no cuTensorMapEncodeTiled (needs 12.0+)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  CUtensorMap map{};
  const cuuint64_t dims[3] = {cuuint64_t(cols), cuuint64_t(rows), cuuint64_t(planes)};
  const cuuint64_t strides[2] = {cuuint64_t(pitch) * elem_bytes, cuuint64_t(rows) * cuuint64_t(pitch) * elem_bytes};
  const cuuint32_t box[3] = {cuuint32_t(box_cols), cuuint32_t(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r = encode(&map, type, 3, const_cast<void*>(base), dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("cuTensorMapEncodeTiled failed with CUresult " + std::to_string(int(r)));
  return map;
}

// A cudaLaunchKernelEx configuration whose cluster dimensions go in as an attribute where the
// cluster has more than one block. It holds the attribute that `config` points at, so it is
// neither copied nor moved.
struct ClusterLaunchConfig {
  cudaLaunchConfig_t config{};
  cudaLaunchAttribute cluster_attr{};
  ClusterLaunchConfig(dim3 grid, dim3 block, dim3 cluster, std::size_t dynamic_smem_bytes, cudaStream_t stream) {
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = dynamic_smem_bytes;
    config.stream = stream;
    cluster_attr.id = cudaLaunchAttributeClusterDimension;
    cluster_attr.val.clusterDim.x = cluster.x;
    cluster_attr.val.clusterDim.y = cluster.y;
    cluster_attr.val.clusterDim.z = cluster.z;
    config.attrs = &cluster_attr;
    config.numAttrs = cluster.x * cluster.y * cluster.z > 1 ? 1 : 0;
  }
  ClusterLaunchConfig(const ClusterLaunchConfig&) = delete;
  ClusterLaunchConfig& operator=(const ClusterLaunchConfig&) = delete;
};

// [planes, rows, D] fp16 (D contiguous) in boxes of box_rows x 64 halves, 128-byte swizzle.
inline CUtensorMap make_tensor_map_sw128(const void* base, int planes, int rows, int D, int box_rows) {
  return make_tensor_map(base, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, int(sizeof(__half)), planes, rows, D, D, box_rows,
                         kSwizzleHalves, CU_TENSOR_MAP_SWIZZLE_128B);
}

}  // namespace attnlab::hopper

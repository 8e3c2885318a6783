// cuBLASLt (phases 3b and 3c) loaded on first use instead of at program start: as a DT_NEEDED
// library, its loading and hundreds of thousands of relocations were most of every experiment
// binary's start-up time and resident memory, even for --help. These definitions take the place
// of the library's symbols at link time and forward to it, dlopened by soname (the binary's
// RUNPATH, then ld.so.cache) on first call.
#include <cublasLt.h>
#include <dlfcn.h>

#include <string>

namespace {

// The library, opened once; never closed, because handles may be destroyed during exit.
struct CublasLt {
  void* lib = nullptr;
  std::string error;  // why it could not be opened, for cublasLtGetStatusString

  CublasLt() {
    const std::string name = "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR);
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) error = name + " could not be loaded: " + dlerror();
  }
};

const CublasLt& library() {
  static const CublasLt lt;
  return lt;
}

// The library's definition of `name`, or nullptr when the library or the symbol is missing.
template <class Fn>
Fn* lookup(const char* name) {
  const CublasLt& lt = library();
  return lt.lib ? reinterpret_cast<Fn*>(dlsym(lt.lib, name)) : nullptr;
}

// A call through the looked-up function; NOT_INITIALIZED when the library or the symbol is
// missing (cublasLtGetStatusString then says which).
template <class Fn, class... Args>
cublasStatus_t forward(Fn* fn, Args... args) {
  return fn ? fn(args...) : CUBLAS_STATUS_NOT_INITIALIZED;
}

}  // namespace

// Each definition's type is checked against cublasLt.h's declaration by decltype(::name).
#define ATTNLAB_LT(name) static auto* const fn = lookup<decltype(::name)>(#name)

extern "C" {

cublasStatus_t CUBLASWINAPI cublasLtCreate(cublasLtHandle_t* handle) {
  ATTNLAB_LT(cublasLtCreate);
  return forward(fn, handle);
}

cublasStatus_t CUBLASWINAPI cublasLtDestroy(cublasLtHandle_t handle) {
  ATTNLAB_LT(cublasLtDestroy);
  return forward(fn, handle);
}

const char* CUBLASWINAPI cublasLtGetStatusName(cublasStatus_t status) {
  ATTNLAB_LT(cublasLtGetStatusName);
  return fn ? fn(status) : "CUBLAS_STATUS_NOT_INITIALIZED";
}

const char* CUBLASWINAPI cublasLtGetStatusString(cublasStatus_t status) {
  ATTNLAB_LT(cublasLtGetStatusString);
  if (fn) return fn(status);
  const CublasLt& lt = library();
  return lt.lib ? "cuBLASLt lacks cublasLtGetStatusString" : lt.error.c_str();
}

cublasStatus_t CUBLASWINAPI cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                           const void* alpha, const void* a,
                                           cublasLtMatrixLayout_t a_desc, const void* b,
                                           cublasLtMatrixLayout_t b_desc, const void* beta,
                                           const void* c, cublasLtMatrixLayout_t c_desc, void* d,
                                           cublasLtMatrixLayout_t d_desc,
                                           const cublasLtMatmulAlgo_t* algo, void* workspace,
                                           size_t workspace_bytes, cudaStream_t stream) {
  ATTNLAB_LT(cublasLtMatmul);
  return forward(fn, handle, desc, alpha, a, a_desc, b, b_desc, beta, c, c_desc, d, d_desc, algo,
                 workspace, workspace_bytes, stream);
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout,
                                                       cudaDataType type, uint64_t rows,
                                                       uint64_t cols, int64_t ld) {
  ATTNLAB_LT(cublasLtMatrixLayoutCreate);
  return forward(fn, layout, type, rows, cols, ld);
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  ATTNLAB_LT(cublasLtMatrixLayoutDestroy);
  return forward(fn, layout);
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                                             cublasLtMatrixLayoutAttribute_t attr,
                                                             const void* buf, size_t bytes) {
  ATTNLAB_LT(cublasLtMatrixLayoutSetAttribute);
  return forward(fn, layout, attr, buf, bytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc,
                                                     cublasComputeType_t compute,
                                                     cudaDataType_t scale) {
  ATTNLAB_LT(cublasLtMatmulDescCreate);
  return forward(fn, desc, compute, scale);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  ATTNLAB_LT(cublasLtMatmulDescDestroy);
  return forward(fn, desc);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                                           cublasLtMatmulDescAttributes_t attr,
                                                           const void* buf, size_t bytes) {
  ATTNLAB_LT(cublasLtMatmulDescSetAttribute);
  return forward(fn, desc, attr, buf, bytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
  ATTNLAB_LT(cublasLtMatmulPreferenceCreate);
  return forward(fn, pref);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  ATTNLAB_LT(cublasLtMatmulPreferenceDestroy);
  return forward(fn, pref);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceSetAttribute(
    cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr, const void* buf,
    size_t bytes) {
  ATTNLAB_LT(cublasLtMatmulPreferenceSetAttribute);
  return forward(fn, pref, attr, buf, bytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a_desc,
    cublasLtMatrixLayout_t b_desc, cublasLtMatrixLayout_t c_desc, cublasLtMatrixLayout_t d_desc,
    cublasLtMatmulPreference_t pref, int requested, cublasLtMatmulHeuristicResult_t results[],
    int* returned) {
  ATTNLAB_LT(cublasLtMatmulAlgoGetHeuristic);
  return forward(fn, handle, desc, a_desc, b_desc, c_desc, d_desc, pref, requested, results,
                 returned);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoConfigGetAttribute(
    const cublasLtMatmulAlgo_t* algo, cublasLtMatmulAlgoConfigAttributes_t attr, void* buf,
    size_t bytes, size_t* written) {
  ATTNLAB_LT(cublasLtMatmulAlgoConfigGetAttribute);
  return forward(fn, algo, attr, buf, bytes, written);
}

}  // extern "C"

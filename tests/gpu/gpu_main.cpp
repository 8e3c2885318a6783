// GPU test entry point: lists tests anywhere (ctest discovers them at build time), but runs
// them only where a CUDA device exists, exiting with ctest's skip code 77 otherwise.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!GTEST_FLAG_GET(list_tests)) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      std::printf("no CUDA device (%s): GPU tests skipped\n",
                  e != cudaSuccess ? cudaGetErrorString(e) : "none found");
      return 77;
    }
  }
  return RUN_ALL_TESTS();
}

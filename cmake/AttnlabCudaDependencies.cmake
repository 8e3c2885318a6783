# The CUDA Toolkit with CUPTI and NVTX, for every build but the reports-only one.
find_package(CUDAToolkit 13 REQUIRED)
foreach(target CUDA::cudart_static CUDA::cupti CUDA::nvtx3)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "attnlab: ${target} not found in the CUDA Toolkit at ${CUDAToolkit_LIBRARY_DIR}; install the CUDA Toolkit 13 with CUPTI and NVTX (cuda-cupti-dev, cuda-nvtx)")
  endif()
endforeach()

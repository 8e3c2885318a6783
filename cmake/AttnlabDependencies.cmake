# Finds every package the build needs and, when one is missing, names the Debian package
# that provides it (scripts/setup installs them all).
find_package(CUDAToolkit 12.4 REQUIRED)
foreach(target CUDA::cudart_static CUDA::cupti CUDA::nvtx3)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "attnlab: ${target} not found in the CUDA Toolkit at ${CUDAToolkit_LIBRARY_DIR}; install the CUDA Toolkit 13 with CUPTI and NVTX (cuda-cupti-dev, cuda-nvtx)")
  endif()
endforeach()

macro(attnlab_require package debian)
  find_package(${package} ${ARGN} CONFIG QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR "attnlab: ${package} not found; install the Debian package '${debian}' (or run scripts/setup)")
  endif()
endmacro()

attnlab_require(nlohmann_json nlohmann-json3-dev 3.10)
attnlab_require(CLI11 libcli11-dev)
find_package(GTest QUIET)
if(NOT GTest_FOUND)
  message(FATAL_ERROR "attnlab: GoogleTest not found; install the Debian package 'libgtest-dev' (or run scripts/setup)")
endif()
find_package(Threads REQUIRED)

# Finds the host packages every build needs (the reports-only one too) and, when one is
# missing, names the Debian package that provides it (scripts/setup installs them all).
# cmake/AttnlabCudaDependencies.cmake adds the CUDA Toolkit for the full build.
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
# Committed records are gzip-compressed (scripts/evidence); record/ reads them through zlib.
find_package(ZLIB QUIET)
if(NOT ZLIB_FOUND)
  message(FATAL_ERROR "attnlab: zlib not found; install the Debian package 'zlib1g-dev' (or run scripts/setup)")
endif()

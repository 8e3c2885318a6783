# Provenance baked into every binary: the git commit and whether the tree was dirty are
string(TOUPPER "${CMAKE_BUILD_TYPE}" CMAKE_BUILD_TYPE_UPPER)
# re-read at every build (not only at configure), the compiler flags at configure time.
set(ATTNLAB_BUILD_INFO_CPP ${CMAKE_BINARY_DIR}/generated/build_info.cpp)
add_custom_target(attnlab_build_info_gen
  COMMAND ${CMAKE_COMMAND}
          -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
          -DOUTPUT=${ATTNLAB_BUILD_INFO_CPP}
          -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
          "-DCUDA_FLAGS=${CMAKE_CUDA_FLAGS} ${CMAKE_CUDA_FLAGS_${CMAKE_BUILD_TYPE_UPPER}}"
          "-DCXX_FLAGS=${CMAKE_CXX_FLAGS}"
          "-DCUDA_ARCHS=${CMAKE_CUDA_ARCHITECTURES}"
          -DNVCC_VERSION=${CMAKE_CUDA_COMPILER_VERSION}
          -DCXX_COMPILER=${CMAKE_CXX_COMPILER_ID}-${CMAKE_CXX_COMPILER_VERSION}
          -P ${CMAKE_SOURCE_DIR}/cmake/WriteBuildInfo.cmake
  BYPRODUCTS ${ATTNLAB_BUILD_INFO_CPP}
  COMMENT "attnlab: recording git commit and build flags"
  VERBATIM)

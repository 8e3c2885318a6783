# Finds cuDNN 9 for the `cudnn` baseline phase (kernels/phase_cudnn.cpp). Sets
#   ATTNLAB_HAVE_CUDNN          ON when found
#   ATTNLAB_CUDNN_INCLUDE_DIR   folder of cudnn_backend.h
#   ATTNLAB_CUDNN_LIBRARY       libcudnn.so or libcudnn.so.9
#   ATTNLAB_CUDNN_VERSION       from cudnn_version.h, e.g. 9.19.0
#   ATTNLAB_CUDNN_MISSING       why not, when not found (the phase refuses every shape with it)
# Candidates, first hit wins: CUDNN_ROOT (cache variable, else the environment), PyTorch's
# nvidia-cudnn wheel (so that this phase and `make baseline` run one cuDNN version), the CUDA
# Toolkit's folders, then the system's (Debian's libcudnn9-dev-cuda-13).

set(CUDNN_ROOT "$ENV{CUDNN_ROOT}" CACHE PATH "cuDNN 9 install prefix (include/, lib/ or lib64/)")

# PyTorch's wheel keeps cuDNN under site-packages/nvidia/cudnn; ask the interpreter that has
# torch, then look where the H100 image's virtual environment keeps it.
set(_attnlab_torch_cudnn "")
set(_attnlab_pythons "")
if(EXISTS /opt/torch/.venv/bin/python3)
  list(APPEND _attnlab_pythons /opt/torch/.venv/bin/python3)
endif()
find_program(_attnlab_py python3 NO_CACHE)
if(_attnlab_py)
  list(APPEND _attnlab_pythons "${_attnlab_py}")
endif()
foreach(py ${_attnlab_pythons})
  # __path__, not __file__: the wheel's nvidia.cudnn may be a namespace package without one.
  execute_process(COMMAND ${py} -c "import nvidia.cudnn as m; print(list(m.__path__)[0])"
                  OUTPUT_VARIABLE _attnlab_out OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET RESULT_VARIABLE _attnlab_rc)
  if(_attnlab_rc EQUAL 0 AND IS_DIRECTORY "${_attnlab_out}")
    set(_attnlab_torch_cudnn "${_attnlab_out}")
    break()
  endif()
endforeach()
if(NOT _attnlab_torch_cudnn)
  file(GLOB _attnlab_globbed /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn)
  if(_attnlab_globbed)
    list(GET _attnlab_globbed 0 _attnlab_torch_cudnn)
  endif()
endif()

# (include folder, library folder) pairs in order of preference.
set(_attnlab_cudnn_candidates "")
if(CUDNN_ROOT)
  list(APPEND _attnlab_cudnn_candidates "${CUDNN_ROOT}/include|${CUDNN_ROOT}/lib64"
                                        "${CUDNN_ROOT}/include|${CUDNN_ROOT}/lib")
endif()
if(_attnlab_torch_cudnn)
  list(APPEND _attnlab_cudnn_candidates "${_attnlab_torch_cudnn}/include|${_attnlab_torch_cudnn}/lib")
endif()
foreach(inc ${CUDAToolkit_INCLUDE_DIRS})
  list(APPEND _attnlab_cudnn_candidates "${inc}|${CUDAToolkit_LIBRARY_DIR}")
endforeach()
list(APPEND _attnlab_cudnn_candidates "/usr/include|/usr/lib/x86_64-linux-gnu"
                                      "/usr/include/x86_64-linux-gnu|/usr/lib/x86_64-linux-gnu")

set(ATTNLAB_HAVE_CUDNN OFF)
set(ATTNLAB_CUDNN_MISSING "")
set(_attnlab_tried "")
foreach(pair ${_attnlab_cudnn_candidates})
  string(REPLACE "|" ";" pair "${pair}")
  list(GET pair 0 inc)
  list(GET pair 1 lib)
  list(APPEND _attnlab_tried "${inc}")
  if(NOT EXISTS "${inc}/cudnn_backend.h" OR NOT EXISTS "${inc}/cudnn_version.h")
    continue()
  endif()
  # PyTorch's wheel ships libcudnn.so.9 without the unversioned development link.
  set(_attnlab_lib "")
  foreach(name libcudnn.so libcudnn.so.9)
    if(EXISTS "${lib}/${name}")
      set(_attnlab_lib "${lib}/${name}")
      break()
    endif()
  endforeach()
  if(NOT _attnlab_lib)
    continue()
  endif()
  file(STRINGS "${inc}/cudnn_version.h" _attnlab_v REGEX "^#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) +[0-9]+")
  string(REGEX REPLACE ".*CUDNN_MAJOR +([0-9]+).*" "\\1" _attnlab_major "${_attnlab_v}")
  string(REGEX REPLACE ".*CUDNN_MINOR +([0-9]+).*" "\\1" _attnlab_minor "${_attnlab_v}")
  string(REGEX REPLACE ".*CUDNN_PATCHLEVEL +([0-9]+).*" "\\1" _attnlab_patch "${_attnlab_v}")
  if(NOT _attnlab_major EQUAL 9)
    set(ATTNLAB_CUDNN_MISSING "cuDNN at ${inc} is version ${_attnlab_major}, the backend graph API of 9 is needed")
    continue()
  endif()
  set(ATTNLAB_HAVE_CUDNN ON)
  set(ATTNLAB_CUDNN_INCLUDE_DIR "${inc}")
  set(ATTNLAB_CUDNN_LIBRARY "${_attnlab_lib}")
  set(ATTNLAB_CUDNN_LIBRARY_DIR "${lib}")
  set(ATTNLAB_CUDNN_VERSION "${_attnlab_major}.${_attnlab_minor}.${_attnlab_patch}")
  break()
endforeach()

if(ATTNLAB_HAVE_CUDNN)
  message(STATUS "attnlab: cuDNN ${ATTNLAB_CUDNN_VERSION}: ${ATTNLAB_CUDNN_LIBRARY} (headers ${ATTNLAB_CUDNN_INCLUDE_DIR})")
else()
  if(NOT ATTNLAB_CUDNN_MISSING)
    list(REMOVE_DUPLICATES _attnlab_tried)
    string(REPLACE ";" ", " _attnlab_tried "${_attnlab_tried}")
    set(ATTNLAB_CUDNN_MISSING "no cudnn_backend.h with libcudnn.so(.9) beside it in ${_attnlab_tried}; set CUDNN_ROOT")
  endif()
  message(STATUS "attnlab: building the cudnn phase without cuDNN: ${ATTNLAB_CUDNN_MISSING}")
endif()

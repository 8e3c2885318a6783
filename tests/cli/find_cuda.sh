#!/usr/bin/env bash
# scripts/find-cuda on fake toolkit trees: an explicit root wins and is checked for the CUPTI
# and NVTX3 headers, with one line naming what is missing.
set -u
find_cuda=$1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
toolkit() {  # toolkit DIR [without-cupti]
  mkdir -p "$1/bin" "$1/include/nvtx3"
  printf '#!/bin/sh\nexit 0\n' >"$1/bin/nvcc"
  chmod +x "$1/bin/nvcc"
  : >"$1/include/nvtx3/nvToolsExt.h"
  [ "${2:-}" = without-cupti ] || : >"$1/include/cupti.h"
}
toolkit "$t/a"
toolkit "$t/b"
toolkit "$t/nocupti" without-cupti

out=$(env -u CUDACXX CUDAToolkit_ROOT="$t/a" CUDA_HOME="$t/b" "$find_cuda") || fail "a complete toolkit was refused"
[ "$out" = "$t/a" ] || fail "CUDAToolkit_ROOT should win, got '$out'"
out=$(CUDACXX="$t/b/bin/nvcc" CUDAToolkit_ROOT="$t/a" "$find_cuda") || fail "CUDACXX was refused"
[ "$out" = "$t/b" ] || fail "CUDACXX (CMake's choice) should win, got '$out'"
out=$(env -u CUDACXX -u CUDAToolkit_ROOT CUDA_HOME="$t/b" "$find_cuda") || fail "CUDA_HOME was refused"
[ "$out" = "$t/b" ] || fail "CUDA_HOME should be used, got '$out'"
# A directory without nvcc is passed over for the next candidate.
out=$(env -u CUDACXX CUDAToolkit_ROOT="$t/none" CUDA_HOME="$t/b" "$find_cuda") || fail "fell over a root without nvcc"
[ "$out" = "$t/b" ] || fail "a root without nvcc should be skipped, got '$out'"

# The CI machine's PATH has a wrapper script `nvcc` outside any toolkit: a toolkit at
# /usr/local/cuda must win over it (checked where that toolkit exists).
if [ -x /usr/local/cuda/bin/nvcc ] && [ -e /usr/local/cuda/include/cupti.h ]; then
  mkdir -p "$t/wrap/bin"
  printf '#!/bin/sh\nexec /usr/local/cuda/bin/nvcc "$@"\n' >"$t/wrap/bin/nvcc"
  chmod +x "$t/wrap/bin/nvcc"
  out=$(env -u CUDACXX -u CUDAToolkit_ROOT -u CUDA_HOME -u CUDA_PATH PATH="$t/wrap/bin:/usr/bin:/bin" \
        "$find_cuda") || fail "the wrapper on PATH hid /usr/local/cuda"
  [ "$out" = /usr/local/cuda ] || fail "/usr/local/cuda should win over a wrapper on PATH, got '$out'"
fi

err=$(env -u CUDACXX CUDAToolkit_ROOT="$t/nocupti" "$find_cuda" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] || fail "a toolkit without cupti.h exited $rc"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "expected one line, got: $err"
case "$err" in
  *"$t/nocupti/include/cupti.h missing"*) ;;
  *) fail "the line should name the missing header: $err" ;;
esac
echo ok

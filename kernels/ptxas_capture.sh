#!/usr/bin/env bash
# CUDA compiler launcher for the phase kernels (kernels/CMakeLists.txt sets it): runs the
# compile unchanged and keeps its stderr, the -Xptxas -v report among it, as <object>.ptxas
# beside the object. embed_ptxas.cmake puts those reports into the experiment binaries.
#   ptxas_capture.sh [other launcher...] nvcc ... -c x.cu -o x.cu.o
set -u
obj=
prev=
for a in "$@"; do
  [ "$prev" = "-o" ] && obj=$a
  prev=$a
done
[ -n "$obj" ] || exec "$@"
log="$obj.ptxas.tmp"
"$@" 2>"$log"
rc=$?
cat "$log" >&2
if [ "$rc" -eq 0 ]; then mv -f "$log" "$obj.ptxas"; else rm -f "$log" "$obj.ptxas"; fi
exit "$rc"

#!/bin/sh
# The host side's layers run one way: each rule names the folders it scans and what their
# sources may not #include (a folder, or a CUDA header), so an edge against the grain fails
# the build's tests rather than waiting for a reader to notice it.
# Usage: layers.sh <source root> <rule>     one rule (the ctests layers.<rule>)
#        layers.sh --self-test               plants offending includes, one at a time, in a
#                                            small tree and checks that exactly the rules they
#                                            break name them
# Exit 1, listing each offending line, when a rule is broken.
rules='common record reports renders kernels profiler'
# CUDA headers and common/check.hpp (the CUDA error checks): the reports-only build has no
# CUDA Toolkit, and the record layer is built into it.
cuda='(cuda|cupti|nvml|nvtx|cublas|cudnn|nvrtc)[^/"]*\.h|common/check\.hpp'

# rule_of RULE: sets scan (folders) and banned (an ERE of include targets). No rule has an
# exception: an edge against the grain moves the code, not the rule.
rule_of() {
  case $1 in
    # Shape, the shape sets, statistics and process running sit below every other layer.
    common) scan=common; banned='(record|profiler|kernels|experiments|reports)/' ;;
    # Records are host-only data and their JSON mapping: the harness, the profiler and the
    # report tool use them, never the other way.
    record) scan=record; banned="(profiler|kernels|experiments|reports)/|$cuda" ;;
    # The report tool reads records only (the reports-only build has no kernels, no
    # profiler's CUDA side, no experiments).
    reports) scan=reports; banned="(kernels|profiler|experiments)/|$cuda" ;;
    # Binaries write records; attnlab-report renders them.
    renders) scan='common record profiler kernels experiments'; banned='reports/' ;;
    # Kernels are launched by the harness and measured by the profiler; they know neither.
    # A phase's claims are plain data (common/claim.hpp); their JSON mapping is record/'s.
    kernels) scan=kernels; banned='(record|profiler|experiments|reports)/' ;;
    # The profiler measures what the harness launches; it does not know the harness. The
    # microbenchmarks time the Hopper PTX wrappers the kernels use, which sit in common/.
    profiler) scan=profiler; banned='(kernels|experiments|reports)/' ;;
    *) echo "layers.sh: unknown rule '$1' (one of: $rules)" >&2; exit 2 ;;
  esac
}

# includes FOLDER...: every include line of the C++ and CUDA sources, as file:line:target.
includes() {
  grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' \
       --include='*.cpp' --include='*.hpp' --include='*.h' --include='*.cu' --include='*.cuh' \
       --include='*.inc' --include='*.in' "$@" 2>/dev/null |
    sed -E 's/^([^:]*):([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]*)[>"].*/\1:\2:\3/'
}

# check ROOT RULE: prints each broken line; exit 1 if any.
check() (
  cd "$1" || exit 2
  rule_of "$2"
  # shellcheck disable=SC2086  # scan is a list of folders
  found=$(includes $scan)
  # An include that climbs (../) is read by its target's folder, as the compiler would reach it.
  bad=$(printf '%s\n' "$found" | grep -E "^[^:]*:[0-9]+:(\.\./)*($banned)")
  if [ -n "$bad" ]; then
    echo "$2: includes against the layers (scanned: $scan; may not include: $banned):"
    echo "$bad"
    exit 1
  fi
  echo "$2: $(printf '%s\n' "$found" | grep -c .) includes in $scan, none against the layers"
)

# The self-test's tree: one clean source per folder, then one planted
# offence at a time, which must fail the rules it breaks and no other.
self_test() {
  tmp=$(mktemp -d) || exit 2
  trap 'rm -rf "$tmp"' EXIT
  for d in common record reports reports/run profiler/calibration kernels experiments/harness tests; do
    mkdir -p "$tmp/$d"
  done
  printf '#include <vector>\n#include "common/shape.hpp"\n' > "$tmp/common/ok.hpp"
  printf '#include "common/stats.hpp"\n#include "record/result.hpp"\n' > "$tmp/record/ok.cpp"
  printf '#include "record/reader.hpp"\n#include "reports/render.hpp"\n' > "$tmp/reports/run/ok.cpp"
  printf '#include <cuda_runtime.h>\n#include "common/check.hpp"\n#include "record/result.hpp"\n' \
    > "$tmp/profiler/ok.cpp"
  printf '#include "common/hopper.cuh"\n' > "$tmp/profiler/calibration/microbench.cu"
  printf '#include "common/claim.hpp"\n' > "$tmp/kernels/registry.hpp"
  printf '#include "reports/plots.hpp"\n#include "kernels/registry.hpp"\n' > "$tmp/tests/t.cpp"
  failures=0
  for rule in $rules; do
    if ! out=$(check "$tmp" "$rule"); then
      echo "self-test: the clean tree breaks rule $rule:"; echo "$out"; failures=$((failures + 1))
    fi
  done
  # rules:file:line planted (the rules that must name it); each file is restored before the next.
  for plant in 'common:common/bad.hpp:#include "record/result.hpp"' \
               'common,renders:common/bad.cpp:  #  include <reports/render.hpp>' \
               'record:record/bad.cpp:#include "profiler/stats.hpp"' \
               'record:record/bad.hpp:#include <cuda_runtime.h>' \
               'record:record/bad.cpp:#include "common/check.hpp"' \
               'reports:reports/run/bad.cpp:#include "../../kernels/registry.hpp"' \
               'reports:reports/bad.cpp:#include "experiments/harness/experiment.hpp"' \
               'reports:reports/bad.cpp:#include <cupti.h>' \
               'renders:experiments/harness/run_main.cpp:#include "reports/plots.hpp"' \
               'renders,profiler:profiler/bad.cpp:#include "reports/render.hpp"' \
               'kernels:kernels/bad.cuh:#include "record/result.hpp"' \
               'kernels:kernels/registry.hpp:#include "record/claims.hpp"' \
               'kernels:kernels/bad.cu:#include "profiler/l2_flush.hpp"' \
               'profiler:profiler/bad.cpp:#include "kernels/registry.hpp"' \
               'profiler:profiler/calibration/microbench.cu:#include "kernels/registry.hpp"' \
               'profiler:profiler/calibration/microbench.cu:#include "kernels/hopper.cuh"'; do
    rule=${plant%%:*}; rest=${plant#*:}; file=${rest%%:*}; line=${rest#*:}
    saved=''
    [ -f "$tmp/$file" ] && saved=$(cat "$tmp/$file")
    printf '%s\n' "$line" >> "$tmp/$file"
    for other in $rules; do
      if out=$(check "$tmp" "$other"); then caught=no; else caught=yes; fi
      case ",$rule," in *",$other,"*) want=yes ;; *) want=no ;; esac
      if [ $caught != $want ]; then
        echo "self-test: '$line' in $file: rule $other caught it: $caught, expected $want"
        [ $caught = yes ] && echo "$out"
        failures=$((failures + 1))
      fi
    done
    if [ -n "$saved" ]; then printf '%s\n' "$saved" > "$tmp/$file"; else rm -f "$tmp/$file"; fi
  done
  [ $failures -eq 0 ] && echo "self-test: every planted include fails exactly the rules it breaks; the clean tree passes them all"
  [ $failures -eq 0 ]
}

case ${1:?usage: layers.sh <source root> <rule> | --self-test} in
  --self-test) self_test ;;
  *) check "$1" "${2:?usage: layers.sh <source root> <rule>}" ;;
esac

#!/usr/bin/env bash
# make profile PHASE=<id>: the phase's experiment with every CUPTI metric group, then each
# timed shape's launch under Nsight Compute with the same metric list (clocks not locked,
# NVTX-filtered to that one launch), the .ncu-rep kept beside run.json, and ncu's values
# imported into the record with the CUPTI-vs-ncu relative difference per metric.
#   scripts/profile.sh <phase> [experiment options: --shape ..., --seed ..., -o DIR ...]
#   env: BUILD=build; NCU=path to ncu (default: on PATH, else /usr/local/cuda/bin/ncu);
#        NCU_SET=full to add ncu's --set full; NCU_NVTX_INCLUDE to override the NVTX filter.
# Files beside run.json: ncu-<shape>.ncu-rep (open in the Nsight Compute GUI), ncu-<shape>.csv
# (its raw page), ncu-<shape>.log, and profile-launches/ (records of the profiled processes).
# Exit: 0 ok; 2 bad arguments; 3 ncu missing or a profiling step failed (the message says
# which, and the record keeps its CUPTI values).
set -euo pipefail

die() {
  echo "attnlab profile: $1" >&2
  exit "${2:-3}"
}

[ $# -ge 1 ] || die "usage: scripts/profile.sh <phase> [experiment options...]" 2
phase=$1
shift
build=${BUILD:-build}
bin=$build/bin/attnlab-phase-$phase
import=$build/bin/attnlab-ncu-import
[ -x "$bin" ] || die "no $bin: build first (make profile PHASE=$phase builds it)"
[ -x "$import" ] || die "no $import: build first"
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
[ -x "$ncu" ] || die "Nsight Compute (ncu) not found: put it on PATH or set NCU=/path/to/ncu"

# The experiment's results root (its -o/--results-dir), and options profiling must not get.
. "$(dirname "$0")/run-dir.sh"
results=$(experiment_results_root "$@")
metrics_given=0
for a in "$@"; do
  case "$a" in
    --metrics | --metrics=*) metrics_given=1 ;;
    --profile-launch | --check-only) die "$a has no place in make profile" 2 ;;
  esac
done

# 1. The experiment, CUPTI metrics included. Its run directory is the one that appears.
before=$(run_dirs "$results" "$phase")
extra=()
[ "$metrics_given" = 1 ] || extra=(--metrics all)
rc=0
"$bin" "${extra[@]}" "$@" || rc=$?
# 1: a shape failed its correctness check; the others were timed and can be profiled.
[ "$rc" -le 1 ] || die "the experiment exited $rc; nothing profiled" "$rc"
new=$(new_run_dirs "$before" "$results" "$phase")
[ "$(printf '%s' "$new" | grep -c .)" = 1 ] ||
  die "cannot tell which run directory the experiment created under $results/$phase"
run_dir=$new
record=$run_dir/run.json

# 2. Each timed shape once more, under ncu and (for the overhead) without it, same inputs.
seed=$("$import" seed "$record")
metrics=$("$import" metrics)
set_args=()
[ -z "${NCU_SET:-}" ] || set_args=(--set "$NCU_SET")
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
walls=()
shapes=$("$import" shapes "$record")
[ -n "$shapes" ] || die "the record has no timed shape to profile"
while read -r spec slug range; do
  filter=${NCU_NVTX_INCLUDE:-"attnlab@$range/"}  # trailing /: a push/pop range of domain attnlab
  app=("$bin" --shape "$spec" --seed "$seed" --profile-launch --results-dir "$run_dir/profile-launches")
  echo "attnlab profile: $spec: baseline without ncu"
  t0=$(now)
  "${app[@]}" </dev/null >"$run_dir/ncu-$slug.baseline.log" 2>&1 ||
    die "$spec: the profiled launch failed without ncu; see $run_dir/ncu-$slug.baseline.log"
  t1=$(now)
  echo "attnlab profile: $spec: ncu --nvtx-include '$filter'${NCU_SET:+ --set $NCU_SET}"
  "$ncu" --clock-control none --nvtx --nvtx-include "$filter" --metrics "$metrics" \
    "${set_args[@]}" --export "$run_dir/ncu-$slug" "${app[@]}" </dev/null >"$run_dir/ncu-$slug.log" 2>&1 ||
    die "$spec: ncu failed; see $run_dir/ncu-$slug.log"
  t2=$(now)
  [ -f "$run_dir/ncu-$slug.ncu-rep" ] ||
    die "$spec: ncu wrote no report: the NVTX filter '$filter' matched no launch (see $run_dir/ncu-$slug.log; override with NCU_NVTX_INCLUDE)"
  "$ncu" --import "$run_dir/ncu-$slug.ncu-rep" --csv --page raw --print-units base \
    </dev/null >"$run_dir/ncu-$slug.csv" || die "$spec: ncu --import failed"
  walls+=(--baseline-wall "$slug=$(elapsed "$t0" "$t1")" --wall "$slug=$(elapsed "$t1" "$t2")")
done <<<"$shapes"

# 3. ncu's values into the record, and the agreement table.
"$import" merge "$record" "${walls[@]}" --ncu-version "$("$ncu" --version | tail -n 1)" \
  --ncu-command "ncu --clock-control none --nvtx --nvtx-include 'attnlab@attnlab.profile.<phase>.<shape>/' --metrics <every metric group>${NCU_SET:+ --set $NCU_SET}"
echo "attnlab profile: record $record"

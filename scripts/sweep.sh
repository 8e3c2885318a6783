#!/usr/bin/env bash
# The sweep: every registered phase and the PyTorch SDPA baseline over the seed shapes and
# S = 512 ... 8192 at D = 64 and 128, one run record per phase, backend and shape group; each
# phase runs the shapes it can and names the ones it cannot. Then the progression report, when
# the report tool is built.
#   scripts/sweep.sh                                  (make sweep)
#   PHASES="4 4x" SHAPES="@seed 8x16x4096x64" ARGS="--regimes cold,graph" scripts/sweep.sh
#   GPUS="0 1" scripts/sweep.sh                       (two GPUs of this machine)
#   scripts/sweep.sh --help
#
# Shapes (H = 16): the batch shrinks as S grows so that every shape holds the same tokens,
# B*S = 32768 at D = 64 and 16384 at D = 128, the FlashAttention-3 paper's convention
# (arXiv 2407.08608; reports/published/fa3_h100_sxm.json). The work then grows linearly with S,
# not quadratically, so the scalar phases stay at seconds per call at S = 8192, and the table
# lines up with the paper's columns: 16x16x2048x64 is the throughput shape (the 2k column),
# 4x16x4096x128 phase 5's D = 128 target (kernels/TARGETS.md). The latency shape 1x8x512x64 is
# added as is.
# These are the named set @sweep (@seed, @sweep-d64, @sweep-d128; common/shapes.cpp), which
# SHAPES may name too.
#
# Several GPUs: the work is cut into tasks, one per phase (or SDPA baseline) and shape group
# (seed: the named shapes; d64, d128: the S sweep at each head dimension; a spec with another D
# gets its own group), and one worker per GPU takes the next task from a shared queue whenever
# it is free, running one experiment process at a time with its own --device, so a slow phase
# holds one GPU, not the sweep. Every record names the sweep (provenance.sweep_id, from
# ATTNLAB_SWEEP_ID) and its GPU (provenance.gpu.uuid); the sweep's manifest,
# RESULTS/sweeps/<sweep id>/manifest.json (scripts/sweep_manifest.py), lists the GPUs, every
# task, the GPU that ran it, its start and end, exit code and records, and the wall time; each
# task's output is in RESULTS/sweeps/<sweep id>/logs/. With one GPU the tasks run one after
# another, as before.
#
# Boards: with several GPUs, each phase of BOARD_PHASES (default "5 d4 cudnn", those of PHASES
# among them; BOARD_PHASES="" turns it off) runs its seed-shape task once on EVERY GPU, before
# the shared queue, so the sweep measures how much boards of one model differ; the sweep then
# renders RESULTS/sweeps/<sweep id>/boards.md (attnlab-report boards). The Slurm sweep, which
# cannot choose a board, runs them once.
#
# Environment: BUILD (build), RESULTS (results), PHASES (every registered phase), SHAPES (the
# list above), ARGS (options for every experiment; unless SDPA_ARGS is set, the baseline gets
# those of them it declares, `sdpa_baseline.py --list-options`, with their values, and the
# phase-only ones such as "--metrics none" are left out with a line that says so), SDPA_ARGS
# (the baseline's options instead, e.g. "--backends cudnn,flash"), SDPA (0 skips it), PYTHON
# (python3), GPUS (device ordinals, e.g. "0 1"; default: every GPU visible, that is one per
# entry of CUDA_VISIBLE_DEVICES when set, else one per line of `nvidia-smi -L`), SWEEP_ID
# (default <UTC stamp>-<short commit>), PROGRESSION (0 skips the progression report), GROUP_BY
# (shape: the groups above; phase: one task per phase, one record per phase as before),
# BOARD_PHASES (above).
# Exit status: 0 when every run that started ended ok; refusals of shapes are not failures;
# 2 for bad input (unknown phase, no GPUs, the build missing).
set -uo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "attnlab: sweep.sh takes no arguments ('$1'); see scripts/sweep.sh --help"; exit 2 ;;
esac
cd "$(dirname "$0")/.." || exit 2
build=${BUILD:-build}
results=${RESULTS:-results}
python=${PYTHON:-python3}
read -r -a args <<<"${ARGS:-}"
# The baseline's share of ARGS: each option it declares with the values after it, so an option
# means the same to every experiment of the sweep and none fails on one it does not take.
# An option starts with "-" and a letter or "--"; the tokens up to the next one are its values.
baseline_share() {
  local known opt kept=() dropped=() keep=0 a
  known=$("$python" experiments/baselines/sdpa_baseline.py --list-options) || {
    echo "attnlab: $python experiments/baselines/sdpa_baseline.py --list-options failed; set SDPA_ARGS or SDPA=0" >&2; return 3; }
  for a in "${args[@]}"; do
    if [[ $a == --* || $a =~ ^-[A-Za-z] ]]; then
      opt=${a%%=*}
      if grep -qxF -- "$opt" <<<"$known"; then keep=1; else keep=0; dropped+=("$opt"); fi
    fi
    if [ $keep = 1 ]; then kept+=("$a"); fi
  done
  [ ${#dropped[@]} -eq 0 ] || echo "== sdpa baseline: ARGS options it does not take, left out: ${dropped[*]}" >&2
  echo "${kept[*]}"
}
if [ -n "${SDPA_ARGS+set}" ]; then
  sdpa_args_str=$SDPA_ARGS
elif [ "${SDPA:-1}" != 0 ] && [ ${#args[@]} -gt 0 ]; then
  sdpa_args_str=$(baseline_share) || exit 3
else
  sdpa_args_str=
fi
[ -x "$build/bin/attnlab-phases" ] || { echo "attnlab: $build/bin/attnlab-phases not built; run make"; exit 2; }
# The shapes, each named set (common/shapes.cpp: @seed, @sweep-d64, ...) expanded.
read -r -a shape_specs <<<"${SHAPES:-@sweep}"
shape_list=$("$build/bin/attnlab-phases" --shapes "${shape_specs[@]}") || exit 2
read -r -d '' -a shapes <<<"$shape_list"
if [ -n "${PHASES:-}" ]; then
  read -r -a phases <<<"$PHASES"
  for p in "${phases[@]}"; do "$build/bin/attnlab-phases" --check "$p" || exit 2; done
else
  mapfile -t phases < <("$build/bin/attnlab-phases" --ids)
fi

# The GPUs: device ordinals as the experiments see them (under CUDA_VISIBLE_DEVICES, 0..n-1).
# The Slurm sweep (scripts/sweep_slurm.sh) plans here (SWEEP_PLAN_ONLY=1: the task queue, no
# GPU) and runs one task per array task (SWEEP_TASK=<n>: on the GPU Slurm gives it, device 0).
gpu_names=()
if [ -n "${SWEEP_PLAN_ONLY:-}${SWEEP_TASK:-}" ]; then
  gpus=(0)
elif [ -n "${GPUS+x}" ]; then
  read -r -a gpus <<<"$GPUS"
  for g in "${gpus[@]}"; do
    [[ $g =~ ^[0-9]+$ ]] || { echo "attnlab: GPUS='$GPUS': '$g' is not a device ordinal"; exit 2; }
    gpu_names+=("ordinal $g")
  done
elif [ -n "${CUDA_VISIBLE_DEVICES+x}" ]; then
  IFS=, read -r -a visible <<<"$CUDA_VISIBLE_DEVICES"
  gpus=()
  for i in "${!visible[@]}"; do gpus+=("$i"); gpu_names+=("CUDA_VISIBLE_DEVICES entry ${visible[$i]}"); done
else
  gpus=()
  if command -v nvidia-smi >/dev/null 2>&1; then
    while IFS= read -r line; do
      [[ $line =~ ^GPU\ ([0-9]+): ]] && { gpus+=("${BASH_REMATCH[1]}"); gpu_names+=("$line"); }
    done < <(nvidia-smi -L 2>/dev/null)
  fi
fi
if [ ${#gpus[@]} -eq 0 ]; then
  echo "attnlab: no GPUs to sweep on (nvidia-smi -L lists none and neither GPUS nor CUDA_VISIBLE_DEVICES names one; e.g. GPUS=\"0\")"
  exit 2
fi

# The commit: git's, else the stamp a copy without .git carries (scripts/stamp-source), as the build reads it.
# A stamp named by ATTNLAB_SOURCE_STAMP comes first: a copy that travels may carry some other .git
# (the sweep of 2026-11-26 on four H200s was named after a stale HEAD while its records, which
# read the stamp, named the commit that ran).
stamp=${ATTNLAB_SOURCE_STAMP:-.attnlab-source}
sha=
[ -n "${ATTNLAB_SOURCE_STAMP:-}" ] && sha=$(sed -n 's/^commit=\(.\{7\}\).*/\1/p' "$stamp" 2>/dev/null)
[ -n "$sha" ] || sha=$(git rev-parse --short HEAD 2>/dev/null || sed -n 's/^commit=\(.\{7\}\).*/\1/p' "$stamp" 2>/dev/null)
sha=${sha:-unknown}
sweep_id=${SWEEP_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$sha}
[[ $sweep_id =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || { echo "attnlab: SWEEP_ID='$sweep_id' is not a name of letters, digits, . _ -"; exit 2; }
sweep_dir=$results/sweeps/$sweep_id
mkdir -p "$sweep_dir/logs" || { echo "attnlab: cannot create $sweep_dir"; exit 2; }
export ATTNLAB_SWEEP_ID=$sweep_id

now() { date -u +%Y-%m-%dT%H:%M:%S.%NZ | sed 's/\([0-9]\{3\}\)[0-9]*Z$/\1Z/'; }
lock=$sweep_dir/queue.lock
queue=$sweep_dir/tasks.tsv
events=$sweep_dir/events.tsv
run_task() {  # run_task N GPU [WHERE]: task N of the queue on device GPU; its event names WHERE
  local n=$1 gpu=$2 where=${3:-$2} line id kind phase group shape_list pin start end rc t0 log ntasks
  ntasks=$(wc -l <"$queue")
  line=$(sed -n "${n}p" "$queue")
  [ -n "$line" ] || return 100
  IFS=$'\t' read -r id kind phase group shape_list pin <<<"$line"
  read -r -a task_shapes <<<"$shape_list"
  shape_args=()
  for s in "${task_shapes[@]}"; do shape_args+=(--shape "$s"); done
  log=$sweep_dir/logs/$id-$phase-$group.log
  start=$(now); t0=$(date +%s.%N)
  echo "== [$id/$ntasks] gpu $where: $kind $phase, $group (${#task_shapes[@]} shapes) started"
  if [ "$kind" = sdpa ]; then
    read -r -a sdpa_args <<<"$sdpa_args_str"
    "$python" experiments/baselines/sdpa_baseline.py "${shape_args[@]}" --results-dir "$results" \
      --device "$gpu" --importer "$build/bin/attnlab-sdpa-import" "${sdpa_args[@]}" >"$log" 2>&1
  else
    "$build/bin/attnlab-phase-$phase" "${shape_args[@]}" --results-dir "$results" \
      --device "$gpu" "${args[@]}" >"$log" 2>&1
  fi
  rc=$?
  end=$(now)
  echo "== [$id/$ntasks] gpu $where: $kind $phase, $group ended, exit $rc, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s (log $log)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$where" "$start" "$end" "$rc" "$(hostname)" | flock "$lock" tee -a "$events" >/dev/null
  return 0
}
if [ -n "${SWEEP_TASK:-}" ]; then
  [ -s "$queue" ] || { echo "attnlab: $queue: no task queue (plan the sweep first)"; exit 2; }
  where="$(hostname):${CUDA_VISIBLE_DEVICES:-all}"
  run_task "$SWEEP_TASK" 0 "$where"
  [ $? -eq 100 ] && { echo "attnlab: the sweep $sweep_id has no task $SWEEP_TASK"; exit 2; }
  exit 0
fi

# The shape group of a spec: seed for named shapes, d<D> for BxHxSxD[:...].
group_of() {
  [ "${GROUP_BY:-shape}" = phase ] && { echo all; return; }
  local base=${1%%:*}
  if [[ $base =~ ^[0-9]+x[0-9]+x[0-9]+x([0-9]+)$ ]]; then echo "d${BASH_REMATCH[1]}"; else echo seed; fi
}

# The tasks, one line each in the queue: id <TAB> kind <TAB> phase <TAB> group <TAB> shapes
# <TAB> pinned GPU (empty: any). Pinned tasks come first: each worker runs its own, then takes
# from the shared queue.
: >"$queue"
summary=()
ntasks=0
pinned_lines=()
shared_lines=()
add_task() {  # kind phase group shapes...   (PIN=<gpu> add_task ...: only that GPU runs it)
  local kind=$1 phase=$2 group=$3; shift 3
  local line
  line=$(printf '%s\t%s\t%s\t%s\t%s' "$kind" "$phase" "$group" "$*" "${PIN:-}")
  if [ -n "${PIN:-}" ]; then pinned_lines+=("$line"); else shared_lines+=("$line"); fi
}
board_phases=()
if [ ${#gpus[@]} -gt 1 ] && [ -z "${SWEEP_PLAN_ONLY:-}" ]; then
  read -r -a board_phases <<<"${BOARD_PHASES-5 d4 cudnn}"
fi
is_board_phase() { local b; for b in "${board_phases[@]}"; do [ "$b" = "$1" ] && return 0; done; return 1; }
groups_in_order() {  # the groups of the given shapes, first appearance first
  local s g seen=" "
  for s in "$@"; do g=$(group_of "$s"); [[ $seen == *" $g "* ]] || { seen+="$g "; echo "$g"; }; done
}
for phase in "${phases[@]}"; do
  exe="$build/bin/attnlab-phase-$phase"
  run_shapes=()
  for s in "${shapes[@]}"; do
    if why=$("$exe" --can-run --shape "$s" 2>&1); then
      run_shapes+=("$s")
    else
      echo "== phase $phase skips $s: ${why#*"$s": }"
    fi
  done
  if [ ${#run_shapes[@]} -eq 0 ]; then
    summary+=("phase $phase: no shape it can run")
    continue
  fi
  echo "== phase $phase: ${#run_shapes[@]} of ${#shapes[@]} shapes"
  while IFS= read -r g; do
    group_shapes=()
    for s in "${run_shapes[@]}"; do [ "$(group_of "$s")" = "$g" ] && group_shapes+=("$s"); done
    if [ "$g" = seed ] && is_board_phase "$phase"; then
      for gpu in "${gpus[@]}"; do PIN=$gpu add_task phase "$phase" "$g" "${group_shapes[@]}"; done
      echo "== phase $phase: its seed shapes on every GPU (BOARD_PHASES)"
    else
      add_task phase "$phase" "$g" "${group_shapes[@]}"
    fi
  done < <(groups_in_order "${run_shapes[@]}")
done
if [ "${SDPA:-1}" = 0 ]; then
  summary+=("sdpa baseline: skipped (SDPA=0)")
else
  while IFS= read -r g; do
    group_shapes=()
    for s in "${shapes[@]}"; do [ "$(group_of "$s")" = "$g" ] && group_shapes+=("$s"); done
    add_task sdpa sdpa "$g" "${group_shapes[@]}"
  done < <(groups_in_order "${shapes[@]}")
fi

for line in "${pinned_lines[@]}" "${shared_lines[@]}"; do
  ntasks=$((ntasks + 1))
  printf '%s\t%s\n' "$ntasks" "$line" >>"$queue"
done
npinned=${#pinned_lines[@]}

if [ -n "${SWEEP_PLAN_ONLY:-}" ]; then
  echo "== sweep $sweep_id: $ntasks tasks planned in $queue"
  exit 0
fi
[ "$ntasks" -gt 0 ] || { echo "attnlab: nothing to sweep (no phase can run these shapes, SDPA=0)"; exit 2; }

# One worker per GPU; each takes the next task under a lock (flock) and logs its start and end.
: >"$events"
next=$sweep_dir/next
echo $((npinned + 1)) >"$next"
worker() {  # gpu ordinal
  local n id pin
  while IFS=$'\t' read -r id _ _ _ _ pin; do  # this GPU's pinned tasks first
    [ "$pin" = "$1" ] && run_task "$id" "$1"
  done < <(head -n "$npinned" "$queue")
  while :; do
    n=$(flock "$lock" bash -c 'n=$(cat "$1"); echo $((n + 1)) >"$1"; echo "$n"' _ "$next")
    run_task "$n" "$1" || return 0
  done
}
echo "== sweep $sweep_id: $ntasks tasks on ${#gpus[@]} GPU(s): ${gpus[*]}"
sweep_start=$(now)
pids=()
for g in "${gpus[@]}"; do worker "$g" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
sweep_end=$(now)

gpu_lines=$(printf '%s\n' "${gpu_names[@]}")
"$python" scripts/sweep_manifest.py --sweep-dir "$sweep_dir" --results "$results" \
  --sweep-id "$sweep_id" --gpus "${gpus[*]}" --gpu-names "$gpu_lines" \
  --start "$sweep_start" --end "$sweep_end" --scheduler local
manifest_rc=$?
if [ $manifest_rc -eq 0 ]; then
  summary+=("sweep manifest: $sweep_dir/manifest.json")
else
  summary+=("sweep manifest: FAILED"); status=1
fi

status=${status:-0}
while IFS=$'\t' read -r id kind phase group shape_list _; do
  rc=$(awk -F'\t' -v id="$id" '$1 == id {print $5}' "$events")
  gpu=$(awk -F'\t' -v id="$id" '$1 == id {print $2}' "$events")
  what="phase $phase"; [ "$kind" = sdpa ] && what="sdpa baseline"
  case $kind:$rc in
    *:0) summary+=("$what, $group on gpu $gpu: ok") ;;
    phase:1) summary+=("$what, $group on gpu $gpu: FAILED (a check failed or the run broke; see its record)"); status=1 ;;
    *:3) summary+=("$what, $group on gpu $gpu: did not run (environment, see its log)"); status=1 ;;
    sdpa:2) summary+=("$what, $group on gpu $gpu: exit 2, a bad option (ARGS the baseline lacks? set SDPA_ARGS) or a backend that cannot run a shape (its result says why)") ;;
    *) summary+=("$what, $group on gpu ${gpu:-none}: exit ${rc:-none} (see $sweep_dir/logs/)"); status=1 ;;
  esac
done <"$queue"

if [ "${PROGRESSION:-1}" = 0 ]; then
  summary+=("progression report: skipped (PROGRESSION=0)")
elif [ -x "$build/bin/attnlab-report" ]; then
  if "$build/bin/attnlab-report" progression "$results" "$results/progression"; then
    summary+=("progression report: $results/progression/report.md")
  else
    summary+=("progression report: FAILED"); status=1
  fi
else
  summary+=("progression report: skipped, $build/bin/attnlab-report is not built")
fi
if [ "$npinned" -gt 0 ] && [ "${PROGRESSION:-1}" != 0 ] && [ -x "$build/bin/attnlab-report" ]; then
  if "$build/bin/attnlab-report" boards "$results" "$sweep_id" "$sweep_dir"; then
    summary+=("board spread: $sweep_dir/boards.md")
  else
    summary+=("board spread: FAILED"); status=1
  fi
fi
echo "== sweep $sweep_id summary"
printf '  %s\n' "${summary[@]}"
exit "$status"

#!/usr/bin/env bash
# The sweep on a Slurm cluster (make sweep-slurm): plans the same tasks as scripts/sweep.sh (one
# per phase or SDPA baseline and shape group), writes a job array with one array task per sweep
# task, each on one GPU (--gres=gpu:1), submits it with sbatch, and submits a collect job that
# depends on the array (afterany) and writes the sweep's manifest and the progression over
# RESULTS. Slurm schedules; nothing here does.
#   scripts/sweep_slurm.sh                 plan, write, submit (make sweep-slurm)
#   scripts/sweep_slurm.sh --dry-run       plan and print the job scripts, submit nothing
#   scripts/sweep_slurm.sh --collect DIR   the collect step by hand (make sweep-collect
#                                          SWEEP=results/sweeps/<id>): manifest, progression
#   scripts/sweep_slurm.sh --help
# RESULTS and the checkout must be on a file system every node sees (the array's tasks run
# scripts/sweep.sh in this checkout with SWEEP_TASK=<n>, each writing its record into RESULTS
# and its start, end, exit code, host and CUDA_VISIBLE_DEVICES into the sweep's events).
# Environment: as scripts/sweep.sh (BUILD, RESULTS, PHASES, SHAPES, ARGS, SDPA_ARGS, SDPA,
# PYTHON, SWEEP_ID), and GRES (gpu:1; empty omits --gres, for a cluster without GPUs in Slurm),
# SBATCH_ARGS (more sbatch options for both jobs, e.g. "--partition=h100 --time=02:00:00"),
# SBATCH (the sbatch command, sbatch).
# Exit status: 0 when submitted (or printed), 2 for bad input (sbatch missing, unknown phase),
# 1 when sbatch refuses a job or the collect step finds a task without its record.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 2
dry=0; collect=
case "${1:-}" in
  -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
  --dry-run) dry=1 ;;
  --collect) collect=${2:-}; [ -n "$collect" ] || { echo "attnlab: --collect needs the sweep directory (results/sweeps/<id>)"; exit 2; } ;;
  "") ;;
  *) echo "attnlab: sweep_slurm.sh: unknown option '$1' (see --help)"; exit 2 ;;
esac
build=${BUILD:-build}
results=${RESULTS:-results}
python=${PYTHON:-python3}

if [ -n "$collect" ]; then
  [ -s "$collect/tasks.tsv" ] || { echo "attnlab: $collect: not a planned sweep (no tasks.tsv)"; exit 2; }
  sweep_id=$(basename "$collect")
  results=$(cd "$collect/../.." && pwd)
  read -r start end gpus < <("$python" - "$collect/events.tsv" <<'PY'
import sys
ev = [l.split("\t") for l in open(sys.argv[1]).read().splitlines() if l.strip()] if __import__("os").path.exists(sys.argv[1]) else []
starts = sorted(e[2] for e in ev); ends = sorted(e[3] for e in ev)
gpus = sorted({e[1] for e in ev})
print(starts[0] if starts else "1970-01-01T00:00:00Z", ends[-1] if ends else "1970-01-01T00:00:00Z", " ".join(gpus))
PY
)
  "$python" scripts/sweep_manifest.py --sweep-dir "$collect" --results "$results" --sweep-id "$sweep_id" \
    --gpus "${gpus:-}" --start "$start" --end "$end" --scheduler slurm \
    --slurm-job "$(cat "$collect/slurm_job" 2>/dev/null || echo unknown)"
  status=$?
  if [ "${PROGRESSION:-1}" != 0 ] && [ -x "$build/bin/attnlab-report" ]; then
    "$build/bin/attnlab-report" progression "$results" "$results/progression" || status=1
  fi
  exit $status
fi

sbatch=${SBATCH:-sbatch}
if [ $dry = 0 ] && ! command -v "$sbatch" >/dev/null 2>&1; then
  echo "attnlab: $sbatch not found: make sweep-slurm needs a Slurm client (or --dry-run)"; exit 2
fi
sha=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
export SWEEP_ID=${SWEEP_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$sha}
plan=$(SWEEP_PLAN_ONLY=1 PROGRESSION=0 scripts/sweep.sh) || { echo "$plan" | tail -1; exit 2; }
echo "$plan"
mkdir -p "$results"
results=$(cd "$results" && pwd)
sweep_dir=$results/sweeps/$SWEEP_ID
ntasks=$(wc -l <"$sweep_dir/tasks.tsv")
[ "$ntasks" -gt 0 ] || { echo "attnlab: nothing to sweep (no phase can run these shapes, SDPA=0)"; exit 2; }
gres=${GRES-gpu:1}
q() { printf '%q' "$1"; }
{
  echo "#!/usr/bin/env bash"
  echo "#SBATCH --job-name=attnlab-sweep"
  echo "#SBATCH --array=1-$ntasks"
  echo "#SBATCH --ntasks=1"
  [ -n "$gres" ] && echo "#SBATCH --gres=$gres"
  echo "#SBATCH --output=$sweep_dir/logs/slurm-%A_%a.out"
  echo "# attnlab sweep $SWEEP_ID: task \$SLURM_ARRAY_TASK_ID of $sweep_dir/tasks.tsv on the GPU Slurm gives it"
  echo "cd $(q "$repo")"
  echo "export BUILD=$(q "$build") RESULTS=$(q "$results") SWEEP_ID=$(q "$SWEEP_ID") PYTHON=$(q "$python")"
  # SDPA_ARGS only where set: otherwise sweep.sh gives the baseline its share of ARGS.
  echo "export ARGS=$(q "${ARGS:-}")${SDPA_ARGS+ SDPA_ARGS=$(q "$SDPA_ARGS")}"
  echo "SWEEP_TASK=\$SLURM_ARRAY_TASK_ID exec scripts/sweep.sh"
} >"$sweep_dir/array.sbatch"
{
  echo "#!/usr/bin/env bash"
  echo "#SBATCH --job-name=attnlab-sweep-collect"
  echo "#SBATCH --ntasks=1"
  echo "#SBATCH --output=$sweep_dir/logs/slurm-collect-%j.out"
  echo "# attnlab sweep $SWEEP_ID: after the array, the manifest and the progression"
  echo "cd $(q "$repo")"
  echo "export BUILD=$(q "$build") PYTHON=$(q "$python") PROGRESSION=$(q "${PROGRESSION:-1}")"
  echo "exec scripts/sweep_slurm.sh --collect $(q "$sweep_dir")"
} >"$sweep_dir/collect.sbatch"
read -r -a extra <<<"${SBATCH_ARGS:-}"
if [ $dry = 1 ]; then
  echo "== dry run: $sweep_dir/array.sbatch (sbatch --parsable ${extra[*]} array.sbatch)"
  cat "$sweep_dir/array.sbatch"
  echo "== dry run: $sweep_dir/collect.sbatch (sbatch --parsable --dependency=afterany:<array job> ${extra[*]} collect.sbatch)"
  cat "$sweep_dir/collect.sbatch"
  exit 0
fi
job=$("$sbatch" --parsable "${extra[@]}" "$sweep_dir/array.sbatch") || { echo "attnlab: sbatch refused the array job: $job"; exit 1; }
job=${job%%;*}
echo "$job" >"$sweep_dir/slurm_job"
cjob=$("$sbatch" --parsable --dependency="afterany:$job" "${extra[@]}" "$sweep_dir/collect.sbatch") ||
  { echo "attnlab: sbatch refused the collect job: $cjob"; exit 1; }
echo "== sweep $SWEEP_ID: array job $job ($ntasks tasks), collect job ${cjob%%;*} after it"
echo "   manifest: $sweep_dir/manifest.json when the collect job ends (squeue -j $job,${cjob%%;*})"

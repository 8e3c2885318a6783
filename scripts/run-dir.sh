# Sourced by scripts/experiment, scripts/profile.sh, scripts/timeline and scripts/timeline-cost:
# the results root a tool's options name (an experiment's -o/--results-dir, default results;
# attnlab-timeline's --out, default results/timeline), the run directory a run created there,
# which is the one that appears under <root>/<phase>/ while it runs (a run never reuses a
# directory), and the folders of calibration records a timeline takes its tensor rate from.

# option_value DEFAULT SHORT LONG OPTIONS...: the value OPTIONS give SHORT or LONG (as
# "SHORT v", "LONG v" or "LONG=v"; the last one wins), else DEFAULT. SHORT may be "".
option_value() {
  local value=$1 short=$2 long=$3 prev= a
  shift 3
  for a in "$@"; do
    if [ "$prev" = "$long" ] || { [ -n "$short" ] && [ "$prev" = "$short" ]; }; then value=$a; fi
    case "$a" in "$long"=*) value=${a#*=} ;; esac
    prev=$a
  done
  printf '%s\n' "$value"
}

# experiment_results_root OPTIONS...: the root the experiment writes under.
experiment_results_root() { option_value results -o --results-dir "$@"; }

# run_dirs ROOT PHASE: the phase's run directories, sorted, one a line.
run_dirs() {
  { find "$1/$2" -mindepth 1 -maxdepth 1 -type d 2>/dev/null || true; } | sort
}

# new_run_dirs BEFORE ROOT PHASE: the run directories that are not in BEFORE (run_dirs' output
# taken before the run), one a line.
new_run_dirs() {
  comm -13 <(printf '%s\n' "$1") <(run_dirs "$2" "$3") | grep . || true
}

# calibration_args RESULTS OPTIONS...: attnlab-timeline's --calibration for each folder of
# calibration records there is, one word a line: RESULTS/calibration (make calibrate writes
# there) and the committed reports/<gpu>/calibration/, among which the tool takes this GPU's
# newest, so that its tensor pipe divides by a measured rate rather than the architecture's
# ceiling; nothing where OPTIONS name --calibration already.
calibration_args() {
  local results=$1 reports d a
  shift
  for a in "$@"; do case "$a" in --calibration|--calibration=*) return 0 ;; esac; done
  reports=$(realpath --relative-to=. "$(dirname "${BASH_SOURCE[0]}")/../reports")
  for d in "$results/calibration" "$reports"/*/calibration; do
    [ -d "$d" ] && printf -- '--calibration\n%s\n' "$d"
  done
  return 0
}

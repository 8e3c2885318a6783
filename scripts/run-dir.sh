# Sourced by scripts/experiment and scripts/profile.sh: the results root an experiment's options
# name (-o/--results-dir, default results), and the run directory a run created there, which
# is the one that appears under <root>/<phase>/ while it runs (a run never reuses a directory).

# experiment_results_root OPTIONS...: the root the experiment writes under.
experiment_results_root() {
  local root=results prev= a
  for a in "$@"; do
    case "$prev" in -o | --results-dir) root=$a ;; esac
    case "$a" in --results-dir=*) root=${a#*=} ;; esac
    prev=$a
  done
  printf '%s\n' "$root"
}

# run_dirs ROOT PHASE: the phase's run directories, sorted, one a line.
run_dirs() {
  { find "$1/$2" -mindepth 1 -maxdepth 1 -type d 2>/dev/null || true; } | sort
}

# new_run_dirs BEFORE ROOT PHASE: the run directories that are not in BEFORE (run_dirs' output
# taken before the run), one a line.
new_run_dirs() {
  comm -13 <(printf '%s\n' "$1") <(run_dirs "$2" "$3") | grep . || true
}

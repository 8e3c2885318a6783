#!/usr/bin/env bash
# Every phase's experiment at its default shapes (phase 1 also at the throughput shape), with
# all metric groups, then the PyTorch SDPA baseline at both seed shapes. Records go under
# ${1:-results}; one status line per run is printed.
set -uo pipefail
out=${1:-results}
for p in $(build/bin/attnlab-phases --ids); do
  extra=()
  [ "$p" = 1 ] && extra=(--shape latency --shape throughput)
  build/bin/attnlab-phase-"$p" --results-dir "$out" "${extra[@]}" >"$out.$p.log" 2>&1
  echo "phase $p: exit $? $(grep -E '^attnlab: (status|run failed)' "$out.$p.log" | tail -1)"
done
python3 experiments/baselines/sdpa_baseline.py --shape latency --shape throughput --results-dir "$out" \
  >"$out.sdpa.log" 2>&1
echo "sdpa: exit $? $(tail -1 "$out.sdpa.log")"

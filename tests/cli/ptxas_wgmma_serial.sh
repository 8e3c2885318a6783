#!/usr/bin/env bash
# ptxas serialises a kernel's wgmma (C7515-C7520, "wgmma.mma_async instructions are serialized
# due to ...") when it must insert warpgroup arrives or waits on a divergent path, e.g. a wgmma
# issued under a branch it cannot prove uniform. The kernel stays correct and runs at a
# fraction of its speed (kernels/NOTES.md, phase 5), so a build whose ptxas report says so fails
# here. $1: the embedded ptxas report (build/generated/ptxas_report.cpp).
set -u
report=$1
[ -r "$report" ] || { echo "no ptxas report at $report"; exit 1; }
grep -q "phase_5" "$report" || { echo "the ptxas report has no phase 5 kernel: $report"; exit 1; }
if grep -E "wgmma[^ ]* instructions are serialized" "$report"; then
  echo "ptxas serialised wgmma in the kernels above"
  exit 1
fi
echo "ok: no serialised wgmma in $report"

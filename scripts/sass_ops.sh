#!/usr/bin/env bash
# Per kernel of a `cuobjdump -sass` listing (phase 5's named by its traits and scheduler, the
# timeline's stamped builds marked ,stamps): its instruction count and the counts of the opcodes
# phase 5's notes follow (uniform-datapath instructions, R2UR, BSSY, WARPSYNC, HGMMA, QGMMA (the
# e4m3 wgmma), UTMALDG,
# MUFU.EX2, and LDL/STL: local memory). Usage: scripts/sass_ops.sh LISTING [LABEL]
set -euo pipefail
[ $# -ge 1 ] && [ -f "$1" ] || { echo "usage: scripts/sass_ops.sh LISTING [LABEL] (a cuobjdump -sass listing)" >&2; exit 2; }
awk -v v="${2:-sass}" '
/Function :/ { f = $3; s = ""
  if (match(f, /(Static|Dynamic|Split)Scheduler/)) s = "," substr(f, RSTART, RLENGTH - 9)
  if (f ~ /WarpStamps/) s = s ",stamps"
  sub(/.*TraitsILi/, "T", f); sub(/EEE.*/, "", f); f = f s; n[f] += 0 }
/^[ \t]+\/\*[0-9a-f]+\*\/[ \t]+[^ ]/ {
  line = $0; sub(/^[ \t]+\/\*[0-9a-f]+\*\/[ \t]+/, "", line); sub(/^@!?U?P[0-9T] /, "", line)
  split(line, a, /[ ;]/); op = a[1]; n[f]++
  if (op ~ /^U/ && op !~ /^UTMALDG/) u[f]++
  if (op ~ /^HGMMA/) h[f]++; if (op ~ /^QGMMA/) q[f]++; if (op ~ /^UTMALDG/) t[f]++; if (op ~ /^BSSY/) b[f]++; if (op == "R2UR") r[f]++
  if (op ~ /^WARPSYNC/) w[f]++; if (op ~ /^MUFU.EX2/) m[f]++; if (op ~ /^(LDL|STL)/) l[f]++ }
END { for (f in n) printf "%s %-28s n=%d uniform=%d R2UR=%d BSSY=%d WARPSYNC=%d HGMMA=%d QGMMA=%d UTMALDG=%d EX2=%d LDL+STL=%d\n",
        v, f, n[f], u[f], r[f], b[f], w[f], h[f], q[f], t[f], m[f], l[f] }' "$1" | sort -k2

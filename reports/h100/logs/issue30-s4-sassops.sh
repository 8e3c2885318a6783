# per kernel of a cuobjdump -sass listing: instructions, and counts of a few opcodes
awk -v v="$2" '
/Function :/ { f=$3; sub(/.*TraitsILi/, "T", f); sub(/EEE.*/, "", f) }
/^[ \t]+\/\*[0-9a-f]+\*\/[ \t]+[^ ]/ { line=$0; sub(/^[ \t]+\/\*[0-9a-f]+\*\/[ \t]+/, "", line); sub(/^@!?U?P[0-9T] /, "", line); split(line, a, /[ ;]/); op=a[1]; n[f]++
  if (op ~ /^U/ && op != "UTMALDG" ) u[f]++
  if (op ~ /^HGMMA/) h[f]++; if (op ~ /^BSSY/) b[f]++; if (op=="R2UR") r[f]++; if (op ~ /^WARPSYNC/) w[f]++; if (op ~ /^MUFU.EX2/) m[f]++; if (op ~ /^(LDL|STL)/) l[f]++ }
END { for (f in n) printf "%s %-28s n=%d uniform=%d R2UR=%d BSSY=%d WARPSYNC=%d HGMMA=%d EX2=%d LDL+STL=%d\n", v, f, n[f], u[f], r[f], b[f], w[f], h[f], m[f], l[f] }' "$1" | sort -k2

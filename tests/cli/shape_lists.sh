#!/bin/sh
# Shapes the tools share are named once, in common/shapes.cpp (the presets and the sets a
# --shape takes as @name), or come from the registry (a phase's default shapes, attnlab-phases
# --default-shapes): no shell script under scripts/ and no Makefile line spells a BxHxSxD shape
# out. Not scanned: comments, the Python scripts (their docstrings give examples), and the
# probes (scripts/probe-*), whose few shapes are their own question, as their binaries' defaults.
# Usage: shape_lists.sh <source root>. Exit 1, listing each offending line, when one is found.
root=${1:?usage: shape_lists.sh <source root>}
cd "$root" || exit 2
found=''
for f in Makefile scripts/*; do
  [ -f "$f" ] || continue
  case $f in scripts/probe-*) continue ;; esac
  head -n 1 "$f" | grep -q python && continue
  case $f in *.py) continue ;; esac
  hits=$(grep -nE '(^|[^0-9A-Za-z_])[0-9]+x[0-9]+x[0-9]+x[0-9]+' "$f" | grep -vE '^[0-9]+:[[:space:]]*#')
  [ -n "$hits" ] && found="$found$(printf '%s\n' "$hits" | sed "s|^|$f:|")
"
done
if [ -n "$found" ]; then
  echo "a shape spelled out in a script or the Makefile (name it by a set of common/shapes.cpp, @name):"
  printf '%s' "$found"
  exit 1
fi
echo "scripts/ and the Makefile name their shapes by presets, sets and the registry"

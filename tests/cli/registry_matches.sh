#!/usr/bin/env bash
# The registry and the experiment binaries must name the same phases: a phase without an
# experiment, or an experiment without a phase, is drift.
set -u
registry=$("$1" --ids | sort | tr '\n' ' ')
binaries=$(tr ';' '\n' <<<"$2" | sort | tr '\n' ' ')
if [ "$registry" != "$binaries" ]; then
  echo "registry phases: $registry"; echo "experiment binaries: $binaries"; exit 1
fi
echo "ok: $registry"

# shellcheck shell=bash disable=SC2034  # sets commit and dirty for the script that sources it
# Sourced by scripts/gpu-tests-part and scripts/device-bundle: this tree's commit as the build
# reads it (cmake/WriteBuildInfo.cmake), for a copy sent without .git as well as a checkout.
#
# source_commit ROOT: sets `commit` and `dirty` (true or false) from the stamp that
# $ATTNLAB_SOURCE_STAMP names, else ROOT/.attnlab-source where ROOT has no .git (scripts/stamp-source
# writes it), else git's HEAD and whether tracked files differ from it. Returns 1, with the reason
# on stderr, where $ATTNLAB_SOURCE_STAMP names no file.
source_commit() {
  local root=$1 stamp=${ATTNLAB_SOURCE_STAMP:-}
  [ -n "$stamp" ] || { [ ! -d "$root/.git" ] && [ -f "$root/.attnlab-source" ] && stamp=$root/.attnlab-source; }
  if [ -n "$stamp" ]; then
    [ -f "$stamp" ] || { echo "no source stamp '$stamp'" >&2; return 1; }
    commit=$(sed -n 's/^commit=//p' "$stamp")
    dirty=$(sed -n 's/^dirty=//p' "$stamp")
  else
    commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
    dirty=false
    [ -z "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] || dirty=true
  fi
}

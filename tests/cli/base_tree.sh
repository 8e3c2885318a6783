#!/usr/bin/env bash
# scripts/base-tree writes a commit's kernels for attnlab-ab-base: the tree names its commit,
# leaves out the registry's interface, and stamps its files with the time it wrote them (git
# archive gives them the commit's time, older than the objects a build made from the tree
# before, so a build would not recompile them); an unknown commit exits 2.
#   tests/cli/base_tree.sh <repository root>
set -u
root=${1:?usage: base_tree.sh <repository root>}
cd "$root" || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $1"; exit 1; }
touch -d '-1 second' "$work/before"
out=$(scripts/base-tree HEAD "$work/tree" 2>&1) || fail "base-tree HEAD: $out"
[ "$(cat "$work/tree/COMMIT")" = "$(git rev-parse HEAD)" ] || fail "COMMIT names HEAD"
[ -f "$work/tree/kernels/phase_5_kernel.cuh" ] || fail "the kernels are written"
[ ! -e "$work/tree/kernels/registry.hpp" ] || fail "the registry's interface is left out"
old=$(find "$work/tree" -type f ! -newer "$work/before" | head -3)
[ -z "$old" ] || fail "files older than the run, which a build would not recompile: $old"
"$root/tests/cli/expect.sh" 2 "no commit" scripts/base-tree no-such-commit "$work/other" || fail "an unknown commit is refused"
echo "ok: base-tree writes HEAD's kernels, stamped now"

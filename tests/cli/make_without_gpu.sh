#!/usr/bin/env bash
# make_without_gpu.sh REPO: with no CUDA device visible (CUDA_VISIBLE_DEVICES=-1 hides a present
# one), scripts/gpu-check exits 3 with one line on stderr, and every make target that runs on a
# GPU stops with that line before it configures or builds anything (its BUILD directory is never
# created): make names the code ("Error 3") and, as for any failed command, exits 2.
set -u
repo=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export CUDA_VISIBLE_DEVICES=-1
. "$(dirname "$0")/checks.sh"
line='^attnlab: no CUDA device ('

"$repo/scripts/gpu-check" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stderr"
check "gpu-check: exit 3" test "$rc" -eq 3
check "gpu-check: one line on stderr" test "$(wc -l <"$tmp/stderr")" -eq 1
check "gpu-check: says no CUDA device" grep -q "$line" "$tmp/stderr"
check "gpu-check: nothing on stdout" test ! -s "$tmp/stdout"

# A timeout bounds a Makefile that would build first (minutes); its BUILD directory tells.
for goal in "experiment PHASE=5" "profile PHASE=5" "ab A=5 B=cudnn" "profile-ab A=5 B=cudnn" \
            calibrate "timeline PHASE=5" timeline-cost sweep baseline "reproduce RUN=results/5/any"; do
  name=${goal%% *}
  # shellcheck disable=SC2086 # the goal's words are make's arguments
  timeout 300 make -C "$repo" --no-print-directory $goal BUILD="$tmp/build-$name" >"$tmp/out" 2>&1
  rc=$?
  check "make $name: exit 2 (make's status for a failed command)" test "$rc" -eq 2
  check "make $name: the line first" bash -c 'head -n 1 "$0" | grep -q "$1"' "$tmp/out" "$line"
  check "make $name: once" test "$(grep -c "$line" "$tmp/out")" -eq 1
  # make[N] where the test itself runs under make (make test): the level is make's, not ours.
  check "make $name: make names code 3" grep -qE '^make(\[[0-9]+\])?: \*\*\* \[.*\] Error 3$' "$tmp/out"
  check "make $name: nothing configured or built" test ! -e "$tmp/build-$name"
  [ "$fails" -eq 0 ] || cat "$tmp/out"
done

[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
echo "ok: no GPU, said in one line before any build"

#!/usr/bin/env bash
# scripts/gpu-tests-part against a stand-in ctest and nvidia-smi (no GPU needed): the first part
# runs every gpu test, lists those that passed or were skipped, names the failure and exits 1; a
# second part with that list runs only what is left; a list of another commit is not reused.
#   tests/cli/gpu_tests_part.sh <repository root>
set -u
root=${1:?usage: gpu_tests_part.sh <repository root>}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/build"
touch "$work/build/CTestTestfile.cmake"
printf '#!/bin/sh\necho "GPU 0: stand-in"\n' >"$work/bin/nvidia-smi"
# Three gpu tests: number 4 passes, 7 is skipped, 9 fails.
cat >"$work/bin/ctest" <<'FAKE'
#!/usr/bin/env bash
list=""
while [ $# -gt 0 ]; do
  case "$1" in
    -N) listing=1 ;;
    -I) list=$2; shift ;;
  esac
  shift
done
names=([4]=gpu.alpha [7]=gpu.beta [9]=gpu.gamma)
if [ -n "${listing:-}" ]; then
  for n in 4 7 9; do echo "  Test #$n: ${names[$n]}"; done
  echo "Total Tests: 3"; exit 0
fi
cat "$list" >>"$RUN_LOG"
for n in $(cut -d, -f4- "$list" | tr , ' '); do
  case $n in
    4) echo "1/3 Test #4: gpu.alpha ........   Passed    0.10 sec" ;;
    7) echo "2/3 Test #7: gpu.beta .........***Skipped   0.10 sec" ;;
    9) echo "3/3 Test #9: gpu.gamma ........***Failed    0.10 sec" ;;
  esac
done
FAKE
chmod +x "$work/bin/nvidia-smi" "$work/bin/ctest"
printf 'commit=abc1234\ndirty=false\n' >"$work/stamp"
export PATH="$work/bin:$PATH" ATTNLAB_SOURCE_STAMP="$work/stamp" RUN_LOG="$work/runs"
fail() { echo "FAIL: $1"; exit 1; }

out=$("$root/scripts/gpu-tests-part" --build "$work/build" --out "$work/o1" --budget 60 2>&1)
rc=$?
echo "$out"
[ $rc -eq 1 ] || fail "a failed test gives exit 1, got $rc"
grep -q "^FAILED gpu.gamma$" <<<"$out" || fail "the failure is named"
[ "$(cat "$work/o1/gpu-tests-done.txt")" = "$(printf 'commit=abc1234\ngpu.alpha\ngpu.beta')" ] ||
  fail "the list holds the commit, the passed and the skipped test: $(cat "$work/o1/gpu-tests-done.txt")"
grep -q "2 of 3 gpu tests passed or skipped at abc1234, 1 left" <<<"$out" || fail "the summary counts"

out=$("$root/scripts/gpu-tests-part" --build "$work/build" --out "$work/o2" --done "$work/o1/gpu-tests-done.txt" 2>&1)
echo "$out"
[ "$(tail -1 "$work/runs")" = "0,0,0,9" ] || fail "the second part runs only the test left, ran: $(tail -1 "$work/runs")"
grep -q "2 of 3 gpu tests done at abc1234, 1 to run" <<<"$out" || fail "the second part starts from the list"

printf 'commit=fff9999\ndirty=false\n' >"$work/stamp"
out=$("$root/scripts/gpu-tests-part" --build "$work/build" --done "$work/o1/gpu-tests-done.txt" --dry-run 2>&1)
echo "$out"
grep -q "not reusing .*: it is of abc1234, this tree is fff9999" <<<"$out" || fail "another commit's list is refused"
grep -q "0 of 3 gpu tests done at fff9999, 3 to run" <<<"$out" || fail "and every test is to run"
echo "gpu_tests_part: ok"

#!/usr/bin/env bash
# expect.sh RC TEXT CMD...: runs CMD, passes if it exits with RC and its output contains TEXT
# (a fixed string) on a single line.
set -u
want_rc=$1; text=$2; shift 2
out=$("$@" 2>&1); rc=$?
# EXPECT_PASS_SKIP=1: a command that says it cannot check here (77) skips the test.
if [ -n "${EXPECT_PASS_SKIP:-}" ] && [ "$rc" -eq 77 ] && [ "$want_rc" -ne 77 ]; then
  echo "$out"; exit 77
fi
if [ "$rc" -ne "$want_rc" ]; then
  echo "expected exit $want_rc, got $rc; output:"; echo "$out"; exit 1
fi
if ! grep -qF -- "$text" <<<"$out"; then
  echo "output lacks '$text':"; echo "$out"; exit 1
fi
echo "ok: exit $rc, '$text'"

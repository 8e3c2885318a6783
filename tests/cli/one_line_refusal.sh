#!/usr/bin/env bash
# one_line_refusal.sh RC TEXT CMD...: passes if CMD exits with RC and prints exactly one line,
# which contains TEXT (a fixed string): the refusal contract of the tools (one clear line).
set -u
want_rc=$1; text=$2; shift 2
out=$("$@" 2>&1); rc=$?
echo "$out"
[ "$rc" -eq "$want_rc" ] || { echo "expected exit $want_rc, got $rc"; exit 1; }
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { echo "expected one line"; exit 1; }
grep -qF -- "$text" <<<"$out" || { echo "output lacks '$text'"; exit 1; }

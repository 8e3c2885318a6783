#!/usr/bin/env bash
# setup.sh REPO: make setup installs the required packages and an optional one only when asked
# for (OPTIONAL=..., --with, --with-optional), names each missing optional one with what it is
# for, and fails by name on a missing required one. No network: ATTNLAB_SETUP_ASSUME_MISSING
# (a dry run) on the real list, and a made-up list with fake apt-get and sudo on PATH for the
# real install path.
set -u
repo=$1
setup=$repo/scripts/setup
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
line() { grep -qxF -- "$2" "$1"; }  # FILE has LINE, whole
mapfile -t optional < <(sed -e 's/#.*//' "$repo/docker/packages.txt" | awk '$2 == "optional" { print $1 }')
check "the list has optional packages" test "${#optional[@]}" -gt 0

# Nothing asked for: the required one installed, no optional one; each optional one named.
ATTNLAB_SETUP_ASSUME_MISSING="cmake ${optional[*]}" "$setup" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
check "required missing: exit 1" test "$rc" -eq 1
check "only the required package would be installed" line "$tmp/out" "attnlab setup: would install cmake"
check "the required one named" grep -qF "required packages missing: cmake;" "$tmp/out"
for p in "${optional[@]}"; do
  check "optional $p named with what it is for" \
    grep -qE "^attnlab setup: optional $p not installed, for .+: make setup OPTIONAL=$p installs it$" "$tmp/out"
done

# make setup OPTIONAL=<one>: that one, and the others still named.
ATTNLAB_SETUP_ASSUME_MISSING="${optional[*]}" make -C "$repo" --no-print-directory setup \
  OPTIONAL="${optional[0]}" >"$tmp/out" 2>&1
rc=$?
check "OPTIONAL=${optional[0]}: exit 0" test "$rc" -eq 0
check "OPTIONAL=${optional[0]}: it would be installed" line "$tmp/out" "attnlab setup: would install ${optional[0]}"
check "OPTIONAL=${optional[0]}: not named as missing" bash -c '! grep -q "optional $1 not installed" "$0"' "$tmp/out" "${optional[0]}"

# Every optional one: OPTIONAL=all and --with-optional.
for how in "make OPTIONAL=all" "--with-optional"; do
  if [ "$how" = --with-optional ]; then
    ATTNLAB_SETUP_ASSUME_MISSING="${optional[*]}" "$setup" --with-optional >"$tmp/out" 2>&1
  else
    ATTNLAB_SETUP_ASSUME_MISSING="${optional[*]}" make -C "$repo" --no-print-directory setup OPTIONAL=all >"$tmp/out" 2>&1
  fi
  check "$how: every optional one would be installed" line "$tmp/out" "attnlab setup: would install ${optional[*]}"
done

# A name that is not an optional package of the list: exit 2.
"$setup" --with no-such-package >"$tmp/out" 2>&1
rc=$?
check "--with no-such-package: exit 2" test "$rc" -eq 2
check "--with no-such-package: said" grep -qF "'no-such-package' is not an optional package" "$tmp/out"

# The real install path on a made-up list, with apt-get and sudo faked: what apt-get is asked for.
mkdir "$tmp/bin"
printf '#!/bin/sh\necho "$*" >>"%s/apt-get.argv"\n' "$tmp" >"$tmp/bin/apt-get"
printf '#!/bin/sh\nexec "$@"\n' >"$tmp/bin/sudo"
chmod +x "$tmp/bin/apt-get" "$tmp/bin/sudo"
printf 'fake-required required cmd:attnlab-test-absent-1\nfake-optional optional cmd:attnlab-test-absent-2 a test\n' >"$tmp/list"
PATH=$tmp/bin:$PATH ATTNLAB_PACKAGES=$tmp/list "$setup" >"$tmp/out" 2>&1
check "install: apt-get asked for the required package alone, no recommends" \
  line "$tmp/apt-get.argv" "install -y -qq --no-install-recommends fake-required"
rm -f "$tmp/apt-get.argv"
PATH=$tmp/bin:$PATH ATTNLAB_PACKAGES=$tmp/list "$setup" --with fake-optional >"$tmp/out" 2>&1
check "install --with: and the optional one asked for" \
  line "$tmp/apt-get.argv" "install -y -qq --no-install-recommends fake-required fake-optional"
check "install --with: still missing, said" grep -qF "optional fake-optional, asked for, is still missing" "$tmp/out"

[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
echo "ok: make setup installs optional packages only when asked"

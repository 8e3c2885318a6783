# What the command-line tests share, sourced: check WHAT COND... prints ok or FAIL per condition
# and counts the failures in $fails; has and lacks FILE TEXT test a file for a fixed string.
fails=0
check() {  # check WHAT COND...: the condition must hold
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
has() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -qF -- "$2" "$1"; }

#!/usr/bin/env bash
# baseline_args.sh REPO: a sweep's ARGS mean the same to every experiment of it, and the SDPA
# baseline gets only the options it declares (sdpa_baseline.py --list-options): with
# ARGS="--max-time 0.3 --metrics none" the baseline task runs with --max-time 0.3 and without
# --metrics (which it does not take, and which failed both SDPA tasks with exit 2), the phases
# with both; SDPA_ARGS, where set, is passed as is. Fake phases and a fake python for the
# baseline's run (make_fake_build.sh); the option list comes from the real script.
set -u
repo=$(cd "$1" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
check() { local what=$1; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi; }
"$repo/tests/cli/sweep/make_fake_build.sh" "$tmp/build" "$repo" || exit 1
# The fake python answers --list-options with the real script and otherwise records its argv.
cat >"$tmp/python" <<P
#!/usr/bin/env bash
case " \$* " in *" --list-options "*) exec python3 "\$@" ;; esac
printf '%s\n' "\$@" >>"$tmp/sdpa-argv"
P
chmod +x "$tmp/python"
sweep() {  # sweep NAME [VAR=value...]
  local name=$1; shift
  env "$@" BUILD="$tmp/build" RESULTS="$tmp/$name" SHAPES="throughput" PHASES=a GPUS=0 PROGRESSION=0 \
    PYTHON="$tmp/python" SWEEP_ID="$name" "$repo/scripts/sweep.sh" >"$tmp/$name.out" 2>&1
}
check "the baseline lists --max-time and not --metrics" \
  bash -c "python3 '$repo/experiments/baselines/sdpa_baseline.py' --list-options | grep -qx -- --max-time &&
           ! python3 '$repo/experiments/baselines/sdpa_baseline.py' --list-options | grep -qx -- --metrics"

sweep common -u SDPA_ARGS ARGS="--max-time 0.3 --metrics none --seed 7"; rc=$?
check "common ARGS: exit 0 ($rc)" test $rc -eq 0
check "common ARGS: the baseline got --max-time 0.3 and --seed 7" \
  bash -c "grep -qx -- --max-time '$tmp/sdpa-argv' && grep -qx 0.3 '$tmp/sdpa-argv' && grep -qx 7 '$tmp/sdpa-argv'"
check "common ARGS: the baseline did not get --metrics or its value" \
  bash -c "! grep -qx -- --metrics '$tmp/sdpa-argv' && ! grep -qx none '$tmp/sdpa-argv'"
check "common ARGS: the sweep says what it left out" grep -q 'does not take, left out: --metrics' "$tmp/common.out"
check "common ARGS: the phase got --metrics none" \
  python3 -c "import json,pathlib; rs=list(pathlib.Path('$tmp/common/a').rglob('run.json')); a=json.load(open(rs[0]))['provenance']['argv']; assert len(rs) == 1 and '--metrics' in a and '--max-time' in a, a"

rm -f "$tmp/sdpa-argv"
sweep explicit SDPA_ARGS="--backends cudnn" ARGS="--metrics none"; rc=$?
check "SDPA_ARGS: exit 0 ($rc), passed as is" \
  bash -c "[ $rc -eq 0 ] && grep -qx -- --backends '$tmp/sdpa-argv' && ! grep -qx -- --metrics '$tmp/sdpa-argv'"
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; cat "$tmp"/*.out; exit 1; }
echo "all baseline option checks passed"

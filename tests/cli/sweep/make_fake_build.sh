#!/usr/bin/env bash
# make_fake_build.sh DIR REPO: a fake BUILD dir for the sweep tests (no GPU, no CUDA). DIR/bin/
# attnlab-phases lists the phases a b c (--ids, --check; --shapes echoes its specs, no set expanded); DIR/bin/attnlab-phase-{a,b,c} (one
# Python script, fake_phase.py) answer --can-run (phase c refuses D = 128 shapes), and otherwise
# sleep FAKE_SLEEP seconds per shape and write a minimal valid run record (a copy of the H100
# fixture) whose GPU uuid is GPU-fake-<physical device> (the --device ordinal mapped through
# CUDA_VISIBLE_DEVICES, as CUDA does) and whose provenance carries ATTNLAB_SWEEP_ID and argv.
# Nothing in these records is a measurement: the fakes test the distribution, not the kernels.
set -eu
dir=$1; repo=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/bin"
cat >"$dir/bin/attnlab-phases" <<'P'
#!/usr/bin/env bash
case "${1:-}" in
  --ids) printf '%s\n' a b c ;;
  --shapes) shift; printf '%s\n' "$@" ;;
  --check) case "${2:-}" in a|b|c) exit 0 ;; *) echo "unknown phase '${2:-}'; valid phases: a, b, c"; exit 2 ;; esac ;;
  *) echo "fake phases a b c" ;;
esac
P
chmod +x "$dir/bin/attnlab-phases"
# The interpreter itself, resolved once: a sweep starts the fake phases dozens of times, and a
# python3 on PATH may be a wrapper (pyenv's shim runs several shells per call).
py=$(python3 -c 'import sys; print(sys.executable)')
for p in a b c; do
  printf '#!/usr/bin/env bash\nexec %q %q %q %q "$@"\n' "$py" "$here/fake_phase.py" "$p" "$repo/tests/fixtures/h100-phase1-run.json" \
    >"$dir/bin/attnlab-phase-$p"
  chmod +x "$dir/bin/attnlab-phase-$p"
done

#!/usr/bin/env bash
# --metrics pcsampling through an experiment binary: the harness samples in a child process of
# its own (experiments/harness/pc_sampling_child.hpp), and the record's pc_sampling must name at least
# one kernel with samples and source lines, whose per-kernel breakdown carries the samples, and
# executed-instruction counts (CUPTI SASS metrics) on its lines unless CUPTI refused them.
# Exit 77 (ctest: skipped) without a GPU, or where CUPTI refuses PC sampling for want of
# permission or support.
#   tests/gpu/pc_sampling_child.sh build/bin/attnlab-phase-4x [experiment options, default --shape latency]
# A backward phase's child gates and samples its backward launch (with --forward, on that
# forward phase's O and LSE).
set -u
exe=${1:?usage: pc_sampling_child.sh <attnlab-phase-ID> [experiment options]}
shift
[ $# -gt 0 ] || set -- --shape latency
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: nothing to check"; exit 77
fi
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
out=$("$exe" "$@" --metrics pcsampling --regimes cold --max-time 0.2 --results-dir "$results" 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
record=$(find "$results" -name run.json | head -n 1)
[ -n "$record" ] || { echo "FAIL: no run record under $results"; exit 1; }
left=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'attnlab-pcsampling-*' -newer "$results" 2>/dev/null | wc -l)
python3 - "$record" "$left" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
res = r["results"][0]
pcs = res.get("pc_sampling")
if pcs is None:
    print("FAIL: no pc_sampling in the result"); sys.exit(1)
if not pcs["available"]:
    reason = pcs["reason"]
    print("pc_sampling unavailable:", reason)
    # No permission, or a GPU without PC sampling: skipped. Another CUPTI client refusing it
    # fails here: the child exists so that PC sampling is the only one.
    refused = any(c in reason for c in ("INSUFFICIENT_PRIVILEGES", "NOT_SUPPORTED"))
    sys.exit(77 if refused else 1)
if "child process" not in pcs["method"]:
    print("FAIL: the method does not say it sampled in a child process:", pcs["method"]); sys.exit(1)
good = [k for k in pcs["kernels"] if k["samples"] > 0 and any(l["line"] > 0 for l in k["lines"])]
print("kernels with samples and lines:", [(k["name"], k["samples"], len(k["lines"])) for k in good])
print("non-user samples:", pcs["non_user_samples"], "of", pcs["total_samples"])
if not good:
    print("FAIL: no kernel with samples on source lines:", [(k["name"], k["samples"]) for k in pcs["kernels"]])
    sys.exit(1)
shares = res.get("kernels") or []
if shares and not any((k.get("pc_samples") or 0) > 0 for k in shares):
    print("FAIL: the per-kernel breakdown carries no PC samples"); sys.exit(1)
# Executed-instruction counts (CUPTI SASS metrics) on one more launch in the child: collected,
# or refused for want of permission or support, with the reason.
sc = pcs.get("sass_counts")
if sc is None:
    print("FAIL: the child collected no executed-instruction counts (no sass_counts)"); sys.exit(1)
if not sc["available"]:
    print("sass_counts unavailable:", sc["reason"])
    if not any(c in sc["reason"] for c in ("INSUFFICIENT_PRIVILEGES", "NOT_SUPPORTED", "not supported")):
        print("FAIL: SASS counts refused for another reason"); sys.exit(1)
else:
    counted = [k for k in good if (k.get("executed") or 0) > 0 and any((l.get("executed") or 0) > 0 for l in k["lines"])]
    print("kernels with executed counts on lines:", [(k["name"], k["executed"]) for k in counted])
    if not counted:
        print("FAIL: no sampled kernel has executed-instruction counts on its lines:", sc["method"]); sys.exit(1)
if int(sys.argv[2]) != 0:
    print("FAIL: the child's temporary directory was left behind"); sys.exit(1)
print("ok")
PY

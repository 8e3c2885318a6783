#!/usr/bin/env bash
# attnlab-ab of two backward phases (b5 against b1, the naive): both gated per block on the
# backward rule against one sample of fp64 gradients, then timed. The record must say the
# backward pass, give the shape the backward's FLOPs (2.5 times the forward's 4 B H S^2 D,
# halved under the mask), hold a backward correctness block per side and block (rule
# backward_row_rms, O and LSE from the fp32 forward) and a wall ratio over both blocks.
# Exit 77 (ctest: skipped) without a GPU.
#   tests/gpu/ab_backward.sh build/bin/attnlab-ab
set -u
exe=${1:?usage: ab_backward.sh <attnlab-ab>}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: nothing to check"; exit 77
fi
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
"$exe" --a b5 --b b1 --shape 2x4x333x64:causal:hkv=2 --pairs 16 --blocks 2 --min-pairs 8 --max-time 4 \
  --results-dir "$results" 2>&1
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
record=$(find "$results/ab/b5-vs-b1" -name run.json | head -n 1)
[ -n "$record" ] || { echo "FAIL: no record under $results/ab/b5-vs-b1"; exit 1; }
python3 - "$record" <<'PY' || { echo "FAIL: the record is not a backward A/B"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "ok" and r["direction"] == "backward", (r["status"], r.get("direction"))
res = r["results"][0]
s = res["shape"]
forward = 4.0 * s["B"] * s["H"] * s["S"] * s["S"] * s["D"] / (2 if s["causal"] else 1)
assert abs(res["flops"] - 2.5 * forward) <= 1e-9 * forward, (res["flops"], forward)
assert len(res["blocks"]) == 2, len(res["blocks"])
for blk in res["blocks"]:
    for side in ("a", "b"):
        c = blk["correctness"][side]
        assert c["passed"] and c["rule"] == "backward_row_rms" and c["forward"] == "fp32", c
assert res["ratio"]["wall"]["blocks"] == 2, res["ratio"]
print(f"backward A/B b5 vs b1: wall {res['ratio']['wall']['median']:.3f}, flops {res['flops']:.4g}")
PY
echo "ok: a backward A/B record"

#!/usr/bin/env bash
# attnlab-calibrate at tiny sizes (about a second of GPU work): the record must be complete and
# its rates sane against bounds from the GPU's own properties and from each other, never typed
# figures: every rate and launch floor positive; every clock positive and at most the GPU's
# maximum SM clock (provenance.gpu.sm_clock_mhz); DRAM read under the bus's peak
# (provenance.gpu.peak_dram_gbps, memory clock x bus width); per SM per clock, wgmma above
# FFMA (the tensor cores did the work), e4m3 wgmma above fp16 wgmma and at most about twice it
# (the tensor cores' e4m3 rate per clock is twice their fp16 one; 5% over for the clock reading)
# and FFMA above MUFU ex2 (a quarter-rate pipe or less);
# an empty launch shorter than any throughput launch; and a bad --launch refused with exit 2.
# Exit 77 (ctest: skipped) without a GPU.
#   tests/gpu/calibrate_tiny.sh build/bin/attnlab-calibrate
set -u
exe=${1:?usage: calibrate_tiny.sh <attnlab-calibrate>}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: nothing to check"; exit 77
fi
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
"$exe" --rate-samples 3 --launch-samples 5 --warmup 1 --rate-ms 1 --dram-bytes 268435456 \
  --shape latency --launch 4x1x1:128x1x1:2x1x1:1024 --results-dir "$results" 2>&1
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
record=$(find "$results/calibration" -name calibration.json | head -n 1)
[ -n "$record" ] || { echo "FAIL: no record under $results/calibration"; exit 1; }
python3 - "$record" <<'PY' || exit 1
import json, math, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "attnlab.calibration/1" and r["status"] == "ok", (r["schema"], r["status"])
gpu = r["provenance"]["gpu"]
rates = {x["name"]: x for x in r["rates"]}
assert set(rates) == {"wgmma_fp16_m64n256k16", "wgmma_e4m3_m64n256k32", "mufu_ex2", "ffma_fp32", "dram_read", "smem_read"}, set(rates)
for name, x in rates.items():
    assert len(x["time_ns"]) == 3 and all(t > 0 for t in x["time_ns"]), name
    assert all(0 < c <= gpu["sm_clock_mhz"] * 1.01 for c in x["sm_clock_mhz"]), (name, x["sm_clock_mhz"])
    assert x["rate"]["median"] > 0 and math.isfinite(x["rate"]["median"]) and x["per_sm_per_clock"] > 0, name
    print(f"{name}: {x['rate']['median']:.4g} {x['unit']}, {x['per_sm_per_clock']:.4g} per SM per clock")
assert rates["dram_read"]["rate"]["median"] <= gpu["peak_dram_gbps"] * 1e9, "DRAM read above the bus's peak"
per = {n: x["per_sm_per_clock"] for n, x in rates.items()}
assert per["wgmma_fp16_m64n256k16"] > per["ffma_fp32"], per
assert per["wgmma_fp16_m64n256k16"] < per["wgmma_e4m3_m64n256k32"] <= 2.1 * per["wgmma_fp16_m64n256k16"], per
assert per["ffma_fp32"] > per["mufu_ex2"], per
launches = r["launches"]
used = [u for l in launches for u in l["used_by"]]
assert any(u.startswith("5 1x8x512x64") for u in used) and any(u.startswith("d4 1x8x512x64") for u in used), used
assert "command line" in used, used
shortest_rate = min(min(x["time_ns"]) for x in rates.values())
for l in launches:
    assert len(l["time_ns"]) == 5 and l["time"]["median"] > 0, l
    assert l["time"]["median"] < shortest_rate, ("an empty launch outlasted a throughput launch", l["time"], shortest_rate)
print(f"ok: {len(rates)} rates and {len(launches)} launch floors")
PY
"$exe" --launch 4x1x1:128 --results-dir "$results" >/dev/null 2>&1
rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: a malformed --launch gave exit $rc, not 2"; exit 1; }
echo "ok: calibration sane"

#!/usr/bin/env python3
"""A fake attnlab-phase-<id> for the sweep tests (see make_fake_build.sh). Not a measurement."""
import datetime, json, os, pathlib, sys, time

phase, fixture, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
shapes, results, device, can_run = [], "results", 0, False
i = 0
while i < len(argv):
    a = argv[i]
    if a == "--shape": shapes.append(argv[i + 1]); i += 1
    elif a == "--results-dir": results = argv[i + 1]; i += 1
    elif a == "--device": device = int(argv[i + 1]); i += 1
    elif a == "--can-run": can_run = True
    i += 1
if can_run:
    bad = [s for s in shapes if phase == "c" and s.split(":")[0].endswith("x128")]
    if bad:
        print(f"phase {phase} cannot run shape {bad[0]}: {bad[0]}: the fake phase c has no D = 128")
        sys.exit(2)
    sys.exit(0)
visible = os.environ.get("CUDA_VISIBLE_DEVICES")
physical = visible.split(",")[device] if visible is not None else str(device)
time.sleep(float(os.environ.get("FAKE_SLEEP", "0")) * len(shapes))
if os.environ.get("FAKE_FAIL") == phase:
    sys.exit(1)
r = json.load(open(fixture))
r["phase"] = phase
r["provenance"]["argv"] = [f"build/bin/attnlab-phase-{phase}"] + argv
r["provenance"]["gpu"]["uuid"] = f"GPU-fake-{physical}"
if os.environ.get("ATTNLAB_SWEEP_ID"):
    r["provenance"]["sweep_id"] = os.environ["ATTNLAB_SWEEP_ID"]
now = datetime.datetime.now(datetime.timezone.utc)
r["started_utc"] = now.strftime("%Y-%m-%dT%H:%M:%SZ")
# One result per shape, copies of the fixture's first (its numbers are the fixture's, not a
# measurement), named and shaped as the spec says, so the progression sees the task's shapes.
named = {"latency": "1x8x512x64", "throughput": "16x16x2048x64"}
results_out = []
for spec in shapes:
    name = named.get(spec, spec.split(":")[0])
    b, h, s_, d = (int(v) for v in name.split("x"))
    res = json.loads(json.dumps(r["results"][0]))
    res["name"] = name
    res["shape"].update({"B": b, "H": h, "H_kv": h, "S": s_, "D": d})
    results_out.append(res)
r["results"] = results_out
# FAKE_SCALE="<physical>:<factor>,...": this board's times multiplied by factor (the board-spread
# test gives two fake boards different times; still not a measurement).
for item in filter(None, os.environ.get("FAKE_SCALE", "").split(",")):
    dev, factor = item.split(":")
    if dev == physical:
        for res in results_out:
            for regime in res["timing"].values():
                if isinstance(regime, dict):
                    for k, v in list(regime.items()):
                        if k.endswith("_ns") and isinstance(v, (int, float)):
                            regime[k] = v * float(factor)
                        elif k == "samples_ns":
                            regime[k] = [x * float(factor) for x in v]
base = pathlib.Path(results) / phase
base.mkdir(parents=True, exist_ok=True)
n = 0
while True:
    d = base / (now.strftime("%Y%m%dT%H%M%SZ") + f"-fake{n}")
    try:
        d.mkdir()
        break
    except FileExistsError:
        n += 1
(d / "run.json").write_text(json.dumps(r, indent=1))
print(f"fake phase {phase} on device {device} (physical {physical}): {d}/run.json")

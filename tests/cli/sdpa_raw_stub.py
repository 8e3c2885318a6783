#!/usr/bin/env python3
"""sdpa_raw_stub.py SCRIPT IMPORTER: the SDPA baseline's side of the path to its record, without
torch or a GPU. Its cold regime (Bench.cupti_regime) on a stub of torch.profiler's events, with
the importer's number of calls (Importer.sample_plan); the importer's answer of the GPU's
attributes as the baseline reads it (gpu_block) into the raw file's header; the
importer's check (Importer.check) of a right output and of one with the causal mask dropped,
written as raw fp16 files as the baseline writes them (attention in plain Python, as
sdpa_fake_torch.py computes it); the importer's stopping rule as the graph regime asks it
(ask_stop) and its NVML monitor (Monitor); and the raw file (RawRun) through attnlab-sdpa-import
to the record the events imply, valid against attnlab.run/1 (scripts/validate-records, where the
jsonschema package is installed). Exit 0 when every check holds, 1 naming each that does not."""
import importlib.util
import json
import random
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sdpa_fake_torch import Tensor, attention, f16  # noqa: E402 - attention in plain Python

spec = importlib.util.spec_from_file_location("b", sys.argv[1])
b = importlib.util.module_from_spec(spec)
spec.loader.exec_module(b)
importer = b.Importer(sys.argv[2])
timing = sys.modules["sdpa_timing"]


class Stub:
    """What cupti_regime uses of torch, the monitor and the profiler: each call runs two kernels
    (100 ns, a 20 ns gap, 30 ns), each flush a 10 ns memset, back to back on one clock."""

    def __init__(self):
        self.log, self.t = [], 1e6

    def call(self):
        self.log.append([("k", 0, 100), ("k2", 120, 150)])

    def flush(self):
        self.log.append([("Memset (Device)", 0, 10)])

    def device_events(self, fn):
        self.log = []
        fn()
        events = []
        for acts in self.log:
            events += [(n, self.t + s, self.t + e) for n, s, e in acts]
            self.t += 1000
        return events


stub = Stub()
bench = object.__new__(b.Bench)
bench.torch = type("T", (), {"cuda": type("C", (), {"synchronize": staticmethod(lambda: None)})})
bench.rule = {"min_samples": 10, "max_samples": 12, "noise_target_pct": 0.5, "max_seconds": 1.0}
bench.importer = importer
bench.flush_ns = 10.0
bench.flush = stub.flush
bench.device_events = stub.device_events
bench.monitor = type("M", (), {"start": lambda self: None,
                               "stop": lambda self: {"unavailable": "stub: no NVML"}})()
regime = bench.cupti_regime(stub.call, True, 150.0)
regime.update(clock_before_mhz=None, clock_after_mhz=None)



shape = importer.shapes(["1x2x16x8:causal:hkv=1"])[0]
rng = random.Random(5)
q, k, v = (Tensor((shape.B, h, shape.S, shape.D), [f16(rng.gauss(0, 1)) for _ in range(shape.B * h * shape.S * shape.D)])
           for h in (shape.H, shape.H_kv, shape.H_kv))
with tempfile.TemporaryDirectory() as d:
    def put(name, t):
        (Path(d) / name).write_bytes(struct.pack(f"<{len(t.values)}e", *t.values))
    put("q.f16", q), put("k.f16", k), put("v.f16", v)
    put("out.f16", attention(q, k, v, True, shape.scale))
    correct = importer.check(Path(d), shape, 9, repeat_identical=True)
    put("out.f16", attention(q, k, v, False, shape.scale))
    unmasked = importer.check(Path(d), shape, 9, repeat_identical=True)

stop = importer.stopping_rule({"min_samples": 10, "max_samples": 1000, "noise_target_pct": 0.5,
                               "max_seconds": 1.0})
answers = [timing.ask_stop(stop, 0.01, [100.0] * 5), timing.ask_stop(stop, 0.02, [100.0] * 5)]
stop.stdin.close()
stop.wait()
monitor = timing.Monitor(importer, 0)
monitor_clock, _, nvml = monitor.sm_clock(), monitor.start(), monitor.stop()
monitor.proc.stdin.close()
monitor.proc.wait()
# attnlab-sdpa-import gpu's answer for these attributes (SdpaGpu in tests/cpu/test_sdpa_import.cpp
# checks that the importer writes exactly these lines), read as the baseline reads it.
GPU_ANSWER = """name NVIDIA stub GPU
uuid_hex abababababababababababababababab
cc_major 9
cc_minor 0
sm_count 132
sm_clock_khz 1980000
mem_clock_khz 2619000
bus_width_bits 5120
l2_bytes 52428800
global_mem_bytes 85017493504
smem_per_sm_bytes 233472
driver 13000"""
gpu = b.gpu_block(GPU_ANSWER.splitlines())
driver = gpu.pop("driver")
with tempfile.TemporaryDirectory() as d:
    options = {"regimes": ["cold"], "check_only": False, **bench.rule}
    run = b.RawRun(Path(d) / "raw.jsonl", "cudnn", ["sdpa_baseline.py"], 0, 1, options,
                   {"driver": driver, "torch": "stub", "torch_cuda": "13.0", "cudnn": 91900}, gpu)
    run.add({"shape": shape.json(), "correctness": correct, "regimes": [regime]})
    if not run.finish(sys.argv[2], output=Path(d) / "run.json"):
        sys.exit("the importer refused the raw file")
    rec = json.load(open(Path(d) / "run.json"))
    raw_left = (Path(d) / "raw.jsonl").exists()
    v = subprocess.run([sys.executable, str(Path(__file__).resolve().parents[2] / "scripts" / "validate-records"),
                        str(Path(d) / "run.json")], capture_output=True, text=True)
    if v.returncode == 77:
        print("skipped: the schema check (" + v.stdout.strip() + ")")
    schema_ok = v.returncode in (0, 77)
    if not schema_ok:
        print(v.stdout + v.stderr)

cold = rec["results"][0]["timing"]["cold"]
checks = [
    ("12 calls sampled (max_samples)", cold["count"] == 12 and cold["stop_reason"] == "max_samples"),
    ("each sample spans both kernels", cold["samples_ns"] == [150.0] * 12),
    ("busy time leaves out the gap", cold["busy_median_ns"] == 130.0),
    ("the flush is no kernel of the call", cold["kernels"] == ["k", "k2"] and cold["kernels_per_launch"] == 2),
    ("shares of the call's kernels", [k["median_ns"] for k in rec["results"][0]["kernels"]] == [100.0, 30.0]),
    ("the raw file is removed once imported", not raw_left),
    ("status ok", rec["status"] == "ok"),
    ("the right output passes the importer's check", correct["passed"] and correct["rows_checked"] == 32),
    ("the output without the causal mask fails it", not unmasked["passed"] and "worst row" in unmasked["failure"]),
    ("the record holds the check's block", rec["results"][0]["correctness"] == correct),
    ("the stopping rule waits for the minimum, then converges", answers == ["continue", "converged"]),
    ("the monitor answers the clock and an nvml block",
     (monitor_clock is None) == ("unavailable" in nvml) and ("unavailable" in nvml or "readings" in nvml)),
    ("the record is valid against attnlab.run/1", schema_ok),
    ("the importer's gpu answer, as the baseline reads it, is the record's GPU and driver",
     rec["provenance"]["gpu"]["name"] == "NVIDIA stub GPU" and rec["provenance"]["gpu"]["sm_count"] == 132
     and rec["provenance"]["gpu"]["uuid"] == "GPU-abababab-abab-abab-abab-abababababab"
     and rec["provenance"]["gpu"]["l2_bytes"] == 52428800 and rec["provenance"]["versions"]["driver"] == 13000),
]
for what, ok in checks:
    print(("ok: " if ok else "FAILED: ") + what)
sys.exit(0 if all(ok for _, ok in checks) else 1)

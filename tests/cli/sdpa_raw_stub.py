#!/usr/bin/env python3
"""sdpa_raw_stub.py SCRIPT IMPORTER: the SDPA baseline's cold regime (Bench.cupti_regime) on a
stub of torch.profiler's events, through its raw writer (RawRun) and attnlab-sdpa-import, gives
the record the events imply: without torch or a GPU, the path from the events a real run sees
to the record. Exit 0 when every check holds, 1 naming the first that does not."""
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

spec = importlib.util.spec_from_file_location("b", sys.argv[1])
b = importlib.util.module_from_spec(spec)
spec.loader.exec_module(b)


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
bench.flush_ns = 10.0
bench.flush = stub.flush
bench.device_events = stub.device_events
bench.monitor = type("M", (), {"start": lambda self: None,
                               "stop": lambda self: {"unavailable": "stub: no NVML"}})()
regime = bench.cupti_regime(stub.call, True, 150.0)
regime.update(clock_before_mhz=None, clock_after_mhz=None)

shape = b.parse_shape("1x2x64x64")
correct = {"passed": True, "repeat_identical": True, "max_abs_err": 1e-4, "max_rel_err": 1e-3,
           "tolerance_abs": 2e-4, "naive_fp16_max_abs_err": 3e-4, "row_rms_err": 5e-5,
           "row_err_ratio": 0.25, "rows_checked": 128, "nonfinite": 0, "elements_scanned": 8192}
gpu = {"name": "stub", "uuid_hex": "ab" * 16, "cc_major": 9, "cc_minor": 0, "sm_count": 132,
       "sm_clock_khz": 1980000, "mem_clock_khz": 2619000, "bus_width_bits": 5120,
       "l2_bytes": 52428800, "global_mem_bytes": 85017493504, "smem_per_sm_bytes": 233472}
with tempfile.TemporaryDirectory() as d:
    options = {"regimes": ["cold"], "check_only": False, **bench.rule}
    run = b.RawRun(Path(d) / "raw.json", "cudnn", ["sdpa_baseline.py"], 0, 1, options,
                   {"driver": 13000, "torch": "stub", "torch_cuda": "13.0", "cudnn": 91900}, gpu)
    run.add({"shape": shape.json(), "correctness": correct, "regimes": [regime]})
    if not run.finish(sys.argv[2], output=Path(d) / "run.json"):
        sys.exit("the importer refused the raw file")
    rec = json.load(open(Path(d) / "run.json"))
    raw_left = (Path(d) / "raw.json").exists()

cold = rec["results"][0]["timing"]["cold"]
checks = [
    ("12 calls sampled (max_samples)", cold["count"] == 12 and cold["stop_reason"] == "max_samples"),
    ("each sample spans both kernels", cold["samples_ns"] == [150.0] * 12),
    ("busy time leaves out the gap", cold["busy_median_ns"] == 130.0),
    ("the flush is no kernel of the call", cold["kernels"] == ["k", "k2"] and cold["kernels_per_launch"] == 2),
    ("shares of the call's kernels", [k["median_ns"] for k in rec["results"][0]["kernels"]] == [100.0, 30.0]),
    ("the raw file is removed once imported", not raw_left),
    ("status ok", rec["status"] == "ok"),
]
for what, ok in checks:
    print(("ok: " if ok else "FAILED: ") + what)
sys.exit(0 if all(ok for _, ok in checks) else 1)

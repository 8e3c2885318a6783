#!/usr/bin/env python3
"""PyTorch SDPA baseline: torch's fused attention backends (cuDNN, flash, memory-efficient),
checked against an fp64 reference and timed in the harness's regimes, written as attnlab.run/1
records (phases sdpa-cudnn, sdpa-flash, sdpa-efficient) beside the C++ phases' records.

  python3 experiments/sdpa_baseline.py                       # throughput and latency, every backend
  python3 experiments/sdpa_baseline.py --backends cudnn --shape 4x16x4096x128 --regimes cold,graph
  make baseline SHAPES="throughput latency"

How it measures, and how that differs from the C++ harness (experiments/harness.cpp):
- cold/warm: device time of the SDPA kernels of one call from torch.profiler (CUPTI kernel
  activity): the span from the first kernel's start to the last one's end, as the C++ regimes
  take it; "cold" zeroes a buffer of twice the L2 before every call. A call's kernels are told
  from the flush's by the kernel sequence one call and one flush produce on their own. All the
  calls of a regime run in one profiler session, back to back, so that the GPU is at least as
  busy while sampling as under the C++ sampler (under the power cap, idle gaps raise the clock
  of the calls after them); their number comes from --max-samples and --max-time, and the
  regime does not stop early on low noise.
- graph: CUDA events around each replay of a CUDA graph of k calls (k sized so that a replay
  holds about 200 us of work, at most 20), queued behind torch.cuda._sleep so the host's
  enqueueing stays out of the interval; divided by k.
- Graph sampling stops as in profiler/stats.cpp: at least --min-samples, then relative noise
  under --noise-target, or --max-time per regime (twice that when the minimum is not reached).
- Inputs are N(0,1) fp32 from torch.Generator(cuda).manual_seed(seed), rounded to fp16: the
  seed reproduces them under the same torch and GPU, but they are not bit-identical to the
  C++ phases' counter-based inputs (the record says so).
- Correctness: the rows experiments/reference.cpp would pick for this seed (all while cheap,
  else a sample of 256 plus the first and last rows), against fp64 attention computed in torch
  on the GPU, by reference.hpp's row rule: each row's rms error at most err_factor times the
  rms of a naive fp16 implementation's expected error on that row (reference.cpp's
  expected_naive_error_row) plus the rms of half an fp16 ulp of the reference; every output
  element is scanned for NaN/inf. torch allocates the output, so it cannot be poisoned first; a second call must
  give the same bits.

Exit codes: 0 ok; 1 a correctness check failed or a run failed; 2 bad arguments, or a backend
could not run a shape (its result says why, no timing); 3 no PyTorch, no GPU, or the results
directory is not writable.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import math
import os
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ENVIRONMENT = 0, 1, 2, 3
REPO = Path(__file__).resolve().parent.parent

BACKENDS = {  # backend name -> (phase id, SDPBackend member, title)
    "cudnn": ("sdpa-cudnn", "CUDNN_ATTENTION", "PyTorch SDPA, cuDNN backend"),
    "flash": ("sdpa-flash", "FLASH_ATTENTION", "PyTorch SDPA, flash backend (FlashAttention-2)"),
    "efficient": ("sdpa-efficient", "EFFICIENT_ATTENTION", "PyTorch SDPA, memory-efficient backend"),
}

# What the C++ harness and this baseline share (presets, regimes, tolerances, the sampler's
# batching), from record/constants.json, which tests/cpu/test_constants.cpp keeps equal to the
# C++ sources.
CONSTANTS = json.loads((REPO / "record" / "constants.json").read_text())
SCHEMA = CONSTANTS["run_schema"]
PRESETS = {k: tuple(v) for k, v in CONSTANTS["presets"].items() if k != "source"}
REGIMES = tuple(CONSTANTS["regimes"])
STOPPING_RULE = CONSTANTS["stopping_rule"]

ERR_FACTOR = CONSTANTS["correctness"]["err_factor"]
RULE = CONSTANTS["correctness"]["rule"]
REL_FLOOR = CONSTANTS["correctness"]["rel_floor"]
SAMPLED_ROWS = CONSTANTS["correctness"]["sampled_rows"]
ALL_ROWS_BUDGET = float(CONSTANTS["correctness"]["all_rows_budget"])

MIN_WARMUP_CALLS = CONSTANTS["sampler"]["min_warmup_launches"]
WARMUP_SECONDS = CONSTANTS["sampler"]["warmup_seconds"]        # [s]
BATCH_SECONDS = CONSTANTS["sampler"]["batch_seconds"]          # [s] device work per batch
MAX_BATCH = CONSTANTS["sampler"]["max_batch"]                  # calls per batch
GRAPH_WORK_NS = CONSTANTS["sampler"]["graph_work_ns"]          # [ns] device work per graph replay
MAX_GRAPH_CALLS = CONSTANTS["sampler"]["max_graph_launches"]   # calls per graph
SPIN_LEAD_S = CONSTANTS["sampler"]["spin_lead_ns"] * 1e-9      # [s] GPU sleep that lets the host queue replays

INPUTS_NOTE = ("N(0,1) fp32 from torch.Generator(device).manual_seed(seed), drawn for q, k, v "
               "in that order and rounded to fp16; reproducible with the same torch and GPU, not "
               "bit-identical to the C++ phases' counter-based inputs")


class UsageError(Exception):
    pass


class EnvironmentProblem(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Shapes (common/shapes.cpp: the spec grammar and presets)

class Shape:
    def __init__(self, B, H, S, D, H_kv=None, causal=False):
        self.B, self.H, self.S, self.D = B, H, S, D
        self.H_kv = H if H_kv is None else H_kv
        self.causal = causal

    def name(self):
        n = f"{self.B}x{self.H}x{self.S}x{self.D}"
        if self.causal:
            n += ":causal"
        if self.H_kv != self.H:
            n += f":hkv={self.H_kv}"
        return n

    def flops(self):  # 4*B*H*S^2*D, halved for causal: the FlashAttention/cuDNN convention
        f = 4.0 * self.B * self.H * float(self.S) * self.S * self.D
        return f / 2 if self.causal else f

    def min_bytes(self):  # Q, K, V read once, O written once, fp16
        q = self.B * self.H * self.S * self.D
        kv = self.B * self.H_kv * self.S * self.D
        return 2.0 * (2 * q + 2 * kv)

    def scale(self):
        return 1.0 / math.sqrt(self.D)

    def json(self):
        return {"B": self.B, "H": self.H, "H_kv": self.H_kv, "S": self.S, "D": self.D,
                "causal": self.causal, "dtype": "fp16", "scale": self.scale()}


def parse_positive(text, what, spec):
    if not text.isdigit() or int(text) < 1 or int(text) > 2**31 - 1:
        raise UsageError(f"bad {what} '{text}' in shape '{spec}': expected a positive integer")
    return int(text)


def positive_finite(text):
    """argparse type: as the C++ harness, NaN, infinities and values <= 0 are refused."""
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive finite number, got '{text}'")
    return v


def non_negative_int(text):
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got '{text}'")
    return int(text)


def parse_shape(spec):
    parts = spec.split(":")
    if not parts[0]:
        raise UsageError("empty shape; expected BxHxSxD or B,H,S,D with :causal and :hkv=N")
    if parts[0] in PRESETS:
        s = Shape(*PRESETS[parts[0]])
    else:
        dims = parts[0].split("," if "," in parts[0] else "x")
        if len(dims) != 4:
            raise UsageError(f"shape '{spec}' is not BxHxSxD or B,H,S,D (optionally :causal, "
                             f":hkv=N); presets: throughput, latency")
        s = Shape(*(parse_positive(d, w, spec) for d, w in zip(dims, "BHSD")))
    for i, mod in enumerate(parts[1:]):
        key = mod.split("=")[0]
        if key in (m.split("=")[0] for m in parts[1:i + 1]):
            raise UsageError(f"modifier '{key}' repeated in shape '{spec}'")
        if mod == "causal":
            s.causal = True
        elif mod.startswith("hkv="):
            s.H_kv = parse_positive(mod[4:], "H_kv", spec)
            if s.H % s.H_kv:
                raise UsageError(f"shape '{spec}': H ({s.H}) is not a multiple of hkv ({s.H_kv})")
        else:
            raise UsageError(f"unknown modifier '{mod}' in shape '{spec}'; expected :causal or :hkv=N")
    return s


# ---------------------------------------------------------------------------------------------
# Rows to check (experiments/reference.cpp rows_to_check, the same rows for the same seed)

MASK64 = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def rows_to_check(s, seed):
    """Flat row indices (b*H + h)*S + i, sorted."""
    rows = s.B * s.H * s.S
    if float(rows) * s.S * s.D <= ALL_ROWS_BUDGET:
        return list(range(rows))
    picked = set()
    for i in (0, s.S - 1):
        picked.add(i)
        picked.add(((s.B - 1) * s.H + s.H - 1) * s.S + i)
    state = (seed ^ 0xC0FFEE) & MASK64
    while len(picked) < min(rows, SAMPLED_ROWS + 4):
        state = splitmix64(state)
        picked.add(state % rows)
    return sorted(picked)


# ---------------------------------------------------------------------------------------------
# Statistics and the stopping rule (profiler/stats.cpp)
# Kept here rather than computed by the C++ record library afterwards: should_stop decides,
# while the graph regime samples, whether to take another sample, so it needs summarize in this
# process; tests/cpu/test_sdpa_record.cpp holds these to profiler/stats.cpp on the same samples.

def percentile(samples, q):
    xs = sorted(samples)
    pos = q * (len(xs) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (pos - lo) * (xs[hi] - xs[lo])


def union_length(intervals):
    """Time covered by at least one [start, end) interval (profiler::union_length)."""
    total, covered_to = 0.0, -math.inf
    for start, end in sorted(intervals):
        frm = max(start, covered_to)
        if end > frm:
            total += end - frm
            covered_to = end
    return total


def kernel_shares(per_kernel, instances, regime):
    """The result entry's "kernels" (record/pc_sampling.hpp KernelShare): per kernel, in the
    order a call ran them, its time in one call (summed over its instances) over the regime's
    samples, and its share of the kernels' summed medians. torch.profiler gives times only."""
    out = []
    for name, ns in per_kernel.items():
        if not ns:
            continue
        out.append({"name": name, "regime": regime, "instances_per_launch": instances[name],
                    "median_ns": percentile(ns, 0.5), "p10_ns": percentile(ns, 0.1),
                    "p90_ns": percentile(ns, 0.9), "share_pct": 0.0, "pc_samples": None,
                    "top_stalls": {},
                    "metrics": "not measured: torch.profiler gives kernel times only"})
    total = sum(k["median_ns"] for k in out)
    for k in out:
        k["share_pct"] = 100.0 * k["median_ns"] / total if total > 0 else 0.0
    return out


def summarize(samples):
    n = len(samples)
    mean = sum(samples) / n
    stdev = math.sqrt(sum((x - mean) ** 2 for x in samples) / (n - 1)) if n > 1 else 0.0
    return {"count": n, "median": percentile(samples, 0.5), "p10": percentile(samples, 0.1),
            "p90": percentile(samples, 0.9), "min": min(samples), "max": max(samples),
            "mean": mean, "stdev": stdev, "noise_pct": 100.0 * stdev / mean if mean else 0.0}


def should_stop(rule, samples, elapsed):
    if len(samples) >= rule["max_samples"]:
        return "max_samples"
    if elapsed >= rule["max_seconds"] and (len(samples) >= rule["min_samples"]
                                           or elapsed >= 2 * rule["max_seconds"]):
        return "time_cap"
    if len(samples) >= rule["min_samples"] and summarize(samples)["noise_pct"] < rule["noise_target_pct"]:
        return "converged"
    return None


# ---------------------------------------------------------------------------------------------
# Records (record/record.cpp): directories never reused, atomic writes

def utc_stamp(t):
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(t))


def utc_iso8601(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def ensure_writable_directory(root):
    try:
        os.makedirs(root, exist_ok=True)
    except OSError as e:
        raise EnvironmentProblem(f"cannot create results directory {root}: {e.strerror}")
    if not os.path.isdir(root):
        raise EnvironmentProblem(f"results path {root} is not a directory")
    if not os.access(root, os.W_OK | os.X_OK):
        raise EnvironmentProblem(f"results directory {root} is not writable")


def create_run_directory(root, phase, stamp, short_sha):
    parent = Path(root) / phase
    ensure_writable_directory(parent)
    base = f"{stamp}-{short_sha}"
    for n in range(1, 1000):
        d = parent / (base if n == 1 else f"{base}-{n}")
        try:
            os.mkdir(d)  # fails if it exists: atomic against a concurrent run
            return d
        except FileExistsError:
            continue
    raise EnvironmentProblem(f"too many runs named {parent / base}")


def finite_or_none(x):
    """nlohmann::json writes non-finite numbers as null; so do these records."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: finite_or_none(v) for k, v in x.items()}
    if isinstance(x, list):
        return [finite_or_none(v) for v in x]
    return x


def write_json_atomically(path, record):
    tmp = Path(str(path) + ".tmp")
    with open(tmp, "w") as f:
        json.dump(finite_or_none(record), f, indent=2, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)


def git_provenance():
    """As cmake/WriteBuildInfo.cmake: the stamp $ATTNLAB_SOURCE_STAMP names (a tree whose .git is
    not the checkout's), else git, else .attnlab-source, else unknown and dirty."""
    commit, dirty = "unknown", True
    named = os.environ.get("ATTNLAB_SOURCE_STAMP")
    if named and not Path(named).exists():
        raise SystemExit(f"attnlab: ATTNLAB_SOURCE_STAMP names {named}, which does not exist")
    if not named:
        try:
            commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True,
                                    text=True, check=True).stdout.strip()
            status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                    cwd=REPO, capture_output=True, text=True, check=True).stdout
            dirty = status.strip() != ""
        except (OSError, subprocess.CalledProcessError):
            commit = "unknown"
    stamp = Path(named) if named else REPO / ".attnlab-source"
    if commit == "unknown" and stamp.exists():
        for line in stamp.read_text().splitlines():
            if line.startswith("commit="):
                commit = line[len("commit="):]
            elif line in ("dirty=true", "dirty=false"):
                dirty = line == "dirty=true"
    return {"commit": commit, "dirty": dirty}


def regime_json(name, samples, stop, wall_s, per_sample, clocks, kernels, shape, extra=None):
    m = summarize(samples)
    j = {"method": REGIME_METHODS[name], "median_ns": m["median"], "p10_ns": m["p10"],
         "p90_ns": m["p90"], "min_ns": m["min"], "max_ns": m["max"], "mean_ns": m["mean"],
         "stdev_ns": m["stdev"], "noise_pct": m["noise_pct"], "count": m["count"],
         "stop_reason": stop, "wall_s": wall_s, "launches_per_sample": per_sample,
         "sm_clock_mhz": clocks,
         "tflops": shape.flops() / m["median"] / 1e3,            # FLOP/ns = GFLOP/s
         "dram_gbps_min_bytes": shape.min_bytes() / m["median"]}  # byte/ns = GB/s
    if kernels:
        j["kernels"] = kernels
    j.update(extra or {})  # cold/warm: kernels_per_launch, busy_median_ns (harness.cpp)
    j["samples_ns"] = samples
    return j


REGIME_METHODS = {
    "cold": "torch.profiler (CUPTI) kernel activity, span of one call's SDPA kernels; L2 flushed "
            "(zero of 2x L2) before every call",
    "warm": "torch.profiler (CUPTI) kernel activity, span of one call's SDPA kernels; "
            "back-to-back calls over the same inputs (warm L2)",
    "graph": "CUDA events around each replay of a CUDA graph of launches_per_sample calls, "
             "divided by launches_per_sample; queued behind torch.cuda._sleep",
}


def new_result(shape):
    return {"name": shape.name(), "shape": shape.json(), "flops": shape.flops(),
            "min_bytes": shape.min_bytes()}


def unavailable_result(shape, reason):
    r = new_result(shape)
    r["available"] = False
    r["unavailable_reason"] = reason
    r["correctness"] = {"passed": None, "max_abs_err": None, "max_rel_err": None,
                        "rows_checked": 0, "skipped": "backend unavailable for this shape"}
    r.update({"timing": None, "headline_regime": None, "tflops": None, "dram_gbps_min_bytes": None})
    return r


def finish_timing(result, timing, regimes):
    headline = "cold" if "cold" in timing else regimes[0]
    result["timing"] = timing
    result["headline_regime"] = headline
    result["tflops"] = timing[headline]["tflops"]
    result["dram_gbps_min_bytes"] = timing[headline]["dram_gbps_min_bytes"]


def new_record(backend, argv, seed, versions, gpu, options, now):
    phase, _, title = BACKENDS[backend]
    return {
        "schema": SCHEMA,
        "phase": phase,
        "status": "incomplete",
        "experiment": {
            "title": title,
            "technique": f"torch.nn.functional.scaled_dot_product_attention under "
                         f"torch.nn.attention.sdpa_kernel({BACKENDS[backend][1]})",
            "question": "What do PyTorch's SDPA kernels take on this GPU at the phases' shapes "
                        "and regimes: the baseline every phase is compared with."},
        "claims": [],
        "started_utc": utc_iso8601(now),
        "provenance": {
            "git": git_provenance(),
            "argv": argv,
            "build": {"type": "pytorch", "cuda_architectures": None, "cuda_flags": None,
                      "cxx_flags": None, "cxx_compiler": None},
            "versions": versions,
            "gpu": gpu,
            "seed": seed,
            **({"sweep_id": os.environ["ATTNLAB_SWEEP_ID"]}  # scripts/sweep.sh
               if os.environ.get("ATTNLAB_SWEEP_ID") else {}),
            "inputs": INPUTS_NOTE,
            "host": socket.gethostname(),
        },
        "options": options,
        "results": [],
    }


def example_record():
    """A record from synthetic numbers, built by the functions real runs use: the schema test
    (tests/cpu/test_sdpa_record.cpp) checks it against record/record.cpp's required keys."""
    s = parse_shape("throughput")
    versions = {"nvcc": None, "driver": 13000, "runtime": 13000, "cupti": None,
                "torch": "0.0.0", "torch_cuda": "13.0", "cudnn": 91000}
    gpu = {"name": "example", "uuid": "GPU-00000000-0000-0000-0000-000000000000",
           "compute_capability": "9.0", "sm_count": 132, "sm_clock_mhz": 1980,
           "mem_clock_mhz": 2619, "l2_bytes": 52428800, "global_mem_bytes": 85017493504,
           "smem_per_sm_bytes": 233472, "peak_dram_gbps": 3352.32}
    rule = {"min_samples": 10, "max_samples": 1000, "noise_target_pct": 0.5, "max_seconds": 2.0}
    options = {"regimes": list(REGIMES), "check_only": False, "stopping_rule": rule,
               "backend": "cudnn"}
    rec = new_record("cudnn", ["sdpa_baseline.py", "--write-example-record"], 7, versions, gpu,
                     options, 0)
    r = new_result(s)
    r["available"] = True
    r["correctness"] = {"passed": True, "max_abs_err": 1e-4, "max_rel_err": 1e-3,
                        "tolerance_abs": 1.5e-3, "naive_fp16_max_abs_err": 2.5e-4,
                        "rows_checked": 260, "rows_total": s.B * s.H * s.S, "nonfinite": 0,
                        "repeat_identical": True, "rule": RULE, "inputs": "normal",
                        "row_rms_err": 5e-5, "row_err_ratio": 0.4,
                        "elements_scanned": s.B * s.H * s.S * s.D}
    clocks = {"before": None, "after": None, "source": None}
    timing = {name: regime_json(name, [642e3, 643e3, 641e3], "converged", 0.1,
                                20 if name == "graph" else 1, clocks,
                                None if name == "graph" else ["example_kernel"], s)
              for name in REGIMES}
    readings = [(1980.0, 310.5, 40.0, 0x1), (1605.0, 699.0, 51.0, 0x4), (1350.0, 698.0, 52.0, 0x4 | 0x20)]
    for name in REGIMES:
        timing[name]["gpu_state"] = gpu_state_json(readings, 1980.0)
    finish_timing(r, timing, list(REGIMES))
    r["kernels"] = kernel_shares({"example_kernel": [640e3, 641e3, 639e3], "example_memset": [2e3, 2e3, 2e3]},
                                 {"example_kernel": 1, "example_memset": 1}, "cold")
    rec["results"].append(r)
    rec["results"].append(unavailable_result(parse_shape("1x2x64x96"), "example: not supported"))
    rec["status"] = "failed"
    return rec


# ---------------------------------------------------------------------------------------------
# The GPU side (needs torch)

def driver_gpu_json(ordinal):
    """The gpu block of experiments/harness.cpp, from the driver API (the same numbers)."""
    cu = ctypes.CDLL("libcuda.so.1")

    def check(rc, what):
        if rc != 0:
            raise EnvironmentProblem(f"CUDA driver call {what} failed with error {rc}")

    check(cu.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cu.cuDeviceGet(ctypes.byref(dev), ordinal), "cuDeviceGet")

    def attr(a):
        v = ctypes.c_int()
        check(cu.cuDeviceGetAttribute(ctypes.byref(v), a, dev), f"cuDeviceGetAttribute({a})")
        return v.value

    name = ctypes.create_string_buffer(256)
    check(cu.cuDeviceGetName(name, 256, dev), "cuDeviceGetName")
    uuid = (ctypes.c_ubyte * 16)()
    get_uuid = getattr(cu, "cuDeviceGetUuid_v2", None) or cu.cuDeviceGetUuid
    check(get_uuid(uuid, dev), "cuDeviceGetUuid")
    h = bytes(uuid).hex()
    total = ctypes.c_size_t()
    check(cu.cuDeviceTotalMem_v2(ctypes.byref(total), dev), "cuDeviceTotalMem")
    driver = ctypes.c_int()
    check(cu.cuDriverGetVersion(ctypes.byref(driver)), "cuDriverGetVersion")
    sm_khz, mem_khz, bus_bits = attr(13), attr(36), attr(37)
    gpu = {"name": name.value.decode(),
           "uuid": f"GPU-{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}",
           "compute_capability": f"{attr(75)}.{attr(76)}",
           "sm_count": attr(16),
           "sm_clock_mhz": sm_khz // 1000,  # maximum (boost) clock the driver reports
           "mem_clock_mhz": mem_khz // 1000,
           "l2_bytes": attr(38),
           "global_mem_bytes": total.value,
           "smem_per_sm_bytes": attr(81),
           # Double data rate: two transfers per memory clock over the whole bus.
           "peak_dram_gbps": 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9}
    return gpu, driver.value


MONITOR = CONSTANTS["gpu_monitor"]
CLOCK_EVENTS = [(int(bit, 16), name) for bit, name in MONITOR["clock_events"]]
CLOCK_EVENT_BITS = {name: bit for bit, name in CLOCK_EVENTS}
SLOWDOWN_MASK = sum(CLOCK_EVENT_BITS[name] for name in MONITOR["slowdown_events"])


def is_throttled(reading, max_sm_clock_mhz):
    """profiler::is_throttled: a slowdown reason, or busy below 75% of the maximum SM clock."""
    sm, _, _, bits = reading
    if bits & SLOWDOWN_MASK:
        return True
    idle = bits & CLOCK_EVENT_BITS["gpu_idle"]
    return not idle and max_sm_clock_mhz > 0 and sm < MONITOR["throttled_below_max_clock"] * max_sm_clock_mhz


def gpu_state_json(readings, max_sm_clock_mhz):
    """A regime's gpu_state block (record/timing.hpp GpuState) from (SM MHz, power W,
    temperature C, reason bits) readings. Samples are not flagged one by one here:
    torch.profiler's timestamps are not on a clock NVML readings can be placed on."""
    sm = summarize([r[0] for r in readings])
    return {"source": f"NVML (nvmlDeviceGetClockInfo, GetPowerUsage, GetTemperature, "
                      f"GetCurrentClocksEventReasons) through ctypes, polled every "
                      f"{MONITOR['poll_ms']:g} ms while sampling; samples not flagged one by one",
            "readings": len(readings),
            "max_sm_clock_mhz": max_sm_clock_mhz,
            "sm_clock_mhz": {"min": sm["min"], "median": sm["median"], "max": sm["max"]},
            "power_max_w": max(r[1] for r in readings),
            "temperature_max_c": max(r[2] for r in readings),
            "clock_event_readings": {n: c for b, n in CLOCK_EVENTS
                                     if (c := sum(1 for r in readings if r[3] & b))},
            "throttled_readings": sum(1 for r in readings if is_throttled(r, max_sm_clock_mhz)),
            "throttled_samples_ns": [],
            "throttled_policy": None}


class GpuMonitor:
    """NVML through ctypes, as profiler/gpu_monitor.cpp reads it: SM clock, power, temperature
    and clock-event reasons, polled on a thread while a regime samples. It never raises for a
    missing or failing NVML: `unavailable` says why."""

    def __init__(self, uuid):
        self.unavailable, self.max_sm_clock_mhz, self.readings = None, 0.0, []
        self._thread, self._stop = None, None
        try:
            self.lib = ctypes.CDLL("libnvidia-ml.so.1")
        except OSError as e:
            self.unavailable = f"NVML not loadable (libnvidia-ml.so.1 comes with the NVIDIA driver): {e}"
            return
        nv = self.lib
        reasons = (getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None)
                   or getattr(nv, "nvmlDeviceGetCurrentClocksThrottleReasons", None))
        if reasons is None:
            self.unavailable = "NVML lacks an entry point this monitor uses (driver too old?)"
            return
        self._reasons = reasons
        nv.nvmlErrorString.restype = ctypes.c_char_p
        if (rc := nv.nvmlInit_v2()) != 0:
            self.unavailable = self._error("nvmlInit_v2", rc)
            return
        self.device = ctypes.c_void_p()
        if (rc := nv.nvmlDeviceGetHandleByUUID(uuid.encode(), ctypes.byref(self.device))) != 0:
            self.unavailable = self._error("nvmlDeviceGetHandleByUUID", rc)
            return
        mhz = ctypes.c_uint()
        if (rc := nv.nvmlDeviceGetMaxClockInfo(self.device, 1, ctypes.byref(mhz))) != 0:
            self.unavailable = self._error("nvmlDeviceGetMaxClockInfo", rc)
            return
        self.max_sm_clock_mhz = float(mhz.value)
        if self.read() is None:
            self.unavailable = "NVML read of clocks, power, temperature or clock-event reasons failed"

    def _error(self, call, rc):
        return f"{call} failed: {self.lib.nvmlErrorString(rc).decode()} ({rc})"

    def read(self):
        """(SM MHz, power W, temperature C, reason bits), or None when a call fails."""
        nv, d = self.lib, self.device
        sm, mw, temp, bits = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_ulonglong()
        if (nv.nvmlDeviceGetClockInfo(d, 1, ctypes.byref(sm)) or
                nv.nvmlDeviceGetPowerUsage(d, ctypes.byref(mw)) or
                nv.nvmlDeviceGetTemperature(d, 0, ctypes.byref(temp)) or
                self._reasons(d, ctypes.byref(bits))):
            return None
        return float(sm.value), mw.value / 1000.0, float(temp.value), bits.value

    def start(self):
        if self.unavailable:
            return
        import threading
        self.readings, self._stop = [], threading.Event()

        def poll():
            period, nxt = MONITOR["poll_ms"] * 1e-3, time.monotonic()
            while not self._stop.is_set():
                r = self.read()
                if r is not None:
                    self.readings.append(r)
                nxt += period
                self._stop.wait(max(0.0, nxt - time.monotonic()))

        self._thread = threading.Thread(target=poll, daemon=True)
        self._thread.start()

    def stop(self):
        """The regime's gpu_state block (gpu_state_json) of the readings since start()."""
        if self.unavailable:
            return {"unavailable": self.unavailable}
        self._stop.set()
        self._thread.join()
        if not self.readings:
            return {"unavailable": "no NVML reading was taken"}
        return gpu_state_json(self.readings, self.max_sm_clock_mhz)


class Bench:
    """One device: the L2 flush buffer, event helpers and the timing regimes for one callable."""

    def __init__(self, torch, dev, gpu, rule):
        self.torch, self.dev, self.rule = torch, dev, rule
        self.monitor = GpuMonitor(gpu["uuid"])
        self.flush_ns = None  # device time of one flush, estimated once
        self.gpu_state = None  # the last regime's NVML readings (GpuMonitor.stop)
        self.kernels = {}  # regime -> its per-kernel breakdown (kernel_shares), of this shape
        l2 = gpu["l2_bytes"] or 64 << 20
        self.flush_buf = torch.empty(2 * l2 // 4, dtype=torch.int32, device=dev)
        self.spin_cycles = int(SPIN_LEAD_S * (gpu["sm_clock_mhz"] or 2000) * 1e6)

    def flush(self):
        self.flush_buf.zero_()

    def sm_clock(self):
        """NVML's current SM clock [MHz]; None where NVML is unavailable (the record says null)."""
        r = None if self.monitor.unavailable else self.monitor.read()
        return r[0] if r else None

    def device_events(self, fn):
        """(name, start_ns, end_ns) of every device activity fn() causes, in start order."""
        torch = self.torch
        from torch.profiler import ProfilerActivity, profile
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        cuda = torch.autograd.DeviceType.CUDA
        ev = [(e.name, e.time_range.start * 1e3, e.time_range.end * 1e3)
              for e in prof.events() if getattr(e, "device_type", None) == cuda]
        return sorted(ev, key=lambda x: x[1])

    def event_estimate(self, call):
        """Median device time of warm-up calls [ns], by events (sizes batches and graphs)."""
        torch = self.torch
        times, t0 = [], time.monotonic()
        while len(times) < MIN_WARMUP_CALLS or time.monotonic() - t0 < WARMUP_SECONDS:
            n = 1 if not times else max(1, min(MAX_BATCH, int(BATCH_SECONDS * 1e9 / times[-1])))
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            for _ in range(n):
                call()
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b) * 1e6 / n)
        return percentile(times, 0.5)

    def cupti_regime(self, call, cold, estimate):
        """Cold/warm samples from one torch.profiler session that holds every call of the
        regime, queued back to back. Starting a session and reading its events leave the GPU
        idle for tens of milliseconds per session, and under the power cap an idle GPU clocks
        up: with a session per batch of calls the GPU was busy about 60% of the regime and ran
        at a higher clock than under the C++ sampler (about 90%). The number of calls is set
        before the session from the stopping rule's sample and time limits (the estimate of a
        call, and of a flush in the cold regime), so the regime does not stop early on low
        noise; its stop reason is max_samples or time_cap."""
        call_names = [n for n, _, _ in self.device_events(call)]
        flush_names = [n for n, _, _ in self.device_events(self.flush)] if cold else []
        if not call_names:
            raise RuntimeError("torch.profiler saw no kernel for one SDPA call")
        pattern = flush_names + call_names
        if cold and self.flush_ns is None:
            self.flush_ns = self.event_estimate(self.flush)
        per_call = estimate + (self.flush_ns if cold else 0.0)
        by_time = int(self.rule["max_seconds"] * 1e9 / per_call)
        n = max(self.rule["min_samples"], min(self.rule["max_samples"], by_time))
        window = {}

        def run():  # the sampling window: from the first call queued to the last one done
            self.monitor.start()
            window["t0"] = time.monotonic()
            for _ in range(n):
                if cold:
                    self.flush()
                call()
            self.torch.cuda.synchronize()
            window["wall"] = time.monotonic() - window["t0"]
            self.gpu_state = self.monitor.stop()

        ev = self.device_events(run)
        if [e[0] for e in ev] != pattern * n:
            raise RuntimeError(f"torch.profiler saw {len(ev)} device activities for {n} calls "
                               f"where {len(pattern) * n} in the pattern {pattern} were expected")
        samples, busy = [], []
        per_kernel = {name: [] for name in dict.fromkeys(call_names)}
        instances = {name: call_names.count(name) for name in per_kernel}
        for i in range(n):
            mine = ev[i * len(pattern) + len(flush_names):(i + 1) * len(pattern)]
            samples.append(max(e[2] for e in mine) - min(e[1] for e in mine))
            busy.append(union_length([(e[1], e[2]) for e in mine]))
            for name in per_kernel:
                per_kernel[name].append(sum(e[2] - e[1] for e in mine if e[0] == name))
        self.kernels[("cold" if cold else "warm")] = kernel_shares(per_kernel, instances,
                                                                   "cold" if cold else "warm")
        stop = "max_samples" if n >= self.rule["max_samples"] else "time_cap"
        extra = {"kernels_per_launch": len(call_names), "busy_median_ns": percentile(busy, 0.5),
                 "busy_p10_ns": percentile(busy, 0.1), "busy_p90_ns": percentile(busy, 0.9)}
        return samples, stop, window["wall"], 1, list(dict.fromkeys(call_names)), extra

    def graph_regime(self, call, estimate):
        torch = self.torch
        k = max(1, min(MAX_GRAPH_CALLS, int(GRAPH_WORK_NS / estimate)))
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # capture needs warm-up on a side stream
            for _ in range(3):
                call()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(k):
                call()
        graph.replay()  # the first replay is not timed
        batch = max(1, min(MAX_BATCH, int(BATCH_SECONDS * 1e9 / (estimate * k))))
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(batch)]
        stops = [torch.cuda.Event(enable_timing=True) for _ in range(batch)]
        self.monitor.start()
        samples, t0 = [], time.monotonic()
        while True:
            n = min(batch, self.rule["max_samples"] - len(samples))
            torch.cuda._sleep(self.spin_cycles)
            for i in range(n):
                starts[i].record()
                graph.replay()
                stops[i].record()
            torch.cuda.synchronize()
            samples += [starts[i].elapsed_time(stops[i]) * 1e6 / k for i in range(n)]
            stop = should_stop(self.rule, samples, time.monotonic() - t0)
            if stop:
                self.gpu_state = self.monitor.stop()
                return samples, stop, time.monotonic() - t0, k, None


def make_inputs(torch, s, seed, dev):
    g = torch.Generator(device=dev)
    g.manual_seed(seed)

    def draw(h):
        return torch.randn((s.B, h, s.S, s.D), generator=g, device=dev, dtype=torch.float32).half()

    return draw(s.H), draw(s.H_kv), draw(s.H_kv)


def half_ulp_fp16(torch, x):
    """Half an fp16 ulp of each element of x (float64), as reference.cpp's half_ulp_fp16."""
    _, e = torch.frexp(x.abs().clamp_min(2.0 ** -14))
    return torch.ldexp(torch.ones_like(x), (e - 12).to(torch.int64))


def rounding_var(torch, x):
    """Variance of rounding x to fp16 (uniform on +-half an ulp)."""
    return (2 * half_ulp_fp16(torch, x)).square() / 12


def reference_rows(torch, s, q, k, v, rows):
    """fp64 attention, the naive fp16 yardstick and the naive implementation's expected error
    (reference.cpp's expected_naive_error_row) for the given flat rows: three [R, D] tensors."""
    scale = s.scale()
    idx = torch.tensor(rows, device=q.device, dtype=torch.int64)
    ref = torch.empty((len(rows), s.D), dtype=torch.float64, device=q.device)
    naive = torch.empty((len(rows), s.D), dtype=torch.float32, device=q.device)
    sigma = torch.empty((len(rows), s.D), dtype=torch.float64, device=q.device)
    heads = idx // s.S
    group = s.H // s.H_kv
    prev_tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False  # the naive fp32 dot products stay fp32
    try:
        for head in torch.unique(heads).tolist():
            sel = (heads == head).nonzero().flatten()
            b, h = divmod(head, s.H)
            i = idx[sel] % s.S
            qr, kk, vv = q[b, h, i], k[b, h // group], v[b, h // group]
            masked = (torch.arange(s.S, device=q.device)[None, :] > i[:, None]) if s.causal else None
            # fp64 reference
            sc = (qr.double() @ kk.double().T) * scale
            if masked is not None:
                sc = sc.masked_fill(masked, -math.inf)
            pw = torch.softmax(sc, dim=-1)
            vd = vv.double()
            o = pw @ vd
            ref[sel] = o
            # expected naive error: score roundings (weight p_j, direction v_j - o), weight
            # roundings (direction v_j), output rounding; masked keys have p = 0
            live = pw > 0
            score_var = (rounding_var(torch, sc.masked_fill(~live, 0.0)) * pw.square()).masked_fill(~live, 0.0)
            weight_var = rounding_var(torch, pw).masked_fill(~live, 0.0)
            var = (score_var @ vd.square() - 2 * o * (score_var @ vd)
                   + o.square() * score_var.sum(dim=-1, keepdim=True)
                   + weight_var @ vd.square() + rounding_var(torch, o))
            sigma[sel] = var.clamp_min(0.0).sqrt()
            # naive fp16: fp32 dots rounded to fp16, fp32 softmax, P rounded to fp16, fp32 PV
            sn = ((qr.float() @ kk.float().T) * float(scale)).half().float()
            if masked is not None:
                sn = sn.masked_fill(masked, -math.inf)
            p = torch.exp(sn - sn.max(dim=-1, keepdim=True).values)
            w = (p / p.sum(dim=-1, keepdim=True)).half().float()
            naive[sel] = (w @ vv.float()).half().float()
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev_tf32
    return ref, naive, sigma


def check_output(torch, s, out, rows, ref, naive, sigma):
    """reference.hpp's row rule on the checked rows, and a NaN/inf scan of the whole output."""
    idx = torch.tensor(rows, device=out.device, dtype=torch.int64)
    got = out.reshape(s.B * s.H * s.S, s.D)[idx].double()
    nonfinite = int((~torch.isfinite(out)).sum().item())
    err = (got - ref).abs().masked_fill(~torch.isfinite(got), math.inf)
    max_abs = float(err.max().item())
    max_rel = float((err / ref.abs().clamp_min(REL_FLOOR)).max().item())
    naive_err = float((naive.double() - ref).abs().max().item())
    rms = err.square().mean(dim=1).sqrt()
    tol = (ERR_FACTOR * sigma.square().mean(dim=1).sqrt()
           + half_ulp_fp16(torch, ref).square().mean(dim=1).sqrt())
    ratio = (rms / tol).nan_to_num(nan=math.inf)
    worst = int(ratio.argmax().item())
    worst_ratio = float(ratio[worst].item())
    c = {"passed": bool(rows) and nonfinite == 0 and worst_ratio <= 1.0,
         "max_abs_err": max_abs, "max_rel_err": max_rel,
         "tolerance_abs": float(tol[worst].item()),
         "naive_fp16_max_abs_err": naive_err, "rows_checked": len(rows),
         "rows_total": s.B * s.H * s.S, "nonfinite": nonfinite,
         "repeat_identical": None,  # set by run_shape; here for record/correctness.cpp's key order
         "rule": RULE,
         "inputs": "normal", "row_rms_err": float(rms[worst].item()),
         "row_err_ratio": worst_ratio, "elements_scanned": out.numel()}
    if not c["passed"]:
        col = int(err[worst].argmax().item())
        r = rows[worst]
        b, h, i = r // (s.H * s.S), (r // s.S) % s.H, r % s.S
        c["failure"] = (f"{nonfinite} NaN/inf output elements; " if nonfinite else "") + (
            f"worst row b={b} h={h} row={i}: rms error {c['row_rms_err']:.3g} against tolerance "
            f"{c['tolerance_abs']:.3g}, worst element d={col} got {got[worst, col].item()}, "
            f"reference {ref[worst, col].item()}")
    return c


def sdpa_call(torch, backend, s, q, k, v):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    which = getattr(SDPBackend, BACKENDS[backend][1])
    extra = {"enable_gqa": True} if s.H_kv != s.H else {}

    def call():
        with sdpa_kernel([which]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=s.causal, scale=s.scale(), **extra)

    return call


def probe(call):
    """None if the backend runs this shape, else why not (torch's reasons, one line)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            call()
            return None
        except (RuntimeError, TypeError, ValueError) as e:
            reasons = []
            for w in seen:
                line = str(w.message).splitlines()[0].split(" (Triggered internally")[0].strip()
                if line and line not in reasons:
                    reasons.append(line)
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            return "; ".join([first] + reasons)


def run_shape(torch, bench, backend, s, inputs, rows, ref, naive, sigma, opt, tag):
    q, k, v = inputs
    call = sdpa_call(torch, backend, s, q, k, v)
    why = probe(call)
    if why is not None:
        print(f"{tag} {backend}: unavailable: {why}", flush=True)
        return unavailable_result(s, why), False
    r = new_result(s)
    r["available"] = True
    first = call().clone()
    second = call()
    torch.cuda.synchronize()
    c = check_output(torch, s, first, rows, ref, naive, sigma)
    c["repeat_identical"] = bool(torch.equal(first, second))
    c["output_poisoned"] = False  # torch allocates the output: unwritten elements go unseen
    if "failure" in c:
        c["failure"] = c.pop("failure")  # last, as record/correctness.cpp writes it
    if not c["repeat_identical"] and c["passed"]:
        c["passed"] = False
        c["failure"] = "two calls on the same inputs gave different outputs"
    r["correctness"] = c
    print(f"{tag} {backend} correctness {'PASS' if c['passed'] else 'FAIL'}: worst row rms err "
          f"{c['row_rms_err']:.3g} (tolerance {c['tolerance_abs']:.3g}, ratio "
          f"{c['row_err_ratio']:.2f}), max_abs_err {c['max_abs_err']:.3g} (naive fp16 "
          f"{c['naive_fp16_max_abs_err']:.3g}), {c['rows_checked']} rows, {c['nonfinite']} NaN/inf "
          f"of {c['elements_scanned']}"
          + ("" if c["passed"] else "; " + c["failure"]), flush=True)
    r.update({"timing": None, "headline_regime": None, "tflops": None, "dram_gbps_min_bytes": None})
    if not c["passed"] or opt.check_only:
        return r, c["passed"]

    estimate = bench.event_estimate(call)
    bench.kernels = {}
    timing = {}
    for name in opt.regimes:
        before = bench.sm_clock()
        if name == "graph":
            res = bench.graph_regime(call, estimate)
        else:
            res = bench.cupti_regime(call, name == "cold", estimate)
        gpu_state = bench.gpu_state  # NVML while the regime's samples ran
        samples, stop, wall, per_sample, kernels = res[:5]
        clocks = {"before": before, "after": bench.sm_clock(),
                  "source": "NVML current SM clock (nvmlDeviceGetClockInfo)"}
        timing[name] = regime_json(name, samples, stop, wall, per_sample, clocks, kernels, s,
                                   res[5] if len(res) > 5 else None)
        timing[name]["gpu_state"] = gpu_state
        m = timing[name]
        print(f"{tag} {backend} {name}: median {m['median_ns'] / 1e3:.2f} us (p10 "
              f"{m['p10_ns'] / 1e3:.2f}, p90 {m['p90_ns'] / 1e3:.2f}, noise {m['noise_pct']:.2f}%, "
              f"{m['count']} samples, {stop}) {m['tflops']:.2f} TFLOPS", flush=True)
    if not torch.equal(call(), first):
        c["passed"] = False
        c["failure"] = "output after timing differs from the checked output"
        print(f"{tag} {backend} FAIL: {c['failure']}", flush=True)
        return r, False
    finish_timing(r, timing, opt.regimes)
    if r["headline_regime"] in bench.kernels:  # per-kernel breakdown of the headline regime
        r["kernels"] = bench.kernels[r["headline_regime"]]
    return r, True


def torch_versions(torch, driver):
    cuda = torch.version.cuda or "0.0"
    major, minor = (cuda.split(".") + ["0"])[:2]
    return {"nvcc": None,  # no kernel here was built by this project
            "driver": driver,
            "runtime": int(major) * 1000 + int(minor) * 10,  # the CUDA torch was built with
            "cupti": None,  # torch's own CUPTI (kineto); its version is not exposed
            "torch": torch.__version__,
            "torch_cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None}


def device_footprint(s):
    """[bytes] what a shape holds on the device: fp16 Q, K, V and the two outputs the check keeps."""
    q = s.B * s.H * s.S * s.D
    kv = s.B * s.H_kv * s.S * s.D
    return 2 * (3 * q + 2 * kv)


def memory_refusal(s, device_free):
    """Why the shape does not fit in device_free bytes (as reference.cpp's memory_refusal says
    it), or None."""
    need = device_footprint(s)
    if need <= device_free:
        return None
    gib = 1 << 30
    return (f"it needs {need / gib:.1f} GiB of device memory for Q, K, V and two outputs; the GPU "
            f"has {device_free / gib:.1f} GiB free")


def run(opt, argv):
    shapes = [parse_shape(x) for x in opt.shapes]
    for name in opt.regimes:
        if name not in REGIMES:
            raise UsageError(f"unknown timing regime '{name}'; expected cold, warm or graph")
    for b in opt.backends:
        if b not in BACKENDS:
            raise UsageError(f"unknown backend '{b}'; expected cudnn, flash or efficient")
    if opt.min_samples < 2 or opt.max_samples < opt.min_samples:
        raise UsageError("need 2 <= --min-samples <= --max-samples")
    try:
        import torch
    except ImportError:
        raise EnvironmentProblem("PyTorch not found: the SDPA baseline needs python3 with torch") from None
    ensure_writable_directory(opt.results_dir)
    if not torch.cuda.is_available() or torch.cuda.device_count() <= opt.device:
        raise EnvironmentProblem(f"no CUDA device {opt.device} visible to torch")
    dev = torch.device("cuda", opt.device)
    torch.cuda.set_device(dev)
    free, _ = torch.cuda.mem_get_info(dev)
    for spec, s in zip(opt.shapes, shapes):
        if (why := memory_refusal(s, free)) is not None:
            raise UsageError(f"cannot run shape '{spec}': {why}")
    gpu, driver = driver_gpu_json(opt.device)
    versions = torch_versions(torch, driver)
    seed = opt.seed if opt.seed is not None else int.from_bytes(os.urandom(8), "little")
    rule = {"min_samples": opt.min_samples, "max_samples": opt.max_samples,
            "noise_target_pct": opt.noise_target, "max_seconds": opt.max_time}
    bench = Bench(torch, dev, gpu, rule)

    now = time.time()
    sha = git_provenance()["commit"][:7]
    runs = {}
    for b in opt.backends:
        options = {"regimes": opt.regimes, "check_only": opt.check_only, "stopping_rule": rule,
                   "backend": b}
        d = create_run_directory(opt.results_dir, BACKENDS[b][0], utc_stamp(now), sha)
        rec = new_record(b, argv, seed, versions, gpu, options, now)
        write_json_atomically(d / "run.json", rec)
        runs[b] = {"file": d / "run.json", "record": rec, "ok": True, "unavailable": False}
        print(f"attnlab: {BACKENDS[b][0]} on {gpu['name']}, torch {torch.__version__}, seed {seed}, "
              f"record {d / 'run.json'}", flush=True)

    for i, s in enumerate(shapes):
        tag = f"[{i + 1}/{len(shapes)}] {s.name()}"
        live = [b for b in opt.backends if "error" not in runs[b]["record"]]
        if not live:
            break
        inputs = make_inputs(torch, s, seed, dev)
        rows = rows_to_check(s, seed)
        ref, naive, sigma = reference_rows(torch, s, *inputs, rows)
        for b in live:
            st = runs[b]
            try:
                result, passed = run_shape(torch, bench, b, s, inputs, rows, ref, naive, sigma, opt, tag)
            except Exception as e:  # noqa: BLE001 - a fault mid-run is recorded, as in C++
                st["record"]["status"] = "failed"
                st["record"]["error"] = f"{type(e).__name__}: {e}"
                st["ok"] = False
                write_json_atomically(st["file"], st["record"])
                print(f"attnlab: {BACKENDS[b][0]} run failed: {e} (record {st['file']})",
                      file=sys.stderr, flush=True)
                continue
            if result.get("available") is False:
                st["unavailable"] = True
            elif not passed:
                st["ok"] = False
            st["record"]["results"].append(result)
            write_json_atomically(st["file"], st["record"])
        del inputs, ref, naive, sigma
        torch.cuda.empty_cache()

    code = EXIT_OK
    for b in opt.backends:
        st = runs[b]
        rec = st["record"]
        if "error" not in rec:
            rec["status"] = "ok" if st["ok"] and not st["unavailable"] else "failed"
        if st["unavailable"]:
            rec["unavailable_shapes"] = [r["name"] for r in rec["results"] if r.get("available") is False]
        write_json_atomically(st["file"], rec)
        print(f"attnlab: {BACKENDS[b][0]} status {rec['status']}, record {st['file']}", flush=True)
        if not st["ok"]:
            code = EXIT_FAILED
        elif st["unavailable"] and code == EXIT_OK:
            code = EXIT_USAGE
    return code


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, as the C++ experiments do
        raise UsageError(message)


def main(argv):
    p = Parser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
               epilog="Exit codes: 0 ok, 1 a correctness check or run failed, 2 bad arguments or a "
                      "backend cannot run a shape, 3 no PyTorch, no GPU or results directory not "
                      "writable.")
    p.add_argument("-s", "--shape", dest="shapes", action="append", metavar="SPEC",
                   help="shape to run, repeatable: BxHxSxD or B,H,S,D, :causal, :hkv=N; presets "
                        "throughput = 16x16x2048x64, latency = 1x8x512x64 (default: both)")
    p.add_argument("--backends", default="cudnn,flash,efficient",
                   help="SDPA backends, comma-separated (default: %(default)s)")
    p.add_argument("--seed", type=non_negative_int, help="input seed (default: fresh; recorded)")
    p.add_argument("-o", "--results-dir", default="results",
                   help="where run records go (default: %(default)s)")
    p.add_argument("--regimes", default=",".join(REGIMES), help="timing regimes (default: %(default)s)")
    p.add_argument("--noise-target", type=positive_finite, default=STOPPING_RULE["noise_target_pct"], help="[%%] graph regime: stop once relative noise is below (cold and warm take every sample the limits allow)")
    p.add_argument("--max-time", type=positive_finite, default=STOPPING_RULE["max_seconds"], help="[s] time budget per regime and shape (cold and warm: device time of the planned calls)")
    p.add_argument("--min-samples", type=non_negative_int, default=STOPPING_RULE["min_samples"])
    p.add_argument("--max-samples", type=non_negative_int, default=STOPPING_RULE["max_samples"])
    p.add_argument("--check-only", action="store_true", help="correctness check only, no timing")
    p.add_argument("--device", type=non_negative_int, default=0, help="CUDA device ordinal")
    p.add_argument("--write-example-record", metavar="PATH",
                   help="write a record built from synthetic numbers to PATH and exit (schema test; "
                        "needs neither torch nor a GPU)")
    p.add_argument("--list-options", action="store_true",
                   help="print every option this script takes, one a line, and exit (scripts/sweep.sh "
                        "passes it only these of the common ARGS; needs neither torch nor a GPU)")
    try:
        opt = p.parse_args(argv[1:])
        if opt.list_options:
            print("\n".join(s for a in p._actions for s in a.option_strings))
            return EXIT_OK
        if opt.write_example_record:
            write_json_atomically(Path(opt.write_example_record), example_record())
            return EXIT_OK
        opt.shapes = opt.shapes or ["throughput", "latency"]
        opt.backends = [b for b in opt.backends.split(",") if b]
        opt.regimes = [r for r in opt.regimes.split(",") if r]
        return run(opt, argv)
    except UsageError as e:
        print(f"attnlab: {e}", file=sys.stderr)
        return EXIT_USAGE
    except EnvironmentProblem as e:
        print(f"attnlab: {e}", file=sys.stderr)
        return EXIT_ENVIRONMENT


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""PyTorch SDPA baseline: torch's fused attention backends (cuDNN, flash, memory-efficient),
checked against an fp64 reference and timed in the harness's regimes, written as attnlab.run/1
records (phases sdpa-cudnn, sdpa-flash, sdpa-efficient) beside the C++ phases' records.
This script does only what needs PyTorch: it draws the inputs, calls SDPA, and collects raw
samples and outputs. attnlab-sdpa-import (--importer), built from the harness's code, does the
rest: it parses the shapes and holds them against the memory torch has free, reads the GPU's
attributes, checks each output, sets the cold and warm regimes' number of calls, answers the
graph regime's stopping rule while it samples, and at the end turns the raw measurements
(record/sdpa_raw.hpp) into the record with the harness's statistics and provenance.

  python3 experiments/baselines/sdpa_baseline.py                       # throughput and latency, every backend
  python3 experiments/baselines/sdpa_baseline.py --backends cudnn --shape 4x16x4096x128 --regimes cold,graph
  make baseline SHAPES="throughput latency"

How it measures, and how that differs from the C++ harness (experiments/harness/harness.cpp):
- cold/warm: device time of the SDPA kernels of one call from torch.profiler (CUPTI kernel
  activity): the span from the first kernel's start to the last one's end, as the C++ regimes
  take it; "cold" zeroes a buffer of twice the L2 before every call. A call's kernels are told
  from the flush's by the kernel sequence one call and one flush produce on their own. All the
  calls of a regime run in one profiler session, back to back, so that the GPU is at least as
  busy while sampling as under the C++ sampler (under the power cap, idle gaps raise the clock
  of the calls after them); the importer sets their number from --min-samples, --max-samples
  and --max-time, and the regime does not stop early on low noise.
- graph: CUDA events around each replay of a CUDA graph of k calls (k sized so that a replay
  holds about 200 us of work, at most 20), queued behind torch.cuda._sleep so the host's
  enqueueing stays out of the interval; divided by k. After each batch of replays the importer
  says, by common/stats.cpp's rule, whether to stop: at least --min-samples, then relative
  noise under --noise-target, or --max-time per regime (twice that when the minimum is not
  reached).
- Inputs are N(0,1) fp32 from torch.Generator(cuda).manual_seed(seed), rounded to fp16: the
  seed reproduces them under the same torch and GPU, but they are not bit-identical to the
  C++ phases' counter-based inputs (the record says so).
- Correctness: the inputs and each backend's output go to the importer as raw fp16 files, and
  it checks them with experiments/harness/reference.cpp: the rows the C++ gate picks for the seed, the
  fp64 reference, the row rule against a naive fp16 implementation's expected error, every
  element scanned for NaN/inf. torch allocates the output, so it cannot be poisoned first; a
  second call must give the same bits, and so must a call after timing.
- NVML: the harness's monitor, in the importer's process, polls the GPU while each regime
  samples; its raw readings go in the raw file, and the importer summarises them.
The regimes are in sdpa_timing.py, beside this script.

Exit codes: 0 ok; 1 a correctness check failed or a run failed; 2 bad arguments, a shape whose
buffers do not fit in the memory torch has free (the importer's rule, before anything is
recorded), or a backend could not run a shape (its result says why, no timing); 3 no PyTorch, no
GPU, or the results directory is not writable or the importer is missing.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import math
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

# The timing and the correctness check live beside this script; it is run from anywhere and the
# tests load it by path, so its own directory goes on the import path first.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from sdpa_timing import Bench  # noqa: E402

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ENVIRONMENT = 0, 1, 2, 3
REPO = Path(__file__).resolve().parents[2]

# backend name -> torch.nn.attention.SDPBackend member; the record's titles are the importer's.
BACKENDS = {"cudnn": "CUDNN_ATTENTION", "flash": "FLASH_ATTENTION", "efficient": "EFFICIENT_ATTENTION"}
RAW_SCHEMA = "attnlab.sdpa-raw/1"  # record/sdpa_raw.hpp
DEFAULT_IMPORTER = REPO / "build" / "bin" / "attnlab-sdpa-import"

# The command line's defaults and help, as the C++ harness has them (the regimes, the stopping
# rule's defaults, the shape sets' names), from record/constants.json, which
# tests/cpu/test_constants.cpp keeps equal to the C++ sources.
CONSTANTS = json.loads((REPO / "record" / "constants.json").read_text())
SHAPE_SETS = [k for k in CONSTANTS["shape_sets"] if k != "source"]
REGIMES = tuple(CONSTANTS["regimes"])
STOPPING_RULE = CONSTANTS["stopping_rule"]


class UsageError(Exception):
    pass


class EnvironmentProblem(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Shapes, as the importer parses them (common/shapes.cpp)

class Shape:
    """One shape as `attnlab-sdpa-import shapes` prints it: name, B, H, H_kv, S, D, causal and
    the harness's softmax scale."""

    def __init__(self, fields):
        self.fields = fields
        for k in ("B", "H", "H_kv", "S", "D", "causal", "scale"):
            setattr(self, k, fields[k])

    def name(self):
        return self.fields["name"]

    def json(self):
        return self.fields


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


# ---------------------------------------------------------------------------------------------
# The raw file (record/sdpa_raw.hpp) and its import (attnlab-sdpa-import)

class RawRun:
    """One backend's raw measurements (record/sdpa_raw.hpp): a header line, then a line appended
    for every shape, so that a run cut short leaves what it measured; `finish` imports the file
    into a run record and removes it."""

    def __init__(self, path, backend, argv, started, seed, options, versions, gpu):
        self.path = Path(path)
        self.failed = False
        self.path.write_text("")
        self.append({"schema": RAW_SCHEMA, "backend": backend, "argv": argv,
                     "started_unix_s": int(started), "seed": seed, "options": options,
                     "versions": versions, "gpu": gpu})

    def append(self, line):
        with open(self.path, "a") as f:
            f.write(json.dumps(line, allow_nan=False) + "\n")

    def add(self, result):
        self.append({"result": result})

    def fail(self, error):
        self.failed = True
        self.append({"error": error})

    def finish(self, importer, results_dir=None, output=None):
        """Runs the importer; True when it wrote the record (it prints where)."""
        cmd = [str(importer), str(self.path)]
        cmd += ["--output", str(output)] if output else ["--results-dir", str(results_dir)]
        rc = subprocess.run(cmd).returncode
        if rc != 0:
            print(f"attnlab: {importer} exited {rc}; the raw measurements stay in {self.path} "
                  f"(run it again: {' '.join(cmd)})", file=sys.stderr, flush=True)
            return False
        self.path.unlink()
        return True


class Importer:
    """attnlab-sdpa-import: what the baseline asks the harness's code while it runs (its shapes,
    each output's check, the graph regime's stopping rule, the NVML monitor); RawRun.finish runs
    its import."""

    def __init__(self, path):
        self.path = str(path)

    def ask(self, *args):
        """The importer's answer, one JSON value a line; RuntimeError with its one line otherwise."""
        return [json.loads(line) for line in self.ask_text(*args)]

    def ask_text(self, *args):
        """The importer's answer, its lines; RuntimeError with its one line otherwise."""
        p = subprocess.run([self.path, *args], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(p.stderr.strip().removeprefix("attnlab-sdpa-import: ")
                               or f"{self.path} exited {p.returncode}")
        return p.stdout.splitlines()

    def shapes(self, specs):
        try:
            return [Shape(f) for f in self.ask("shapes", *specs)]
        except RuntimeError as e:
            raise UsageError(str(e)) from None

    def fit(self, shapes, device_free):
        """UsageError naming the first shape whose buffers do not fit in device_free bytes (or the
        host's available memory), by the harness's footprint."""
        try:
            self.ask("fit", "--device-free", str(device_free), *(s.name() for s in shapes))
        except RuntimeError as e:
            raise UsageError(str(e)) from None

    def gpu(self, device):
        """The GPU's attributes (record/sdpa_raw.hpp's gpu block) and the driver's version, as the
        harness reads them through the CUDA runtime."""
        try:
            gpu = gpu_block(self.ask_text("gpu", "--device", str(device)))
        except RuntimeError as e:
            raise EnvironmentProblem(str(e)) from None
        return gpu, gpu.pop("driver")

    def check(self, tensors, s, seed, repeat_identical):
        """The record's correctness block of tensors/out.f16 (beside q, k and v.f16)."""
        args = ["check", str(tensors), "--shape", s.name(), "--seed", str(seed)]
        return self.ask(*args, *([] if repeat_identical else ["--repeat-differs"]))[0]

    def monitor(self, device):
        """The harness's NVML monitor for CUDA device `device`, served by the importer (sdpa_timing.Monitor)."""
        return subprocess.Popen([self.path, "monitor", "--device", str(device)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def sample_plan(self, rule, per_call_ns):
        """A cold or warm regime's number of calls and its stop reason, for one call's estimate
        [ns] (the flush included when cold)."""
        samples, reason = self.ask_text("plan", "--per-call-ns", repr(float(per_call_ns)), *rule_args(rule))[0].split()
        return int(samples), reason

    def stopping_rule(self, rule):
        """A process that answers, for each batch of samples written to it, whether to stop."""
        return subprocess.Popen([self.path, "stop", *rule_args(rule)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def gpu_block(lines):
    """The raw file's gpu block (and "driver") from attnlab-sdpa-import gpu's "<key> <value>"
    lines: the name and uuid as text, every other value an integer."""
    block = dict(line.split(" ", 1) for line in lines)
    return {k: v if k in ("name", "uuid_hex") else int(v) for k, v in block.items()}


def rule_args(rule):
    """The stopping rule's options, as the importer's plan and stop take them."""
    return ["--min-samples", str(rule["min_samples"]), "--max-samples", str(rule["max_samples"]),
            "--noise-target", repr(rule["noise_target_pct"]), "--max-time", repr(rule["max_seconds"])]


# ---------------------------------------------------------------------------------------------
# The GPU side (needs torch)

def sdpa_call(torch, backend, s, q, k, v):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    which = getattr(SDPBackend, BACKENDS[backend])
    extra = {"enable_gqa": True} if s.H_kv != s.H else {}

    def call():
        with sdpa_kernel([which]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=s.causal, scale=s.scale, **extra)

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


def time_shape(torch, bench, call, first, opt, tag, backend):
    """The raw regime blocks of one checked call, or None when its output changed meanwhile."""
    estimate = bench.event_estimate(call)
    regimes = []
    for name in opt.regimes:
        before = bench.sm_clock()
        g = bench.graph_regime(call, estimate) if name == "graph" else \
            bench.cupti_regime(call, name == "cold", estimate)
        g.update(clock_before_mhz=before, clock_after_mhz=bench.sm_clock())
        regimes.append(g)
        n = len(g.get("samples_ns", g.get("launches")))
        print(f"{tag} {backend} {name}: {n} samples ({g['stop_reason']}, {g['wall_s']:.2f} s)", flush=True)
    return regimes if torch.equal(call(), first) else None


def make_inputs(torch, s, seed, dev):
    g = torch.Generator(device=dev)
    g.manual_seed(seed)

    def draw(h):
        return torch.randn((s.B, h, s.S, s.D), generator=g, device=dev, dtype=torch.float32).half()

    return draw(s.H), draw(s.H_kv), draw(s.H_kv)


def write_f16(t, path):
    """A tensor's fp16 values, row-major in its logical order, as the importer reads them."""
    c = t.detach().to("cpu").contiguous()
    with open(path, "wb") as f:
        f.write(ctypes.string_at(c.data_ptr(), c.numel() * c.element_size()))


def number(x):
    return "null" if x is None else f"{x:.3g}"


def run_shape(torch, bench, importer, backend, s, inputs, tensors, seed, opt, tag):
    """The raw result of one shape (record/sdpa_raw.hpp), and whether it passed. `tensors`: the
    directory that holds the inputs for the importer's check; the output joins them for it."""
    call = sdpa_call(torch, backend, s, *inputs)
    why = probe(call)
    if why is not None:
        print(f"{tag} {backend}: unavailable: {why}", flush=True)
        return {"shape": s.json(), "unavailable": why}, True
    first = call().clone()
    second = call()
    torch.cuda.synchronize()
    write_f16(first, tensors / "out.f16")
    try:
        c = importer.check(tensors, s, seed, repeat_identical=bool(torch.equal(first, second)))
    finally:
        (tensors / "out.f16").unlink()
    print(f"{tag} {backend} correctness {'PASS' if c['passed'] else 'FAIL'}: worst row rms err "
          f"{number(c.get('row_rms_err'))} (tolerance {number(c['tolerance_abs'])}, ratio "
          f"{number(c.get('row_err_ratio'))}), max_abs_err {number(c['max_abs_err'])} (naive fp16 "
          f"{number(c['naive_fp16_max_abs_err'])}), {c['rows_checked']} rows, {c['nonfinite']} NaN/inf "
          f"of {c.get('elements_scanned')}"
          + ("" if c["passed"] else "; " + c.get("failure", "")), flush=True)
    r = {"shape": s.json(), "correctness": c}
    if not c["passed"] or opt.check_only:
        return r, c["passed"]
    regimes = time_shape(torch, bench, call, first, opt, tag, backend)
    if regimes is None:
        r["changed_after_timing"] = True
        print(f"{tag} {backend} FAIL: output after timing differs from the checked output", flush=True)
        return r, False
    r["regimes"] = regimes
    return r, True


def torch_versions(torch, driver):
    return {"driver": driver, "torch": torch.__version__, "torch_cuda": torch.version.cuda or "0.0",
            "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None}


def check_options(opt):
    """The shapes, after every option is checked (UsageError or EnvironmentProblem otherwise)."""
    if not os.access(opt.importer, os.X_OK):
        raise EnvironmentProblem(f"the record importer {opt.importer} is missing: build it "
                                 f"(cmake --build build --target attnlab-sdpa-import) or pass --importer")
    shapes = Importer(opt.importer).shapes(opt.shapes)
    for name in opt.regimes:
        if name not in REGIMES:
            raise UsageError(f"unknown timing regime '{name}'; expected cold, warm or graph")
    for b in opt.backends:
        if b not in BACKENDS:
            raise UsageError(f"unknown backend '{b}'; expected cudnn, flash or efficient")
    if opt.min_samples < 2 or opt.max_samples < opt.min_samples:
        raise UsageError("need 2 <= --min-samples <= --max-samples")
    try:
        os.makedirs(opt.results_dir, exist_ok=True)
    except OSError as e:
        raise EnvironmentProblem(f"cannot create results directory {opt.results_dir}: {e.strerror}")
    if not os.access(opt.results_dir, os.W_OK | os.X_OK):
        raise EnvironmentProblem(f"results directory {opt.results_dir} is not writable")
    return shapes


def open_device(torch, opt, importer, shapes):
    if not torch.cuda.is_available() or torch.cuda.device_count() <= opt.device:
        raise EnvironmentProblem(f"no CUDA device {opt.device} visible to torch")
    dev = torch.device("cuda", opt.device)
    torch.cuda.set_device(dev)
    free, _ = torch.cuda.mem_get_info(dev)
    importer.fit(shapes, free)
    return dev


def run(opt, argv):
    shapes = check_options(opt)
    try:
        import torch
    except ImportError:
        raise EnvironmentProblem("PyTorch not found: the SDPA baseline needs python3 with torch") from None
    importer = Importer(opt.importer)
    dev = open_device(torch, opt, importer, shapes)
    gpu, driver = importer.gpu(opt.device)
    seed = opt.seed if opt.seed is not None else int.from_bytes(os.urandom(8), "little")
    rule = {"min_samples": opt.min_samples, "max_samples": opt.max_samples,
            "noise_target_pct": opt.noise_target, "max_seconds": opt.max_time}
    bench = Bench(torch, dev, gpu, rule, importer)
    options = {"regimes": opt.regimes, "check_only": opt.check_only, **rule}
    now = time.time()
    runs = {b: RawRun(Path(opt.results_dir) / f".sdpa-raw-{b}-{os.getpid()}.jsonl", b, argv, now, seed,
                      options, torch_versions(torch, driver), gpu) for b in opt.backends}
    tensors = Path(opt.results_dir) / f".sdpa-tensors-{os.getpid()}"  # the check's inputs and output
    tensors.mkdir()
    ok = {b: True for b in opt.backends}
    unavailable = {b: False for b in opt.backends}
    for b in opt.backends:
        print(f"attnlab: sdpa-{b} on {gpu['name']}, torch {torch.__version__}, seed {seed}", flush=True)
    try:
        for i, s in enumerate(shapes):
            live = [b for b in opt.backends if not runs[b].failed]
            if not live:
                break
            inputs = make_inputs(torch, s, seed, dev)
            for name, t in zip("qkv", inputs):
                write_f16(t, tensors / f"{name}.f16")
            for b in live:
                try:
                    result, passed = run_shape(torch, bench, importer, b, s, inputs, tensors, seed, opt,
                                               f"[{i + 1}/{len(shapes)}] {s.name()}")
                except Exception as e:  # noqa: BLE001 - a fault mid-run is recorded, as in C++
                    runs[b].fail(f"{type(e).__name__}: {e}")
                    ok[b] = False
                    print(f"attnlab: sdpa-{b} run failed: {e}", file=sys.stderr, flush=True)
                    continue
                unavailable[b] |= "unavailable" in result
                ok[b] &= passed
                runs[b].add(result)
            del inputs
            torch.cuda.empty_cache()
    finally:
        for f in tensors.glob("*.f16"):
            f.unlink()
        tensors.rmdir()
    code = EXIT_OK
    for b in opt.backends:
        if not runs[b].finish(opt.importer, results_dir=opt.results_dir):
            code = EXIT_FAILED
        elif not ok[b]:
            code = EXIT_FAILED
        elif unavailable[b] and code == EXIT_OK:
            code = EXIT_USAGE
    return code


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, as the C++ experiments do
        raise UsageError(message)


def parser():
    p = Parser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
               epilog="Exit codes: 0 ok, 1 a correctness check or run failed, 2 bad arguments, a shape "
                      "that does not fit or a backend that cannot run a shape, 3 no PyTorch, no GPU, "
                      "no importer or results directory not writable.")
    p.add_argument("-s", "--shape", dest="shapes", action="append", metavar="SPEC",
                   help="shape to run, repeatable: BxHxSxD or B,H,S,D, :causal, :hkv=N; presets "
                        "throughput = 16x16x2048x64, latency = 1x8x512x64; or a named set, "
                        + ", ".join("@" + k for k in SHAPE_SETS) + " (default: @seed; the importer "
                        "parses them)")
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
    p.add_argument("--importer", default=str(DEFAULT_IMPORTER),
                   help="attnlab-sdpa-import, which parses the shapes, checks the outputs, answers "
                        "the stopping rule and turns the raw measurements into the run record "
                        "(default: %(default)s)")
    p.add_argument("--list-options", action="store_true",
                   help="print every option this script takes, one a line, and exit (scripts/sweep.sh "
                        "passes it only these of the common ARGS; needs neither torch nor a GPU)")
    return p


def main(argv):
    p = parser()
    try:
        opt = p.parse_args(argv[1:])
        if opt.list_options:
            print("\n".join(s for a in p._actions for s in a.option_strings))
            return EXIT_OK
        opt.shapes = opt.shapes or ["@seed"]
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

#!/usr/bin/env python3
"""sdpa_fake_torch.py SCRIPT IMPORTER: the SDPA baseline's whole run, from its command line to the
record, on a stand-in for torch that computes attention in plain Python and keeps a device clock
of its own (no torch, no GPU): the shapes from the importer, the seeded inputs, the SDPA call,
the tensors written for the importer's check, the cold, warm and graph regimes with the
importer's number of calls, stopping rule and monitor, the raw file and its import. A right SDPA
passes and is timed, and the run exits 0; one that drops the causal mask fails the importer's
check and the run exits 1; a shape beyond torch's free memory is refused by the importer before
anything is recorded, with exit 2. The GPU's attributes, which the importer reads through the
CUDA runtime, are the stand-in's. Exit 0 when every check holds, 1 naming each that does not."""
import contextlib
import ctypes
import importlib.util
import json
import math
import random
import struct
import sys
import tempfile
import types
from pathlib import Path


def f16(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


# The device: a clock in ns that each kernel advances by its duration and a gap, the kernels a
# profiler session sees, and the graph being captured.
KERNEL_NS, GAP_NS, MEMSET_NS = 100_000, 1_000, 10_000
DEVICE = types.SimpleNamespace(now=0, log=None, capture=None, free=80 << 30)


def kernel(name, ns):
    if DEVICE.capture is not None:
        DEVICE.capture.calls += 1
        return
    if DEVICE.log is not None:
        DEVICE.log.append((name, DEVICE.now, DEVICE.now + ns))
    DEVICE.now += ns + GAP_NS


class Tensor:
    """A dense row-major tensor of Python floats, with what the baseline calls on torch's."""

    def zero_(self):
        kernel("Memset (Device)", MEMSET_NS)

    def __init__(self, shape, values):
        self.shape, self.values = tuple(shape), list(values)

    def half(self):
        return Tensor(self.shape, [f16(x) for x in self.values])

    def clone(self):
        return Tensor(self.shape, self.values)

    def detach(self):
        return self

    def to(self, where):
        return self

    def contiguous(self):
        return self

    def numel(self):
        return len(self.values)

    def element_size(self):
        return 2

    def data_ptr(self):
        data = struct.pack(f"<{len(self.values)}e", *self.values)
        self.buffer = ctypes.create_string_buffer(data, len(data))
        return ctypes.addressof(self.buffer)


class Generator:
    def __init__(self, device=None):
        self.rng = random.Random()

    def manual_seed(self, seed):
        self.rng.seed(seed)


DROP_MASK = False  # the wrong kernel: attends to every key of a causal shape


OUTPUTS = {}


def scaled_dot_product_attention(q, k, v, is_causal=False, scale=None, enable_gqa=False):
    kernel("sdpa_kernel", KERNEL_NS)
    key = (id(q), id(k), id(v), is_causal, DROP_MASK)
    if key not in OUTPUTS:
        OUTPUTS[key] = attention(q, k, v, is_causal, scale)
    return OUTPUTS[key].clone()


def attention(q, k, v, is_causal, scale):
    B, H, S, D = q.shape
    H_kv = k.shape[1]
    out = []
    for b in range(B):
        for h in range(H):
            kv = b * H_kv + h // (H // H_kv)
            for i in range(S):
                row = q.values[((b * H + h) * S + i) * D:((b * H + h) * S + i + 1) * D]
                keys = range(i + 1) if is_causal and not DROP_MASK else range(S)
                sc = [scale * sum(row[d] * k.values[(kv * S + j) * D + d] for d in range(D)) for j in keys]
                m = max(sc)
                w = [math.exp(x - m) for x in sc]
                out += [f16(sum(w[n] * v.values[(kv * S + j) * D + d] for n, j in enumerate(keys)) / sum(w))
                        for d in range(D)]
    return Tensor(q.shape, out)


class Event:
    def __init__(self, enable_timing=False):
        self.t = 0

    def record(self):
        self.t = DEVICE.now

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return (end.t - self.t) / 1e6  # ms


class CUDAGraph:
    def __init__(self):
        self.calls = 0

    def replay(self):
        DEVICE.now += self.calls * (KERNEL_NS + GAP_NS)


@contextlib.contextmanager
def capture(graph):
    DEVICE.capture = graph
    yield
    DEVICE.capture = None


class Profile:
    """torch.profiler.profile: the device activities between enter and exit."""

    def __init__(self, activities):
        pass

    def __enter__(self):
        DEVICE.log = []
        return self

    def __exit__(self, *exc):
        self.log, DEVICE.log = DEVICE.log, None

    def events(self):
        return [types.SimpleNamespace(name=n, device_type="cuda", time_range=types.SimpleNamespace(start=s / 1e3, end=e / 1e3))
                for n, s, e in self.log]


def fake_torch():
    torch = types.ModuleType("torch")
    torch.__version__ = "fake"
    torch.float32, torch.int32 = "float32", "int32"
    torch.device = lambda kind, index: types.SimpleNamespace(type=kind, index=index)
    torch.Generator = Generator
    torch.randn = lambda shape, generator, device, dtype: Tensor(
        shape, [generator.rng.gauss(0, 1) for _ in range(math.prod(shape))])
    torch.empty = lambda n, dtype, device: Tensor((n,), [0.0] * n)
    torch.equal = lambda a, b: a.shape == b.shape and a.values == b.values
    stream = types.SimpleNamespace(wait_stream=lambda other: None)
    torch.cuda = types.SimpleNamespace(
        is_available=lambda: True, device_count=lambda: 1, set_device=lambda d: None,
        mem_get_info=lambda d: (DEVICE.free, 80 << 30), synchronize=lambda: None, empty_cache=lambda: None,
        Event=Event, CUDAGraph=CUDAGraph, graph=capture, Stream=lambda: stream, current_stream=lambda: stream,
        stream=lambda s: contextlib.nullcontext(), _sleep=lambda cycles: None)
    torch.autograd = types.SimpleNamespace(DeviceType=types.SimpleNamespace(CUDA="cuda"))
    profiler = types.ModuleType("torch.profiler")
    profiler.ProfilerActivity = types.SimpleNamespace(CUDA="cuda")
    profiler.profile = Profile
    torch.profiler = profiler
    torch.version = types.SimpleNamespace(cuda="13.0")
    torch.backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(is_available=lambda: True, version=lambda: 91900))
    nn = types.ModuleType("torch.nn")
    attention = types.ModuleType("torch.nn.attention")
    attention.SDPBackend = types.SimpleNamespace(CUDNN_ATTENTION=1, FLASH_ATTENTION=2, EFFICIENT_ATTENTION=3)
    attention.sdpa_kernel = lambda backends: contextlib.nullcontext()
    functional = types.ModuleType("torch.nn.functional")
    functional.scaled_dot_product_attention = scaled_dot_product_attention
    torch.nn, nn.attention, nn.functional = nn, attention, functional
    sys.modules.update({"torch": torch, "torch.nn": nn, "torch.nn.attention": attention,
                        "torch.nn.functional": functional, "torch.profiler": profiler})


def run(b, drop_mask, shape="1x2x24x8:causal:hkv=1"):
    """The run's exit code, its record and what it left in the results directory."""
    global DROP_MASK
    DROP_MASK = drop_mask
    with tempfile.TemporaryDirectory() as d:
        code = b.main(["sdpa_baseline.py", "--backends", "cudnn", "--seed", "3", "--max-samples", "200",
                       "--shape", shape, "--importer", sys.argv[2], "--results-dir", d])
        records = list(Path(d).glob("sdpa-cudnn/*/run.json"))
        left = sorted(p.name for p in Path(d).iterdir() if p.name != "sdpa-cudnn")
        return code, (json.loads(records[0].read_text()) if len(records) == 1 else None), left


def main():
    fake_torch()
    spec = importlib.util.spec_from_file_location("b", sys.argv[1])
    b = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(b)
    GPU = {"name": "fake", "uuid_hex": "cd" * 16, "cc_major": 9, "cc_minor": 0, "sm_count": 132,
           "sm_clock_khz": 1980000, "mem_clock_khz": 2619000, "bus_width_bits": 5120, "l2_bytes": 1024,
           "global_mem_bytes": 85017493504, "smem_per_sm_bytes": 233472}
    b.Importer.gpu = lambda self, device: (GPU, 13000)
    code, rec, left = run(b, False)
    wrong_code, wrong, wrong_left = run(b, True)
    DEVICE.free = 3071  # a byte short of the shape's Q, K, V and two outputs in fp16
    big_code, big, big_left = run(b, False)
    c = rec["results"][0]["correctness"] if rec else {}
    w = wrong["results"][0]["correctness"] if wrong else {}
    checks = [
        ("a right SDPA: exit 0, status ok", code == 0 and rec and rec["status"] == "ok"),
        ("every row checked against the reference, on torch's inputs", c.get("passed") and c.get("rows_checked") == 48
         and rec["provenance"]["seed"] == 3),
        ("every regime timed, cold and warm at the kernel's span",
         rec and list(rec["results"][0]["timing"]) == ["cold", "warm", "graph"]
         and [t["median_ns"] for n, t in rec["results"][0]["timing"].items() if n != "graph"] == [KERNEL_NS] * 2),
        ("the calls of a regime are the stopping rule's, the flush no kernel of them",
         rec and rec["results"][0]["timing"]["cold"]["count"] == 200
         and rec["results"][0]["timing"]["cold"]["kernels"] == ["sdpa_kernel"]),
        ("the graph regime stops where the importer's rule says (no noise: converged)",
         rec and rec["results"][0]["timing"]["graph"]["stop_reason"] == "converged"),
        ("the monitor's block in every regime",
         rec and all("gpu_state" in t for t in rec["results"][0]["timing"].values())),
        ("nothing left beside the record", left == [] and wrong_left == []),
        ("the mask dropped: exit 1, status failed, not timed",
         wrong_code == 1 and wrong and wrong["status"] == "failed" and wrong["results"][0]["timing"] is None),
        ("the importer's check names the worst row", w.get("passed") is False and "worst row" in w.get("failure", "")),
    ("a shape beyond the free memory: exit 2, nothing recorded or left",
     big_code == 2 and big is None and big_left == []),
    ]
    for what, ok in checks:
        print(("ok: " if ok else "FAILED: ") + what)
    sys.exit(0 if all(ok for _, ok in checks) else 1)


if __name__ == "__main__":
    main()

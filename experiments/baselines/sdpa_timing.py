"""The SDPA baseline's timing (experiments/baselines/sdpa_baseline.py): the cold, warm and graph regimes
on one device, for any callable. The importer serves what needs the harness's code: the cold and
warm regimes' number of calls (attnlab-sdpa-import plan), the graph regime's stopping rule
(attnlab-sdpa-import stop, common/stats.cpp) and the NVML monitor
(attnlab-sdpa-import monitor, profiler/gpu_monitor.cpp), whose raw readings each regime keeps;
every statistic of the record is the importer's. Needs torch only through the module a Bench
is given; loading this file needs none.
"""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

# The sampler's batching and the monitor's period, shared with the C++ harness
# (record/constants.json, kept equal to the C++ sources by tests/cpu/test_constants.cpp).
CONSTANTS = json.loads((Path(__file__).resolve().parents[2] / "record" / "constants.json").read_text())

MIN_WARMUP_CALLS = CONSTANTS["sampler"]["min_warmup_launches"]
WARMUP_SECONDS = CONSTANTS["sampler"]["warmup_seconds"]        # [s]
BATCH_SECONDS = CONSTANTS["sampler"]["batch_seconds"]          # [s] device work per batch
MAX_BATCH = CONSTANTS["sampler"]["max_batch"]                  # calls per batch
GRAPH_WORK_NS = CONSTANTS["sampler"]["graph_work_ns"]          # [ns] device work per graph replay
MAX_GRAPH_CALLS = CONSTANTS["sampler"]["max_graph_launches"]   # calls per graph
SPIN_LEAD_S = CONSTANTS["sampler"]["spin_lead_ns"] * 1e-9      # [s] GPU sleep that lets the host queue replays


def ask_stop(rule, elapsed, batch):
    """The stopping rule's answer after one more batch: "continue" or the reason to stop.
    `rule`: the importer's process (Importer.stopping_rule), which holds the samples so far."""
    rule.stdin.write(" ".join(repr(float(x)) for x in [elapsed, *batch]) + "\n")
    rule.stdin.flush()
    answer = rule.stdout.readline().strip()
    if not answer:
        raise RuntimeError(f"the importer's stopping rule exited {rule.wait()} without an answer")
    return answer


class Monitor:
    """The harness's NVML monitor (profiler/gpu_monitor.cpp) in the importer's process
    (attnlab-sdpa-import monitor): it polls the SM clock, power, temperature and clock-event
    reasons while a regime samples, and hands back the regime's raw nvml block."""

    def __init__(self, importer, device):
        self.proc = importer.monitor(device)

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"the importer's monitor exited {self.proc.wait()} without an answer")
        return json.loads(answer)

    def start(self):
        self.ask("start")

    def stop(self):
        """The regime's raw nvml block: the readings since start(), or why there are none."""
        return self.ask("stop")

    def sm_clock(self):
        """NVML's current SM clock [MHz]; None where NVML is unavailable (the record says null)."""
        return self.ask("clock")["sm_clock_mhz"]


class Bench:
    """One device: the L2 flush buffer, event helpers and the timing regimes for one callable."""

    def __init__(self, torch, dev, gpu, rule, importer):
        self.torch, self.dev, self.rule, self.importer = torch, dev, rule, importer
        self.monitor = Monitor(importer, dev.index)
        self.flush_ns = None  # device time of one flush, estimated once
        l2 = gpu["l2_bytes"] or 64 << 20
        self.flush_buf = torch.empty(2 * l2 // 4, dtype=torch.int32, device=dev)
        self.spin_cycles = int(SPIN_LEAD_S * (gpu["sm_clock_khz"] / 1e3 or 2000) * 1e6)

    def flush(self):
        self.flush_buf.zero_()

    def sm_clock(self):
        return self.monitor.sm_clock()

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
        return statistics.median(times)

    def cupti_regime(self, call, cold, estimate):
        """Cold/warm samples from one torch.profiler session that holds every call of the
        regime, queued back to back. Starting a session and reading its events leave the GPU
        idle for tens of milliseconds per session, and under the power cap an idle GPU clocks
        up: with a session per batch of calls the GPU was busy about 60% of the regime and ran
        at a higher clock than under the C++ sampler (about 90%). The importer sets the number of
        calls before the session from the stopping rule's sample and time limits (the estimate
        of a call, and of a flush in the cold regime), so the regime does not stop early on low
        noise; the stop reason is the importer's too. Returns the raw regime block: each
        call's kernels' [start, end), from which the importer takes span, busy time and shares."""
        call_names = [n for n, _, _ in self.device_events(call)]
        flush_names = [n for n, _, _ in self.device_events(self.flush)] if cold else []
        if not call_names:
            raise RuntimeError("torch.profiler saw no kernel for one SDPA call")
        pattern = flush_names + call_names
        if cold and self.flush_ns is None:
            self.flush_ns = self.event_estimate(self.flush)
        n, stop_reason = self.importer.sample_plan(self.rule, estimate + (self.flush_ns if cold else 0.0))
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
            window["nvml"] = self.monitor.stop()

        ev = self.device_events(run)
        if [e[0] for e in ev] != pattern * n:
            raise RuntimeError(f"torch.profiler saw {len(ev)} device activities for {n} calls "
                               f"where {len(pattern) * n} in the pattern {pattern} were expected")
        launches = [[t for e in ev[i * len(pattern) + len(flush_names):(i + 1) * len(pattern)]
                     for t in e[1:]] for i in range(n)]
        return {"name": "cold" if cold else "warm",
                "stop_reason": stop_reason,
                "wall_s": window["wall"], "launches_per_sample": 1, "kernels": call_names,
                "launches": launches, "nvml": window["nvml"]}

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
        rule = self.importer.stopping_rule(self.rule)
        try:
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
                batch_ns = [starts[i].elapsed_time(stops[i]) * 1e6 / k for i in range(n)]
                samples += batch_ns
                stop = ask_stop(rule, time.monotonic() - t0, batch_ns)
                if stop != "continue":
                    return {"name": "graph", "stop_reason": stop, "wall_s": time.monotonic() - t0,
                            "launches_per_sample": k, "samples_ns": samples, "nvml": self.monitor.stop()}
        finally:
            rule.stdin.close()
            rule.wait()

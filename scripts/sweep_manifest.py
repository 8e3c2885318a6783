#!/usr/bin/env python3
"""Writes a sweep's manifest, <sweep dir>/manifest.json, from its task queue and task events.

  scripts/sweep_manifest.py --sweep-dir results/sweeps/<id> --results results --sweep-id <id>
      --gpus "0 1" [--gpu-names "..."] --start <utc> --end <utc> [--scheduler local|slurm]

<sweep dir>/tasks.tsv: id, kind (phase|sdpa), phase, shape group, shapes (space-separated), and
the GPU the task is pinned to (BOARD_PHASES: one copy per GPU) or nothing.
<sweep dir>/events.tsv: id, gpu, start, end, exit code; one line per task that ran (scripts/
sweep.sh's workers, or the Slurm array's tasks). The records of the sweep are the run.json files
under --results whose provenance.sweep_id is the sweep id; each is assigned to the task of its
phase whose shapes its argv names. Exit 0 when written, 1 when a task has no event or no record
where it ended ok, 2 for bad arguments.
"""
import argparse
import datetime
import json
import pathlib
import sys


def parse_utc(s):
    return datetime.datetime.strptime(s.rstrip("Z")[:23], "%Y-%m-%dT%H:%M:%S.%f" if "." in s
                                      else "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)


def argv_shapes(argv):
    out = []
    for i, a in enumerate(argv):
        if a in ("--shape", "-s") and i + 1 < len(argv):
            out.append(argv[i + 1])
        elif a.startswith("--shape="):
            out.append(a.split("=", 1)[1])
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sweep-dir", required=True)
    p.add_argument("--results", required=True)
    p.add_argument("--sweep-id", required=True)
    p.add_argument("--gpus", required=True, help="device ordinals or Slurm node/gpu names, space-separated")
    p.add_argument("--gpu-names", default="", help="one description per GPU, newline-separated")
    p.add_argument("--start", required=True)
    p.add_argument("--end", required=True)
    p.add_argument("--scheduler", default="local", choices=["local", "slurm"])
    p.add_argument("--slurm-job", default=None, help="the Slurm array job id")
    a = p.parse_args()
    sweep_dir = pathlib.Path(a.sweep_dir)
    results = pathlib.Path(a.results)
    if not (sweep_dir / "tasks.tsv").is_file():
        print(f"attnlab: {sweep_dir}/tasks.tsv: no such file (not a sweep directory)")
        return 2

    tasks = []
    for line in (sweep_dir / "tasks.tsv").read_text().splitlines():
        if not line.strip():
            continue
        tid, kind, phase, group, shapes, pin = (line.split("\t") + [""] * 6)[:6]
        tasks.append({"id": int(tid), "kind": kind, "phase": phase, "group": group,
                      "shapes": shapes.split(), "pinned_gpu": pin or None, "gpu": None, "host": None, "started_utc": None,
                      "ended_utc": None, "wall_s": None, "exit_code": None, "records": []})
    by_id = {t["id"]: t for t in tasks}
    events = sweep_dir / "events.tsv"
    for line in (events.read_text().splitlines() if events.is_file() else []):
        f = line.split("\t")
        if len(f) < 5 or not f[0].isdigit() or int(f[0]) not in by_id:
            continue
        t = by_id[int(f[0])]
        t["gpu"], t["started_utc"], t["ended_utc"] = f[1], f[2], f[3]
        t["exit_code"] = int(f[4]) if f[4].lstrip("-").isdigit() else None
        if len(f) > 5:
            t["host"] = f[5]
        t["wall_s"] = round((parse_utc(f[3]) - parse_utc(f[2])).total_seconds(), 3)

    records = []
    for run in sorted(results.rglob("run.json")):
        try:
            r = json.loads(run.read_text())
        except (OSError, ValueError):
            continue
        prov = r.get("provenance", {})
        if prov.get("sweep_id") != a.sweep_id:
            continue
        gpu = prov.get("gpu", {}) or {}
        rec = {"path": str(run.relative_to(results)), "phase": r.get("phase"),
               "status": r.get("status"), "gpu_uuid": gpu.get("uuid"), "gpu_name": gpu.get("name"),
               "device": None, "task": None}
        argv = prov.get("argv", [])
        if "--device" in argv[:-1]:
            rec["device"] = argv[argv.index("--device") + 1]
        shapes = argv_shapes(argv)
        for t in tasks:
            phase_ok = (r.get("phase", "").startswith("sdpa-") if t["kind"] == "sdpa"
                        else r.get("phase") == t["phase"])
            pin_ok = t["pinned_gpu"] is None or rec["device"] == t["pinned_gpu"]
            if phase_ok and pin_ok and shapes == t["shapes"]:
                rec["task"] = t["id"]
                t["records"].append(rec["path"])
                break
        records.append(rec)

    problems = []
    for t in tasks:
        if t["exit_code"] is None:
            problems.append(f"task {t['id']} ({t['phase']}, {t['group']}) has no end event")
        elif t["exit_code"] == 0 and not t["records"]:
            problems.append(f"task {t['id']} ({t['phase']}, {t['group']}) ended ok without a record")
    names = [n for n in a.gpu_names.split("\n") if n.strip()]
    manifest = {
        "schema": "attnlab.sweep/1",
        "sweep_id": a.sweep_id,
        "scheduler": a.scheduler,
        "slurm_job": a.slurm_job,
        "gpus": [{"gpu": g, "described": names[i] if i < len(names) else None,
                  "tasks": [t["id"] for t in tasks if t["gpu"] == g]}
                 for i, g in enumerate(a.gpus.split())],
        "started_utc": a.start,
        "ended_utc": a.end,
        "wall_s": round((parse_utc(a.end) - parse_utc(a.start)).total_seconds(), 3),
        "tasks": tasks,
        "records": records,
        "problems": problems,
    }
    (sweep_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    for msg in problems:
        print(f"attnlab: sweep {a.sweep_id}: {msg}")
    print(f"== sweep manifest: {sweep_dir}/manifest.json ({len(tasks)} tasks, {len(records)} records, "
          f"{manifest['wall_s']} s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Sentences of kernels/NOTES.md checked against the committed records they cite.

    tests/cli/notes_claims.py <source root> [--notes FILE]     (ctest: cli.notes_claims)

--notes reads the checks from FILE instead of kernels/NOTES.md (records still relative to the
source root): cli.notes_claims_catches_a_false_one gives it the sentence NOTES had before.

A sentence that states what a record says carries the check beside it, an HTML comment that
markdown does not show:

    <!-- check: MEASURE ARG... OP BOUND -->

MEASURE names a figure computed from the records its ARGs name (run directories relative to the
source root, each holding run.json or run.json.gz), OP is one of <= < >= >, and BOUND a number:
the sentence says no more than the bound, the record holds the figure, so no measured value is
typed into NOTES. Measures:

    max_kernel_gap SDPA_RUN KERNEL PHASE_RUN
        The largest |t_kernel / t_phase - 1| over the shapes both records timed: t_kernel the
        SDPA record's per-kernel median, in its headline regime, of the kernel whose name holds
        KERNEL; t_phase the phase record's headline device time (busy median where recorded).

    ab_wall_lower A_B_RUN, ab_wall_upper A_B_RUN
        The smallest lower bound, or the largest upper bound, of the A/B record's wall-ratio
        intervals over its shapes.

    ab_wall_lower_at A_B_RUN SHAPE, ab_wall_upper_at A_B_RUN SHAPE
        The same bound of one shape, named as the record names it (1x8x512x64:causal).

    timeline_overhead TIMELINE_RUN
        The stamps' overhead in a timeline record: (stamped - normal) / normal kernel medians.

    timeline_cold_gap_ns COLD_TIMELINE_RUN WARM_TIMELINE_RUN BUILD
        The cold record's median kernel time less the warm one's [ns], of BUILD (normal or
        timeline): what the L2 flush adds to each build.

    regime_gap_ns PHASE_RUN SHAPE
        The phase record's cold median less its warm median at SHAPE [ns].

    regime_median_ns PHASE_RUN SHAPE REGIME
        The phase record's median in REGIME (cold, warm, graph) at SHAPE [ns].

    launch_floor_cold_over_warm CALIBRATION_RUN PHASE SHAPE
        The calibration's cold launch floor over its warm one (medians) for the launch that PHASE
        takes at SHAPE (as its used_by names it: "d4 1x8x512x64").

A record that left the tree (scripts/evidence archived it) is read back from the commit that
holds it; in a shallow clone, which has no such commit, its checks print "unchecked".

Prints one line per check and exits 1 when one fails, a record is missing or a check cannot be
read; NOTES without any check fails too (the sentences it guards would be unguarded).
"""
import json
import operator
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
from record_text import read_record_text, record_file_in  # noqa: E402

CHECK = re.compile(r"<!--\s*check:\s*(.*?)\s*-->", re.S)
OPS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt}


class Unreachable(Exception):
    """An archived record that this clone cannot bring back (no history: a shallow clone)."""


def load_record(root, run, name="run.json"):
    """The record of run directory `run` (relative to `root`): `name` (run.json, or a calibration's
    calibration.json), else name.gz, else the archived name.gz that scripts/evidence brings back
    from the commit holding it (a superseded record leaves the tree, and a sentence about it stays
    checked)."""
    f = record_file_in(root / run, name)
    if f is not None:
        return json.loads(read_record_text(f))
    shown = subprocess.run([sys.executable, str(root / "scripts" / "evidence"), "show", f"{run.rstrip('/')}/{name}.gz"],
                           cwd=root, capture_output=True, text=True)
    if shown.returncode == 0:
        return json.loads(shown.stdout)
    shallow = subprocess.run(["git", "-C", str(root), "rev-parse", "--is-shallow-repository"],
                             capture_output=True, text=True).stdout.strip() != "false"
    if shallow:
        raise Unreachable(f"{run}: not in the tree, and a shallow clone holds no archive")
    raise FileNotFoundError(f"{run}: neither {name} nor {name}.gz, in the tree or archived")


def headline_device_ns(result):
    t = result["timing"][result["headline_regime"]]
    return t.get("busy_median_ns", t["median_ns"])


def max_kernel_gap(root, sdpa_run, kernel, phase_run):
    sdpa, phase = load_record(root, sdpa_run), load_record(root, phase_run)
    phase_ns = {r["name"]: headline_device_ns(r) for r in phase["results"] if r.get("timing")}
    gaps = {}
    for r in sdpa["results"]:
        if r["name"] not in phase_ns or not r.get("timing"):
            continue
        ks = [k for k in r.get("kernels", []) if kernel in k["name"] and k["regime"] == r["headline_regime"]]
        if len(ks) != 1:
            raise ValueError(f"{sdpa_run} at {r['name']}: {len(ks)} kernels named like {kernel!r}, not one")
        gaps[r["name"]] = abs(ks[0]["median_ns"] / phase_ns[r["name"]] - 1)
    if not gaps:
        raise ValueError(f"{sdpa_run} and {phase_run} timed no shape in common")
    worst = max(gaps, key=gaps.get)
    return gaps[worst], f"largest at {worst}, over {len(gaps)} shapes"


def ab_wall_bound(root, run, side, shape=None):
    """The A/B record's wall-ratio interval bound over its shapes: the smallest lower bound
    (side "lo") or the largest upper bound ("hi"); of one shape (its name in the record) where
    `shape` is given."""
    rec = load_record(root, run)
    if not rec.get("schema", "").startswith("attnlab.ab/"):
        raise ValueError(f"{run}: not an A/B record")
    bounds = {r["name"]: r["ratio"]["wall"]["ci_" + side] for r in rec["results"]
              if shape is None or r["name"] == shape}
    if not bounds:
        raise ValueError(f"{run}: no shape measured" + (f" named {shape}" if shape else ""))
    pick = min if side == "lo" else max
    where = pick(bounds, key=bounds.get)
    return bounds[where], f"at {where}, over {len(bounds)} shapes"


def timeline_overhead(root, run):
    """The timeline record's stamp overhead, a fraction of the normal build's kernel time."""
    rec = load_record(root, run)
    if not rec.get("schema", "").startswith("attnlab.timeline/"):
        raise ValueError(f"{run}: not a timeline record")
    o = rec["overhead"]
    return o["overhead_fraction"], f"{o['timeline_median_ns']:.0f} ns against {o['normal_median_ns']:.0f} ns"


def timeline_cold_gap_ns(root, cold_run, warm_run, build):
    """The cold timeline record's median kernel time of `build` less the warm one's."""
    if build not in ("normal", "timeline"):
        raise ValueError(f"build {build!r}: normal or timeline")
    recs = [load_record(root, r) for r in (cold_run, warm_run)]
    for run, rec in zip((cold_run, warm_run), recs):
        if not rec.get("schema", "").startswith("attnlab.timeline/"):
            raise ValueError(f"{run}: not a timeline record")
    cold, warm = recs
    if not cold["options"].get("cold", False) or warm["options"].get("cold", False):
        raise ValueError(f"{cold_run} must be cold and {warm_run} warm (options.cold)")
    key = f"{build}_median_ns"
    return cold["overhead"][key] - warm["overhead"][key], f"{cold['overhead'][key]:.0f} ns against {warm['overhead'][key]:.0f} ns"


def result_at(rec, run, shape):
    for r in rec["results"]:
        if r["name"] == shape and r.get("timing"):
            return r
    raise ValueError(f"{run}: no timed result at {shape}")


def regime_median_ns(root, run, shape, regime):
    t = result_at(load_record(root, run), run, shape)["timing"]
    if regime not in t:
        raise ValueError(f"{run} at {shape}: not timed {regime}")
    return t[regime]["median_ns"], f"{regime} at {shape}"


def regime_gap_ns(root, run, shape):
    t = result_at(load_record(root, run), run, shape)["timing"]
    return t["cold"]["median_ns"] - t["warm"]["median_ns"], f"{t['cold']['median_ns']:.0f} ns cold, {t['warm']['median_ns']:.0f} ns warm at {shape}"


def launch_floor_cold_over_warm(root, run, phase, shape):
    rec = load_record(root, run, "calibration.json")
    who = f"{phase} {shape}"
    for l in rec["launches"]:
        if who in l["used_by"]:
            if "cold" not in l:
                raise ValueError(f"{run}: the launch of {who} has no cold floor")
            c, w = l["cold"]["time"]["median"], l["time"]["median"]
            return c / w, f"{c:.0f} ns cold against {w:.0f} ns warm"
    raise ValueError(f"{run}: no launch used by {who}")


MEASURES = {"max_kernel_gap": (max_kernel_gap, 3),
            "timeline_cold_gap_ns": (timeline_cold_gap_ns, 3),
            "regime_gap_ns": (regime_gap_ns, 2),
            "regime_median_ns": (regime_median_ns, 3),
            "launch_floor_cold_over_warm": (launch_floor_cold_over_warm, 3),
            "timeline_overhead": (timeline_overhead, 1),
            "ab_wall_lower": (lambda root, run: ab_wall_bound(root, run, "lo"), 1),
            "ab_wall_upper": (lambda root, run: ab_wall_bound(root, run, "hi"), 1),
            "ab_wall_lower_at": (lambda root, run, shape: ab_wall_bound(root, run, "lo", shape), 2),
            "ab_wall_upper_at": (lambda root, run, shape: ab_wall_bound(root, run, "hi", shape), 2)}


def run_check(root, text):
    """(passed, line) for one check's text."""
    words = text.split()
    if len(words) < 3 or words[-2] not in OPS or words[0] not in MEASURES:
        return False, f"FAIL: cannot read the check {text!r} (MEASURE ARG... OP BOUND; measures: {', '.join(MEASURES)})"
    fn, nargs = MEASURES[words[0]]
    args, op, bound = words[1:-2], words[-2], float(words[-1])
    if len(args) != nargs:
        return False, f"FAIL: {words[0]} takes {nargs} arguments, got {len(args)}: {text!r}"
    try:
        value, where = fn(root, *args)
    except Unreachable as e:
        return True, f"unchecked: {text!r}: {e}"
    except (OSError, ValueError, KeyError) as e:
        return False, f"FAIL: {text!r}: {e}"
    ok = OPS[op](value, bound)
    return ok, f"{'ok' if ok else 'FAIL'}: {words[0]} = {value:.4g} ({where}) {op} {bound:g}: {' '.join(args)}"


def main():
    argv = sys.argv[1:]
    notes = None
    if "--notes" in argv:
        i = argv.index("--notes")
        notes = pathlib.Path(argv[i + 1])
        del argv[i:i + 2]
    root = pathlib.Path(argv[0] if argv else ".")
    notes = notes or root / "kernels" / "NOTES.md"
    checks = CHECK.findall(notes.read_text())
    if not checks:
        print(f"FAIL: {notes} holds no <!-- check: ... --> comment")
        return 1
    failed = unchecked = 0
    for text in checks:
        ok, line = run_check(root, text)
        print(line)
        failed += not ok
        unchecked += line.startswith("unchecked")
    held = len(checks) - failed - unchecked
    print(f"{held} of {len(checks)} NOTES checks hold" + (f", {unchecked} unchecked" if unchecked else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

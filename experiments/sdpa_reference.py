"""The SDPA baseline's correctness (experiments/sdpa_baseline.py): its seeded inputs, the rows
experiments/reference.cpp would check, their fp64 reference and naive fp16 yardstick, and the
row rule applied to an output. torch is passed in, so loading this file needs none.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

# The tolerances and row sampling, shared with the C++ harness (record/constants.json, kept equal
# to the C++ sources by tests/cpu/test_constants.cpp).
CONSTANTS = json.loads((Path(__file__).resolve().parent.parent / "record" / "constants.json").read_text())

ERR_FACTOR = CONSTANTS["correctness"]["err_factor"]
REL_FLOOR = CONSTANTS["correctness"]["rel_floor"]
SAMPLED_ROWS = CONSTANTS["correctness"]["sampled_rows"]
ALL_ROWS_BUDGET = float(CONSTANTS["correctness"]["all_rows_budget"])


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
         "naive_fp16_max_abs_err": naive_err, "rows_checked": len(rows), "nonfinite": nonfinite,
         "row_rms_err": float(rms[worst].item()), "row_err_ratio": worst_ratio,
         "elements_scanned": out.numel()}
    if not c["passed"]:
        col = int(err[worst].argmax().item())
        r = rows[worst]
        b, h, i = r // (s.H * s.S), (r // s.S) % s.H, r % s.S
        c["failure"] = (f"{nonfinite} NaN/inf output elements; " if nonfinite else "") + (
            f"worst row b={b} h={h} row={i}: rms error {c['row_rms_err']:.3g} against tolerance "
            f"{c['tolerance_abs']:.3g}, worst element d={col} got {got[worst, col].item()}, "
            f"reference {ref[worst, col].item()}")
    return c

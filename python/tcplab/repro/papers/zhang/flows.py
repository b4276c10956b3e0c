"""Flow lists of seed 003's dumbbell runs (the manifest's ``vary_fn``).

``flows(x, seed, ...)`` returns the overrides ``{"dumbbell.flows": [...]}``: x flows (``n`` when
x is something else, or the largest count of ``schedule``), TCP(alpha, beta) with the paper's parameters, each with its
own application start. Start times: U[0, ``jitter``] s for the flows active at t = 0 (P3
common setup), drawn from a stream seeded by (seed, x) so a run's flows are the same for
every protocol of one seed (common random numbers); flows joining later start exactly at
their step (T-DYNFLOWS). ``schedule = [[t, n], ...]``: n flows from t on; flows leaving stop
highest index first (``app.stop``). ``mix = [[a1, b1], [a2, b2]]``: half the flows each
(friendliness runs), groups ``test`` and ``std``. ``probe = true``: the first flow is named
``probe`` (the flow Fig 5 plots). ``ns2_compat = true``: every flow uses ns-2's halving rules
(``cc.ns2_compat``, a sensitivity variant).
"""

from __future__ import annotations

import math
import random
from typing import Any


def _cc(alpha: float, beta: float, ns2: bool = False) -> dict[str, Any]:
    cc: dict[str, Any] = {"algorithm": "gaimd", "alpha": alpha, "beta": beta}
    if ns2:
        cc["ns2_compat"] = True
    return cc


def flows(x: float, seed: int, alpha: float = 1.0, beta: float = 0.5, jitter: float = 1.0,
          mix: list[list[float]] | None = None, schedule: list[list[float]] | None = None,
          app: dict[str, Any] | None = None, probe: bool = False, n: int | None = None,
          ns2_compat: bool = False) -> dict[str, Any]:
    steps = [(float(t), int(k)) for t, k in schedule] if schedule else [(0.0, int(x if n is None else n))]
    total = max(n for _, n in steps)
    rng = random.Random(f"zhang-{seed}-{total}")
    base = dict(app or {"type": "bulk"})
    out = []
    for i in range(total):
        start = next(t for t, n in steps if n > i)
        if start == 0.0:
            start = rng.uniform(0.0, jitter)
        later = [t for t, n in steps if t > start and n <= i]
        a = {**base, "start": f"{start:.6f}s"}
        if later:
            a["stop"] = f"{min(later):g}s"
        if mix:
            (ta, tb), (sa, sb) = mix
            test = i % 2 == 0
            f = {"cc": _cc(ta, tb, ns2_compat) if test else _cc(sa, sb, ns2_compat), "group": "test" if test else "std"}
        else:
            f = {"cc": _cc(alpha, beta, ns2_compat), "group": f"TCP({alpha:g}, {beta:g})"}
        f["app"] = a
        f["name"] = "probe" if probe and i == 0 else f"f{i + 1:03d}"
        out.append(f)
    return {"dumbbell.flows": out}


# --- congestion epochs (eqs. 4-5) -------------------------------------------------------


def epoch_rtts_measured(res: Any) -> float:
    """Mean congestion-epoch length in round trips over the TCP flows: the run's length over
    the flow's loss indications (fast retransmits + timeouts; Reno may count several in one
    window), divided by the flow's mean smoothed RTT over the run's intervals; flows without
    a loss indication are left out."""
    # Each flow's mean over its intervals in interval order, summed exactly (fsum): a hash
    # group-by's mean moved in the last digit between runs of the same scenario.
    rtt = {}
    for (name,), g in res.intervals.select("flow", "srtt_s").partition_by("flow", as_dict=True).items():
        v = [x for x in g["srtt_s"].to_list() if x is not None and math.isfinite(x)]
        rtt[name] = math.fsum(v) / len(v) if v else None
    dur = res.summary["run"]["sim_seconds"]
    out = []
    for f in res.summary["flows"]:
        n = f.get("fast_retransmits", 0) + f.get("timeouts", 0)
        r = rtt.get(f["name"])
        if "cc" in f and n and r:
            out.append(dur / n / r)
    return math.fsum(out) / len(out) if out else float("nan")


def epoch_rtts_model(n: float, rate_bps: float, rtt: float, alpha: float, beta: float, packet_bytes: float = 1000) -> float:
    """Eq. 4 with eq. 5's fair window W = B·RTT/N (B in packets/s): (1 − β)·W/α + 1."""
    from tcplab.analysis import epoch_rtts, fair_window

    return epoch_rtts(fair_window(rate_bps / 8 / packet_bytes, rtt, n), alpha, beta)


# --- eq. 1 beside the friendliness figures (Figs 9-11) ------------------------------------


def eq1_share(res: Any, key: str, params: dict[str, list[float]], t0: float = 0.2) -> float:
    """Group ``key``'s share of the system goodput that eq. 1 predicts from the run itself:
    each group's loss-event rate p (its flows' fast retransmits + timeouts over their data
    segments sent), its mean RTT (the flows' steady-window per-ack mean) and its (alpha, beta)
    from ``params`` (``{"test": [a, b], "std": [1, 0.5]}``, the curve's mix); T0 = ``t0``
    (the dumbbell's rto_min, which bounds the RTO from below at these RTTs). The share is
    n_g·T_g / Σ n·T over the groups."""
    from tcplab.analysis import gaimd_throughput

    groups: dict[str, list[dict[str, Any]]] = {}
    for f in res.summary["flows"]:
        if "cc" in f and f.get("group"):
            groups.setdefault(f["group"], []).append(f)
    if key not in groups:
        raise ValueError(f"key: no group '{key}' in this run (known: {', '.join(sorted(groups))})")
    missing = sorted(set(groups) - set(params))
    if missing:
        raise ValueError(f"params: no (alpha, beta) for group '{missing[0]}'")
    total = {}
    for g, fl in groups.items():
        sent = sum(f["segments_sent"] for f in fl)
        losses = sum(f["fast_retransmits"] + f["timeouts"] for f in fl)
        rtts = [f["mean_rtt_s"] for f in fl if f.get("mean_rtt_s")]
        if not sent or not losses or not rtts:
            return float("nan")
        a, b = params[g]
        total[g] = len(fl) * gaimd_throughput(p=losses / sent, rtt=sum(rtts) / len(rtts), t0=t0, alpha=a, beta=b)
    return total[key] / sum(total.values())

"""Derived metrics computed from a run's results (seed 003's definitions, mechanisms.md §31).

All take a :class:`tcplab.Result` whose ``metrics.interval`` is the slot length (seed 003 uses
1 s) and an optional list of flow names (default: every TCP flow):

* :func:`system_goodput` — X-SYSGOODPUT: the sum of the flows' steady-state goodputs (b/s);
* :func:`protocol_goodput` — X-PROTOGOODPUT: the same summed per congestion-control algorithm
  (or per ``group`` label with ``by="group"``);
* :func:`group_share` — one protocol's (or ``group``'s) share of the system goodput (the
  friendliness figures: 0.5 is the fair half);
* :func:`allotted` — X-ASG and X-AFAIR per slot: the system goodput within the slot and
  Jain's index over the flows *active for the whole slot* (the intervals' ``active``
  column is 1), an active flow that delivered nothing counting as 0;
* :func:`app_success` — X-APPSUCC: the share of (flow, slot) pairs, over the slots in which
  the flow was active for the whole slot, whose goodput exceeds ``x`` of the targeted
  receiving rate (strictly, as the paper's "Success:" formula), pooled and per flow.

>>> jain([1.0, 1.0, 1.0]), jain([1.0, 0.0])
(1.0, 0.5)
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from tcplab.results import Result

__all__ = ["jain", "system_goodput", "protocol_goodput", "group_share", "allotted", "app_success"]


def jain(x: Sequence[float]) -> float | None:
    """Jain's fairness index (Σx)²/(n·Σx²): 1 when equal, 1/n when one takes all; 1 when all
    are 0; None for no values."""
    if not len(x):
        return None
    s, q = sum(x), sum(v * v for v in x)
    return 1.0 if q == 0 else s * s / (len(x) * q)


def _flows(res: Result, flows: Sequence[str] | None) -> list[str]:
    known = [f["name"] for f in res.summary["flows"]]
    if flows is None:
        return [f["name"] for f in res.summary["flows"] if "cc" in f]
    bad = [f for f in flows if f not in known]
    if bad:
        raise ValueError(f"flows: no flow '{bad[0]}' (known: {', '.join(known)})")
    return list(flows)


def system_goodput(res: Result, flows: Sequence[str] | None = None) -> float:
    names = set(_flows(res, flows))
    return float(sum(f["goodput_bps"] for f in res.summary["flows"] if f["name"] in names))


def protocol_goodput(res: Result, flows: Sequence[str] | None = None, by: str = "cc") -> dict[str, float]:
    if by not in ("cc", "group"):
        raise ValueError(f"by: must be 'cc' or 'group', got {by!r}")
    names = set(_flows(res, flows))
    out: dict[str, float] = {}
    for f in res.summary["flows"]:
        if f["name"] in names:
            key = f.get(by) or "(none)"
            out[key] = out.get(key, 0.0) + f["goodput_bps"]
    return out


def group_share(res: Result, key: str, flows: Sequence[str] | None = None, by: str = "group") -> float:
    """:func:`protocol_goodput`'s entry ``key`` divided by :func:`system_goodput` (0 when
    nothing was delivered); ``key`` must name a protocol (or group) of the run."""
    per = protocol_goodput(res, flows, by)
    if key not in per:
        raise ValueError(f"key: no {by} '{key}' in this run (known: {', '.join(sorted(per))})")
    total = sum(per.values())
    return per[key] / total if total else 0.0


def _slots(res: Result, flows: Sequence[str] | None) -> pl.DataFrame:
    names = _flows(res, flows)
    iv = res.intervals
    if "active" not in iv.columns:
        raise ValueError("these results have no 'active' column (written by an older tcplab); run again")
    return iv.filter(pl.col("flow").is_in(names))


def allotted(res: Result, flows: Sequence[str] | None = None) -> pl.DataFrame:
    """Per slot: ``t_start, t_end, asg_bps`` (goodput sum over the flows), ``active`` (flows
    active for the whole slot) and ``afair`` (Jain's index over those; null when none)."""
    d = _slots(res, flows)
    g = (d.group_by("t_start", "t_end", maintain_order=True)
         .agg(asg_bps=pl.col("goodput_bps").sum(),
              good=pl.col("goodput_bps").filter(pl.col("active") >= 1.0))
         .sort("t_start"))
    return g.with_columns(
        active=pl.col("good").list.len(),
        afair=pl.col("good").map_elements(lambda v: jain(list(v)), return_dtype=pl.Float64),
    ).drop("good")


def app_success(res: Result, target_bps: float = 1e6, x: float = 0.7, flows: Sequence[str] | None = None) -> dict[str, object]:
    """``{"pooled": %, "attempts": n, "per_flow": {name: %}}``: success when the slot's
    goodput / ``target_bps`` > ``x``; attempts are the slots a flow was active throughout."""
    if not target_bps > 0:
        raise ValueError(f"target_bps: must be positive, got {target_bps!r}")
    if not 0 <= x <= 1:
        raise ValueError(f"x: must be in [0, 1], got {x!r}")
    d = _slots(res, flows).filter(pl.col("active") >= 1.0).with_columns(ok=pl.col("goodput_bps") / target_bps > x)
    per = d.group_by("flow", maintain_order=True).agg(n=pl.len(), ok=pl.col("ok").sum())
    attempts = int(d.height)
    return {
        "pooled": 100.0 * int(d["ok"].sum()) / attempts if attempts else None,
        "attempts": attempts,
        "per_flow": {r["flow"]: 100.0 * r["ok"] / r["n"] for r in per.iter_rows(named=True)},
    }

"""Derived metrics computed from a run's results (seed 003's definitions).

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
  receiving rate (strictly, as the paper's "Success:" formula), pooled and per flow;
* :func:`playback_success` — the third wording of seed 003's success test: a reader takes up
  to ``read_bytes`` from the flow's playback buffer every slot and succeeds when it gets more
  than ``x`` of that; what is not read stays buffered;
* :func:`post_outage` — a flow's per-slot goodput in the slots just after each down period
  of an outage schedule (seed 003's Fig 5 check: how fast a protocol recovers after a
  handoff), with the slots' coefficient of variation (smoothness).

>>> jain([1.0, 1.0, 1.0]), jain([1.0, 0.0])
(1.0, 0.5)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tcplab.analysis import jain  # Jain's index is a plain function of the user API; re-exported here

if TYPE_CHECKING:
    import polars as pl

    from tcplab.results import Result

# polars is imported in the functions that build frames: a manifest that names one of these
# metrics is loaded (`tcplab list`) without it.

__all__ = ["jain", "system_goodput", "protocol_goodput", "group_share", "allotted", "app_success", "playback_success", "post_outage"]


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
    import polars as pl

    names = _flows(res, flows)
    iv = res.intervals
    if "active" not in iv.columns:
        raise ValueError("these results have no 'active' column (written by an older tcplab); run again")
    return iv.filter(pl.col("flow").is_in(names))


def allotted(res: Result, flows: Sequence[str] | None = None) -> pl.DataFrame:
    """Per slot: ``t_start, t_end, asg_bps`` (goodput sum over the flows), ``active`` (flows
    active for the whole slot) and ``afair`` (Jain's index over those; null when none)."""
    import polars as pl

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
    import polars as pl

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


def post_outage(res: Result, flow: str, schedule: str | None = None, slots: int = 2) -> dict[str, object]:
    """A flow's goodput in the ``slots`` whole slots that begin at or after the end of each
    down period of the outage schedule ``schedule`` (the only one when None), keeping only
    slots that end before the next down period begins and before the run ends.

    Returns ``{"mean_bps": …, "cov": …, "n": slots used, "outages": periods used}``;
    ``mean_bps`` and ``cov`` (standard deviation / mean of those slots) are NaN when no slot
    qualifies, and ``cov`` is NaN when nothing was delivered in them. The periods come from summary.json's ``outages.NAME.periods``; a truncated
    list (over 10,000 periods) is refused rather than silently cut.
    """
    if slots < 1:
        raise ValueError(f"slots: must be at least 1, got {slots!r}")
    outs = res.summary.get("outages") or {}
    if not outs:
        raise ValueError("schedule: this run has no outage schedules ([outages] in the scenario)")
    if schedule is None:
        if len(outs) != 1:
            raise ValueError(f"schedule: the run has {len(outs)} outage schedules; name one of {', '.join(sorted(outs))}")
        schedule = next(iter(outs))
    if schedule not in outs:
        raise ValueError(f"schedule: no outage schedule '{schedule}' (known: {', '.join(sorted(outs))})")
    if outs[schedule].get("truncated"):
        raise ValueError(f"schedule: outages.{schedule}.periods was truncated in summary.json; shorten the run")
    periods = sorted((float(a), float(b)) for a, b in outs[schedule]["periods"])
    d = _slots(res, [flow]).select("t_start", "t_end", "goodput_bps").sort("t_start")
    ts, te, g = d["t_start"].to_list(), d["t_end"].to_list(), d["goodput_bps"].to_list()
    vals: list[float] = []
    used = 0
    eps = 1e-9
    for i, (_, up) in enumerate(periods):
        nxt = periods[i + 1][0] if i + 1 < len(periods) else float("inf")
        k = next((j for j, t in enumerate(ts) if t >= up - eps), None)
        if k is None:
            continue
        got = [g[j] for j in range(k, min(k + slots, len(ts))) if te[j] <= nxt + eps]
        if len(got) == slots:
            vals.extend(got)
            used += 1
    if not vals:
        return {"mean_bps": float("nan"), "cov": float("nan"), "n": 0, "outages": 0}
    m = sum(vals) / len(vals)
    sd = (sum((v - m) ** 2 for v in vals) / len(vals)) ** 0.5
    return {"mean_bps": m, "cov": sd / m if m else float("nan"), "n": len(vals), "outages": used}


def playback_success(res: Result, read_bytes: float = 125_000, x: float = 0.7, flows: Sequence[str] | None = None) -> dict[str, object]:
    """``{"pooled": %, "attempts": n, "per_flow": {name: %}}`` for a playback reader: at the
    end of each slot the application reads min(buffer, ``read_bytes``) from what the flow
    delivered and not yet read (by default the buffer does not limit TCP), and an attempt
    succeeds when it reads strictly more than
    ``x``·``read_bytes``. Attempts are the slots in which the flow was active throughout
    (as :func:`app_success`); bytes delivered in partial slots still fill the buffer."""
    if not read_bytes > 0:
        raise ValueError(f"read_bytes: must be positive, got {read_bytes!r}")
    if not 0 <= x <= 1:
        raise ValueError(f"x: must be in [0, 1], got {x!r}")
    d = _slots(res, flows).sort("flow", "t_start")
    per: dict[str, float] = {}
    attempts = ok_total = 0
    for name, g in d.group_by("flow", maintain_order=True):
        buf = 0.0
        n = ok = 0
        for gp, t0, t1, act in zip(g["goodput_bps"], g["t_start"], g["t_end"], g["active"]):
            buf += gp * (t1 - t0) / 8.0
            got = min(buf, read_bytes)
            buf -= got
            if act >= 1.0:
                n += 1
                ok += got > x * read_bytes
        key = name[0] if isinstance(name, tuple) else name
        if n:
            per[str(key)] = 100.0 * ok / n
        attempts += n
        ok_total += ok
    return {"pooled": 100.0 * ok_total / attempts if attempts else None, "attempts": attempts, "per_flow": per}

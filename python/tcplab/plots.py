"""Figures of a run, drawn with matplotlib's object API (no pyplot global state).

* :func:`plot_efficiency` – efficiency per interval against time, one line per flow, with
  the closed-form prediction as a dashed line of the same colour (the style of Fig. 2.3
  of Kalampoukas, Varma & Ramakrishnan 1997).
* :func:`plot_cwnd` – sampled congestion windows (needs ``metrics.trace``).
* :func:`plot_queue` – sampled queue lengths per link (needs ``metrics.trace``).

Each function writes the image to ``path`` (format from the suffix, e.g. ``.png``,
``.pdf``, ``.svg``) and returns the :class:`~matplotlib.figure.Figure`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from tcplab.results import Result

__all__ = ["plot_efficiency", "plot_cwnd", "plot_queue"]

_DPI = 120
# Values at or above this are "unlimited" (e.g. ssthresh before the first loss).
_UNLIMITED = 2**62


def _figure(width: float = 8.0, height: float = 4.5) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: str | Path) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    # No timestamp/version metadata, so identical figures give identical files.
    meta: dict[str, Any] = {"Software": None} if p.suffix.lower() == ".png" else {}
    fig.savefig(p, dpi=_DPI, metadata=meta)


def _colour(i: int) -> str:
    return f"C{i % 10}"


def _shade_warmup(ax: Any, summary: dict[str, Any]) -> None:
    steady = float((summary.get("run") or {}).get("steady_start_s") or 0.0)
    if steady > 0:
        ax.axvspan(0.0, steady, color="0.88", zorder=0, lw=0, label=f"warm-up, not averaged (t < {steady:g} s)")


def plot_efficiency(result: Result, path: str | Path, title: str | None = None) -> Figure:
    """Efficiency of each flow per measurement interval against time.

    Efficiency is the flow's unique data wire bytes delivered per interval divided by
    what its efficiency link could carry in that interval (0..1, drawn as percent).
    When the summary has an ``analysis`` section, each analysed flow's closed-form
    efficiency is a dashed horizontal line of the flow's colour, labelled with the closed
    form used, e.g. ``"fast (Theorem 1: 2.0%)"``. The warm-up before ``run.steady_start_s`` is shaded.
    """
    summary = result.summary
    fig = _figure()
    ax = fig.add_subplot()
    _shade_warmup(ax, summary)
    iv = result.intervals
    flows = [f["name"] for f in summary.get("flows") or []]
    flows += [f for f in iv["flow"].unique(maintain_order=True).to_list() if f not in flows]
    mean_eff = {f["name"]: f.get("efficiency") for f in summary.get("flows") or []}
    analytic: dict[str, tuple[float, str]] = {}
    analysis = summary.get("analysis")
    if analysis:
        for row in analysis.get("rows") or []:
            if row.get("analytic") is not None:
                analytic[row["flow"]] = (float(row["analytic"]), str(row.get("analytic_label") or "Theorem 1"))
    for i, name in enumerate(flows):
        d = iv.filter(pl.col("flow") == name).sort("t_start")
        mid = ((d["t_start"] + d["t_end"]) / 2).to_list()
        label = name
        m = mean_eff.get(name)
        if m is not None:
            label = f"{name} (simulated, steady-state mean {m:.1%})"
        ax.plot(mid, d["efficiency"].to_list(), color=_colour(i), lw=1.3, marker="o", ms=2.2, label=label)
        if name in analytic:
            a, how = analytic[name]
            ax.axhline(a, color=_colour(i), ls="--", lw=1.2, label=f"{name} ({how}: {a:.1%})")
    ax.set_ylim(0.0, 1.05)
    ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    end = float((summary.get("run") or {}).get("sim_seconds") or (iv["t_end"].max() if iv.height else 1.0))
    ax.set_xlim(0.0, end)
    ax.set_xlabel("time (s)")
    interval = None
    if iv.height:
        interval = float((iv["t_end"] - iv["t_start"]).max())
    ax.set_ylabel(f"efficiency per {interval:g}-s interval" if interval else "efficiency")
    ax.set_title(title if title is not None else str(summary.get("scenario") or ""), fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="center right", fontsize=8, framealpha=0.9)
    _save(fig, path)
    return fig


def _time_axis(ax: Any, result: Result) -> None:
    end = (result.summary.get("run") or {}).get("sim_seconds")
    if end:
        ax.set_xlim(0.0, float(end))
    ax.set_xlabel("time (s)")


def _need_trace(result: Result, name: str) -> pl.DataFrame:
    if name not in result.traces:
        raise ValueError(f"the run has no {name} trace; set metrics.trace (e.g. \"0.1s\") in the scenario")
    return result.traces[name]


def plot_cwnd(result: Result, path: str | Path, title: str | None = None) -> Figure:
    """Sampled congestion window (solid), slow-start threshold (dotted, when finite) and
    bytes in flight (thin) of each flow, in kB, against time."""
    tr = _need_trace(result, "cwnd")
    fig = _figure()
    ax = fig.add_subplot()
    _shade_warmup(ax, result.summary)
    for i, name in enumerate(tr["flow"].unique(maintain_order=True).to_list()):
        d = tr.filter(pl.col("flow") == name).sort("t")
        t = d["t"].to_list()
        c = _colour(i)
        ax.plot(t, (d["cwnd_bytes"].cast(pl.Float64) / 1e3).to_list(), color=c, lw=1.2, label=f"{name} cwnd", drawstyle="steps-post")
        ss = d["ssthresh_bytes"].cast(pl.Float64)
        ss = pl.Series([None if v is None or v >= _UNLIMITED else v / 1e3 for v in ss.to_list()], dtype=pl.Float64)
        if ss.null_count() < len(ss):
            ax.plot(t, ss.to_list(), color=c, lw=1.0, ls=":", label=f"{name} ssthresh", drawstyle="steps-post")
        ax.plot(t, (d["in_flight_bytes"].cast(pl.Float64) / 1e3).to_list(), color=c, lw=0.6, alpha=0.6, label=f"{name} in flight", drawstyle="steps-post")
    _time_axis(ax, result)
    ax.set_ylabel("kB")
    ax.set_ylim(bottom=0)
    ax.set_title(title if title is not None else f"{result.summary.get('scenario') or ''}: congestion windows", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
    _save(fig, path)
    return fig


def plot_queue(result: Result, path: str | Path, title: str | None = None) -> Figure:
    """Sampled queue length (packets, all kinds: data and acks) of each link direction."""
    tr = _need_trace(result, "queue")
    fig = _figure()
    ax = fig.add_subplot()
    _shade_warmup(ax, result.summary)
    for i, name in enumerate(tr["link"].unique(maintain_order=True).to_list()):
        d = tr.filter(pl.col("link") == name).sort("t")
        ax.plot(d["t"].to_list(), d["packets"].to_list(), color=_colour(i), lw=1.0, label=name, drawstyle="steps-post")
    _time_axis(ax, result)
    ax.set_ylabel("queue (packets)")
    ax.set_ylim(bottom=0)
    ax.set_title(title if title is not None else f"{result.summary.get('scenario') or ''}: queues", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
    _save(fig, path)
    return fig

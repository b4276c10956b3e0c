"""Figures of a run, drawn with matplotlib's object API (no pyplot global state).

* :func:`plot_efficiency` – efficiency per interval against time, one line per flow, with
  the closed-form prediction as a dashed line of the same colour (the style of Fig. 2.3
  of Kalampoukas, Varma & Ramakrishnan 1997).
* :func:`plot_cwnd` – sampled congestion windows (needs ``metrics.trace``).
* :func:`plot_queue` – sampled queue lengths per link (needs ``metrics.trace``).
* :func:`plot_sweep` – a metric against a swept parameter, mean and 95 % confidence
  interval over seeds (the ``summary`` table of :func:`tcplab.sweep`).

Each function writes the image to ``path`` (format from the suffix, e.g. ``.png``,
``.pdf``, ``.svg``) and returns the :class:`~matplotlib.figure.Figure`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab.analysis import t975
from tcplab.fileio import atomic_path

if TYPE_CHECKING:
    import polars as pl
    from matplotlib.figure import Figure

    from tcplab.results import Result

# matplotlib is imported where a figure is made and polars where a frame is read, not with
# this module (about 1 s and 0.3 s): commands that never draw (`tcplab list`, `validate`,
# `expand`) and modules that only need the helpers below do not pay for them.

__all__ = ["plot_efficiency", "plot_cwnd", "plot_queue", "plot_delay", "plot_fct", "plot_sweep", "sweep_stats"]

_DPI = 120
# Values at or above this are "unlimited" (e.g. ssthresh before the first loss).
_UNLIMITED = 2**62


def _figure(width: float = 8.0, height: float = 4.5) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _percent_axis(ax: Any) -> None:
    """Label the y axis in percent of 1.0."""
    from matplotlib.ticker import PercentFormatter

    ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))


def _save(fig: Figure, path: str | Path) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    # No timestamp/version metadata, so identical figures give identical files.
    meta: dict[str, Any] = {"Software": None} if p.suffix.lower() == ".png" else {}
    with atomic_path(p) as tmp:  # complete or absent (tcplab.fileio)
        fig.savefig(tmp, dpi=_DPI, metadata=meta, format=p.suffix.lstrip(".").lower() or None)


# Twenty distinguishable colours: matplotlib's tab10, then the light shades of tab20.
_PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
)  # fmt: skip
_DASHES = ("-", "--", "-.", ":")


def _colour(i: int) -> str:
    return _PALETTE[i % len(_PALETTE)]


def _dash(i: int) -> str:
    """Line style that, with :func:`_colour`, keeps up to 80 lines apart."""
    return _DASHES[(i // len(_PALETTE)) % len(_DASHES)]


def _select(kind: str, known: list[str], chosen: list[str] | None) -> list[str]:
    """``chosen`` (in the given order) after checking each name; all of ``known`` when None."""
    if chosen is None:
        return known
    bad = [c for c in chosen if c not in known]
    if bad:
        raise ValueError(f"{kind}: no {kind[:-1]} '{bad[0]}' in this run (known: {', '.join(known)})")
    return list(chosen)


def _shade_warmup(ax: Any, summary: dict[str, Any]) -> None:
    steady = float((summary.get("run") or {}).get("steady_start_s") or 0.0)
    if steady > 0:
        ax.axvspan(0.0, steady, color="0.88", zorder=0, lw=0, label=f"warm-up, not averaged (t < {steady:g} s)")


def _titled(result: Result, what: str) -> str:
    """``"NAME: what"``, or ``what`` alone for a scenario without a name."""
    name = result.summary.get("scenario")
    return f"{name}: {what}" if name else what


#: Flows named in a plot's legend; the others are drawn and counted in one last entry.
LEGEND_FLOWS = 12
#: Above this many flows (none chosen with ``flows=``), ``plot_efficiency`` draws the
#: distribution over flows per interval (median, 10-90 % and min-max bands) instead of one
#: line per flow: thousands of lines take minutes to draw and cannot be told apart.
PLOT_FLOWS = 50


def _flow_label(name: str, cc: str | None) -> str:
    """``"f1 cubic"``: the flow's name and what it runs, unless the name already says it."""
    return f"{name} {cc}" if cc and cc not in name.replace("_", " ").replace("-", " ").split() else name


def plot_efficiency(
    result: Result, path: str | Path, title: str | None = None, flows: list[str] | None = None, mbps: bool = False
) -> Figure:
    """Efficiency of each flow per measurement interval against time.

    Efficiency is the flow's unique data wire bytes delivered per interval divided by
    what its efficiency link could carry in that interval (0..1, drawn as percent).
    When the summary has an ``analysis`` section, each analysed flow's closed-form
    efficiency is a dashed horizontal line of the flow's colour, labelled with the closed
    form used, e.g. ``"fast (Theorem 1: 2.0%)"``. The warm-up before ``run.steady_start_s`` is shaded. ``flows`` selects flows by name.
    Legend entries name each flow with its algorithm (``"f1 cubic"``); past
    :data:`LEGEND_FLOWS` flows the rest are drawn without an entry of their own and counted
    in a last one, so that many-flow runs keep their legend on the figure. A dotted line
    marks 100 %, drawn above the flows' lines so that a flow at capacity does not hide it.

    With more than :data:`PLOT_FLOWS` flows (and no ``flows=`` choice) it draws their
    distribution per interval instead of a line each: the median flow, the band of the middle
    80 % and the min-max band.

    ``mbps=True`` draws each flow's goodput in Mb/s per interval instead (the intervals'
    ``goodput_bps``), with the steady-state mean goodput in the legend; the closed-form
    lines, which are efficiencies, and the 100 % line are then left out.
    """
    import polars as pl

    summary = result.summary
    fig = _figure()
    ax = fig.add_subplot()
    _shade_warmup(ax, summary)
    iv = result.intervals
    known = [f["name"] for f in summary.get("flows") or []]
    known += [f for f in iv["flow"].unique(maintain_order=True).to_list() if f not in known]
    many = flows is None and len(known) > PLOT_FLOWS
    flows = _select("flows", known, flows)
    mean_eff = {f["name"]: f.get("efficiency") for f in summary.get("flows") or []}
    mean_gp = {f["name"]: f.get("goodput_bps") for f in summary.get("flows") or []}
    algo = {f["name"]: f.get("cc") for f in summary.get("flows") or []}
    analytic: dict[str, tuple[float, str]] = {}
    analysis = summary.get("analysis")
    if analysis:
        for row in analysis.get("rows") or []:
            if row.get("analytic") is not None:
                analytic[row["flow"]] = (float(row["analytic"]), str(row.get("analytic_label") or "Theorem 1"))
    if many:
        _flow_bands(ax, iv, "goodput_bps" if mbps else "efficiency", 1e-6 if mbps else 1.0, len(flows))
    for i, name in enumerate([] if many else flows):
        d = iv.filter(pl.col("flow") == name).sort("t_start")
        mid = ((d["t_start"] + d["t_end"]) / 2).to_list()
        label = _flow_label(name, algo.get(name))
        m = mean_gp.get(name) if mbps else mean_eff.get(name)
        if m is not None:
            label = f"{label} (simulated, steady-state mean {m / 1e6:.3g} Mb/s)" if mbps else f"{label} (simulated, steady-state mean {m:.1%})"
        if i >= LEGEND_FLOWS:
            label = "_nolegend_"
        y = (d["goodput_bps"] / 1e6).to_list() if mbps else d["efficiency"].to_list()
        ax.plot(mid, y, color=_colour(i), ls=_dash(i), lw=1.3, marker="o", ms=2.2, label=label)
        if name in analytic and not mbps:
            a, how = analytic[name]
            ax.axhline(a, color=_colour(i), ls="--", lw=1.2,
                       label=f"{name} ({how}: {a:.1%})" if i < LEGEND_FLOWS else "_nolegend_")
    if len(flows) > LEGEND_FLOWS and not many:
        ax.plot([], [], " ", label=f"... and {len(flows) - LEGEND_FLOWS} more flows (not in the legend)")
    if mbps:
        ax.set_ylim(bottom=0.0)
    else:
        ax.axhline(1.0, color="0.35", ls=":", lw=1.0, zorder=3, label="_nolegend_", gid="reference-100")
        ax.set_ylim(0.0, 1.05)
        _percent_axis(ax)
    end = float((summary.get("run") or {}).get("sim_seconds") or (iv["t_end"].max() if iv.height else 1.0))
    ax.set_xlim(0.0, end)
    ax.set_xlabel("time (s)")
    interval = None
    if iv.height:
        interval = float((iv["t_end"] - iv["t_start"]).max())
    what = "goodput (Mb/s)" if mbps else "efficiency"
    ax.set_ylabel(f"{what} per {interval:g}-s interval" if interval else what)
    ax.set_title(title if title is not None else str(summary.get("scenario") or ""), fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="center right", fontsize=8, framealpha=0.9)
    _save(fig, path)
    return fig


def _flow_bands(ax: Any, iv: pl.DataFrame, col: str, scale: float, n: int) -> None:
    """The distribution over flows per interval: median line, 10-90 % and min-max bands
    (one group-by over the intervals table: linear in flows)."""
    import polars as pl

    q = (
        iv.group_by("t_start", "t_end")
        .agg(
            pl.col(col).min().alias("lo"),
            pl.col(col).quantile(0.1, "linear").alias("p10"),
            pl.col(col).median().alias("p50"),
            pl.col(col).quantile(0.9, "linear").alias("p90"),
            pl.col(col).max().alias("hi"),
        )
        .sort("t_start")
    )
    mid = ((q["t_start"] + q["t_end"]) / 2).to_list()
    y = {c: (q[c] * scale).to_list() for c in ("lo", "p10", "p50", "p90", "hi")}
    ax.fill_between(mid, y["lo"], y["hi"], color=_colour(0), alpha=0.15, lw=0, label=f"min-max over {n} flows")
    ax.fill_between(mid, y["p10"], y["p90"], color=_colour(0), alpha=0.35, lw=0, label="10-90 % of flows")
    ax.plot(mid, y["p50"], color=_colour(0), lw=1.5, marker="o", ms=2.2, label="median flow", gid="median-flow")


def _time_axis(ax: Any, result: Result) -> None:
    end = (result.summary.get("run") or {}).get("sim_seconds")
    if end:
        ax.set_xlim(0.0, float(end))
    ax.set_xlabel("time (s)")


def _need_trace(result: Result, name: str) -> pl.DataFrame:
    if name not in result.traces:
        raise ValueError(f"the run has no {name} trace; set metrics.trace (e.g. \"0.1s\") in the scenario")
    return result.traces[name]


def plot_cwnd(
    result: Result,
    path: str | Path,
    title: str | None = None,
    flows: list[str] | None = None,
    by_group: bool = False,
    log: bool | None = None,
) -> Figure:
    """Sampled congestion window (solid), slow-start threshold (dotted, when finite) and
    bytes in flight (thin) of each flow, in kB, against time.

    ``flows`` selects flows by name; ``by_group`` draws one panel per flow ``group`` label
    (flows without one share a panel); ``log`` uses a logarithmic window axis: by default
    it does so when one flow's largest window is over 50 times the median of the flows'
    95th percentiles (one inflated window would otherwise flatten every other line).
    Legend entries name the flow with its algorithm (``"f1 cubic cwnd"``), for at most
    :data:`LEGEND_FLOWS` / 3 flows per panel (three entries each; the rest are counted in a
    last entry)."""
    import polars as pl

    tr = _need_trace(result, "cwnd")
    names = _select("flows", tr["flow"].unique(maintain_order=True).to_list(), flows)
    if log is None:
        p95 = sorted(float(tr.filter(pl.col("flow") == n)["cwnd_bytes"].quantile(0.95) or 0) for n in names)
        top = max((float(tr.filter(pl.col("flow") == n)["cwnd_bytes"].max() or 0) for n in names), default=0.0)
        med = p95[len(p95) // 2] if p95 else 0.0
        log = med > 0 and top > 50 * med
    group_of = {f["name"]: f.get("group") or "" for f in result.summary.get("flows") or []}
    panels = list(dict.fromkeys(group_of.get(n, "") for n in names)) if by_group else [""]
    fig = _figure(8.0, 3.2 * len(panels) if by_group else 4.5)
    axes = {g: fig.add_subplot(len(panels), 1, k + 1) for k, g in enumerate(panels)}
    for ax in axes.values():
        _shade_warmup(ax, result.summary)
    algo = {f["name"]: f.get("cc") for f in result.summary.get("flows") or []}
    shown = dict.fromkeys(axes, 0)
    cap = max(1, LEGEND_FLOWS // 3)  # up to three entries per flow
    for i, name in enumerate(names):
        g = group_of.get(name, "") if by_group else ""
        ax = axes[g]
        d = tr.filter(pl.col("flow") == name).sort("t")
        t = d["t"].to_list()
        c = _colour(i)
        shown[g] += 1
        who = _flow_label(name, algo.get(name)) if shown[g] <= cap else None
        def lab(what: str, who: str | None = who) -> str:
            return f"{who} {what}" if who else "_nolegend_"
        ax.plot(t, (d["cwnd_bytes"].cast(pl.Float64) / 1e3).to_list(), color=c, lw=1.2, label=lab("cwnd"), drawstyle="steps-post")
        ss = d["ssthresh_bytes"].cast(pl.Float64)
        ss = pl.Series([None if v is None or v >= _UNLIMITED else v / 1e3 for v in ss.to_list()], dtype=pl.Float64)
        if ss.null_count() < len(ss):
            ax.plot(t, ss.to_list(), color=c, lw=1.0, ls=":", label=lab("ssthresh"), drawstyle="steps-post")
        ax.plot(t, (d["in_flight_bytes"].cast(pl.Float64) / 1e3).to_list(), color=c, lw=0.6, alpha=0.6, label=lab("in flight"), drawstyle="steps-post")
    for g, n in shown.items():
        if n > cap:
            axes[g].plot([], [], " ", label=f"... and {n - cap} more flows (not in the legend)")
    head = title if title is not None else _titled(result, "congestion windows")
    for k, (g, ax) in enumerate(axes.items()):
        _time_axis(ax, result)
        ax.set_ylabel("kB")
        if log:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        if by_group:
            ax.set_title(f"{head}: group {g or '(none)'}", fontsize=10)
        elif k == 0:
            ax.set_title(head, fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
    _save(fig, path)
    return fig


def plot_queue(result: Result, path: str | Path, title: str | None = None, links: list[str] | None = None,
               skip_idle: bool = True) -> Figure:
    """Sampled queue length (packets, all kinds: data and acks) of each link direction.

    ``links`` selects directions by name; otherwise (``skip_idle``) directions whose queue
    never held more than the packet in transmission are left out (counted in the legend
    title), so a dumbbell shows its bottlenecks rather than a dozen flat lines."""
    import polars as pl

    tr = _need_trace(result, "queue")
    known = tr["link"].unique(maintain_order=True).to_list()
    names = _select("links", known, links)
    idle: list[str] = []
    if links is None and skip_idle:
        busy = [n for n in names if (tr.filter(pl.col("link") == n)["packets"].max() or 0) > 1]
        idle = [n for n in names if n not in busy]
        names = busy or names
    fig = _figure()
    ax = fig.add_subplot()
    _shade_warmup(ax, result.summary)
    for i, name in enumerate(names):
        d = tr.filter(pl.col("link") == name).sort("t")
        ax.plot(d["t"].to_list(), d["packets"].to_list(), color=_colour(i), ls=_dash(i), lw=1.0, label=name, drawstyle="steps-post")
    _time_axis(ax, result)
    ax.set_ylabel("queue (packets)")
    ax.set_ylim(bottom=0)
    ax.set_title(title if title is not None else _titled(result, "queues"), fontsize=10)
    ax.grid(True, alpha=0.3)
    shown = f"{len(idle)} idle direction(s) not drawn" if idle else None
    ax.legend(loc="upper right", fontsize=8, framealpha=0.9, title=shown, title_fontsize=7)
    _save(fig, path)
    return fig


def plot_delay(result: Result, path: str | Path, title: str | None = None, flows: list[str] | None = None,
               one_way: bool = False) -> Figure:
    """Latency under load as Flent shows it, from the probes (``echo = true`` UDP flows,
    :attr:`Result.probes`): left, the CDF of each probe flow's round trips (``one_way``: the
    one-way delays out) in milliseconds; right, their box plots (median, quartiles,
    whiskers at the 5th and 95th percentiles). Echoes that returned before the steady-state
    window are left out, as in the summary's ``mean_rtt_s``. ``flows`` selects probe flows."""
    import polars as pl

    pr = result.probes
    if pr.height == 0:
        raise ValueError('the run has no probes; give a UDP flow echo = true (e.g. app = { type = "cbr", rate = "51.2kbps", packet_size = 64 })')
    steady = float((result.summary.get("run") or {}).get("steady_start_s") or 0.0)
    pr = pr.filter(pl.col("t") >= steady)
    names = _select("flows", pr["flow"].unique(maintain_order=True).to_list(), flows)
    col = "forward_s" if one_way else "rtt_s"
    what = "one-way delay" if one_way else "round trip"
    fig = _figure(10.0, 4.5)
    cdf, box = fig.subplots(1, 2, width_ratios=[3, 1])
    data = []
    for i, name in enumerate(names):
        ms = sorted(x * 1e3 for x in pr.filter(pl.col("flow") == name)[col].to_list())
        data.append(ms)
        if not ms:
            continue
        n = len(ms)
        cdf.step(ms, [(k + 1) / n for k in range(n)], where="post", color=_colour(i), ls=_dash(i), lw=1.2,
                 label=f"{name} (median {ms[n // 2]:.3g} ms, n = {n})")
    cdf.set_xlabel(f"{what} (ms)")
    cdf.set_ylabel("fraction of probes")
    cdf.set_ylim(0.0, 1.0)
    cdf.grid(True, alpha=0.3)
    cdf.legend(loc="lower right", fontsize=8, framealpha=0.9)
    cdf.set_title(title if title is not None else _titled(result, f"probe {what}s, t ≥ {steady:g} s"), fontsize=10)
    box.boxplot([d or [float("nan")] for d in data], whis=(5, 95), showfliers=False)
    box.set_xticks(range(1, len(names) + 1), names, rotation=30, fontsize=8)
    box.set_ylabel(f"{what} (ms)")
    box.grid(True, alpha=0.3)
    _save(fig, path)
    return fig


def plot_fct(result: Result, path: str | Path, title: str | None = None, bins: int = 12) -> Figure:
    """Flow completion times (``fct.parquet``, :attr:`Result.fct`): left, the slowdown
    against flow size, p50 (solid) and p99 (dashed) per workload over ``bins`` size bins
    of equal width in log size (each point at its bin's median size; bins with fewer than
    5 completed flows are left out); right, the CDF of the FCTs per workload."""
    import math

    import polars as pl

    fct = result.fct.filter(pl.col("completed") == 1)
    if fct.height == 0:
        raise ValueError("the run completed no finite transfer (a workload, or a transfer flow)")
    fct = fct.with_columns(pl.when(pl.col("workload") == "").then(pl.lit("transfers")).otherwise(pl.col("workload")).alias("w"))
    lo, hi = math.log10(max(1, fct["bytes"].min())), math.log10(fct["bytes"].max())  # type: ignore[arg-type]
    width = max(hi - lo, 1e-9) / bins
    fig = _figure(11.0, 4.5)
    sd, cdf = fig.subplots(1, 2)
    for i, w in enumerate(sorted(fct["w"].unique().to_list())):
        d = fct.filter(pl.col("w") == w)
        d = d.with_columns(((pl.col("bytes").cast(pl.Float64).log10() - lo) / width).floor().clip(0, bins - 1).alias("bin"))
        g = d.group_by("bin").agg(pl.col("bytes").median().alias("x"), pl.len().alias("n"),
                                  pl.col("slowdown").quantile(0.5, "linear").alias("p50"),
                                  pl.col("slowdown").quantile(0.99, "linear").alias("p99")).filter(pl.col("n") >= 5).sort("x")
        sd.plot(g["x"], g["p50"], color=_colour(i), lw=1.4, marker="o", ms=3, label=f"{w} p50")
        sd.plot(g["x"], g["p99"], color=_colour(i), lw=1.2, ls="--", marker="^", ms=3, label=f"{w} p99")
        t = sorted(x * 1e3 for x in d["fct_s"].to_list())
        cdf.step(t, [(k + 1) / len(t) for k in range(len(t))], where="post", color=_colour(i), lw=1.2,
                 label=f"{w} (n = {len(t)})")
    sd.set_xscale("log")
    sd.set_yscale("log")
    sd.set_xlabel("flow size (bytes)")
    sd.set_ylabel("slowdown (FCT / ideal)")
    sd.grid(True, which="both", alpha=0.3)
    sd.legend(fontsize=8, framealpha=0.9)
    sd.set_title(title if title is not None else _titled(result, "FCT slowdown by flow size"), fontsize=10)
    cdf.set_xscale("log")
    cdf.set_xlabel("flow completion time (ms)")
    cdf.set_ylabel("fraction of completed flows")
    cdf.set_ylim(0.0, 1.0)
    cdf.grid(True, which="both", alpha=0.3)
    cdf.legend(loc="lower right", fontsize=8, framealpha=0.9)
    _save(fig, path)
    return fig


# -- sweeps -----------------------------------------------------------------------------------

def mean_ci(vals: list[float]) -> tuple[float, float | None, float | None]:
    """Mean, sample standard deviation and 95 % half-width t(0.975, n-1)·s/√n of ``vals``
    (NaN mean for none; std and half-width None below two values)."""
    n = len(vals)
    mean = sum(vals) / n if n else math.nan
    if n < 2:
        return mean, None, None
    std = math.sqrt(sum((v - mean) ** 2 for v in vals) / (n - 1))
    return mean, std, t975(n - 1) * std / math.sqrt(n)


def _polars_frame(df: Any) -> pl.DataFrame:
    """``df`` as a polars DataFrame: a polars one as it is, another frame (pandas, pyarrow,
    ...) through the Arrow stream or dataframe interchange protocol, so tcplab needs no
    pandas of its own (a pandas frame comes with pandas installed)."""
    import polars as pl

    if isinstance(df, pl.DataFrame):
        return df
    if hasattr(df, "__arrow_c_stream__") or hasattr(df, "__dataframe__"):
        return pl.from_dataframe(df)
    raise TypeError(f"expected a polars DataFrame or another data frame (pandas, pyarrow), not {type(df).__name__}")


def sweep_stats(df: Any, x: str, y: str, hue: str | None = None) -> pl.DataFrame:
    """Mean and 95 % confidence interval of ``y`` per (``hue``, ``x``) over the seeds.

    Returns columns ``[hue,] x, n, mean, std, ci95`` (``ci95`` is the half-width
    t(0.975, n-1)·std/√n; null when n < 2), groups in order of first appearance.
    Raises ValueError when a group holds the same seed twice: some other column (another
    swept key, or ``flow``) varies too, so filter ``df`` or pass it as ``hue``.
    """
    import polars as pl

    d = _polars_frame(df)
    keys = [c for c in (hue, x) if c is not None]
    for c in (*keys, y):
        if c not in d.columns:
            raise ValueError(f"no column {c!r} (columns: {', '.join(d.columns)})")
    if "seed" in d.columns:
        dup = d.group_by(*keys, "seed").len().filter(pl.col("len") > 1)
        if dup.height:
            # In a sweep summary the swept keys and `flow` come before the metrics.
            cols = d.columns[: d.columns.index("flow") + 1] if "flow" in d.columns else d.columns
            other = [c for c in cols if c not in (*keys, y, "seed", "run_id") and d[c].n_unique() > 1]
            varying = [c for c in other if d.group_by(*keys, "seed").agg(pl.col(c).n_unique()).filter(pl.col(c) > 1).height]
            raise ValueError(
                f"each ({', '.join(keys)}) group holds a seed more than once: "
                f"{', '.join(varying[:3]) or 'another column'} also varies; filter df or pass it as hue"
            )
    g = (
        d.filter(pl.col(y).is_not_null())
        .group_by(*keys, maintain_order=True)
        .agg(n=pl.len(), mean=pl.col(y).cast(pl.Float64).mean(), std=pl.col(y).cast(pl.Float64).std())
    )
    t = pl.Series([t975(int(n) - 1) if n > 1 else None for n in g["n"]], dtype=pl.Float64)
    return g.with_columns(ci95=t * pl.col("std") / pl.col("n").cast(pl.Float64).sqrt())


def plot_sweep(
    df: Any,
    x: str,
    y: str,
    hue: str | None = None,
    path: str | Path | None = None,
    title: str | None = None,
    log_x: bool = False,
    log_y: bool = False,
    clip: tuple[float | None, float | None] | None = None,
) -> Figure:
    """``y`` against the swept parameter ``x``: the mean over seeds with its 95 % CI.

    ``log_x``/``log_y`` use logarithmic axes. Confidence bands are clipped to ``clip``
    (lower, upper); by default to [0, 1] for ``efficiency`` and utilisations, to [0, ∞)
    when every value of ``y`` is non-negative (a band below zero for a rate is noise).

    ``df`` is a sweep's ``summary`` table (polars, or pandas, pyarrow: any frame with the
    Arrow stream or dataframe interchange protocol), usually filtered to one
    flow, e.g. ``plot_sweep(res.summary.filter(pl.col("flow") == "fast"),
    x="links.up.rate", y="efficiency", hue="flows.fast.ack_size")``. One line per value
    of ``hue``; the band (numeric ``x``) or error bars (text ``x``, kept in the order of
    the table) show the confidence interval. Writes the figure to ``path`` when given;
    returns it. Raises ValueError as :func:`sweep_stats` does.
    """
    import polars as pl

    st = sweep_stats(df, x, y, hue)
    if clip is None:
        if y == "efficiency" or "utilization" in y or y in ("jain", "fairness.jain"):
            clip = (0.0, 1.0)
        elif (st["mean"].min() or 0) >= 0:
            clip = (0.0, None)
        else:
            clip = (None, None)
    lo_c = -math.inf if clip[0] is None else clip[0]
    hi_c = math.inf if clip[1] is None else clip[1]
    fig = _figure()
    ax = fig.add_subplot()
    numeric = st[x].dtype.is_numeric()
    if numeric:
        positions: dict[Any, float] = {}
    else:
        order = st[x].unique(maintain_order=True).to_list()
        positions = {v: float(i) for i, v in enumerate(order)}
    groups = st[hue].unique(maintain_order=True).to_list() if hue else [None]
    many = len(groups) > 1
    for i, h in enumerate(groups):
        d = st.filter(pl.col(hue) == h) if hue else st
        if numeric:
            d = d.sort(x)
            xs = d[x].cast(pl.Float64).to_list()
        else:
            xs = [positions[v] + (i - (len(groups) - 1) / 2) * 0.04 * many for v in d[x].to_list()]
        mean = d["mean"].to_list()
        ci = [c if c is not None else 0.0 for c in d["ci95"].to_list()]
        label = f"{hue} = {h}" if hue else y
        c = _colour(i)
        if numeric:
            ax.plot(xs, mean, color=c, marker="o", ms=3.5, lw=1.3, label=label)
            ax.fill_between(xs, [max(lo_c, m - e) for m, e in zip(mean, ci)], [min(hi_c, m + e) for m, e in zip(mean, ci)],
                            color=c, alpha=0.2, lw=0)
        else:
            err = [[min(e, m - lo_c) for m, e in zip(mean, ci)], [min(e, hi_c - m) for m, e in zip(mean, ci)]]
            ax.errorbar(xs, mean, yerr=err, color=c, marker="o", ms=3.5, lw=1.3, capsize=3, label=label)
    if not numeric:
        ax.set_xticks(list(positions.values()), [str(v) for v in positions])
    n_min, n_max = int(st["n"].min() or 0), int(st["n"].max() or 0)  # type: ignore[arg-type]  # polars: Any scalar
    seeds = f"{n_min}" if n_min == n_max else f"{n_min}–{n_max}"
    ax.set_xlabel(x)
    ax.set_ylabel(f"{y} (mean, 95% CI over {seeds} seeds)")
    if y == "efficiency":
        _percent_axis(ax)
    ax.set_title(title if title is not None else f"{y} vs {x}", fontsize=10)
    ax.grid(True, alpha=0.3)
    if hue or many:
        ax.legend(fontsize=8, framealpha=0.9)
    if log_x:
        ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
    if path is not None:
        _save(fig, path)
    return fig

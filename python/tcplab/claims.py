"""Grid figures and claims for ``tcplab reproduce`` (papers without closed forms per run).

Seed 000's figures compare each run with a closed form the core computes. The later papers
state their results as *claims* about simulated curves: "the throughput ratio of Vegas-ALT to
Vegas is about 3 for k >= 4", "at load 0.9 Vegas gets about 1.6 Mb/s". A manifest says so
with two tables:

``[[figure]]`` with ``kind = "grid"``: one scenario, run for every ``x`` (written into the
``vary`` keys as ``x·scale`` followed by ``unit``), every curve (a named set of overrides, and an optional ``y_factor`` that multiplies ``y_scale`` for it)
and ``seeds`` seeds. ``plot = "curve"`` draws the flow's steady-state ``metric`` (a key of
its summary entry) against x, mean and 95 % confidence band over the seeds;
``plot = "series"`` draws the metric per interval against time, one line per x (and curve).
``flow`` may be a list: a curve point is then the sum of the flows' metric (e.g. aggregate
throughput) and a series panel has one line per flow. Two run-level metrics need no flow:
``metric = "links.NAME.KEY"`` (a key of link NAME's summary entry, e.g.
``links.bn.steady_utilization``) and ``metric = "fairness.KEY"`` (e.g. ``fairness.jain``).

``[[claim]]``: one sentence of the paper, the number it states (``paper``, optional), the
range a reproduction must fall into (``lo``, ``hi``) and what is measured:

* ``kind = "value"``: the mean of ``a`` (``{ figure, curve, x }``);
* ``kind = "ratio"``: mean of ``a`` / mean of ``b``;
* ``kind = "ge"``: ``a``'s curve is at least ``b``'s at every x of ``a.x`` (a list; default
  every x of the figure, ``x_min`` drops smaller ones) — the value is the smallest ratio a/b;
* ``kind = "decreasing"``: ``a``'s curve falls (non-strictly) with x — the value is the
  largest ratio of a point to the one before it;
* ``kind = "min"`` / ``"max"``: the smallest / largest mean of ``a``'s curve over ``a.x`` (a
  list; default every x, ``x_min`` drops smaller ones), e.g. "near 100 % at every delay".

``explain`` says why a claim that is not met differs; it is printed only then. Nothing else
in the report is typed in by hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from tcplab.plots import _colour, _figure, _save, _t975
from tcplab.results import Result
from tcplab.scenario import scenario_error

__all__ = ["Curve", "Grid", "Claim", "parse_grid", "parse_claims", "grid_values", "evaluate_claims"]

CLAIM_KINDS = ("value", "ratio", "ge", "decreasing", "min", "max")


@dataclass
class Curve:
    id: str
    label: str
    set: dict[str, Any] = field(default_factory=dict)
    #: Multiplies the figure's ``y_scale`` for this curve (e.g. to count a header option out).
    y_factor: float = 1.0


@dataclass
class Grid:
    """The grid part of a ``kind = "grid"`` figure."""

    flow: str | list[str]
    metric: str
    curves: list[Curve]
    seeds: int = 1
    scale: float = 1.0
    plot: str = "curve"
    y_label: str = ""
    y_scale: float = 1.0
    log_x: bool = False


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def run_level(metric: str) -> bool:
    """True for the metrics that are not a flow's summary key (links.NAME.KEY, fairness.KEY)."""
    return metric.startswith("links.") or metric.startswith("fairness.")


def parse_grid(raw: dict[str, Any], where: str, path: Path) -> Grid:
    if "metric" not in raw:
        raise scenario_error(f"{where}.metric", "missing (a grid figure needs the flow and its summary key)", path)
    metric = str(raw["metric"])
    if metric.startswith("links.") and len(metric.split(".")) != 3:
        raise scenario_error(f"{where}.metric", f"a link metric is links.NAME.KEY, got '{metric}'", path)
    if metric.startswith("fairness.") and len(metric.split(".")) < 2:
        raise scenario_error(f"{where}.metric", f"a fairness metric is fairness.KEY, got '{metric}'", path)
    if "flow" not in raw and not run_level(metric):
        raise scenario_error(f"{where}.flow", "missing (a grid figure needs the flow and its summary key)", path)
    flow = raw.get("flow", "")
    if isinstance(flow, list):
        if not flow or not all(isinstance(f, str) for f in flow):
            raise scenario_error(f"{where}.flow", "a flow name or a non-empty list of flow names", path)
        flow = [str(f) for f in flow]
    else:
        flow = str(flow)
    if raw.get("plot") == "series" and run_level(metric):
        raise scenario_error(f"{where}.plot", "a series plots a per-flow metric per interval, not a run-level one", path)
    curves = []
    for j, c in enumerate(raw.get("curves") or [{"id": "run", "label": str(raw.get("flow", metric))}]):
        cw = f"{where}.curves[{j}]"
        if not isinstance(c, dict) or "id" not in c:
            raise scenario_error(f"{cw}.id", "missing", path)
        extra = set(c) - {"id", "label", "set", "y_factor"}
        if extra:
            raise scenario_error(f"{cw}.{sorted(extra)[0]}", "unknown field", path)
        if c["id"] in {cv.id for cv in curves}:
            raise scenario_error(f"{cw}.id", f"duplicate curve id '{c['id']}'", path)
        yf = c.get("y_factor", 1.0)
        if not isinstance(yf, (int, float)) or not yf > 0:
            raise scenario_error(f"{cw}.y_factor", f"must be a positive number, got {yf!r}", path)
        curves.append(Curve(str(c["id"]), str(c.get("label", c["id"])), dict(c.get("set") or {}), float(yf)))
    seeds = raw.get("seeds", 1)
    if not isinstance(seeds, int) or seeds < 1:
        raise scenario_error(f"{where}.seeds", f"must be an integer >= 1, got {seeds!r}", path)
    plot = raw.get("plot", "curve")
    if plot not in ("curve", "series"):
        raise scenario_error(f"{where}.plot", "must be curve or series", path)
    return Grid(flow=flow, metric=metric, curves=curves, seeds=seeds,
                scale=float(raw.get("scale", 1.0)), plot=plot, y_label=str(raw.get("y_label", raw["metric"])),
                y_scale=float(raw.get("y_scale", 1.0)), log_x=bool(raw.get("log_x", False)))


def job_variant(curve: str, x: float, seed: int) -> str:
    return f"{curve}/x{_fmt(x)}/s{seed}"


def job_overrides(grid: Grid, curve: Curve, vary: list[str], unit: str, x: float, seed: int) -> dict[str, Any]:
    v = x * grid.scale
    val: Any = f"{_fmt(v)}{unit}" if unit else (int(v) if float(v).is_integer() else v)
    o: dict[str, Any] = {k: val for k in vary}
    o.update(curve.set)
    o["seed"] = seed
    return o


def metric_value(fig_id: str, grid: Grid, summary: dict[str, Any]) -> float:
    """The grid's metric in one run's summary: a flow's key (summed over a list of flows),
    ``links.NAME.KEY`` or ``fairness.KEY``."""
    parts = grid.metric.split(".")
    if parts[0] == "links" and len(parts) == 3:
        link = next((lk for lk in summary["links"] if lk["name"] == parts[1]), None)
        if link is None or link.get(parts[2]) is None:
            raise scenario_error(f"figure {fig_id}.metric", f"no link '{parts[1]}' with '{parts[2]}' in the summary")
        return float(link[parts[2]])
    if parts[0] == "fairness":
        v: Any = summary.get("fairness") or {}
        for p in parts[1:]:
            v = v.get(p) if isinstance(v, dict) else None
        if v is None or isinstance(v, dict):
            raise scenario_error(f"figure {fig_id}.metric", f"the summary has no number at '{grid.metric}'")
        return float(v)
    total = 0.0
    for name in grid.flow if isinstance(grid.flow, list) else [grid.flow]:
        flow = next((f for f in summary["flows"] if f["name"] == name), None)
        if flow is None or grid.metric not in flow or flow[grid.metric] is None:
            raise scenario_error(f"figure {fig_id}.metric", f"flow '{name}' has no '{grid.metric}' in its summary")
        total += float(flow[grid.metric])
    return total


def grid_values(fig_id: str, grid: Grid, xs: list[float], results: dict[tuple[str, float, int], Result]) -> pl.DataFrame:
    """One row per (curve, x): n, mean, std, ci95 of the flow's metric (times y_scale)."""
    rows = []
    for c in grid.curves:
        for x in xs:
            vals = []
            for s in range(1, grid.seeds + 1):
                vals.append(metric_value(fig_id, grid, results[(c.id, x, s)].summary) * grid.y_scale * c.y_factor)
            n = len(vals)
            mean = sum(vals) / n
            std = math.sqrt(sum((v - mean) ** 2 for v in vals) / (n - 1)) if n > 1 else None
            ci = _t975(n - 1) * std / math.sqrt(n) if std is not None else None
            rows.append({"figure": fig_id, "curve": c.id, "label": c.label, "x": float(x), "n": n,
                         "mean": mean, "std": std, "ci95": ci})
    return pl.DataFrame(rows, schema={"figure": pl.String, "curve": pl.String, "label": pl.String, "x": pl.Float64,
                                      "n": pl.Int64, "mean": pl.Float64, "std": pl.Float64, "ci95": pl.Float64})


def plot_grid(title: str, x_label: str, grid: Grid, values: pl.DataFrame, results: dict[tuple[str, float, int], Result],
              xs: list[float], path: Path) -> None:
    if grid.plot == "series":
        fig = _figure(8.0, 3.2 * len(grid.curves))
        for i, c in enumerate(grid.curves):
            ax = fig.add_subplot(len(grid.curves), 1, i + 1)
            names = grid.flow if isinstance(grid.flow, list) else [grid.flow]
            lines = [(x, n) for x in xs for n in names]
            for j, (x, name) in enumerate(lines):
                frames = [results[(c.id, x, s)].intervals.filter(pl.col("flow") == name) for s in range(1, grid.seeds + 1)]
                d = pl.concat(frames).group_by("t_start", "t_end").agg(pl.col(grid.metric).mean()).sort("t_start")
                mid = ((d["t_start"] + d["t_end"]) / 2).to_list()
                label = " ".join(([f"{x_label} = {_fmt(x)}"] if len(xs) > 1 else []) + ([name] if len(names) > 1 else [])) or name
                ax.plot(mid, [v * grid.y_scale * c.y_factor for v in d[grid.metric].to_list()], color=_colour(j), lw=1.1,
                        label=label)
            ax.set_title(f"{c.label}", fontsize=9)
            ax.set_ylabel(grid.y_label)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7, loc="center right", ncols=1)
        ax.set_xlabel("time (s)")
        fig.suptitle(title, fontsize=10)
        _save(fig, path)
        return
    fig = _figure()
    ax = fig.add_subplot()
    for i, c in enumerate(grid.curves):
        d = values.filter(pl.col("curve") == c.id).sort("x")
        xv, mean = d["x"].to_list(), d["mean"].to_list()
        ci = [e if e is not None else 0.0 for e in d["ci95"].to_list()]
        ax.plot(xv, mean, color=_colour(i), marker="o", ms=3.5, lw=1.3, label=c.label)
        ax.fill_between(xv, [m - e for m, e in zip(mean, ci)], [m + e for m, e in zip(mean, ci)], color=_colour(i), alpha=0.2, lw=0)
    if grid.log_x:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(x_label)
    ax.set_ylabel(f"{grid.y_label} (mean, 95 % CI over {grid.seeds} seed{'s' if grid.seeds > 1 else ''})")
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)


@dataclass
class Claim:
    id: str
    text: str
    kind: str
    a: dict[str, Any]
    b: dict[str, Any] | None
    lo: float | None
    hi: float | None
    paper: float | None = None
    x_min: float | None = None
    explain: str | None = None


def parse_claims(data: dict[str, Any], figures: dict[str, Any], path: Path) -> list[Claim]:
    out = []
    allowed = {"id", "text", "kind", "a", "b", "lo", "hi", "paper", "x_min", "explain"}
    for i, raw in enumerate(data.get("claim") or []):
        where = f"claim[{i}]"
        extra = set(raw) - allowed
        if extra:
            raise scenario_error(f"{where}.{sorted(extra)[0]}", "unknown field", path)
        for key in ("id", "text", "kind", "a"):
            if key not in raw:
                raise scenario_error(f"{where}.{key}", "missing", path)
        if raw["kind"] not in CLAIM_KINDS:
            raise scenario_error(f"{where}.kind", f"must be one of {', '.join(CLAIM_KINDS)}", path)
        if raw["kind"] in ("ratio", "ge") and "b" not in raw:
            raise scenario_error(f"{where}.b", f"a '{raw['kind']}' claim compares a with b", path)
        for side in ("a", "b"):
            sel = raw.get(side)
            if sel is None:
                continue
            fig = figures.get(sel.get("figure"))
            if fig is None or fig.grid is None:
                raise scenario_error(f"{where}.{side}.figure", f"no grid figure '{sel.get('figure')}'", path)
            if sel.get("curve") not in {c.id for c in fig.grid.curves}:
                raise scenario_error(f"{where}.{side}.curve", f"figure '{fig.id}' has no curve '{sel.get('curve')}'", path)
            xs = sel.get("x")
            for x in xs if isinstance(xs, list) else ([] if xs is None else [xs]):
                if float(x) not in fig.x:
                    raise scenario_error(f"{where}.{side}.x", f"figure '{fig.id}' has no x = {x}", path)
            if raw["kind"] in ("value", "ratio") and (xs is None or isinstance(xs, list)):
                raise scenario_error(f"{where}.{side}.x", "one x value", path)
        out.append(Claim(id=str(raw["id"]), text=str(raw["text"]), kind=raw["kind"], a=raw["a"], b=raw.get("b"),
                         lo=raw.get("lo"), hi=raw.get("hi"), paper=raw.get("paper"), x_min=raw.get("x_min"),
                         explain=raw.get("explain")))
    return out


def _mean(values: pl.DataFrame, sel: dict[str, Any], x: float) -> tuple[float, float | None]:
    d = values.filter((pl.col("figure") == sel["figure"]) & (pl.col("curve") == sel["curve"]) & (pl.col("x") == float(x)))
    return float(d["mean"][0]), d["ci95"][0]


def _xs(values: pl.DataFrame, sel: dict[str, Any], x_min: float | None) -> list[float]:
    if sel.get("x") is not None:
        xs = [float(v) for v in (sel["x"] if isinstance(sel["x"], list) else [sel["x"]])]
    else:
        xs = sorted(values.filter((pl.col("figure") == sel["figure"]) & (pl.col("curve") == sel["curve"]))["x"].to_list())
    return [x for x in xs if x_min is None or x >= x_min]


def evaluate_claims(claims: list[Claim], values: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for c in claims:
        detail = ""
        if c.kind == "value":
            v, ci = _mean(values, c.a, c.a["x"])
            detail = f"{v:.3g}" + (f" ± {ci:.2g}" if ci is not None else "")
        elif c.kind == "ratio":
            num, _ = _mean(values, c.a, c.a["x"])
            den, _ = _mean(values, c.b, c.b["x"])  # type: ignore[index]
            v = num / den if den else math.inf
            detail = f"{num:.3g} / {den:.3g}"
        elif c.kind == "ge":
            ratios = []
            for x in _xs(values, c.a, c.x_min):
                num, _ = _mean(values, c.a, x)
                den, _ = _mean(values, c.b, x)  # type: ignore[index]
                ratios.append((num / den if den else math.inf, x))
            v, at = min(ratios)
            detail = f"smallest ratio at x = {_fmt(at)}"
        elif c.kind in ("min", "max"):
            pts = [(_mean(values, c.a, x)[0], x) for x in _xs(values, c.a, c.x_min)]
            v, at = min(pts) if c.kind == "min" else max(pts)
            detail = f"{c.kind} at x = {_fmt(at)}"
        else:  # decreasing
            xs = _xs(values, c.a, c.x_min)
            ms = [_mean(values, c.a, x)[0] for x in xs]
            steps = [(b / a if a else math.inf, x) for a, b, x in zip(ms, ms[1:], xs[1:])]
            v, at = max(steps)
            detail = f"largest step ratio at x = {_fmt(at)}"
        ok = (c.lo is None or v >= c.lo) and (c.hi is None or v <= c.hi)
        rows.append({"claim": c.id, "text": c.text, "kind": c.kind, "paper": c.paper, "simulated": v, "detail": detail,
                     "lo": c.lo, "hi": c.hi, "met": ok, "note": "" if ok else (c.explain or "Unexplained: no explanation recorded in the manifest.")})
    return pl.DataFrame(rows, schema={"claim": pl.String, "text": pl.String, "kind": pl.String, "paper": pl.Float64,
                                      "simulated": pl.Float64, "detail": pl.String, "lo": pl.Float64, "hi": pl.Float64,
                                      "met": pl.Boolean, "note": pl.String})


def markdown(values: pl.DataFrame, claims: pl.DataFrame, figs: list[Any]) -> list[str]:
    """Report sections for grid figures (tables of means) and the claims."""
    out: list[str] = []
    if claims.height:
        met = int(claims["met"].sum())
        out += ["## Claims", "", f"{met} of {claims.height} claims met.", "",
                "| claim | paper | simulated | accepted | verdict |", "|---|---|---|---|---|"]
        for r in claims.iter_rows(named=True):
            lo = "" if r["lo"] is None else f"{r['lo']:g}"
            hi = "" if r["hi"] is None else f"{r['hi']:g}"
            rng = f"[{lo}, {hi}]"
            paper = "–" if r["paper"] is None else f"{r['paper']:g}"
            out.append(f"| {r['text']} | {paper} | {r['simulated']:.3g} ({r['detail']}) | {rng} | {'met' if r['met'] else '**not met** ⚠'} |")
        notes: dict[str, list[str]] = {}
        for r in claims.iter_rows(named=True):
            if not r["met"]:
                notes.setdefault(r["note"], []).append(r["claim"])
        for note, ids in notes.items():
            out += ["", f"> {', '.join(ids)}: {note}"]
        out.append("")
    return out


def figure_table(fig: Any, values: pl.DataFrame) -> list[str]:
    g = fig.grid
    d = values.filter(pl.col("figure") == fig.id)
    out = [f"| curve | {fig.x_label or 'x'} | seeds | {g.y_label} mean | 95 % CI |", "|---|---|---|---|---|"]
    for r in d.iter_rows(named=True):
        ci = "–" if r["ci95"] is None else f"± {r['ci95']:.3g}"
        out.append(f"| {r['label']} | {_fmt(r['x'])} | {r['n']} | {r['mean']:.3g} | {ci} |")
    return out

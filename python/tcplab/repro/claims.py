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
``plot = "histogram"`` (a ``python:`` metric that returns a dict) draws, per curve, the
distribution of the list the dict holds under ``samples`` (pooled over the seeds, one
step histogram per x, ``bins`` bins, x axis ``samples_label``); the table and claims use
``metric_key``'s scalar as for a curve.

System-level metrics and closed forms (seed 003): ``metric = "python:module.function"``
(or ``"python:FILE.py:function"``, a file beside the manifest, as for ``fn`` and ``vary_fn``)
calls ``function(result, **metric_args)`` for each run (e.g. ``tcplab.repro.metrics.system_goodput``;
``flow`` is then not needed); a dict result is indexed by ``metric_key``; with ``plot =
"series"`` the function returns a frame with ``t_start``, ``t_end`` and the column
``metric_key``, and ``windows = [[t0, t1], ...]`` adds the per-slot mean over each window
as a value (``window = [t0, t1]`` in a claim selector). ``vary_fn = "FILE.py:function"``
(a file beside the manifest) returns extra overrides for each run, called as
``function(x=x, seed=seed, **vary_args, **curve.args)`` (e.g. a list of x flows with
per-seed start times). A curve's ``formula = { fn = "tcplab.analysis.f", x_arg = "p",
args = {...}, scale = 1 }`` is drawn as a dashed line beside it (values in the plotted
units) and is the ``formula`` column; ``formula = true`` in a claim selector uses it.
``log_y`` sets a log y axis. A curve's own ``metric_args`` are merged over the figure's
(a per-run closed form that needs the curve's protocols). A curve's ``over = "CURVE"``
plots and tabulates it as the seed-by-seed ratio of its raw metric to that curve's at the
same x (y_scale and y_factor cancel out; e.g. seed 004's friendliness F = tR2/tR1 of the
mixed run over the all-NewReno run of the same seed); the reference curve keeps its own
values in the table and is not drawn.

``[[claim]]``: one sentence of the paper, the number it states (``paper``, optional), the
range a reproduction must fall into (``lo``, ``hi``) and what is measured:

* ``kind = "value"``: the mean of ``a`` (``{ figure, curve, x }``);
* ``kind = "ratio"``: mean of ``a`` / mean of ``b``;
* ``kind = "ge"``: ``a``'s curve is at least ``b``'s at every x of ``a.x`` (a list; default
  every x of the figure, ``x_min`` drops smaller ones) — the value is the smallest ratio a/b;
* ``kind = "decreasing"``: ``a``'s curve falls (non-strictly) with x — the value is the
  largest ratio of a point to the one before it; ``kind = "increasing"``: it rises — the
  value is the smallest such ratio (``lo = 1``); ``a.curve`` may be a list of curves (each
  must fall / rise: the value is the worst step of any of them);
* ``kind = "range"``: the largest minus the smallest mean of ``a`` over its x values;
* ``kind = "min"`` / ``"max"``: the smallest / largest mean of ``a`` over its x values;
* ``kind = "highest"`` / ``"lowest"``: ``a``'s curve against every other curve of its figure
  at each of its x values — the value is the smallest (highest) / largest (lowest) ratio
  of ``a`` to another curve, so ``lo = 1`` / ``hi = 1`` says "highest" / "lowest";
* ``kind = "spread"``: the largest ratio max/min of the figure's curves at one of ``a``'s x
  (``a.curve`` is not needed);
* ``kind = "xspread"``: the spread max/min of ``a``'s means over its x values; with ``b``,
  that spread divided by ``b``'s over its x values (``hi = 1``: "varies less than b");
* ``kind = "not_dominated"``: a two-dimensional profile. ``a`` and ``b`` select the same
  curve in two figures with the same x values (the two coordinates of its point at each x,
  e.g. E and F of seed 004's E/F profiles); ``against = ["CURVE", ...]`` lists the curves
  it is compared with (in both figures, with the same selector keys, e.g. ``over``). The
  comparison is per x (the points of one x are the same operating point: N connections):
  a curve's point at x is dominated by another's if that one is at least as large in both
  coordinates and larger in one. The value is the smallest, over x and ``against``, of
  ``max(a/a', b/b')`` (a', b': the other curve's coordinates): > 1 means the point is
  larger in at least one coordinate, so ``lo = 1`` says "never dominated" (a value of
  exactly 1 is a tie in the better coordinate: not dominated only if the other one ties too).
  ``across_x = true`` compares each of ``a``'s points with the other curves' points at
  every x, not only at its own (a profile against whole profiles, e.g. "higher E at equal
  F or higher F at equal E" whatever N gave those points).

A selector may add ``window = [t0, t1]`` (one of a series figure's ``windows``: the per-slot
mean over it), ``formula = true`` (the curve's closed form at x instead of the simulation)
or ``over = "CURVE"`` (divide by that curve's mean at the same x: e.g. seed 004's
friendliness F = a protocol's run over the all-NewReno run).

``explain`` says why a claim that is not met differs; it is printed only then. Nothing else
in the report is typed in by hand.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from tcplab.reporting.plots import _colour, _figure, _save, mean_ci
from tcplab.scenario import scenario_error

if TYPE_CHECKING:
    import polars as pl

    from tcplab.results import Result

# polars is imported in the functions that read or build frames: loading a manifest
# (`tcplab list`) does not need it.

__all__ = ["Curve", "Grid", "Claim", "parse_grid", "parse_claims", "grid_values", "evaluate_claims"]

CLAIM_KINDS = ("value", "ratio", "ge", "decreasing", "increasing", "range", "min", "max", "highest", "lowest", "spread", "xspread",
               "not_dominated")


@dataclass
class Curve:
    id: str
    label: str
    set: dict[str, Any] = field(default_factory=dict)
    #: Multiplies the figure's ``y_scale`` for this curve (e.g. to count a header option out).
    y_factor: float = 1.0
    #: Keyword arguments for the figure's ``vary_fn`` (merged over the figure's ``vary_args``).
    args: dict[str, Any] = field(default_factory=dict)
    #: A closed form drawn beside the curve: ``{ fn = "tcplab.analysis.f", x_arg = "p",
    #: args = {...}, scale = 1 }`` (fn's value times scale, in the plotted units, i.e. after
    #: y_scale); its value at each x is the ``formula`` column.
    formula: dict[str, Any] | None = None
    formula_callable: Callable[..., float] | None = None
    #: Keyword arguments for a ``python:`` metric, merged over the figure's ``metric_args``
    #: (e.g. the protocols a per-run closed form needs).
    metric_args: dict[str, Any] = field(default_factory=dict)
    #: Plot and tabulate this curve as the per-seed ratio of its raw metric to that curve's.
    over: str | None = None


@dataclass
class Grid:
    """The grid part of a ``kind = "grid"`` figure."""

    #: A flow name, or a list of names (summed for curves; one line each in series).
    flow: str | list[str]
    metric: str
    curves: list[Curve]
    seeds: int = 1
    scale: float = 1.0
    plot: str = "curve"
    y_label: str = ""
    y_scale: float = 1.0
    log_x: bool = False
    #: ``python:module.function`` metric (see :func:`_metric`): its keyword arguments and
    #: the key picked from a dict (or, for series, the column of a frame) it returns.
    metric_args: dict[str, Any] = field(default_factory=dict)
    metric_key: str | None = None
    #: Series figures: time windows ``[t0, t1)`` whose per-slot mean is a value (``window``).
    windows: list[tuple[float, float]] = field(default_factory=list)
    #: ``FILE.py:function`` next to the manifest, called as f(x, seed, **args) for extra
    #: overrides of every run (e.g. flow lists whose length is x).
    vary_fn: str | None = None
    vary_args: dict[str, Any] = field(default_factory=dict)
    log_y: bool = False
    vary_callable: Callable[..., dict[str, Any]] | None = None
    metric_callable: Callable[..., Any] | None = None
    #: ``plot = "histogram"``: bins and the histogram's x-axis label.
    bins: int = 50
    samples_label: str = ""


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


GRID_KEYS = {"flow", "curves", "seeds", "scale", "plot", "y_label", "y_scale", "log_x", "log_y", "metric_args",
             "metric_key", "windows", "vary_fn", "vary_args", "bins", "samples_label"}


# A manifest's FILE.py, executed once per content (by path and modification time): a
# manifest names its functions dozens of times (`tcplab list` loads every manifest).
_FILE_MODULES: dict[tuple[Path, int, int], ModuleType] = {}


def _file_module(file: Path) -> ModuleType:
    st = file.stat()
    key = (file.resolve(), st.st_mtime_ns, st.st_size)
    mod = _FILE_MODULES.get(key)
    if mod is None:
        spec = importlib.util.spec_from_file_location(f"tcplab_manifest_{file.stem}", file)
        if spec is None or spec.loader is None:
            raise ValueError(f"cannot load {file}")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _FILE_MODULES[key] = mod
    return mod


def _python_ref(ref: str, where: str, path: Path | None, base: Path | None = None) -> Callable[..., Any]:
    """``module.function`` (importable) or, with ``base``, ``FILE.py:function`` in that folder."""
    try:
        if ":" in ref:
            fname, func = ref.split(":", 1)
            if base is None or not fname.endswith(".py"):
                raise ValueError("expected FILE.py:function")
            mod = _file_module(base / fname)
        else:
            modname, func = ref.rsplit(".", 1)
            mod = importlib.import_module(modname)
        fn = getattr(mod, func)
    except (ValueError, ImportError, AttributeError, OSError) as e:
        raise scenario_error(where, f"cannot use '{ref}': {e}", path) from None
    if not callable(fn):
        raise scenario_error(where, f"'{ref}' is not callable", path)
    return fn


def run_level(metric: str) -> bool:
    """True for the summary metrics that are not a flow's key (links.NAME.KEY, fairness.KEY)."""
    return metric.startswith("links.") or metric.startswith("fairness.")


def parse_grid(raw: dict[str, Any], where: str, path: Path) -> Grid:
    python_metric = str(raw.get("metric", "")).startswith("python:")
    metric = str(raw.get("metric", ""))
    for key in ("metric",) if python_metric or run_level(metric) else ("flow", "metric"):
        if key not in raw:
            raise scenario_error(f"{where}.{key}", "missing (a grid figure needs the flow and its summary key)", path)
    if metric.startswith("links.") and len(metric.split(".")) != 3:
        raise scenario_error(f"{where}.metric", f"a link metric is links.NAME.KEY, got '{metric}'", path)
    if metric.startswith("fairness.") and len(metric.split(".")) < 2:
        raise scenario_error(f"{where}.metric", f"a fairness metric is fairness.KEY, got '{metric}'", path)
    if raw.get("plot") == "series" and run_level(metric):
        raise scenario_error(f"{where}.plot", "a series plots a per-flow metric per interval, not a run-level one", path)
    flow_raw = raw.get("flow", "")
    if isinstance(flow_raw, list):
        if not flow_raw or not all(isinstance(f, str) for f in flow_raw):
            raise scenario_error(f"{where}.flow", "a flow name or a non-empty list of flow names", path)
        flow: str | list[str] = [str(f) for f in flow_raw]
    else:
        flow = str(flow_raw)
    curves = []
    for j, c in enumerate(raw.get("curves") or [{"id": "run", "label": raw.get("flow", "run")}]):
        cw = f"{where}.curves[{j}]"
        if not isinstance(c, dict) or "id" not in c:
            raise scenario_error(f"{cw}.id", "missing", path)
        extra = set(c) - {"id", "label", "set", "y_factor", "args", "formula", "metric_args", "over"}
        if extra:
            raise scenario_error(f"{cw}.{sorted(extra)[0]}", "unknown field", path)
        if c["id"] in {cv.id for cv in curves}:
            raise scenario_error(f"{cw}.id", f"duplicate curve id '{c['id']}'", path)
        yf = c.get("y_factor", 1.0)
        if not isinstance(yf, (int, float)) or not yf > 0:
            raise scenario_error(f"{cw}.y_factor", f"must be a positive number, got {yf!r}", path)
        formula = c.get("formula")
        if formula is not None:
            if not isinstance(formula, dict) or "fn" not in formula or "x_arg" not in formula:
                raise scenario_error(f"{cw}.formula", "a table with fn (module.function) and x_arg", path)
            bad = set(formula) - {"fn", "x_arg", "args", "scale", "label"}
            if bad:
                raise scenario_error(f"{cw}.formula.{sorted(bad)[0]}", "unknown field", path)
        fcall = _python_ref(str(formula["fn"]), f"{cw}.formula.fn", path, path.parent) if formula is not None else None
        cargs = c.get("metric_args") or {}
        if not isinstance(cargs, dict):
            raise scenario_error(f"{cw}.metric_args", "a table of keyword arguments for the figure's python: metric", path)
        if cargs and not python_metric:
            raise scenario_error(f"{cw}.metric_args", "only for a python: metric", path)
        over = c.get("over")
        if over is not None and (not isinstance(over, str) or over == c["id"]):
            raise scenario_error(f"{cw}.over", f"the id of another curve of the figure, got {over!r}", path)
        curves.append(Curve(str(c["id"]), str(c.get("label", c["id"])), dict(c.get("set") or {}), float(yf),
                            dict(c.get("args") or {}), formula, fcall, dict(cargs), over))
    ids = {cv.id for cv in curves}
    for j, cv in enumerate(curves):
        if cv.over is None:
            continue
        ref = next((r for r in curves if r.id == cv.over), None)
        if ref is None:
            raise scenario_error(f"{where}.curves[{j}].over", f"no curve '{cv.over}' in the figure (its curves: {', '.join(sorted(ids))})", path)
        if ref.over is not None:
            raise scenario_error(f"{where}.curves[{j}].over", f"curve '{cv.over}' is itself a ratio (over '{ref.over}')", path)
        if raw.get("plot") == "series":
            raise scenario_error(f"{where}.curves[{j}].over", "only for plot = \"curve\"", path)
    seeds = raw.get("seeds", 1)
    if not isinstance(seeds, int) or seeds < 1:
        raise scenario_error(f"{where}.seeds", f"must be an integer >= 1, got {seeds!r}", path)
    plot = raw.get("plot", "curve")
    if plot not in ("curve", "series", "histogram"):
        raise scenario_error(f"{where}.plot", "must be curve, series or histogram", path)
    if plot == "histogram" and (not python_metric or not raw.get("metric_key")):
        raise scenario_error(f"{where}.plot", "a histogram needs a python: metric that returns a dict, and its metric_key", path)
    for key in ("bins", "samples_label"):
        if key in raw and plot != "histogram":
            raise scenario_error(f"{where}.{key}", "only for plot = \"histogram\"", path)
    bins = raw.get("bins", 50)
    if not isinstance(bins, int) or isinstance(bins, bool) or not 1 <= bins <= 10_000:
        raise scenario_error(f"{where}.bins", f"must be an integer in 1-10000, got {bins!r}", path)
    windows = []
    for k, w in enumerate(raw.get("windows") or []):
        if not (isinstance(w, list) and len(w) == 2 and all(isinstance(v, (int, float)) for v in w) and w[0] < w[1]):
            raise scenario_error(f"{where}.windows[{k}]", f"must be [t0, t1] seconds with t0 < t1, got {w!r}", path)
        windows.append((float(w[0]), float(w[1])))
    if windows and plot != "series":
        raise scenario_error(f"{where}.windows", "only for plot = \"series\"", path)
    vary_fn = raw.get("vary_fn")
    vary_callable = _python_ref(str(vary_fn), f"{where}.vary_fn", path, path.parent) if vary_fn is not None else None
    metric_callable = (_python_ref(str(raw["metric"])[len("python:"):], f"{where}.metric", path, path.parent)
                       if python_metric else None)
    return Grid(flow=flow, metric=str(raw["metric"]), curves=curves, seeds=seeds,
                scale=float(raw.get("scale", 1.0)), plot=plot, y_label=str(raw.get("y_label", raw["metric"])),
                y_scale=float(raw.get("y_scale", 1.0)), log_x=bool(raw.get("log_x", False)),
                metric_args=dict(raw.get("metric_args") or {}), metric_key=raw.get("metric_key"),
                windows=windows, vary_fn=vary_fn, vary_args=dict(raw.get("vary_args") or {}),
                log_y=bool(raw.get("log_y", False)), vary_callable=vary_callable, metric_callable=metric_callable,
                bins=bins, samples_label=str(raw.get("samples_label", "")))


def job_variant(curve: str, x: float, seed: int) -> str:
    return f"{curve}/x{_fmt(x)}/s{seed}"


def job_overrides(grid: Grid, curve: Curve, vary: list[str], unit: str, x: float, seed: int) -> dict[str, Any]:
    v = x * grid.scale
    val: Any = f"{_fmt(v)}{unit}" if unit else (int(v) if float(v).is_integer() else v)
    o: dict[str, Any] = {k: val for k in vary}
    if grid.vary_callable is not None:
        try:
            o.update(grid.vary_callable(x=x, seed=seed, **{**grid.vary_args, **curve.args}))
        except (TypeError, ValueError, KeyError) as e:
            raise scenario_error(f"curve {curve.id}.args", f"vary_fn {grid.vary_fn} at x = {_fmt(x)}: {e}") from None
    o.update(curve.set)
    o["seed"] = seed
    return o


def _metric(fig_id: str, grid: Grid, res: Result) -> Any:
    """The run's raw metric: a per-flow summary key, or a ``python:`` function's result
    (``metric_key`` picks a dict entry; for series, the frame's column)."""
    import polars as pl

    if grid.metric_callable is not None:
        out = grid.metric_callable(res, **grid.metric_args)
        if grid.plot == "series":
            col = grid.metric_key
            if not isinstance(out, pl.DataFrame) or col is None or col not in out.columns:
                raise scenario_error(f"figure {fig_id}.metric_key", f"a series metric returns a frame with t_start, t_end and the column metric_key ({col!r})")
            return out.select("t_start", "t_end", pl.col(col).alias("value"))
        if isinstance(out, dict):
            if grid.metric_key not in out:
                raise scenario_error(f"figure {fig_id}.metric_key", f"{grid.metric} returned keys {sorted(out)}; metric_key = {grid.metric_key!r}")
            out = out[grid.metric_key]
        if out is None:
            raise scenario_error(f"figure {fig_id}.metric", f"{grid.metric} returned no value")
        return float(out)  # NaN (undefined for this run) is allowed: grid_values leaves it out
    names = grid.flow if isinstance(grid.flow, list) else [grid.flow]
    if grid.plot == "series":
        d = res.intervals.filter(pl.col("flow").is_in(names))
        if d.height == 0 or grid.metric not in d.columns:
            raise scenario_error(f"figure {fig_id}.metric", f"flow '{names[0]}' has no '{grid.metric}' intervals")
        # Several flows: their sum per interval (plot_grid draws them one by one).
        d = d.group_by("t_start", "t_end").agg(pl.col(grid.metric).sum()).sort("t_start")
        return d.select("t_start", "t_end", pl.col(grid.metric).alias("value"))
    return metric_value(fig_id, grid, res.summary)


def metric_value(fig_id: str, grid: Grid, summary: dict[str, Any]) -> float:
    """The grid's metric in one run's summary: a flow's key (summed over a list of flows),
    ``links.NAME.KEY`` or ``fairness.KEY`` (dotted into nested objects)."""
    names = grid.flow if isinstance(grid.flow, list) else [grid.flow]
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
    for name in names:
        flow = next((f for f in summary["flows"] if f["name"] == name), None)
        if flow is None or grid.metric not in flow or flow[grid.metric] is None:
            raise scenario_error(f"figure {fig_id}.metric", f"flow '{name}' has no '{grid.metric}' in its summary")
        total += float(flow[grid.metric])
    return total


def _scalars(fig_id: str, grid: Grid, res: Result) -> dict[str | None, float]:
    """Window label (None = whole run or summary value) -> scalar value of one run."""
    import polars as pl

    m = _metric(fig_id, grid, res)
    if not isinstance(m, pl.DataFrame):
        return {None: m}
    out: dict[str | None, float] = {}
    wins: list[tuple[str | None, tuple[float, float]]] = [(window_label(w), w) for w in grid.windows]
    if grid.metric_callable is None:  # a flow's series: the whole-run value is its summary key
        out[None] = _metric(fig_id, Grid(**{**grid.__dict__, "plot": "curve"}), res)
    else:
        wins.insert(0, (None, (-math.inf, math.inf)))
    for label, (t0, t1) in wins:
        v = m.filter((pl.col("t_start") >= t0) & (pl.col("t_end") <= t1))["value"].drop_nulls()
        out[label] = float(v.mean()) if len(v) else math.nan  # type: ignore[arg-type]
    return out


def window_label(w: Any) -> str:
    return f"{_fmt(float(w[0]))}-{_fmt(float(w[1]))}"


def formula_value(curve: Curve, x: float) -> float | None:
    f = curve.formula
    if f is None:
        return None
    fn = curve.formula_callable or _python_ref(str(f["fn"]), "formula.fn", None)
    return float(fn(**{str(f["x_arg"]): x, **(f.get("args") or {})})) * float(f.get("scale", 1.0))


def curve_grid(grid: Grid, c: Curve) -> Grid:
    """The grid as one curve sees it (its ``metric_args`` merged over the figure's)."""
    if not c.metric_args:
        return grid
    return Grid(**{**grid.__dict__, "metric_args": {**grid.metric_args, **c.metric_args}})


def grid_values(fig_id: str, grid: Grid, xs: list[float], results: dict[tuple[str, float, int], Result]) -> pl.DataFrame:
    """One row per (curve, x, window): n, mean, std, ci95 of the metric (times y_scale), and
    the curve's closed form at x (``formula``: the function's value times ``formula.scale``,
    in the plotted units) if it has one. ``window`` is null
    for the whole run, else ``"t0-t1"`` for each of a series figure's ``windows``."""
    import polars as pl

    rows = []
    raw: dict[tuple[str, float], list[dict[str | None, float]]] = {}
    for c in grid.curves:
        g = curve_grid(grid, c)
        for x in xs:
            raw[(c.id, x)] = [_scalars(fig_id, g, results[(c.id, x, s)]) for s in range(1, grid.seeds + 1)]
    for c in grid.curves:
        for x in xs:
            per_seed = raw[(c.id, x)]
            scale = grid.y_scale * c.y_factor
            if c.over is not None:  # seed by seed over the reference curve (0 -> NaN: left out)
                ref = raw[(c.over, x)]
                per_seed = [{w: d[w] / r[w] if r[w] else math.nan for w in d} for d, r in zip(per_seed, ref)]
                scale = 1.0
            fv = formula_value(c, x)
            # Whether another seed could give another value: false when no run of the
            # point (nor of its reference curve) drew a random number.
            curves = [c.id] + ([c.over] if c.over is not None else [])
            stochastic = any(_stochastic(results[(k, x, sd)]) for k in curves for sd in range(1, grid.seeds + 1))
            for w in per_seed[0]:
                # A seed whose metric is undefined (NaN: e.g. a coefficient of variation of
                # nothing delivered) is left out; n counts the seeds that remain.
                vals = [d[w] * scale for d in per_seed if math.isfinite(d[w])]
                n = len(vals)
                mean, std, ci = mean_ci(vals)
                rows.append({"figure": fig_id, "curve": c.id, "label": c.label, "x": float(x), "window": w, "n": n,
                             "mean": mean, "std": std, "ci95": ci,
                             "formula": fv, "stochastic": stochastic})
    return pl.DataFrame(rows, schema=_values_schema())


def _values_schema() -> dict[str, Any]:
    import polars as pl

    return {"figure": pl.String, "curve": pl.String, "label": pl.String, "x": pl.Float64, "window": pl.String,
            "n": pl.Int64, "mean": pl.Float64, "std": pl.Float64, "ci95": pl.Float64, "formula": pl.Float64,
            "stochastic": pl.Boolean}


def _stochastic(res: Any) -> bool:
    """A run's ``run.stochastic`` (true where the summary does not say)."""
    run = (getattr(res, "summary", None) or {}).get("run") or {}
    return bool(run.get("stochastic", True))


_MARKERS = ("o", "s", "^", "D", "v", "P")
_DASHES = ("-", "--", "-.", ":")


def _plain_log_ticks(axis: Any, xs: list[float]) -> None:
    """A log axis labelled at the figure's own x values, written plainly ("2", "16"), not
    as powers of ten ("2×10⁰")."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    xs = [x for x in xs if x > 0]
    if not xs or len(xs) > 12:
        return
    axis.set_major_locator(FixedLocator(xs))
    axis.set_minor_locator(NullLocator())
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def plot_grid(title: str, x_label: str, grid: Grid, values: pl.DataFrame, results: dict[tuple[str, float, int], Result],
              xs: list[float], path: Path, fig_id: str = "") -> None:
    import polars as pl

    if grid.plot == "histogram":
        _plot_histogram(title, x_label, grid, results, xs, path)
        return
    if grid.plot == "series":
        fig = _figure(8.0, 3.2 * len(grid.curves))
        for i, c in enumerate(grid.curves):
            ax = fig.add_subplot(len(grid.curves), 1, i + 1)
            names = grid.flow if isinstance(grid.flow, list) and grid.metric_callable is None else [None]
            lines = [(x, n) for x in xs for n in names]
            for j, (x, name) in enumerate(lines):
                g = curve_grid(grid, c) if name is None else Grid(**{**curve_grid(grid, c).__dict__, "flow": name})
                frames = [_metric(fig_id, g, results[(c.id, x, s)]) for s in range(1, grid.seeds + 1)]
                d = pl.concat(frames).group_by("t_start", "t_end").agg(pl.col("value").mean()).sort("t_start")
                mid = ((d["t_start"] + d["t_end"]) / 2).to_list()
                label = " ".join(([f"{x_label} = {_fmt(x)}"] if len(xs) > 1 or name is None else []) + ([name] if name else []))
                ax.plot(mid, [None if v is None else v * grid.y_scale * c.y_factor for v in d["value"].to_list()],
                        color=_colour(j), lw=1.1, label=label + (f" ({grid.seeds} seeds' mean)" if grid.seeds > 1 else ""))
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
    refs = {c.over for c in grid.curves if c.over is not None}
    for i, c in enumerate(grid.curves):
        if c.id in refs:  # the denominators of ratio curves: in the table only
            continue
        d = values.filter((pl.col("curve") == c.id) & pl.col("window").is_null()).sort("x")
        xv, mean = d["x"].to_list(), d["mean"].to_list()
        ci = [e if e is not None else 0.0 for e in d["ci95"].to_list()]
        # A marker and a dash pattern per curve, so that curves on the same points (Vegas
        # and FAST on the ack clock's bound) all stay visible.
        # Earlier curves are drawn wider, later ones on top of them narrower.
        wide = min(len(grid.curves) - 1 - i, 3)
        ax.plot(xv, mean, color=_colour(i), marker=_MARKERS[i % len(_MARKERS)], ms=3.5 + 1.2 * wide,
                lw=(1.2 + 0.6 * wide) if c.formula is None else 0, ls=_DASHES[i % len(_DASHES)], alpha=0.9,
                label=c.label + (" (simulated)" if c.formula is not None else ""))
        if grid.seeds > 1:
            ax.errorbar(xv, mean, yerr=ci, color=_colour(i), lw=0, elinewidth=1, capsize=2)
        if c.formula is None:  # beside a formula line the error bars suffice
            ax.fill_between(xv, [m - e for m, e in zip(mean, ci)], [m + e for m, e in zip(mean, ci)], color=_colour(i), alpha=0.2, lw=0)
        else:
            lo, hi = min(xv), max(xv)
            fx = [lo * (hi / lo) ** (k / 60) for k in range(61)] if grid.log_x and lo > 0 else [lo + (hi - lo) * k / 60 for k in range(61)]
            ax.plot(fx, [formula_value(c, v) for v in fx],
                    color=_colour(i), lw=1.1, ls="--", label=c.formula.get("label", f"{c.label} ({c.formula['fn'].rsplit('.', 1)[-1]})"))
    if grid.log_x:
        ax.set_xscale("log")
        _plain_log_ticks(ax.xaxis, sorted({float(x) for x in values["x"].to_list()}))
    if grid.log_y:
        ax.set_yscale("log")
    ax.set_xlabel(x_label)
    exact = "stochastic" in values.columns and values.height > 0 and not values["stochastic"].any()
    ax.set_ylabel(f"{grid.y_label} (deterministic: every seed gives it)" if exact
                  else f"{grid.y_label} (mean, 95 % CI over {grid.seeds} seeds)" if grid.seeds > 1
                  else f"{grid.y_label} (one seed: no interval)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)


def histogram_samples(grid: Grid, curve: Curve, res: Result) -> list[float]:
    """The ``samples`` list a histogram figure's metric returned for one run."""
    assert grid.metric_callable is not None
    out = grid.metric_callable(res, **{**grid.metric_args, **curve.metric_args})
    if not isinstance(out, dict) or not isinstance(out.get("samples"), list):
        raise ValueError(f"{grid.metric}: a histogram's metric returns a dict with a 'samples' list")
    return [float(v) for v in out["samples"]]


def _plot_histogram(title: str, x_label: str, grid: Grid, results: dict[tuple[str, float, int], Result],
                    xs: list[float], path: Path) -> None:
    fig = _figure(8.0, 3.0 * len(grid.curves))
    pooled = {(c.id, x): [v for s in range(1, grid.seeds + 1) for v in histogram_samples(grid, c, results[(c.id, x, s)])]
              for c in grid.curves for x in xs}
    every = [v for vs in pooled.values() for v in vs]
    lo, hi = (min(every), max(every)) if every else (0.0, 1.0)
    edges = [lo + (hi - lo) * k / grid.bins for k in range(grid.bins + 1)] if hi > lo else [lo - 0.5, lo + 0.5]
    ax = None
    for i, c in enumerate(grid.curves):
        ax = fig.add_subplot(len(grid.curves), 1, i + 1, sharex=ax)
        for j, x in enumerate(xs):
            vals = pooled[(c.id, x)]
            if vals:
                ax.hist(vals, bins=edges, density=True, histtype="step", color=_colour(j), lw=1.2,
                        label=f"{x_label} = {_fmt(x)} ({len(vals)} estimates, {grid.seeds} seed{'s' if grid.seeds > 1 else ''})")
        ax.set_title(c.label, fontsize=9)
        ax.set_ylabel("density")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    if ax is not None:
        ax.set_xlabel(grid.samples_label or grid.metric)
    fig.suptitle(title, fontsize=10)
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
    #: ``not_dominated``: the curves compared with ``a``/``b``'s.
    against: list[str] = field(default_factory=list)
    #: ``not_dominated``: compare with the other curves' points at every x.
    across_x: bool = False


def parse_claims(data: dict[str, Any], figures: dict[str, Any], path: Path) -> list[Claim]:
    out = []
    allowed = {"id", "text", "kind", "a", "b", "lo", "hi", "paper", "x_min", "explain", "against", "across_x"}
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
        against = raw.get("against")
        if raw["kind"] == "not_dominated":
            if "b" not in raw:
                raise scenario_error(f"{where}.b", "a 'not_dominated' claim needs the second coordinate's figure in b", path)
            if not isinstance(against, list) or not against or not all(isinstance(v, str) for v in against):
                raise scenario_error(f"{where}.against", "a non-empty list of the curves compared with a's", path)
            if raw["a"].get("curve") != raw["b"].get("curve"):
                raise scenario_error(f"{where}.b.curve", "the same curve as a's (its second coordinate)", path)
            fa, fb = figures.get(raw["a"].get("figure")), figures.get(raw["b"].get("figure"))
            if fa is not None and fb is not None and fa.x != fb.x:
                raise scenario_error(f"{where}.b.figure", f"figures '{fa.id}' and '{fb.id}' have different x values", path)
            for side in ("a", "b"):
                fig = figures.get(raw[side].get("figure"))
                have = {c.id for c in fig.grid.curves} if fig is not None and fig.grid is not None else set()
                for o in against:
                    if fig is not None and o not in have:
                        raise scenario_error(f"{where}.against", f"figure '{fig.id}' has no curve '{o}'", path)
        elif against is not None:
            raise scenario_error(f"{where}.against", "only for kind = \"not_dominated\"", path)
        if "across_x" in raw and (raw["kind"] != "not_dominated" or not isinstance(raw["across_x"], bool)):
            raise scenario_error(f"{where}.across_x", "true or false, only for kind = \"not_dominated\"", path)
        for side in ("a", "b"):
            sel = raw.get(side)
            if sel is None:
                continue
            fig = figures.get(sel.get("figure"))
            if fig is None or fig.grid is None:
                raise scenario_error(f"{where}.{side}.figure", f"no grid figure '{sel.get('figure')}'", path)
            listed = sel.get("curve")
            if isinstance(listed, list):
                if raw["kind"] not in ("decreasing", "increasing") or not listed:
                    raise scenario_error(f"{where}.{side}.curve", "a list of curves only for kind = \"decreasing\" or \"increasing\"", path)
            else:
                listed = [listed]
            for cid in listed:
                if not (raw["kind"] == "spread" and "curve" not in sel) and cid not in {c.id for c in fig.grid.curves}:
                    raise scenario_error(f"{where}.{side}.curve", f"figure '{fig.id}' has no curve '{cid}'", path)
            bad = set(sel) - {"figure", "curve", "x", "window", "formula", "over"}
            if bad:
                raise scenario_error(f"{where}.{side}.{sorted(bad)[0]}", "unknown field", path)
            w = sel.get("window")
            if w is not None and (not isinstance(w, list) or len(w) != 2 or (float(w[0]), float(w[1])) not in fig.grid.windows):
                raise scenario_error(f"{where}.{side}.window", f"figure '{fig.id}' has no window {w!r} (its windows: {fig.grid.windows})", path)
            if sel.get("over") is not None and sel["over"] not in {c.id for c in fig.grid.curves}:
                raise scenario_error(f"{where}.{side}.over", f"figure '{fig.id}' has no curve '{sel['over']}'", path)
            if sel.get("formula") and any(c.formula is None for c in fig.grid.curves if c.id in listed):
                raise scenario_error(f"{where}.{side}.formula", f"curve '{sel['curve']}' has no formula", path)
            xs = sel.get("x")
            for x in xs if isinstance(xs, list) else ([] if xs is None else [xs]):
                if float(x) not in fig.x:
                    raise scenario_error(f"{where}.{side}.x", f"figure '{fig.id}' has no x = {x}", path)
            if raw["kind"] in ("value", "ratio") and (xs is None or isinstance(xs, list)):
                raise scenario_error(f"{where}.{side}.x", "one x value", path)
        out.append(Claim(id=str(raw["id"]), text=str(raw["text"]), kind=raw["kind"], a=raw["a"], b=raw.get("b"),
                         lo=raw.get("lo"), hi=raw.get("hi"), paper=raw.get("paper"), x_min=raw.get("x_min"),
                         explain=raw.get("explain"), against=list(against or []),
                         across_x=bool(raw.get("across_x", False))))
    return out


def _rows(values: pl.DataFrame, sel: dict[str, Any]) -> pl.DataFrame:
    import polars as pl

    w = sel.get("window")
    d = values.filter((pl.col("figure") == sel["figure"]) & (pl.col("curve") == sel["curve"]))
    if "window" not in d.columns:  # frames written before windows existed
        return d
    return d.filter(pl.col("window").is_null() if w is None else pl.col("window") == window_label(w))


def _mean(values: pl.DataFrame, sel: dict[str, Any], x: float) -> tuple[float, float | None]:
    """The selected curve's mean at x, or with ``formula = true`` its closed form there."""
    import polars as pl

    d = _rows(values, sel).filter(pl.col("x") == float(x))
    if sel.get("formula"):
        v, ci = float(d["formula"][0]), None
    else:
        v, ci = float(d["mean"][0]), d["ci95"][0]
    if sel.get("over") is not None:
        den = _mean(values, {**sel, "curve": sel["over"], "over": None}, x)[0]
        return (v / den if den else math.inf), None
    return v, ci


def _xs(values: pl.DataFrame, sel: dict[str, Any], x_min: float | None) -> list[float]:
    if sel.get("x") is not None:
        xs = [float(v) for v in (sel["x"] if isinstance(sel["x"], list) else [sel["x"]])]
    else:
        xs = sorted(_rows(values, sel)["x"].to_list())
    return [x for x in xs if x_min is None or x >= x_min]


def without_curves(grid: Grid, drop: set[str | None]) -> Grid:
    """The grid without the curves in ``drop``, nor those tabulated over one of them."""
    keep = [c for c in grid.curves if c.id not in drop and c.over not in drop]
    return grid if len(keep) == len(grid.curves) else Grid(**{**grid.__dict__, "curves": keep})


def empty_values() -> pl.DataFrame:
    """:func:`grid_values`' frame with no rows."""
    import polars as pl

    return pl.DataFrame(schema=_values_schema())


def claim_curves(c: Claim, figs: dict[str, Any]) -> set[tuple[str, str]]:
    """Every (figure, curve) whose runs the claim's value depends on."""
    out: set[tuple[str, str]] = set()
    for sel in (c.a, c.b):
        if sel is None:
            continue
        fig = sel["figure"]
        g = figs[fig].grid if fig in figs else None
        if c.kind in ("highest", "lowest", "spread") and g is not None:
            out |= {(fig, cv.id) for cv in g.curves}
        curves = sel.get("curve")
        for cid in curves if isinstance(curves, list) else [curves]:
            if cid is not None:
                out.add((fig, cid))
        if sel.get("over") is not None:
            out.add((fig, sel["over"]))
        for o in c.against:
            out.add((fig, o))
    for f, cid in list(out):  # a curve tabulated over another depends on that one's runs too
        g = figs[f].grid if f in figs else None
        out |= {(f, cv.over) for cv in (g.curves if g else []) if cv.id == cid and cv.over is not None}
    return out


def claim_schema() -> dict[str, Any]:
    """The columns of :func:`evaluate_claims`' frame. ``met``: the value (a mean over the
    seeds) lies in the accepted range; ``verdict`` judges its 95 % interval [``ci_lo``,
    ``ci_hi``] instead (:func:`interval_verdict`)."""
    import polars as pl

    return {"claim": pl.String, "text": pl.String, "kind": pl.String, "paper": pl.Float64,
            "simulated": pl.Float64, "detail": pl.String, "lo": pl.Float64, "hi": pl.Float64,
            "met": pl.Boolean, "ci_lo": pl.Float64, "ci_hi": pl.Float64, "verdict": pl.String,
            "note": pl.String}

#: Verdicts, in the order a report counts them.
VERDICTS = ("met", "inconclusive", "not met", "one sample, in range", "one sample, outside", "not run")


def interval_verdict(v: float, half: float | None, lo: float | None, hi: float | None, *, one_sample: bool) -> str:
    """A claim's verdict from its value ``v`` and the half-width ``half`` of its 95 % interval:
    ``met`` when the interval lies inside [lo, hi], ``not met`` when it lies outside,
    ``inconclusive`` when it overlaps a bound. Without an interval: ``one sample, in range`` /
    ``one sample, outside`` when one seed gave the value, else (a kind whose value combines
    several means into one: no interval is propagated) ``met`` / ``not met`` on the value."""
    inside = (lo is None or v >= lo) and (hi is None or v <= hi)
    if half is None:
        if one_sample:
            return "one sample, in range" if inside else "one sample, outside"
        return "met" if inside else "not met"
    a, b = v - half, v + half
    if (lo is None or a >= lo) and (hi is None or b <= hi):
        return "met"
    if (lo is not None and b < lo) or (hi is not None and a > hi):
        return "not met"
    return "inconclusive"


def _ratio_half(num: float, ci_n: float | None, den: float, ci_d: float | None) -> float | None:
    """The 95 % half-width of num / den from those of num and den (first-order propagation,
    the two taken as independent); None where either has none or is zero."""
    if ci_n is None or ci_d is None or not num or not den:
        return None
    r = num / den
    return abs(r) * math.hypot(ci_n / num, ci_d / den)


def _mean_n(values: pl.DataFrame, sel: dict[str, Any], x: float) -> tuple[float, float | None, int | None]:
    """:func:`_mean` and the number of seeds behind it (None for a closed form, and for a
    point no run of which drew a random number: its value is exact, interval 0)."""
    import polars as pl

    v, ci = _mean(values, sel, x)
    if sel.get("formula"):
        return v, ci, None
    d = _rows(values, sel).filter(pl.col("x") == float(x))
    n = int(d["n"][0]) if "n" in d.columns and d.height else None
    if n is not None and "stochastic" in d.columns and d["stochastic"][0] is False:
        return v, 0.0, None  # no run drew a random number: every seed gives this value exactly
    return v, ci, n


def evaluate_claims(claims: list[Claim], values: pl.DataFrame, figs: list[Any] | None = None,
                    missing: Mapping[tuple[str, str | None], str] | None = None) -> pl.DataFrame:
    """One row per claim: its value, the verdict, the note shown when it is not met. A claim
    that depends on a (figure, curve) in ``missing`` (runs another engine could not make)
    gets no value (``simulated`` NaN, ``met`` null) and the reason as its note."""
    import polars as pl

    rows = []
    by_id = {f.id: f for f in figs or []}
    for c in claims:
        gone = sorted(k for k in claim_curves(c, by_id) if k in (missing or {})) if missing else []
        if gone:
            reason = (missing or {})[gone[0]]
            rows.append({"claim": c.id, "text": c.text, "kind": c.kind, "paper": c.paper, "simulated": math.nan,
                         "detail": "no run", "lo": c.lo, "hi": c.hi, "met": None, "ci_lo": None, "ci_hi": None,
                         "verdict": "not run",
                         "note": f"not run: curve {gone[0][1]} of {gone[0][0]}: {reason}"})
            continue
        detail = ""
        ns: list[int] = []  # the seeds behind each mean the claim read

        def _m(sel: dict[str, Any], x: float) -> tuple[float, float | None]:
            v, ci, n = _mean_n(values, sel, x)
            if n is not None:
                ns.append(n)
            return v, ci

        half: float | None = None  # the 95 % interval's half-width of v, where it has one
        if c.kind == "value":
            v, ci = _m(c.a, c.a["x"])
            half = ci
            detail = f"{v:.3g}" + (f" ± {ci:.2g}" if ci else "")
        elif c.kind == "ratio":
            num, ci_n = _m(c.a, c.a["x"])
            den, ci_d = _m(c.b, c.b["x"])  # type: ignore[index]
            v = num / den if den else math.inf
            half = _ratio_half(num, ci_n, den, ci_d)
            detail = f"{num:.3g} / {den:.3g}"
        elif c.kind == "ge":
            ratios = []
            for x in _xs(values, c.a, c.x_min):
                num, ci_n = _m(c.a, x)
                den, ci_d = _m(c.b, x)  # type: ignore[index]
                ratios.append((num / den if den else math.inf, x, _ratio_half(num, ci_n, den, ci_d)))
            v, at, half = min(ratios, key=lambda r: (r[0], r[1]))
            detail = f"smallest ratio at x = {_fmt(at)}"
        elif c.kind == "range":
            pts = [(*_m(c.a, x), x) for x in _xs(values, c.a, c.x_min)]
            (lo_v, lo_ci, lo_x), (hi_v, hi_ci, hi_x) = (min(pts, key=lambda p: (p[0], p[2])),
                                                        max(pts, key=lambda p: (p[0], p[2])))
            v = hi_v - lo_v
            half = math.hypot(lo_ci, hi_ci) if lo_ci is not None and hi_ci is not None else None
            detail = f"{lo_v:.3g} at x = {_fmt(lo_x)} to {hi_v:.3g} at x = {_fmt(hi_x)}"
        elif c.kind in ("min", "max"):
            pts = [(*_m(c.a, x), x) for x in _xs(values, c.a, c.x_min)]
            pick = min if c.kind == "min" else max
            v, half, at = pick(pts, key=lambda p: (p[0], p[2]))
            detail = f"at x = {_fmt(at)}"
        elif c.kind == "not_dominated":
            pts = []
            xs = _xs(values, c.a, c.x_min)
            for x in xs:
                ea, fb = _m(c.a, x)[0], _m(c.b, x)[0]  # type: ignore[arg-type]
                for o in c.against:
                    for xo in xs if c.across_x else [x]:
                        eo = _m({**c.a, "curve": o}, xo)[0]
                        fo = _m({**c.b, "curve": o}, xo)[0]  # type: ignore[dict-item]
                        ra = ea / eo if eo else math.inf
                        rb = fb / fo if fo else math.inf
                        pts.append((max(ra, rb), x, o, xo, ra, rb))
            v, at, who, xo, ra, rb = min(pts)
            detail = f"vs {who}" + (f" (its x = {_fmt(xo)})" if c.across_x else "") + f" at x = {_fmt(at)}: {ra:.3g}, {rb:.3g}"
        elif c.kind == "xspread":
            def _xspread(sel: dict[str, Any]) -> tuple[float, str]:
                pts = [(_m(sel, x)[0], x) for x in _xs(values, sel, c.x_min)]
                (lo_v, lo_x), (hi_v, hi_x) = min(pts), max(pts)
                return (hi_v / lo_v if lo_v else math.inf), f"{hi_v:.3g} at x = {_fmt(hi_x)} / {lo_v:.3g} at x = {_fmt(lo_x)}"
            va, da = _xspread(c.a)
            if c.b is None:
                v, detail = va, da
            else:
                vb, db = _xspread(c.b)
                v = va / vb if vb else math.inf
                detail = f"{va:.3g} ({da}) over {vb:.3g} ({db})"
        elif c.kind in ("highest", "lowest", "spread"):
            others = sorted(set(values.filter(pl.col("figure") == c.a["figure"])["curve"].to_list()) - {c.a.get("curve")})
            pts = []
            for x in _xs(values, {**c.a, "curve": c.a.get("curve", others[0])}, c.x_min):
                ms = {o: _m({**c.a, "curve": o}, x)[0] for o in others}
                if c.kind == "spread":
                    hi_c, lo_c = max(ms, key=ms.__getitem__), min(ms, key=ms.__getitem__)
                    pts.append((ms[hi_c] / ms[lo_c] if ms[lo_c] else math.inf, x, f"{hi_c}/{lo_c}"))
                    continue
                mine = _m(c.a, x)[0]
                ratios = [(mine / m if m else math.inf, o) for o, m in ms.items()]
                r, o = min(ratios) if c.kind == "highest" else max(ratios)
                pts.append((r, x, f"vs {o}"))
            v, at, who = min(pts) if c.kind == "highest" else max(pts)
            detail = f"{who} at x = {_fmt(at)}"
        else:  # decreasing, increasing (a list of curves: the worst step of any of them)
            many = isinstance(c.a["curve"], list)
            steps = []
            for cid in c.a["curve"] if many else [c.a["curve"]]:
                sel = {**c.a, "curve": cid}
                xs = _xs(values, sel, c.x_min)
                ms = [_m(sel, x)[0] for x in xs]
                steps += [(b / a if a else math.inf, x, cid) for a, b, x in zip(ms, ms[1:], xs[1:])]
            v, at, cid = max(steps) if c.kind == "decreasing" else min(steps)
            detail = (f"{'largest' if c.kind == 'decreasing' else 'smallest'} step ratio at x = {_fmt(at)}"
                      + (f" ({cid})" if many else ""))
        ok = (c.lo is None or v >= c.lo) and (c.hi is None or v <= c.hi)
        if half is not None and not math.isfinite(half):
            half = None
        rows.append({"claim": c.id, "text": c.text, "kind": c.kind, "paper": c.paper, "simulated": v, "detail": detail,
                     "lo": c.lo, "hi": c.hi, "met": ok,
                     "ci_lo": None if half is None else v - half, "ci_hi": None if half is None else v + half,
                     "verdict": interval_verdict(v, half, c.lo, c.hi, one_sample=bool(ns) and max(ns) <= 1),
                     "note": "" if ok else (c.explain or "Unexplained: no explanation recorded in the manifest.")})
    return pl.DataFrame(rows, schema=claim_schema())


def verdict_counts(claims: pl.DataFrame) -> str:
    """``"12 of 20 claims met, 3 inconclusive, 5 not met"``: the verdicts present, in
    :data:`VERDICTS` order (frames without a verdict column count ``met``)."""
    if "verdict" not in claims.columns:
        met = int(claims["met"].sum())
        ran = int(claims["met"].is_not_null().sum())
        return f"{met} of {claims.height} claims met" + (f" ({claims.height - ran} not run)" if ran < claims.height else "")
    counts = {v: 0 for v in VERDICTS}
    for v in claims["verdict"].to_list():
        counts[v] = counts.get(v, 0) + 1
    rest = [f"{n} {v}" for v, n in counts.items() if v != "met" and n]
    return f"{counts['met']} of {claims.height} claims met" + "".join(f", {x}" for x in rest)


def _verdict(met: bool | None) -> str:
    return "not run" if met is None else ("met" if met else "**not met** ⚠")


def markdown(values: pl.DataFrame, claims: pl.DataFrame, figs: list[Any], columns: Sequence[str] = ()) -> list[str]:
    """Report sections for grid figures (tables of means) and the claims; ``columns``: the
    extra columns of the claims table (``<col>_simulated``, ``<col>_met``, ``<col>_note``)."""
    out: list[str] = []
    if claims.height:
        head = verdict_counts(claims)
        for col in columns:
            m = claims[f"{col}_met"]
            head += f"; {col}: {int(m.sum())} met, {int(m.is_not_null().sum())} run"
        out += ["## Claims", "", head + ".", "",
                "A claim is met when the 95 % interval of its simulated value (over the seeds) lies inside the "
                "accepted range, not met when it lies outside, inconclusive when it overlaps a bound; one seed "
                "gives no interval (\"one sample\"). Claims that combine several means (highest, spread, "
                "increasing, ...) are judged on the means.", "",
                "| claim | paper | simulated | 95 % interval | " + "".join(f"{c} | " for c in columns) + "accepted | verdict |",
                "|---|---|---|---|" + "---|" * len(columns) + "---|---|"]
        for r in claims.iter_rows(named=True):
            lo = "" if r["lo"] is None else f"{r['lo']:g}"
            hi = "" if r["hi"] is None else f"{r['hi']:g}"
            rng = f"[{lo}, {hi}]"
            paper = "–" if r["paper"] is None else f"{r['paper']:g}"
            cells = ""
            for col in columns:
                v, m = r[f"{col}_simulated"], r[f"{col}_met"]
                cells += "– (not run) | " if m is None else f"{v:.3g} ({_verdict(m)}) | "
            ci = "–" if r.get("ci_lo") is None else f"[{r['ci_lo']:.3g}, {r['ci_hi']:.3g}]"
            verdict = r.get("verdict") or _verdict(r["met"])
            if verdict in ("not met", "one sample, outside", "inconclusive"):
                verdict = f"**{verdict}**" + (" ⚠" if verdict != "inconclusive" else "")
            out.append(f"| {r['text']} | {paper} | {r['simulated']:.3g} ({r['detail']}) | {ci} | {cells}{rng} | {verdict} |")
        notes: dict[str, list[str]] = {}
        for r in claims.iter_rows(named=True):
            if not r["met"]:
                notes.setdefault(r["note"], []).append(r["claim"])
            for col in columns:
                if r[f"{col}_met"] is None and r[f"{col}_note"]:
                    notes.setdefault(f"{col}: {r[f'{col}_note']}", []).append(r["claim"])
        for note, ids in notes.items():
            out += ["", f"> {', '.join(ids)}: {note}"]
        out.append("")
    return out


def figure_table(fig: Any, values: pl.DataFrame) -> list[str]:
    import polars as pl

    g = fig.grid
    d = values.filter(pl.col("figure") == fig.id)
    win = d["window"].drop_nulls().len() > 0
    form = d["formula"].drop_nulls().len() > 0
    out = [f"| curve | {fig.x_label or 'x'} |" + (" window (s) |" if win else "") + f" seeds | {g.y_label} mean | 95 % CI |"
           + (" closed form | sim / form |" if form else ""),
           "|---|---|" + ("---|" if win else "") + "---|---|---|" + ("---|---|" if form else "")]
    for r in d.iter_rows(named=True):
        ci = "–" if r["ci95"] is None else f"± {r['ci95']:.3g}"
        row = f"| {r['label']} | {_fmt(r['x'])} |" + (f" {r['window'] or 'all'} |" if win else "") + f" {r['n']} | {r['mean']:.3g} | {ci} |"
        if form:
            f = r["formula"]
            row += " – | – |" if f is None else f" {f:.3g} | {r['mean'] / f:.3f} |"
        out.append(row)
    return out

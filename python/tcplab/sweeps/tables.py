"""Assembling results: the SweepResult, its per-run and per-flow frames, and the rich table."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
from rich.table import Table
from rich.text import Text

from tcplab.results import Result

from .spec import SweepRun, SweepSpec, canonical
from .store import RUNS_DIR

__all__ = ["SweepResult", "param_series", "runs_frame", "summary_frame", "sweep_table"]


@dataclass
class SweepResult:
    """The outcome of :func:`sweep` (or :func:`load_sweep`).

    Attributes:
        out: the output directory.
        spec: the sweep spec.
        runs: one row per run: ``run_id, seed, <swept keys>..., status, error, attempts,
            wall_seconds, executed`` (``executed`` is true for runs done by this call), then
            run-level results of the successful runs: ``jain`` and
            ``<link>.steady_utilization``, ``<link>.steady_drop_rate``,
            ``<link>.steady_mark_rate``, ``<link>.steady_mean_queue_packets``,
            ``<link>.steady_mean_queue_delay_s`` for the link directions that dropped, marked or were
            at least half busy in some run (at most ``RUN_LINKS``).
        summary: the combined per-flow table (``summary.parquet``).
    """

    out: Path
    spec: SweepSpec
    runs: pl.DataFrame
    summary: pl.DataFrame
    wall_seconds: float = 0.0
    warnings: list[str] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> int:
        return int((self.runs["status"] == "ok").sum())

    @property
    def failed(self) -> int:
        return int((self.runs["status"] == "failed").sum())

    @property
    def executed(self) -> int:
        """Runs done by this call (not found finished on disk)."""
        return int(self.runs["executed"].sum())

    @property
    def skipped(self) -> int:
        """Runs found finished on disk and not run again."""
        return self.runs.height - self.executed - int((self.runs["status"] == "pending").sum())

    def result(self, run_id: str) -> Result:
        """The full :class:`Result` of a successful run."""
        return Result.load(self.out / RUNS_DIR / run_id)

    def table(self, max_rows: int = 40) -> Table:
        """A rich table: one row per point, runs ok/total and mean efficiency per flow."""
        return sweep_table(self, max_rows=max_rows)

    def __repr__(self) -> str:
        return (
            f"SweepResult(out={str(self.out)!r}, runs={self.runs.height}, ok={self.ok}, failed={self.failed}, "
            f"executed={self.executed})"
        )


def param_series(name: str, values: list[Any]) -> pl.Series:
    """One column for a swept key: a plain type when all values share one, else JSON text."""
    present = [v for v in values if v is not None]
    kinds = {type(v) for v in present}
    if kinds <= {bool}:
        return pl.Series(name, values, dtype=pl.Boolean)
    if kinds <= {int} and all(-(2**63) <= v < 2**63 for v in present):
        return pl.Series(name, values, dtype=pl.Int64)
    if kinds <= {int, float}:
        return pl.Series(name, [None if v is None else float(v) for v in values], dtype=pl.Float64)
    if kinds <= {str}:
        return pl.Series(name, values, dtype=pl.String)
    return pl.Series(name, [None if v is None else canonical(v) for v in values], dtype=pl.String)


#: Link directions given run-level columns in ``SweepResult.runs`` at most.
RUN_LINKS = 16
#: The per-link keys of summary.json copied into ``SweepResult.runs`` (steady-state window).
RUN_LINK_KEYS = (
    "steady_utilization",
    "steady_drop_rate",
    "steady_mark_rate",
    "steady_mean_queue_packets",
    "steady_mean_queue_delay_s",
)


#: Run-level flow-completion-time keys (summary.json's ``fct``), as ``fct.<key>`` columns.
RUN_FCT_KEYS = ("completed_share", "slowdown_p50", "slowdown_p95", "slowdown_p99", "slowdown_mean", "fct_p50_s", "fct_p99_s")


def _run_level(runs: Sequence[SweepRun], records: Mapping[str, dict[str, Any]], out: Path) -> list[pl.Series]:
    """Run-level columns from each successful run's summary.json: ``jain``; where some run
    has flow completion times, ``fct.<key>`` for :data:`RUN_FCT_KEYS` (overall) and
    ``fct.<bucket>.slowdown_p50`` / ``.slowdown_p99`` per flow-size bucket; and, for the link
    directions that matter, ``<link>.steady_utilization``, ``.steady_drop_rate`` and
    ``.steady_mark_rate``, ``.steady_mean_queue_packets`` and ``.steady_mean_queue_delay_s``.
    A link direction matters when, in some run, it dropped or marked
    in the steady window or was at least half busy; at most :data:`RUN_LINKS` of them, those
    with the highest drop rate, then mark rate, then utilisation in any run."""
    summaries: list[dict[str, Any] | None] = []
    for r in runs:
        s = None
        if (records.get(r.id) or {}).get("status") == "ok":
            try:
                s = json.loads((out / RUNS_DIR / r.id / "summary.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                s = None
        summaries.append(s)
    jain = [(s.get("fairness") or {}).get("jain") if s else None for s in summaries]
    cols = [pl.Series("jain", [None if v is None else float(v) for v in jain], dtype=pl.Float64)]
    fcts = [(s.get("fct") or {}) if s else {} for s in summaries]
    if any(fcts):
        def num(v: Any) -> float | None:
            return None if v is None else float(v)

        for k in RUN_FCT_KEYS:
            cols.append(pl.Series(f"fct.{k}", [num(f.get(k)) for f in fcts], dtype=pl.Float64))
        buckets: list[str] = []
        for f in fcts:
            for b in f.get("buckets") or []:
                if b.get("bucket") not in buckets:
                    buckets.append(b.get("bucket"))
        for name in buckets:
            per = [next((b for b in f.get("buckets") or [] if b.get("bucket") == name), {}) for f in fcts]
            for k in ("slowdown_p50", "slowdown_p99"):
                cols.append(pl.Series(f"fct.{name}.{k}", [num(b.get(k)) for b in per], dtype=pl.Float64))
    per_run: list[dict[str, dict[str, Any]]] = [
        {str(ln.get("name")): ln for ln in (s.get("links") or []) if isinstance(ln, dict)} if s else {} for s in summaries
    ]
    peak: dict[str, tuple[float, float, float]] = {}
    for links in per_run:
        for name, ln in links.items():
            d, m, u = (float(ln.get(k) or 0.0) for k in ("steady_drop_rate", "steady_mark_rate", "steady_utilization"))
            old = peak.get(name, (0.0, 0.0, 0.0))
            peak[name] = (max(old[0], d), max(old[1], m), max(old[2], u))
    busy = [n for n, (d, m, u) in peak.items() if d > 0 or m > 0 or u >= 0.5]
    busy = sorted(busy, key=lambda n: (-peak[n][0], -peak[n][1], -peak[n][2], n))[:RUN_LINKS]
    for name in sorted(busy):
        for k in RUN_LINK_KEYS:
            vals = [links[name].get(k) if name in links else None for links in per_run]
            cols.append(pl.Series(f"{name}.{k}", [None if v is None else float(v) for v in vals], dtype=pl.Float64))
    return cols


def runs_frame(
    spec: SweepSpec,
    runs: Sequence[SweepRun],
    records: Mapping[str, dict[str, Any]],
    executed: set[str],
    out: Path | None = None,
) -> pl.DataFrame:
    cols: list[pl.Series] = [
        pl.Series("run_id", [r.id for r in runs], dtype=pl.String),
        pl.Series("seed", [r.seed for r in runs], dtype=pl.UInt64),
    ]
    cols += [param_series(k, [r.overrides.get(k) for r in runs]) for k in spec.params]
    recs = [records.get(r.id) or {} for r in runs]
    cols += [
        pl.Series("status", [x.get("status", "pending") for x in recs], dtype=pl.String),
        pl.Series("error", [x.get("error") for x in recs], dtype=pl.String),
        pl.Series("attempts", [x.get("attempts") for x in recs], dtype=pl.Int64),
        pl.Series("wall_seconds", [x.get("wall_seconds") for x in recs], dtype=pl.Float64),
        pl.Series("executed", [r.id in executed for r in runs], dtype=pl.Boolean),
    ]
    if out is not None:
        cols += _run_level(runs, records, out)
    return pl.DataFrame(cols)


def summary_frame(spec: SweepSpec, runs: Sequence[SweepRun], out: Path, records: Mapping[str, dict[str, Any]]) -> pl.DataFrame:
    """Per-flow rows of every successful run (spec order), with run_id, seed and swept keys."""
    ok = [r for r in runs if (records.get(r.id) or {}).get("status") == "ok"]
    flow_rows: list[dict[str, Any]] = []
    owner: list[SweepRun] = []
    for r in ok:
        summary = json.loads((out / RUNS_DIR / r.id / "summary.json").read_text(encoding="utf-8"))
        for f in summary.get("flows") or []:
            row = dict(f)
            row["flow"] = row.pop("name", None)
            flow_rows.append(row)
            owner.append(r)
    keys = pl.DataFrame(
        [
            pl.Series("run_id", [r.id for r in owner], dtype=pl.String),
            pl.Series("seed", [r.seed for r in owner], dtype=pl.UInt64),
            *[param_series(k, [r.overrides.get(k) for r in owner]) for k in spec.params],
        ]
    )
    if not flow_rows:
        return keys
    flows = pl.from_dicts(flow_rows, infer_schema_length=None)
    flows = flows.select("flow", *[c for c in flows.columns if c != "flow"])
    clash = [c for c in flows.columns if c in keys.columns]
    if clash:
        flows = flows.rename({c: f"flow.{c}" for c in clash})
    return keys.hstack(flows)


def sweep_table(res: SweepResult, max_rows: int = 40) -> Table:
    """Rich table of a sweep: one row per point with runs ok/total and per-flow means."""
    spec, runs, summary = res.spec, res.runs, res.summary
    title = f"sweep {spec.name}: {runs.height} runs, {res.ok} ok, {res.failed} failed"
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    for k in spec.params:
        table.add_column(k, no_wrap=True)
    table.add_column("runs ok", justify="right")
    metric = "efficiency" if "efficiency" in summary.columns else ("goodput_bps" if "goodput_bps" in summary.columns else None)
    flows: list[str] = summary["flow"].unique(maintain_order=True).to_list() if "flow" in summary.columns else []
    for f in flows:
        table.add_column(f"{f} {'efficiency' if metric == 'efficiency' else 'goodput'}", justify="right")
    fct_cols = [c for c in ("fct.slowdown_p50", "fct.slowdown_p99") if c in runs.columns]
    for c in fct_cols:
        table.add_column(f"FCT slowdown {c.rsplit('_', 1)[-1]}", justify="right")
    point_of = {r: i for i, r in enumerate(runs["run_id"].to_list())}
    n_seeds = len(spec.seeds)
    stats: dict[tuple[int, str], list[float]] = {}
    if metric and flows:
        for rid, f, v in summary.select("run_id", "flow", metric).iter_rows():
            if v is not None:
                stats.setdefault((point_of[rid] // n_seeds, f), []).append(float(v))
    status = runs["status"].to_list()
    for p, point in enumerate(spec.points):
        if p >= max_rows:
            table.add_row(f"… {len(spec.points) - max_rows} more points")
            break
        st = status[p * n_seeds : (p + 1) * n_seeds]
        n_ok = st.count("ok")
        cells: list[str | Text] = [_cell(point.get(k)) for k in spec.params]
        style = "red" if "failed" in st else ("yellow" if n_ok < len(st) else "")
        cells.append(Text(f"{n_ok}/{len(st)}", style=style))
        for f in flows:
            vals = stats.get((p, f), [])
            if not vals:
                cells.append("-")
            elif metric == "efficiency":
                cells.append(_pm(vals, 100, "%", 1))
            else:
                cells.append(_pm(vals, 1e-3, " kb/s", 1))
        for c in fct_cols:
            vals = [v for v in runs[c].to_list()[p * n_seeds : (p + 1) * n_seeds] if v is not None]
            cells.append(_pm(vals, 1.0, "", 2) if vals else "-")
        table.add_row(*cells)
    return table


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    return v if isinstance(v, str) else canonical(v)


def _pm(vals: list[float], scale: float, unit: str, digits: int) -> str:
    m = sum(vals) / len(vals)
    if len(vals) < 2:
        return f"{m * scale:.{digits}f}{unit}"
    sd = math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1))
    return f"{m * scale:.{digits}f} ± {sd * scale:.{digits}f}{unit}"


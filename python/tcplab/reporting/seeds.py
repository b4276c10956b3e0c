"""One scenario over several seeds (``tcplab run --seeds N``): mean and 95 % confidence
interval of each flow's and each link's main results, and the terminal tables.

The interval is the half-width t(0.975, n-1)·s/√n over the n seeds that finished (null for
one seed): it bounds where the mean over many more seeds would lie, not the spread of one
run (``min`` and ``max`` give that).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tcplab.reporting.plots import mean_ci

if TYPE_CHECKING:
    import polars as pl
    from rich.console import Console

__all__ = ["FLOW_METRICS", "LINK_METRICS", "print_seeds", "seed_stats"]

#: Per-flow summary keys summarised over the seeds (docs/outputs.md, "summary.json").
FLOW_METRICS = ("goodput_bps", "efficiency", "retransmits", "timeouts")
#: Per-link summary keys summarised over the seeds.
LINK_METRICS = ("steady_utilization", "drops", "steady_mean_queue_delay_s")


def seed_stats(summaries: Sequence[dict[str, Any]]) -> pl.DataFrame:
    """One row per (``kind`` = flow | link, ``name``, ``metric``): ``n`` (seeds with a
    value), ``mean``, ``std``, ``ci95`` (null when n < 2), ``min``, ``max``; flows and links in
    the order of the first summary."""
    import polars as pl

    rows: list[dict[str, Any]] = []
    for kind, key, metrics in (("flow", "flows", FLOW_METRICS), ("link", "links", LINK_METRICS)):
        names: list[str] = []
        values: dict[tuple[str, str], list[float]] = {}
        for s in summaries:
            for entry in s.get(key) or []:
                name = str(entry.get("name"))
                if name not in names:
                    names.append(name)
                for m in metrics:
                    v = entry.get(m)
                    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
                        values.setdefault((name, m), []).append(float(v))
        for name in names:
            for m in metrics:
                vals = values.get((name, m))
                if not vals:
                    continue
                n = len(vals)
                mean, std, ci = mean_ci(vals)
                rows.append({"kind": kind, "name": name, "metric": m, "n": n, "mean": mean, "std": std,
                             "ci95": ci, "min": min(vals), "max": max(vals)})
    return pl.DataFrame(rows, schema={"kind": pl.String, "name": pl.String, "metric": pl.String, "n": pl.Int64,
                                      "mean": pl.Float64, "std": pl.Float64, "ci95": pl.Float64,
                                      "min": pl.Float64, "max": pl.Float64})


def _cell(row: dict[str, Any] | None, fmt: Any) -> str:
    if row is None:
        return "-"
    text = fmt(row["mean"])
    if row["ci95"] is not None:
        text += f" ± {fmt(row['ci95']).strip()}"
    return text


def print_seeds(stats: pl.DataFrame, seeds: Sequence[int], console: Console) -> None:
    """The flows' and links' tables: mean ± 95 % interval over the seeds."""
    from rich import box
    from rich.table import Table

    from tcplab.reporting.report import fmt_pct, fmt_rate, fmt_seconds

    def count(v: float) -> str:
        return f"{v:.1f}"

    by = {(r["kind"], r["name"], r["metric"]): r for r in stats.iter_rows(named=True)}
    n = len(seeds)
    shown = ", ".join(str(s) for s in seeds[:6]) + (f", … {seeds[-1]}" if n > 6 else "")
    for kind, metrics, title in (
        ("flow", (("goodput_bps", "goodput", fmt_rate), ("efficiency", "efficiency", fmt_pct),
                  ("retransmits", "retransmits", count), ("timeouts", "timeouts", count)), "Flows"),
        ("link", (("steady_utilization", "utilization (steady)", fmt_pct), ("drops", "drops", count),
                  ("steady_mean_queue_delay_s", "mean queue delay (steady)", fmt_seconds)), "Links"),
    ):  # fmt: skip
        names = stats.filter(stats["kind"] == kind)["name"].unique(maintain_order=True).to_list()
        hidden = 0
        if kind == "link":  # the links that carried a load or dropped, as the sweep table picks them
            busy = [x for x in names if (by.get(("link", x, "steady_utilization")) or {}).get("max", 0.0) >= 0.5
                    or (by.get(("link", x, "drops")) or {}).get("max", 0.0) > 0]
            hidden, names = len(names) - len(busy), busy
        if not names:
            continue
        table = Table(box=box.SIMPLE_HEAD, title=f"{title}: mean ± 95 % interval over {n} seeds ({shown})",
                      title_justify="left")
        if hidden:
            table.caption = (f"{hidden} more links below 50 % utilization without drops in every seed "
                             "(all in seeds.parquet)")
            table.caption_justify = "left"
        table.add_column(kind, no_wrap=True)
        for _, label, _ in metrics:
            table.add_column(label, justify="right", no_wrap=True)
        for name in names:
            table.add_row(name, *[_cell(by.get((kind, name, m)), fmt) for m, _, fmt in metrics])
        console.print(table)

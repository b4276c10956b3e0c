"""Terminal report of a run (rich tables), including the closed-form comparison.

Disagreements are never hidden: when the simulated steady-state efficiency differs from
the closed form by more than :data:`DISAGREEMENT_PP` percentage points, a red line says
so, and a queue peak above the Theorem 2 bound is flagged too.
"""

from __future__ import annotations

import re
import statistics
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

__all__ = ["analysis_table", "print_run", "fmt_rate", "fmt_pct", "DISAGREEMENT"]

#: |simulated − analytic| above this (a fraction; 0.03 = 3 percentage points) is reported.
DISAGREEMENT = 0.03
#: Flows (links) printed in full; beyond it the tables show the :data:`TABLE_EDGE` best and
#: worst flows (the links that dropped or lost most, then the busiest) and count the rest.
TABLE_FLOWS = 20
TABLE_LINKS = 20
TABLE_EDGE = 10
#: Warnings of one kind (the same text but for flow names and numbers) printed one by one;
#: more are printed as one line with a count and the first names.
WARNINGS_EACH = 3


def fmt_rate(bps: float | None) -> str:
    """``95722.3`` → ``"95.72 kb/s"``, ``5e6`` → ``"5 Mb/s"`` (4 significant digits,
    decimal prefixes as rates in scenarios)."""
    if bps is None:
        return "–"
    for div, unit in ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")):
        if abs(bps) >= div:
            return f"{bps / div:.4g} {unit}"
    return f"{bps:.0f} b/s"


def fmt_pct(x: float | None, digits: int = 1) -> str:
    """``0.9834`` → ``"98.3%"``."""
    return "–" if x is None else f"{x * 100:.{digits}f}%"


def _pp(diff: float | None) -> str:
    if diff is None:
        return "–"
    v = round(diff * 100, 1)
    return f"{v + 0.0:+.1f}"  # + 0.0 turns -0.0 into 0.0


def _num(x: Any) -> str:
    if x is None:
        return "–"
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return f"{x:g}" if isinstance(x, float) else str(x)


def _bounded_queue(row: dict[str, Any]) -> tuple[Any, str]:
    """The simulated queue Theorem 2 is compared with, and what it counts.

    Theorem 2 bounds data segments; the core reports ``max_data_queue`` (data segments
    queued or in transmission) and, older cores only, ``max_queue`` (every packet).
    """
    if row.get("max_data_queue") is not None:
        return row["max_data_queue"], "data segments"
    return row.get("max_queue"), "packets of every kind, data and acks"


def analysis_table(summary: dict[str, Any]) -> Table:
    """The closed-form comparison: one row per analysed flow.

    Columns: flow, role, the paper's claim, the analytic efficiency (Theorem 1), the
    simulated steady-state mean, their difference in percentage points, and the peak
    data queue at the flow's sending host against the Theorem 2 bound. Differences larger than
    :data:`DISAGREEMENT` and queues above the bound are shown in red.
    """
    analysis = summary.get("analysis") or {}
    table = Table(box=box.SIMPLE_HEAD, title=f"Closed form vs simulation: {analysis.get('reference') or analysis.get('model') or 'analysis'}", title_justify="left")
    rows = analysis.get("rows") or []
    counts = {_bounded_queue(r)[1] for r in rows} or {"data segments"}
    table.caption = (
        "analytic: Theorem 1 efficiency; simulated: steady-state mean; difference in percentage "
        f"points; max queue: peak {' / '.join(sorted(counts))} queued or in transmission at the flow's "
        "sending host during the steady-state window, vs the Theorem 2 bound"
    )
    table.caption_justify = "left"
    table.add_column("flow", no_wrap=True)
    table.add_column("role", no_wrap=True)
    table.add_column("paper\nclaim", justify="right", no_wrap=True)
    table.add_column("analytic\n(Thm 1)", justify="right", no_wrap=True)
    table.add_column("simulated\n(steady)", justify="right", no_wrap=True)
    table.add_column("difference\n(points)", justify="right", no_wrap=True)
    table.add_column("max queue\nvs Thm 2", justify="right", no_wrap=True)
    for row in rows:
        diff = row.get("difference")
        diff_text = Text(_pp(diff), style="bold red" if diff is not None and abs(diff) > DISAGREEMENT else "")
        (mq, _), bound = _bounded_queue(row), row.get("q_max_bound")
        over = mq is not None and bound is not None and mq > bound
        q_text = Text(f"{_num(mq)} {'>' if over else '≤'} {_num(bound)}" if mq is not None and bound is not None else "–", style="bold red" if over else "")
        table.add_row(
            str(row.get("flow")),
            str(row.get("role") or ""),
            fmt_pct(row.get("paper")),
            fmt_pct(row.get("analytic")),
            fmt_pct(row.get("simulated")),
            diff_text,
            q_text,
        )
    return table


def fmt_seconds(x: float | None) -> str:
    """``0.0947`` → ``"94.7 ms"``, ``4.3e-5`` → ``"43 µs"`` (3 significant digits)."""
    if x is None:
        return "–"
    if x == 0:
        return "0"
    for mul, unit in ((1.0, "s"), (1e3, "ms"), (1e6, "µs")):
        if abs(x) * mul >= 1 or unit == "µs":
            return f"{x * mul:.3g} {unit}"
    return "–"  # pragma: no cover


def _with_steady(total: Any, steady: Any) -> str:
    """``"14 (0)"``: a whole-run count and, when the core reports it, the steady-state part."""
    return _num(total) if steady is None else f"{_num(total)} ({_num(steady)})"


def _flows_table(summary: dict[str, Any]) -> Table:
    steady = (summary.get("run") or {}).get("steady_start_s")
    flows = summary.get("flows") or []
    split = any("steady_retransmits" in f or "steady_timeouts" in f for f in flows)
    caption = "retransmits and timeouts: whole run (steady-state window in parentheses)" if split else None
    table = Table(box=box.SIMPLE_HEAD, title=f"Flows (rates averaged over t ≥ {_num(steady)} s)", title_justify="left", caption=caption, caption_justify="left")
    delay = any("mean_delay_s" in f for f in flows)
    cols = [("flow", "left"), ("cc", "left"), ("goodput", "right"), ("through-\nput", "right"), ("effi-\nciency", "right"), ("of\nlink", "left"), ("retrans-\nmits", "right"), ("time-\nouts", "right")]
    if delay:
        cols.append(("one-way delay\nmean (p99)", "right"))
    for col, j in cols:
        table.add_column(col, justify=j, no_wrap=True)  # type: ignore[arg-type]
    shown: list[dict[str, Any] | None] = list(flows)
    if len(flows) > TABLE_FLOWS:
        # Many flows: the best and the worst by goodput, the rest counted (all of them are in
        # summary.json and intervals.parquet).
        by_gp = sorted(flows, key=lambda f: -(f.get("goodput_bps") or 0.0))
        shown = [*by_gp[:TABLE_EDGE], None, *by_gp[-TABLE_EDGE:]]
        gps = [float(f.get("goodput_bps") or 0.0) for f in flows]
        table.caption = (
            f"{len(flows)} flows: the {TABLE_EDGE} highest and {TABLE_EDGE} lowest goodputs; goodput min {fmt_rate(min(gps))}, "
            f"median {fmt_rate(statistics.median(gps))}, max {fmt_rate(max(gps))}; every flow in summary.json and intervals.parquet"
            + (f"\n{caption}" if caption else "")
        )
    for f in shown:
        if f is None:
            table.add_row(f"… {len(flows) - 2 * TABLE_EDGE} more", *[""] * (len(cols) - 1))
            continue
        cells = [
            str(f.get("name")),
            str(f.get("cc")) if f.get("transport") != "udp" else f"udp, loss {fmt_pct(f.get('loss_fraction'))}",
            fmt_rate(f.get("goodput_bps")),
            fmt_rate(f.get("throughput_bps")),
            fmt_pct(f.get("efficiency")),
            str(f.get("efficiency_link") or ""),
            _with_steady(f.get("retransmits"), f.get("steady_retransmits")),
            _with_steady(f.get("timeouts"), f.get("steady_timeouts")),
        ]
        if delay:
            cells.append(f"{fmt_seconds(f.get('mean_delay_s'))} ({fmt_seconds(f.get('p99_delay_s'))})")
        table.add_row(*cells)
    return table


def fct_table(summary: dict[str, Any]) -> Table | None:
    """Flow completion times by size bucket (``summary["fct"]``): per workload when the run
    has workloads, else over every finite transfer; None when it had none."""
    fct = summary.get("fct")
    if not fct:
        return None
    blocks = [(name, b) for name, b in sorted((fct.get("workloads") or {}).items())] or [("all", fct)]
    table = Table(box=box.SIMPLE_HEAD, title="Flow completion times (slowdown = FCT / FCT alone on the path)",
                  title_justify="left", caption="every flow in fct.parquet; buckets: metrics.fct_buckets",
                  caption_justify="left")
    for col, j in [("workload", "left"), ("size", "left"), ("flows", "right"), ("done", "right"),
                   ("slowdown\np50", "right"), ("p95", "right"), ("p99", "right"), ("FCT\np50", "right"), ("p99", "right")]:
        table.add_column(col, justify=j, no_wrap=True)  # type: ignore[arg-type]

    def num(x: float | None) -> str:
        return "–" if x is None else f"{x:.3g}"

    for name, b in blocks:
        for row in [*[r for r in b.get("buckets") or [] if r.get("flows")], {**b, "bucket": "all"}]:
            table.add_row(name, str(row.get("bucket")), _num(row.get("flows")), fmt_pct(row.get("completed_share")),
                          num(row.get("slowdown_p50")), num(row.get("slowdown_p95")), num(row.get("slowdown_p99")),
                          fmt_seconds(row.get("fct_p50_s")), fmt_seconds(row.get("fct_p99_s")))
            name = ""
    return table


def _links_table(summary: dict[str, Any]) -> Table:
    links = summary.get("links") or []
    split = any("steady_max_queue" in ln for ln in links)
    data = any("max_data_queue" in ln for ln in links)
    what = "max queue: peak packets queued or in transmission, all (data and acks)" + (" and data only" if data else "")
    caption = f"{what};\nwhole run (steady-state window in parentheses)" if split else what
    table = Table(box=box.SIMPLE_HEAD, title="Links", title_justify="left", caption=caption, caption_justify="left")
    # The steady-state utilisation, when the steady window is not the whole run.
    steady = ((summary.get("run") or {}).get("steady_start_s") or 0) > 0 and any("steady_utilization" in ln for ln in links)
    util = ("utili-\nzation", "right")
    cols = [("link", "left"), ("from→to", "left"), ("rate", "right"), util, ("drops", "right"), ("lost", "right"), ("max queue\n(all)", "right")]
    if data:
        cols.append(("max queue\n(data)", "right"))
    qdelay = any("steady_mean_queue_delay_s" in ln for ln in links)
    if qdelay:
        # Packets waiting (not in transmission), steady-state window; docs/outputs.md.
        cols.append(("steady mean\nqueue (delay)", "right"))
    if steady:
        caption = caption.replace(";\nwhole run", ";\nutilization and max queue: whole run") if split else caption + "; utilization: whole run (steady-state window in parentheses)"
        table.caption = caption
    for col, j in cols:
        table.add_column(col, justify=j, no_wrap=True)  # type: ignore[arg-type]
    shown: list[dict[str, Any] | None] = list(links)
    if len(links) > TABLE_LINKS:
        # Many link directions: those that dropped or lost most, then the busiest.
        worst = sorted(links, key=lambda ln: (-((ln.get("drops") or 0) + (ln.get("lost") or 0)), -(ln.get("utilization") or 0.0)))
        shown = [*worst[:TABLE_LINKS], None]
        table.caption = f"{len(links)} link directions: the {TABLE_LINKS} that dropped or lost most, then the busiest; every one in summary.json\n{table.caption}"
    for ln in shown:
        if ln is None:
            table.add_row(f"… {len(links) - TABLE_LINKS} more", *[""] * (len(cols) - 1))
            continue
        u = fmt_pct(ln.get("utilization"))
        cells = [
            str(ln.get("name")),
            f"{ln.get('from')}→{ln.get('to')}",
            fmt_rate(ln.get("rate_bps")),
            f"{u} ({fmt_pct(ln.get('steady_utilization'))})" if steady else u,
            _num(ln.get("drops")),
            _num(ln.get("lost")),
            _with_steady(ln.get("max_queue"), ln.get("steady_max_queue")),
        ]
        if data:
            cells.append(_with_steady(ln.get("max_data_queue"), ln.get("steady_max_data_queue")))
        if qdelay:
            mq = ln.get("steady_mean_queue_packets")
            cells.append("–" if mq is None else f"{mq:.3g} ({fmt_seconds(ln.get('steady_mean_queue_delay_s'))})")
        table.add_row(*cells)
    return table


def disagreements(summary: dict[str, Any]) -> list[str]:
    """Plain-text lines for each analysed flow whose simulated efficiency differs from the
    closed form by more than :data:`DISAGREEMENT`, and each queue above its bound."""
    out: list[str] = []
    analysis = summary.get("analysis") or {}
    for row in analysis.get("rows") or []:
        diff = row.get("difference")
        if diff is not None and abs(diff) > DISAGREEMENT:
            out.append(
                f"{row.get('flow')}: simulated ({fmt_pct(row.get('simulated'))}) and closed form "
                f"({fmt_pct(row.get('analytic'))}) disagree by {abs(diff) * 100:.1f} percentage points"
            )
        (mq, what), bound = _bounded_queue(row), row.get("q_max_bound")
        if mq is not None and bound is not None and mq > bound:
            out.append(
                f"{row.get('flow')}: peak queue of {_num(mq)} {what} exceeds the Theorem 2 bound {_num(bound)}"
            )
    return out


def fairness_line(summary: dict[str, Any]) -> str | None:
    """``Jain's fairness index 0.640 (4 TCP flows; group a: 0.98 of 2)``, or None when the
    summary has no index (fewer than two TCP flows and no groups)."""
    fair = summary.get("fairness") or {}
    groups = fair.get("groups") or {}
    jain, n = fair.get("jain"), fair.get("flows") or 0
    if (jain is None or n < 2) and not groups:
        return None
    steady = (summary.get("run") or {}).get("steady_start_s")
    parts = [f"Jain's fairness index of steady-state goodput (t ≥ {_num(steady)} s): " + (f"{jain:.3f} over {n} TCP flows" if jain is not None else "–")]
    for name, g in groups.items():
        gj = g.get("jain")
        parts.append(f"group {name}: {'–' if gj is None else f'{gj:.3f}'} over {g.get('flows')}")
    return "; ".join(parts)


def print_run(summary: dict[str, Any], console: Console | None = None, warnings_to: Console | None = None) -> None:
    """Print the per-flow and per-link tables, the closed-form comparison (when present)
    with the paper's words, disagreements in red and the core's warnings in yellow (on
    ``warnings_to`` when given, as the CLI does with standard error; else with the rest)."""
    console = console or Console()
    warnings_to = warnings_to or console
    run = summary.get("run") or {}
    head = f"[bold]{summary.get('scenario') or 'scenario'}[/bold]  seed {summary.get('seed')}"
    if run:
        head += (
            f"  ·  {_num(run.get('sim_seconds'))} simulated s, {run.get('events', 0):,} events"
            f" in {run.get('wall_seconds', 0.0):.2f} wall s  ·  {_num(run.get('packets_dropped'))} packets dropped or lost"
        )
    console.print(head, highlight=False)
    if summary.get("flows") or not summary.get("fct"):
        console.print(_flows_table(summary))
    fct = fct_table(summary)
    if fct is not None:
        console.print(fct)
    fair = fairness_line(summary)
    if fair:
        console.print(fair, highlight=False)
    console.print(_links_table(summary))
    analysis = summary.get("analysis")
    if analysis:
        console.print(analysis_table(summary))
        note = analysis.get("paper_note")
        if note:
            console.print(Text(f"Paper: {note}", style="italic"))
        for line in disagreements(summary):
            console.print(Text(line, style="bold red"))
    for w in warning_lines(summary.get("warnings") or []):
        warnings_to.print(Text(f"warning: {w}", style="yellow"))


# A quoted name ('f1'): the quotes stand apart from words, so that the apostrophes of
# "the flows' tie order" or "a link's rate" are not taken for quotes.
_QUOTED = re.compile(r"(?<!\w)'([^'\s][^']*?)'(?!\w)")


def _warning_kind(w: str) -> str:
    """A warning's text with quoted names ('f1') and numbers blanked: one kind per message."""
    return re.sub(r"\d+(\.\d+)?", "#", _QUOTED.sub("''", w))


def warning_lines(warnings: list[str]) -> list[str]:
    """The warnings to print: each kind's first :data:`WARNINGS_EACH` in full, the rest of
    that kind as one line with their count and the first names (summary.json keeps all)."""
    kinds: dict[str, list[str]] = {}
    for w in warnings:
        kinds.setdefault(_warning_kind(w), []).append(w)
    out: list[str] = []
    for same in kinds.values():
        out += same[:WARNINGS_EACH]
        rest = same[WARNINGS_EACH:]
        if rest:
            names = [m.group(1) for w in rest if (m := _QUOTED.search(w))]
            listed = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            out.append(f"{len(rest)} more like the one above{': ' + listed if names else ''} (all in summary.json)")
    return out

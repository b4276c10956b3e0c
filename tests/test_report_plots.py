"""The terminal report and the figures."""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Any

import matplotlib
import polars as pl
import pytest
from rich.console import Console

import tcplab
from conftest import FIG2_3, SHORT_OVERRIDES
from tcplab import Result, Scenario
from tcplab.reporting.plots import plot_cwnd, plot_efficiency, plot_queue
from tcplab.reporting.report import analysis_table, disagreements, fmt_pct, fmt_rate, fmt_seconds, print_run


@pytest.fixture(scope="module")
def result() -> Result:
    sc = Scenario.from_toml(FIG2_3).with_overrides({**SHORT_OVERRIDES, "metrics.trace": "1s"})
    return tcplab.run(sc, progress=False)


def _render(summary: dict[str, Any]) -> str:
    buf = io.StringIO()
    print_run(summary, Console(file=buf, width=120, color_system=None))
    return buf.getvalue()


def _with_rows(summary: dict[str, Any], **changes: Any) -> dict[str, Any]:
    s = copy.deepcopy(summary)
    for row in s["analysis"]["rows"]:
        row.update(changes)
    return s


def test_formatting_helpers() -> None:
    assert fmt_rate(95722.3) == "95.72 kb/s"
    assert fmt_rate(5e6) == "5 Mb/s"
    assert fmt_rate(2.4e9) == "2.4 Gb/s"
    assert fmt_rate(12) == "12 b/s"
    assert fmt_rate(None) == "–"
    assert fmt_pct(0.9834) == "98.3%"


def test_print_run_tables(result: Result) -> None:
    text = _render(result.summary)
    for word in ("Flows", "Links", "Closed form vs simulation", "slow", "fast", "reno", "Theorem 1", "Paper:"):
        assert word in text, word
    for w in result.summary["warnings"]:
        assert w[:40] in text.replace("\n", " ")


def test_disagreement_is_printed_in_red(result: Result) -> None:
    s = _with_rows(result.summary, analytic=0.5, simulated=0.55, difference=0.05, max_queue=1, max_data_queue=1, q_max_bound=44.0)
    assert disagreements(s) == [
        "slow: simulated (55.0%) and closed form (50.0%) disagree by 5.0 percentage points",
        "fast: simulated (55.0%) and closed form (50.0%) disagree by 5.0 percentage points",
    ]
    buf = io.StringIO()
    console = Console(file=buf, width=200, force_terminal=True, color_system="standard")
    print_run(s, console)
    red_lines = [ln for ln in buf.getvalue().splitlines() if "disagree by 5.0" in ln]
    assert len(red_lines) == 2 and all("\x1b[1;31m" in ln for ln in red_lines)


def test_agreement_is_quiet(result: Result) -> None:
    s = _with_rows(result.summary, difference=0.02, max_queue=1, max_data_queue=1, q_max_bound=44.0)
    assert disagreements(s) == []
    assert "disagree" not in _render(s)


def test_queue_above_bound_is_flagged(result: Result) -> None:
    # Theorem 2 bounds data segments: the core's max_data_queue is compared when present.
    s = _with_rows(result.summary, difference=0.0, max_queue=88, max_data_queue=45, q_max_bound=44.0)
    lines = disagreements(s)
    assert len(lines) == 2 and all("peak queue of 45 data segments exceeds the Theorem 2 bound 44" in ln for ln in lines)
    s = _with_rows(result.summary, difference=0.0, max_queue=88, max_data_queue=44, q_max_bound=44.0)
    assert disagreements(s) == []
    # Older summaries without max_data_queue fall back to the all-packet count.
    s = _with_rows(result.summary, difference=0.0, max_queue=88, q_max_bound=44.0)
    for row in s["analysis"]["rows"]:
        row.pop("max_data_queue", None)
    lines = disagreements(s)
    assert len(lines) == 2 and all("88 packets of every kind" in ln for ln in lines)


def test_analysis_table_columns(result: Result) -> None:
    t = analysis_table(result.summary)
    headers = [str(c.header).replace("\n", " ") for c in t.columns]
    assert headers[0] == "flow" and headers[1] == "role"
    assert any("Thm 1" in h for h in headers) and any("Thm 2" in h for h in headers)
    assert t.row_count == 2


def test_report_without_analysis_and_with_extra_keys(result: Result) -> None:
    s = copy.deepcopy(result.summary)
    s["analysis"] = None
    s["flows"][0]["max_window_reached_s"] = 12.5  # keys added later must not break anything
    s["future_section"] = {"x": 1}
    text = _render(s)
    assert "Closed form" not in text and "Flows" in text
    Result(s, result.intervals).flows  # noqa: B018


def test_plots_are_pngs(result: Result, tmp_path: Path) -> None:
    backend = matplotlib.get_backend()
    f = plot_efficiency(result, tmp_path / "eff.png")
    plot_cwnd(result, tmp_path / "cwnd.png")
    plot_queue(result, tmp_path / "sub" / "queue.png")
    for name in ("eff.png", "cwnd.png", "sub/queue.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
    assert matplotlib.get_backend() == backend  # no global state touched
    ax = f.axes[0]
    labels = ax.get_legend_handles_labels()[1]
    assert "fast (Theorem 1: 2.0%)" in labels
    assert "slow (Theorem 1: 100.0%)" in labels
    assert any(lbl.startswith("warm-up") for lbl in labels)
    assert ax.get_ylim() == (0.0, 1.05)
    # Identical figures give identical files.
    plot_efficiency(result, tmp_path / "eff2.png")
    assert (tmp_path / "eff.png").read_bytes() == (tmp_path / "eff2.png").read_bytes()


def test_plot_efficiency_in_mbps(result: Result, tmp_path: Path) -> None:
    """mbps=True draws goodput_bps / 1e6 per interval, no closed-form or 100 % lines."""
    ax = plot_efficiency(result, tmp_path / "gp.png", mbps=True).axes[0]
    assert "Mb/s" in ax.get_ylabel()
    labels = ax.get_legend_handles_labels()[1]
    assert not any("Theorem" in lbl for lbl in labels)
    assert not any(ln.get_gid() == "reference-100" for ln in ax.get_lines())
    first = result.summary["flows"][0]["name"]
    want = (result.intervals.filter(pl.col("flow") == first).sort("t_start")["goodput_bps"] / 1e6).to_list()
    assert list(ax.get_lines()[0].get_ydata()) == want
    assert any(f"{result.summary['flows'][0]['goodput_bps'] / 1e6:.3g} Mb/s" in lbl for lbl in labels)
    assert ax.get_ylim()[0] == 0.0 and ax.get_ylim()[1] >= max(want)


def test_plot_efficiency_without_analysis(result: Result, tmp_path: Path) -> None:
    s = copy.deepcopy(result.summary)
    s["analysis"] = None
    f = plot_efficiency(Result(s, result.intervals), tmp_path / "e.svg", title="custom")
    assert f.axes[0].get_title() == "custom"
    assert not any("Theorem" in lbl for lbl in f.axes[0].get_legend_handles_labels()[1])
    assert (tmp_path / "e.svg").exists()


def test_efficiency_legend_names_algorithms_and_is_capped(tmp_path: Path) -> None:
    """Legend entries say what each flow runs; past LEGEND_FLOWS flows the rest are drawn
    but counted in one entry (issue 31: the fat-tree example drew 128 entries off the figure)."""
    import tcplab
    from tcplab.reporting.plots import LEGEND_FLOWS, _flow_label

    sc = tcplab.Scenario.from_dict({
        "duration": "2s", "metrics": {"steady_start": "1s", "interval": "0.5s"},
        "dumbbell": {"bottleneck": {"rate": "20Mbps", "delay": "5ms", "buffer": 100},
                     "access": {"rate": "100Mbps", "delay": "1ms"},
                     "flows": [{"count": 15, "cc": "newreno"}, {"count": 5, "cc": "vegas"}]}})
    res = tcplab.run(sc, progress=False)
    ax = plot_efficiency(res, tmp_path / "many.png").axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    flow_entries = [lbl for lbl in labels if "steady-state mean" in lbl]
    assert len(flow_entries) == LEGEND_FLOWS == 12
    assert all(" newreno (simulated" in lbl for lbl in flow_entries)
    assert labels[-1] == "... and 8 more flows (not in the legend)"
    # Every flow is still drawn: 20 data lines (the count entry draws nothing), and the
    # 100 % line above them.
    data = [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 0 and ln.get_gid() != "reference-100"]
    assert len(data) == 20
    (ref,) = [ln for ln in ax.get_lines() if ln.get_gid() == "reference-100"]
    assert list(ref.get_ydata()) == [1.0, 1.0] and ref.get_zorder() > max(ln.get_zorder() for ln in data)
    res = tcplab.run(sc.with_overrides({"metrics.trace": "0.1s"}), progress=False)
    labels = [t.get_text() for t in plot_cwnd(res, tmp_path / "c.png").axes[0].get_legend().get_texts()]
    assert "f01 newreno cwnd" in labels and labels[-1] == "... and 16 more flows (not in the legend)"
    assert sum(lbl.endswith(" cwnd") for lbl in labels) == LEGEND_FLOWS // 3
    assert _flow_label("f1", "cubic") == "f1 cubic"
    assert _flow_label("cubic_1", "cubic") == "cubic_1" and _flow_label("hs", None) == "hs"


def test_trace_plots_need_traces(result: Result, tmp_path: Path) -> None:
    bare = Result(result.summary, result.intervals)
    with pytest.raises(ValueError, match="metrics.trace"):
        plot_cwnd(bare, tmp_path / "c.png")
    with pytest.raises(ValueError, match="metrics.trace"):
        plot_queue(bare, tmp_path / "q.png")


def test_plot_selection_groups_log_and_idle_links(tmp_path: Path) -> None:
    """Plots select flows/links by name (unknown names are errors naming them), draw one
    panel per flow group, switch to a log window axis when one window dwarfs the others, and
    leave idle link directions out of the queue plot."""
    import polars as pl

    import tcplab
    from tcplab.reporting.plots import _colour, _dash, plot_cwnd, plot_efficiency, plot_queue, plot_sweep

    sc = tcplab.Scenario.from_toml(Path(__file__).resolve().parents[1] / "examples" / "dumbbell.toml").with_overrides(
        {"duration": "20s", "metrics.trace": "0.1s", "flows.f1.group": "loss", "flows.f2.group": "loss"})
    res = tcplab.run(sc, progress=False)
    names = [f["name"] for f in res.summary["flows"]]
    fig = plot_cwnd(res, tmp_path / "c.png", flows=names[:2])
    assert {t.get_text().split(" ")[0] for t in fig.axes[0].get_legend().get_texts()} - {"warm-up,"} == set(names[:2])
    fig = plot_cwnd(res, tmp_path / "g.png", by_group=True)
    assert len(fig.axes) == 2 and "group loss" in fig.axes[0].get_title()
    assert plot_cwnd(res, tmp_path / "l.png", log=True).axes[0].get_yscale() == "log"
    with pytest.raises(ValueError, match="^flows: no flow 'zz'"):
        plot_cwnd(res, tmp_path / "x.png", flows=["zz"])
    with pytest.raises(ValueError, match="^links: no link 'zz'"):
        plot_queue(res, tmp_path / "x.png", links=["zz"])
    fig = plot_queue(res, tmp_path / "q.png")
    drawn = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "bn" in drawn and len(drawn) < len(res.traces["queue"]["link"].unique())
    assert "idle direction" in fig.axes[0].get_legend().get_title().get_text()
    lines = plot_efficiency(res, tmp_path / "e.png", flows=["f1"]).axes[0].get_lines()
    assert [ln.get_gid() for ln in lines] == [None, "reference-100"]  # f1 and the 100 % line
    # 20 distinct colours, then the same colours dashed.
    assert len({_colour(i) for i in range(20)}) == 20 and _dash(0) != _dash(20)
    # Sweep bands clipped at zero for a rate, log axes on request.
    df = pl.DataFrame({"x": [1, 1, 2, 2], "seed": [1, 2, 1, 2], "goodput_bps": [0.0, 10.0, 1.0, 1.0]})
    fig = plot_sweep(df, x="x", y="goodput_bps", log_x=True, path=tmp_path / "s.png")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    band = ax.collections[0].get_paths()[0].vertices
    assert band[:, 1].min() >= 0.0


def test_report_shows_jain_and_steady_utilisation(tmp_path: Path) -> None:
    """Issue 17's newcomer: the 4-flow dumbbell's report names Jain's index and, with a
    steady-state window, the steady utilisation next to the whole-run one; plot titles of an
    unnamed scenario do not start with ': '."""
    toml = (
        'duration = "12s"\nmetrics = { steady_start = "4s", trace = "100ms" }\n[dumbbell]\n'
        'bottleneck = { rate = "10Mbps", delay = "20ms", buffer = "1bdp" }\n'
        'access = { rate = "100Mbps", delay = "1ms" }\nrtt = ["44ms", "44ms", "84ms", "124ms"]\n'
        'flows = ["newreno", "reno", { cc = "vegas", group = "v" }, { cc = "highspeed", name = "hs", group = "v" }]\n'
    )
    (tmp_path / "db.toml").write_text(toml)
    res = tcplab.run(tmp_path / "db.toml", progress=False)
    buf = io.StringIO()
    print_run(res.summary, Console(file=buf, width=1000))
    text = buf.getvalue()
    fair = res.summary["fairness"]
    assert f"Jain's fairness index of steady-state goodput (t ≥ 4 s): {fair['jain']:.3f} over 4 TCP flows" in text
    assert f"group v: {fair['groups']['v']['jain']:.3f} over 2" in text
    bn = next(ln for ln in res.summary["links"] if ln["name"] == "bn")
    assert f"{fmt_pct(bn['utilization'])} ({fmt_pct(bn['steady_utilization'])})" in text
    assert "utilization and max queue: whole run (steady-state window in parentheses)" in text
    # FlowMonitor-style columns (issue 31 §4): each flow's one-way delay, each link's mean queue.
    assert f"{bn['steady_mean_queue_packets']:.3g} ({fmt_seconds(bn['steady_mean_queue_delay_s'])})" in text
    assert bn["steady_mean_queue_packets"] > 1 and bn["steady_mean_queue_delay_s"] > 0
    for f in res.summary["flows"]:
        assert f"{fmt_seconds(f['mean_delay_s'])} ({fmt_seconds(f['p99_delay_s'])})" in text
    assert [fmt_seconds(x) for x in (None, 0.0, 2.5, 0.0947, 4.28e-5)] == ["–", "0", "2.5 s", "94.7 ms", "42.8 µs"]
    for fig in (plot_queue(res, tmp_path / "q.png"), plot_cwnd(res, tmp_path / "c.png")):
        assert fig.axes[0].get_title() in ("queues", "congestion windows")


def test_many_flow_report_shows_the_edges_and_groups_warnings(result: Result) -> None:
    """Issue 31 §5: with many flows the report stays readable and linear: the best and worst
    flows, the busiest links, one line per kind of warning beyond the first few (a generated
    summary of 10 000 flows and 20 002 link directions; rows counted, not timed)."""
    from tcplab.reporting.report import TABLE_EDGE, TABLE_LINKS, WARNINGS_EACH, warning_lines

    base = result.summary
    s = copy.deepcopy(base)
    n = 10_000
    f0, l0 = base["flows"][0], base["links"][0]
    s["flows"] = [{**f0, "name": f"g{i:05d}", "goodput_bps": float(i)} for i in range(n)]
    s["links"] = [{**l0, "name": f"l{i:05d}", "drops": 0, "lost": 0, "utilization": i / (2 * n + 2)} for i in range(2 * n + 2)]
    s["links"][7]["drops"] = 5
    s["analysis"] = None
    s["warnings"] = [f"flow 'g{i:05d}' delivered nothing for {3 + i % 4} consecutive intervals (0-3 s) while its application was running" for i in range(n)]
    s["warnings"].append("an unrelated warning")
    text = _render(s)
    # The 10 highest and 10 lowest goodputs, and one row for the rest.
    shown = [w for ln in text.splitlines() if (w := (ln.split() or [""])[0]).startswith("g0")]
    assert shown == [f"g{i:05d}" for i in range(n - 1, n - 1 - TABLE_EDGE, -1)] + [f"g{i:05d}" for i in range(TABLE_EDGE - 1, -1, -1)]
    flat = " ".join(text.split())
    assert f"… {n - 2 * TABLE_EDGE} more" in text and "median 5 kb/s" in flat
    # The link that dropped first, then the busiest; one row for the rest.
    links = [w for ln in text.splitlines() if (w := (ln.split() or [""])[0]).startswith("l0") or w.startswith("l1") or w.startswith("l2")]
    assert links[0] == "l00007" and links[1] == f"l{2 * n + 1:05d}" and len(links) == TABLE_LINKS
    assert f"… {2 * n + 2 - TABLE_LINKS} more" in text
    # Warnings: the first few of a kind in full, the rest in one line; other kinds kept.
    lines = warning_lines(s["warnings"])
    assert len(lines) == WARNINGS_EACH + 2 and lines[-1] == "an unrelated warning"
    assert lines[WARNINGS_EACH].startswith(f"{n - WARNINGS_EACH} more like the one above: g00003, g00004")
    assert len(text.splitlines()) < 100
    # Few flows: every flow and every warning, as before.
    assert warning_lines(["a 'x' 1", "b"]) == ["a 'x' 1", "b"]
    # Apostrophes are not quotes: the names listed are the quoted ones, and the kind of a
    # warning does not change with the words between apostrophes.
    many = [f"the {i} feeding links' tie order, not the protocols', decides flow 'f{i}'" for i in range(WARNINGS_EACH + 3)]
    lines = warning_lines(many)
    assert len(lines) == WARNINGS_EACH + 1, lines
    assert lines[-1] == f"3 more like the one above: f{WARNINGS_EACH}, f{WARNINGS_EACH + 1}, f{WARNINGS_EACH + 2} (all in summary.json)"


def test_efficiency_plot_of_many_flows_draws_their_distribution(result: Result, tmp_path: Path) -> None:
    """Issue 31 §5: 10 000 flows are drawn as a median line and two bands (artists counted,
    not timed), with the band edges the per-interval quantiles; flows= still draws lines."""
    from tcplab.reporting.plots import PLOT_FLOWS

    n, k = 10_000, 4
    iv = pl.DataFrame(
        {
            "flow": [f"g{i:05d}" for i in range(n) for _ in range(k)],
            "t_start": [float(j) for _ in range(n) for j in range(k)],
            "t_end": [float(j + 1) for _ in range(n) for j in range(k)],
            "efficiency": [(i % 100) / 100 for i in range(n) for _ in range(k)],
            "goodput_bps": [1e4 * (i % 100) for i in range(n) for _ in range(k)],
        }
    )
    s = copy.deepcopy(result.summary)
    s["flows"] = [{"name": f"g{i:05d}", "cc": "reno", "efficiency": (i % 100) / 100} for i in range(n)]
    s["analysis"] = None
    ax = plot_efficiency(Result(s, iv), tmp_path / "many.png").axes[0]
    lines = [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 0]
    assert len(lines) == 2 and lines[0].get_gid() == "median-flow"  # the median and the 100 % line
    assert list(lines[0].get_ydata()) == [0.495] * k  # median of 0.00 ... 0.99
    labels = ax.get_legend_handles_labels()[1]
    assert f"min-max over {n} flows" in labels and "10-90 % of flows" in labels
    assert len(ax.collections) == 2 and n > PLOT_FLOWS
    # Chosen flows are drawn one by one, as before.
    ax = plot_efficiency(Result(s, iv), tmp_path / "two.png", flows=["g00001", "g00002"]).axes[0]
    assert [ln.get_gid() for ln in ax.get_lines()] == [None, None, "reference-100"]

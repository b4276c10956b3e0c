"""The terminal report and the figures."""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Any

import matplotlib
import pytest
from rich.console import Console

import tcplab
from tcplab import Result, Scenario
from tcplab.plots import plot_cwnd, plot_efficiency, plot_queue
from tcplab.report import analysis_table, disagreements, fmt_pct, fmt_rate, print_run

from conftest import FIG2_3, SHORT_OVERRIDES


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


def test_plot_efficiency_without_analysis(result: Result, tmp_path: Path) -> None:
    s = copy.deepcopy(result.summary)
    s["analysis"] = None
    f = plot_efficiency(Result(s, result.intervals), tmp_path / "e.svg", title="custom")
    assert f.axes[0].get_title() == "custom"
    assert not any("Theorem" in lbl for lbl in f.axes[0].get_legend_handles_labels()[1])
    assert (tmp_path / "e.svg").exists()


def test_trace_plots_need_traces(result: Result, tmp_path: Path) -> None:
    bare = Result(result.summary, result.intervals)
    with pytest.raises(ValueError, match="metrics.trace"):
        plot_cwnd(bare, tmp_path / "c.png")
    with pytest.raises(ValueError, match="metrics.trace"):
        plot_queue(bare, tmp_path / "q.png")

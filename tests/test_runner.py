"""Slicing, the progress bar threshold and Ctrl-C handling of tcplab.run."""

from __future__ import annotations

import io
import sys
import types
from typing import Any

import pytest
from rich.console import Console

import tcplab
from conftest import FIG2_3, SHORT_OVERRIDES
from tcplab import _core, runner
from tcplab.scenario import Scenario


class _SlowSim:
    """Wraps the real Simulation, counting slices and optionally failing on one."""

    interrupt_at: int | None = None
    instances: list[_SlowSim] = []

    def __init__(self, text: str, seed: int | None = None) -> None:
        self._sim = _core.Simulation(text, seed)
        self.slices: list[float] = []
        _SlowSim.instances.append(self)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sim, name)

    def advance(self, seconds: float) -> bool:
        self.slices.append(seconds)
        if self.interrupt_at is not None and len(self.slices) >= self.interrupt_at:
            raise KeyboardInterrupt
        return self._sim.advance(seconds)


@pytest.fixture
def slow_core(monkeypatch: pytest.MonkeyPatch) -> type[_SlowSim]:
    fake = types.SimpleNamespace(Simulation=_SlowSim)
    monkeypatch.setattr(runner, "_core", fake)
    _SlowSim.interrupt_at = None
    _SlowSim.instances = []
    return _SlowSim


def _short() -> Scenario:
    return Scenario.from_toml(FIG2_3).with_overrides(SHORT_OVERRIDES)


def test_short_runs_print_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    tcplab.run(_short(), progress=True)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_slices_cover_the_run(slow_core: type[_SlowSim]) -> None:
    res = tcplab.run(_short(), progress=False)
    sim = slow_core.instances[0]
    assert sim.finished
    assert 1 <= len(sim.slices) <= 200
    assert sum(sim.slices) >= 60.0 - 1e-6
    assert res.summary["run"]["sim_seconds"] == 60.0


def test_progress_bar_after_threshold(slow_core: type[_SlowSim], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "PROGRESS_AFTER_S", 0.0)
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=120)
    tcplab.run(_short(), progress=True, console=console)
    text = buf.getvalue()
    assert "sim s" in text and "ev/s" in text and "eta" in text


def test_no_progress_bar_when_disabled(slow_core: type[_SlowSim], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "PROGRESS_AFTER_S", 0.0)
    buf = io.StringIO()
    tcplab.run(_short(), progress=False, console=Console(file=buf, force_terminal=True))
    assert buf.getvalue() == ""


def test_keyboard_interrupt_closes_bar_and_reraises(slow_core: type[_SlowSim], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "PROGRESS_AFTER_S", 0.0)
    slow_core.interrupt_at = 3
    bars: list[Any] = []
    make = runner._progress

    def spy(console: Console | None) -> Any:
        bars.append(make(console))
        return bars[-1]

    monkeypatch.setattr(runner, "_progress", spy)
    stdout = sys.stdout
    with pytest.raises(KeyboardInterrupt):
        tcplab.run(_short(), progress=True, console=Console(file=io.StringIO(), force_terminal=True))
    assert len(bars) == 1
    assert not bars[0].live.is_started  # the bar was stopped before re-raising
    assert sys.stdout is stdout  # and gave back the streams it redirects
    assert len(slow_core.instances[0].slices) == 3


def test_audit_gives_identical_results_and_checks_arguments() -> None:
    """The invariant auditor (docs/reliability.md) changes nothing in the results; bad
    values of `audit` name the argument."""
    sc = tcplab.Scenario.from_toml(str(__import__("pathlib").Path(__file__).parent.parent / "examples" / "dumbbell.toml")).with_overrides({"duration": "4s", "metrics.steady_start": "1s"})
    plain = tcplab.run(sc, progress=False)
    audited = tcplab.run(sc, progress=False, audit=7)
    a, b = dict(plain.summary), dict(audited.summary)
    a["run"] = {k: v for k, v in a["run"].items() if k != "wall_seconds"}
    b["run"] = {k: v for k, v in b["run"].items() if k != "wall_seconds"}
    assert a == b and plain.intervals.equals(audited.intervals)
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(sc, progress=False, audit=-1)
    assert e.value.field == "audit"

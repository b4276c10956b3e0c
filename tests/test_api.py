"""The Python API surface: typing files, the native exception, result frames."""

from __future__ import annotations

import ast
import pickle

import pandas as pd
import polars as pl
import pytest

import tcplab
from conftest import FIG2_3, LOSSY, REPO
from tcplab import _core

PKG = REPO / "python" / "tcplab"


def test_typing_marker_and_stub_match_the_module() -> None:
    assert (PKG / "py.typed").exists()
    stub = ast.parse((PKG / "_core.pyi").read_text())
    top = {n.name for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    top |= {t.id for n in stub.body if isinstance(n, ast.AnnAssign) for t in [n.target] if isinstance(t, ast.Name)}
    public = {n for n in dir(_core) if not n.startswith("_")} | {"__version__"}
    assert public <= top, f"missing from _core.pyi: {public - top}"
    assert {n for n in top if not n.startswith("_")} <= public, "stub names things the module lacks"
    sim = next(n for n in stub.body if isinstance(n, ast.ClassDef) and n.name == "Simulation")
    members = {n.name for n in sim.body if isinstance(n, ast.FunctionDef)}
    assert {m for m in dir(_core.Simulation) if not m.startswith("_")} <= members


def test_scenario_error_is_a_clean_tcplab_class() -> None:
    cls = tcplab.ScenarioError
    assert cls is _core.ScenarioError
    assert (cls.__module__, cls.__name__, cls.__qualname__) == ("tcplab", "ScenarioError", "ScenarioError")
    assert issubclass(cls, ValueError)
    with pytest.raises(tcplab.ScenarioError) as info:
        tcplab.run(tcplab.Scenario.from_toml(FIG2_3).with_overrides({"links.up.rate": "100"}))
    e = info.value
    assert e.field == "links.up.rate" and e.reason.startswith("'100' has no unit")
    assert str(e) == f"links.up.rate: {e.reason}" and e.args == (str(e), e.field, e.reason)
    assert e.file == str(FIG2_3)
    again = pickle.loads(pickle.dumps(e))  # crosses process boundaries (sweeps)
    assert type(again) is cls and again.args == e.args and again.file == e.file
    assert repr(cls("m", "f", "r")) == "ScenarioError('m', 'f', 'r')"
    assert cls("plain").file is None and cls("plain").field == "" and str(cls("plain")) == "plain"


def test_result_frames_are_polars_and_convert_to_pandas() -> None:
    res = tcplab.run(tcplab.Scenario.from_dict(LOSSY).with_overrides({"metrics.trace": "0.5s"}), seed=2, progress=True)
    for df in (res.flows, res.links, res.intervals, res.traces["cwnd"], res.traces["queue"]):
        assert isinstance(df, pl.DataFrame) and df.height > 0
        pdf = df.to_pandas()
        assert isinstance(pdf, pd.DataFrame) and list(pdf.columns) == df.columns and len(pdf) == df.height
    assert res.flows["name"].to_list() == ["bulk"]
    assert set(res.traces) == {"cwnd", "queue"}
    plain = tcplab.run(tcplab.Scenario.from_dict(LOSSY), seed=2, progress=False)
    assert plain.traces == {}
    assert plain.intervals.equals(res.intervals)  # tracing does not change the run


def test_public_names() -> None:
    assert set(tcplab.__all__) >= {"Scenario", "ScenarioError", "Result", "run", "load", "sweep", "load_sweep", "SweepSpec", "SweepResult"}
    for name in tcplab.__all__:
        assert getattr(tcplab, name) is not None

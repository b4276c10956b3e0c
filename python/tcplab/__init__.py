"""tcplab: a fast, deterministic packet-level network simulator for TCP research.

The simulator is written in Rust (``tcplab._core``); this package adds scenario
handling, running with progress, results as polars DataFrames, plots, reports and the
``tcplab`` command line.

>>> import tcplab
>>> sc = tcplab.Scenario.from_toml("scenarios/kalampoukas97/fig2_3.toml")  # doctest: +SKIP
>>> res = tcplab.run(sc.with_overrides({"duration": "60s"}))               # doctest: +SKIP
>>> res.flows.select("name", "efficiency")                                  # doctest: +SKIP
>>> sw = tcplab.sweep("examples/sweep_fig23.toml", "out/sweep_fig23")       # doctest: +SKIP
>>> sw.summary                                                              # doctest: +SKIP
"""

from __future__ import annotations

from tcplab._core import ScenarioError, __version__
from tcplab.builders import dumbbell, fat_tree, parking_lot
from tcplab.results import Result, load
from tcplab.runner import run
from tcplab.scenario import Scenario
from tcplab.sweep import SweepResult, SweepSpec, load_sweep, sweep


def json_schema() -> str:
    """The JSON Schema of scenario files (as text)."""
    from tcplab import _core

    return _core.json_schema()


__all__ = [
    "Result",
    "Scenario",
    "ScenarioError",
    "SweepResult",
    "SweepSpec",
    "__version__",
    "dumbbell",
    "fat_tree",
    "json_schema",
    "load",
    "load_sweep",
    "parking_lot",
    "run",
    "sweep",
]

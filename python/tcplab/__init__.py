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

import importlib
from typing import TYPE_CHECKING, Any

from tcplab._core import ScenarioError, __version__
from tcplab.builders import dumbbell, fat_tree, parking_lot
from tcplab.scenario import Scenario

if TYPE_CHECKING:
    from tcplab.results import Result, load
    from tcplab.runner import ThreadsWarning, run
    from tcplab.sweeps import SweepResult, SweepSpec, load_sweep, sweep

# The names below come from modules that import polars (about 0.3 s): they are imported on
# first use (PEP 562), so that `import tcplab` and the commands that need none of them
# (`tcplab --help`, `validate`, `list`, `expand`) do not pay for it. `tcplab.sweep` is the
# function; its subpackage is `tcplab.sweeps` (no submodule shares a lazy name's name, so
# importing one never replaces the attribute).
_LAZY = {
    "Result": "tcplab.results",
    "load": "tcplab.results",
    "run": "tcplab.runner",
    "ThreadsWarning": "tcplab.runner",
    "SweepResult": "tcplab.sweeps",
    "SweepSpec": "tcplab.sweeps",
    "load_sweep": "tcplab.sweeps",
    "sweep": "tcplab.sweeps",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
    "ThreadsWarning",
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

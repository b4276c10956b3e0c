"""tcplab: a fast, deterministic packet-level network simulator for TCP research."""

from tcplab._core import ScenarioError, __version__

__all__ = ["ScenarioError", "__version__"]

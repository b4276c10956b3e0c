"""Type stubs for ``tcplab._core``, the Rust simulator (crates/tcplab-py/src/lib.rs).

Use the :mod:`tcplab` package rather than this module directly; it is private and may
change between versions.
"""

from typing import Final, TypedDict, final

__version__: Final[str]

class ScenarioError(ValueError):
    """A scenario field is invalid.

    ``args`` is ``(message, field, reason)``; ``str(err)`` is the message
    (``"field: reason"``). Raised by the core and by the package (unreadable files, bad
    overrides, bad sweep specs).
    """

    #: The scenario file, when known (set by the package), else None.
    file: str | None
    @property
    def field(self) -> str:
        """Dotted path of the offending field (``""`` for file and syntax errors)."""
    @property
    def reason(self) -> str:
        """What is wrong with the field."""

def validate_json(text: str) -> None:
    """Check a scenario given as JSON text; raises :class:`ScenarioError`."""

def validate_toml(text: str) -> None:
    """Check a scenario given as TOML text; raises :class:`ScenarioError`."""

def json_schema() -> str:
    """JSON Schema of scenario files (as text)."""

class _IntervalColumns(TypedDict):
    flow: list[str]
    t_start: list[float]
    t_end: list[float]
    goodput_bps: list[float]
    throughput_bps: list[float]
    efficiency: list[float]
    cwnd_bytes: list[int]
    srtt_s: list[float]

class _CwndTraceColumns(TypedDict):
    flow: list[str]
    t: list[float]
    cwnd_bytes: list[int]
    ssthresh_bytes: list[int]
    in_flight_bytes: list[int]

class _QueueTraceColumns(TypedDict):
    link: list[str]
    t: list[float]
    packets: list[int]
    bytes: list[int]

class _RawResults(TypedDict):
    """What :meth:`Simulation.results` returns (turn it into a ``tcplab.Result`` with
    ``tcplab.Result.from_core``)."""

    summary: str  # summary.json text
    intervals: _IntervalColumns
    cwnd_trace: _CwndTraceColumns
    queue_trace: _QueueTraceColumns

@final
class Simulation:
    """A built simulation that runs in slices of simulated time.

    Not thread-safe: use each instance from the thread that created it.
    """

    def __new__(cls, scenario_json: str, seed: int | None = None) -> Simulation:
        """Build from scenario JSON text; ``seed`` (in [0, 2^64)) replaces the scenario's.

        Raises :class:`ScenarioError` for an invalid scenario.
        """
    @property
    def duration(self) -> float:
        """Simulated seconds the run lasts."""
    @property
    def now(self) -> float:
        """Current simulated time in seconds."""
    @property
    def finished(self) -> bool:
        """Whether the run has reached its duration."""
    @property
    def events(self) -> int:
        """Events processed so far."""
    def advance(self, seconds: float) -> bool:
        """Advance by ``seconds`` (> 0) of simulated time with the GIL released; returns
        whether the run has finished. Raises ValueError for a non-positive step."""
    def results(self) -> _RawResults:
        """Summary (JSON text), interval columns and trace columns of a finished run.
        Raises ValueError when the run has not finished."""

__all__ = ["ScenarioError", "validate_json", "validate_toml", "json_schema", "Simulation", "__version__"]

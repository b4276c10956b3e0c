"""Type stubs for ``tcplab._core``, the Rust simulator (crates/tcplab-py/src/lib.rs).

Use the :mod:`tcplab` package rather than this module directly; it is private and may
change between versions.
"""

from typing import Any, Final, TypedDict, final

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

def expand_json(text: str) -> str:
    """The plain scenario a scenario (JSON text) expands to, as JSON text with sorted keys
    (builders, duplex links and defaults replaced by what they generate); validated; raises
    :class:`ScenarioError`."""

def json_schema() -> str:
    """JSON Schema of scenario files (as text)."""

class _ColumnDef(TypedDict):
    """One column of the core's registry."""

    name: str
    type: str  # "f64", "u64", "u32" or "str"
    unit: str
    doc: str

def zhang_model(name: str, args: list[float]) -> float:
    """Seed 003's closed forms by name (use :mod:`tcplab.analysis`)."""

def columns() -> dict[str, list[_ColumnDef]]:
    """The column registry: table name (``intervals``, ``cwnd_trace``, ``queue_trace``,
    ``cwnd_events``, ``packet_events``) → its columns in order."""

# Column name -> values, the names and types of columns() (the cwnd trace adds cc_<name>
# float columns from the congestion-control trace hook).
_Columns = dict[str, list[Any]]

class _PcapLogColumns(TypedDict):
    """The packets one capture recorded, as the simulation had them (``pcap_log=True``)."""

    t_ns: list[int]  # start of transmission, ns (the pcap record time)
    flow: list[str]
    kind: list[str]  # "data" or "ack"
    seq: list[int]  # data: first payload byte (simulated, from 0)
    ack: list[int]  # ack: next byte expected
    len: list[int]  # payload bytes
    size: list[int]  # simulated on-the-wire size
    flags: list[int]  # tcplab_core::net::packet::flags bits
    ts_ns: list[int]  # data: send time; ack: the echoed send time
    rx_ns: list[int]  # ack: when the acknowledged segment arrived

class _RawResults(TypedDict, total=False):
    """What :meth:`Simulation.results` returns (turn it into a ``tcplab.Result`` with
    ``tcplab.Result.from_core``). The column lists are absent with ``lists=False``."""

    summary: str  # summary.json text
    parquet: dict[str, bytes]  # intervals, cwnd_trace, queue_trace, probes, events: file bytes
    rows: dict[str, int]  # row count of each of those tables
    probes: _Columns
    intervals: _Columns
    cwnd_trace: _Columns
    queue_trace: _Columns
    cwnd_events: _Columns  # empty unless metrics.events has "cwnd"
    packet_events: _Columns  # empty unless metrics.events has "drop", "loss" or "mark"
    pcap_log: dict[str, _PcapLogColumns]  # per captured link; empty without pcap_log=True

@final
class Simulation:
    """A built simulation that runs in slices of simulated time.

    Not thread-safe: use each instance from the thread that created it.
    """

    def __new__(
        cls,
        scenario_json: str,
        seed: int | None = None,
        pcap_dir: str | None = None,
        pcap_log: bool = False,
        audit: int = 0,
        max_memory: int | None = None,
        threads: int | None = None,
    ) -> Simulation:
        """Build from scenario JSON text; ``seed`` (in [0, 2^64)) replaces the scenario's.

        Creates the files of ``links.*.pcap`` (paths relative to ``pcap_dir``, default the
        current directory, and inside it). ``pcap_log`` also keeps every captured packet in
        memory for ``results()["pcap_log"]`` (a test and debugging aid). ``audit`` > 0
        checks the engine's invariants every ``audit`` events. ``max_memory`` (bytes)
        bounds the built scenario's estimated memory (default: half the available memory).
        ``threads`` (default: the scenario's ``threads``, else 1) splits the run over that
        many threads with bit-identical results (docs/scaling.md).

        Raises :class:`ScenarioError` for an invalid scenario, a pcap file that cannot
        be created (field ``links.NAME.pcap``) or a split the parallel engine refuses
        (field ``threads``).
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
        """Events processed so far (a parallel run: every partition's until it ends, the
        shared interval and trace events counted once per partition)."""
    @property
    def threads(self) -> int:
        """Threads the run uses (1: the sequential engine)."""
    def advance(self, seconds: float) -> bool:
        """Advance by ``seconds`` (> 0) of simulated time with the GIL released; returns
        whether the run has finished. Raises ValueError for a non-positive step."""
    def results(self, lists: bool = True) -> _RawResults:
        """Summary (JSON text), every result table of a finished run as column lists
        (unless ``lists`` is false) and the Parquet file of each table a run writes.
        Raises ValueError when the run has not finished."""

__all__ = ["ScenarioError", "validate_json", "validate_toml", "json_schema", "columns", "Simulation", "__version__"]

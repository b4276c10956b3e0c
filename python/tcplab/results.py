"""Run results: the summary dict plus polars DataFrames, and their files on disk.

A results directory holds (see ``docs/outputs.md``)::

    summary.json          run, per-flow and per-link numbers, analysis, warnings
    intervals.parquet     per flow and interval: goodput, throughput, efficiency, cwnd, srtt
    cwnd_trace.parquet    sampled cwnd / ssthresh / in-flight (only when metrics.trace is set)
    queue_trace.parquet   sampled queue lengths per link (only when metrics.trace is set)
    probes.parquet        every echo of the echo = true UDP flows: round trip, one-way delay
    fct.parquet           every round of every finite transfer (transfer flows, workloads):
                          size, start, end, FCT, ideal FCT, slowdown (only when there are any)
    events.parquet        cwnd changes, drops, losses, marks (only when metrics.events recorded any)
    *.pcap                packet traces of links.NAME.pcap (relative paths live here)

Column names and types come from the core's column registry (``tcplab._core.columns()``),
where each column is declared once; this module lists none of them.

Every file is a function of (scenario, seed) except ``summary.json``'s
``run.wall_seconds``. Parquet files are written with fixed settings, so identical data
gives identical bytes. A run's tables arrive from the core as Parquet bytes (written in
Rust, ``crates/tcplab-py/src/parquet_out.rs``) and are saved as they are; polars parses
them only when a frame is asked for, so ``tcplab run`` never imports it (issue 31 §5).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab import _core
from tcplab.fileio import PARQUET_OPTIONS, copy_file, remove_stale_temporaries, write_bytes, write_parquet, write_text

if TYPE_CHECKING:
    import polars as pl

# The schemas come from the module's __getattr__ (built on first use).
__all__ = ["Result", "load", "pcap_files", "INTERVAL_SCHEMA", "TRACE_SCHEMAS", "EVENT_SCHEMA", "COLUMN_DOCS"]  # noqa: F822

_REGISTRY: dict[str, list[dict[str, str]]] = _core.columns()


def _schema(table: str) -> dict[str, pl.DataType]:
    import polars as pl

    types = {"f64": pl.Float64(), "u64": pl.UInt64(), "u32": pl.UInt32(), "str": pl.String()}
    return {c["name"]: types[c["type"]] for c in _REGISTRY[table]}


#: Per table (``intervals``, ``cwnd_trace``, ``queue_trace``, ``cwnd_events``,
#: ``packet_events``): column name → (unit, description), from the core's registry.
COLUMN_DOCS: dict[str, dict[str, tuple[str, str]]] = {
    t: {c["name"]: (c["unit"], c["doc"]) for c in cols} for t, cols in _REGISTRY.items()
}

def __getattr__(name: str) -> Any:
    # The polars schemas, built on first use (PEP 562) so that importing this module does
    # not import polars:
    # INTERVAL_SCHEMA: column types of ``intervals.parquet``.
    # TRACE_SCHEMAS: registered column types of the trace files, by trace name (the cwnd
    #   trace may have more: ``cc_<name>`` Float64 columns from the congestion-control trace
    #   hook; "probe": the echoes of `echo = true` UDP flows, probes.parquet).
    # EVENT_SCHEMA: column types of ``events.parquet``: the packet events' columns, then the
    #   cwnd events' own (null in the rows of the other kind).
    if name == "INTERVAL_SCHEMA":
        v: Any = _schema("intervals")
    elif name == "TRACE_SCHEMAS":
        v = {"cwnd": _schema("cwnd_trace"), "queue": _schema("queue_trace"), "probe": _schema("probes")}
    elif name == "EVENT_SCHEMA":
        v = {**_schema("packet_events"), **_schema("cwnd_events")}
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = v
    return v


#: Trace name -> the core's table of it (and its ``rows`` key).
_TRACE_TABLES = {"cwnd": "cwnd_trace", "queue": "queue_trace", "probe": "probes"}

SUMMARY_FILE = "summary.json"
INTERVALS_FILE = "intervals.parquet"
TRACE_FILES = {"cwnd": "cwnd_trace.parquet", "queue": "queue_trace.parquet", "probe": "probes.parquet"}
EVENTS_FILE = "events.parquet"
FCT_FILE = "fct.parquet"

# Fixed writer settings: byte-identical files for identical frames.
_PARQUET_OPTS: dict[str, Any] = PARQUET_OPTIONS


def _frame(columns: Mapping[str, Any], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """A DataFrame with exactly ``schema``'s columns (missing columns are an error)."""
    import polars as pl

    missing = [c for c in schema if c not in columns]
    if missing:
        raise ValueError(f"result columns missing: {', '.join(missing)}")
    extra = {k: v for k, v in columns.items() if k not in schema}
    df = pl.DataFrame({c: columns[c] for c in schema}, schema=schema)
    if extra:  # columns added by a newer core: keep them, with inferred types
        df = df.hstack(pl.DataFrame(extra))
    return df


def _events(raw: Mapping[str, Any]) -> pl.DataFrame | None:
    """``events.parquet``'s frame: cwnd events (``event = "cwnd"``) and packet events in
    one table in time order (ties: cwnd events first), or None when nothing was recorded."""
    import polars as pl

    cw = _frame(raw["cwnd_events"], _schema("cwnd_events"))
    pk = _frame(raw["packet_events"], _schema("packet_events"))
    if cw.height == 0 and pk.height == 0:
        return None
    cw = cw.with_columns(event=pl.lit("cwnd", dtype=pl.String()))
    df = pl.concat([cw, pk], how="diagonal")
    schema = {**_schema("packet_events"), **_schema("cwnd_events")}
    return df.select([pl.col(c).cast(t) for c, t in schema.items()]).sort("t", maintain_order=True)


def _records(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """A DataFrame from a list of summary records (nested values become structs/lists)."""
    import polars as pl

    if not rows:
        return pl.DataFrame()
    return pl.from_dicts(rows, infer_schema_length=None)


def _write_parquet(df: pl.DataFrame, path: Path) -> None:
    write_parquet(df, path)  # atomic: complete or absent


def pcap_files(directory: str | Path) -> set[str]:
    """The pcap files (as written in the scenario) the result saved in ``directory`` lists;
    empty without a readable summary.json."""
    try:
        old = json.loads((Path(directory) / SUMMARY_FILE).read_text(encoding="utf-8"))
        return {f["file"] for f in (old.get("pcap") or {}).get("files") or []}
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return set()


class Result:
    """The outcome of one run.

    Attributes:
        summary: the parsed ``summary.json`` (see ``docs/outputs.md``).
        intervals: per-flow interval series (one row per flow and interval).
        traces: sampled traces by name (``"cwnd"``, ``"queue"``, ``"probe"``); only non-empty
            ones (``trace_names`` lists them without parsing any).
        events: the event traces of ``metrics.events`` (``events.parquet``), or None when
            the run recorded none.
        pcap_dir: the directory relative pcap paths of ``summary["pcap"]`` are in (the
            run's ``pcap_dir``, or the directory the result was loaded from).
    """

    def __init__(
        self,
        summary: dict[str, Any],
        intervals: pl.DataFrame | None = None,
        traces: Mapping[str, pl.DataFrame] | None = None,
        pcap_dir: str | Path | None = None,
        events: pl.DataFrame | None = None,
        *,
        parquet: Mapping[str, bytes] | None = None,
        rows: Mapping[str, int] | None = None,
    ) -> None:
        """From frames (``intervals`` required), or from the core's Parquet bytes
        (``parquet``: table -> file bytes, ``rows``: table -> row count; see
        :meth:`from_core`), whose frames are parsed on first use."""
        self.summary = summary
        self._parquet: dict[str, bytes] = dict(parquet or {})
        self._rows: dict[str, int] = dict(rows or {})
        if intervals is None and "intervals" not in self._parquet:
            raise ValueError("Result: give the intervals frame or the core's Parquet tables")
        self._intervals = intervals
        self._traces: dict[str, pl.DataFrame] | None = (
            None if traces is None and self._parquet else {k: v for k, v in (traces or {}).items() if v.height > 0})
        self._events = events
        self._events_read = events is not None or "events" not in self._parquet
        #: Frames parsed from the Parquet bytes (table -> frame): saved as those bytes.
        self._decoded: dict[str, pl.DataFrame] = {}
        self.pcap_dir = Path(pcap_dir) if pcap_dir is not None else Path.cwd()

    def _read(self, table: str) -> pl.DataFrame:
        import io

        import polars as pl

        df = pl.read_parquet(io.BytesIO(self._parquet[table]))
        self._decoded[table] = df
        return df

    @property
    def intervals(self) -> pl.DataFrame:
        """Per-flow interval series (one row per flow and interval)."""
        if self._intervals is None:
            self._intervals = self._read("intervals")
        return self._intervals

    @intervals.setter
    def intervals(self, df: pl.DataFrame) -> None:
        self._intervals = df

    @property
    def trace_names(self) -> list[str]:
        """The names of the non-empty traces (``"cwnd"``, ``"queue"``, ``"probe"``), without
        parsing any."""
        if self._traces is not None:
            return list(self._traces)
        return [name for name, table in _TRACE_TABLES.items() if self._rows.get(table, 0) > 0]

    @property
    def traces(self) -> dict[str, pl.DataFrame]:
        """Sampled traces by name (``"cwnd"``, ``"queue"``, ``"probe"``); only non-empty ones."""
        if self._traces is None:
            self._traces = {name: self._read(_TRACE_TABLES[name]) for name in self.trace_names}
        return self._traces

    @traces.setter
    def traces(self, value: Mapping[str, pl.DataFrame]) -> None:
        self._traces = dict(value)

    @property
    def events(self) -> pl.DataFrame | None:
        """The event traces of ``metrics.events`` (``events.parquet``), or None when the run
        recorded none."""
        if not self._events_read:
            self._events = self._read("events") if self._rows.get("events", 0) > 0 else None
            self._events_read = True
        return self._events

    @events.setter
    def events(self, df: pl.DataFrame | None) -> None:
        self._events, self._events_read = df, True

    def _bytes_for(self, table: str, frame: pl.DataFrame | None) -> bytes | None:
        """The core's bytes of ``table`` when ``frame`` is still what they hold (not yet
        parsed, or parsed and not replaced)."""
        b = self._parquet.get(table)
        if b is None:
            return None
        if frame is None or self._decoded.get(table) is frame:
            return b
        return None

    @classmethod
    def from_core(cls, raw: Mapping[str, Any], pcap_dir: str | Path | None = None) -> Result:
        """Build from ``tcplab._core.Simulation.results()``; ``pcap_dir`` as given to the
        simulation (default: the current directory). With the core's Parquet bytes
        (``raw["parquet"]``) nothing is parsed until a frame is asked for; from column lists
        (an older core) the frames are built at once."""
        summary = json.loads(raw["summary"])
        if "parquet" in raw:
            return cls(summary, pcap_dir=pcap_dir, parquet=raw["parquet"], rows=raw.get("rows") or {})
        intervals = _frame(raw["intervals"], _schema("intervals"))
        traces = {name: _frame(raw[table], _schema(table)) for name, table in _TRACE_TABLES.items()}
        return cls(summary, intervals, traces, pcap_dir=pcap_dir, events=_events(raw))

    # -- convenient views -----------------------------------------------------------------

    @property
    def flows(self) -> pl.DataFrame:
        """One row per flow, the columns of ``summary["flows"]`` (TCP-only columns are null
        for UDP flows and UDP-only ones, such as ``transport`` and ``loss_fraction``, null
        for TCP flows)."""
        return _records(self.summary.get("flows") or [])

    @property
    def probes(self) -> pl.DataFrame:
        """Every echo the ``echo = true`` UDP flows got back (``probes.parquet``): ``flow``,
        ``t`` (s, the echo's arrival), ``seq``, ``rtt_s``, ``forward_s`` (one-way delay
        out); empty (those columns) when the scenario has no echoing flow."""
        import polars as pl

        got = self.traces.get("probe")
        return got if got is not None else pl.DataFrame(schema=_schema("probes"))

    @property
    def fct(self) -> pl.DataFrame:
        """Every round of every finite transfer (``fct.parquet``): ``flow``, ``workload``,
        ``from``, ``to``, ``bytes``, ``start_s``, ``end_s``, ``fct_s``, ``ideal_fct_s``,
        ``slowdown``, ``retransmits``, ``timeouts``, ``completed`` (docs/outputs.md); empty
        (those columns) when the run had no finite transfer."""
        import polars as pl

        if "fct" in self._decoded:
            return self._decoded["fct"]
        if self._rows.get("fct", 0) > 0 and "fct" in self._parquet:
            return self._read("fct")
        return pl.DataFrame(schema=_schema("fct"))

    @property
    def links(self) -> pl.DataFrame:
        """One row per link direction, the columns of ``summary["links"]``."""
        return _records(self.summary.get("links") or [])

    @property
    def schedules(self) -> pl.DataFrame:
        """One row per step of each flow schedule's active-flow count as the run went
        through it (``summary["schedules"]``): ``schedule``, ``t_s``, ``active``. Empty when
        the scenario has no schedules."""
        rows = [
            {"schedule": name, "t_s": float(t), "active": int(n)}
            for name, s in (self.summary.get("schedules") or {}).items()
            for t, n in s["active"]
        ]
        import polars as pl

        schema = {"schedule": pl.String(), "t_s": pl.Float64(), "active": pl.Int64()}
        return pl.DataFrame(rows, schema=schema)

    @property
    def analysis(self) -> dict[str, Any] | None:
        """The closed-form comparison (``summary["analysis"]``), or None."""
        return self.summary.get("analysis")

    @property
    def pcaps(self) -> dict[str, Path]:
        """Link name → pcap file written by the run (``links.NAME.pcap``); relative paths
        are resolved against :attr:`pcap_dir`. Empty when the run wrote none."""
        files = (self.summary.get("pcap") or {}).get("files") or []
        return {f["link"]: self.pcap_dir / f["file"] for f in files}

    @property
    def warnings(self) -> list[str]:
        """Warnings the core attached to the run."""
        return list(self.summary.get("warnings") or [])

    # -- files ----------------------------------------------------------------------------

    def save(
        self,
        directory: str | Path,
        *,
        before_summary: Callable[[Path], None] | None = None,
        earlier_pcaps: Iterable[str] | None = None,
    ) -> Path:
        """Write the result files into ``directory`` (created if needed); returns it.

        Trace files of traces that are absent are removed if left over from an earlier
        run in the same directory, and so are pcap files an earlier result saved there
        listed, so the directory always describes this result. Pcap
        files with relative paths are copied into ``directory`` (at the same relative
        path) unless they are there already; absolute ones stay where they are.

        Nothing is half-written: each file goes to a temporary name and is renamed when
        complete (``tcplab.fileio``), and ``summary.json`` — what makes a directory a
        result (:meth:`load`) — is removed first and written last. A process killed (or a
        disk that fills) mid-save leaves the earlier complete result, or no
        ``summary.json``; never a summary next to files of another run. ``before_summary``
        (e.g. plots) is called with the directory before ``summary.json`` is written.
        ``earlier_pcaps``: the pcap files of the result the directory held (see
        :func:`pcap_files`) when its ``summary.json`` is already gone (``tcplab run``
        removes it before a run that writes captures into the directory).
        Write errors raise :class:`OSError` naming the file.
        """
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(d)
        self._remove_stale_pcaps(d, earlier_pcaps)
        text = json.dumps(self.summary, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        (d / SUMMARY_FILE).unlink(missing_ok=True)

        def put(table: str, frame: pl.DataFrame | None, path: Path) -> None:
            raw = self._bytes_for(table, frame)
            if raw is not None:
                write_bytes(path, raw)  # atomic, as write_parquet
            else:
                assert frame is not None
                _write_parquet(frame, path)

        put("intervals", self._intervals, d / INTERVALS_FILE)
        for name, fname in TRACE_FILES.items():
            p = d / fname
            if name in self.trace_names:
                put(_TRACE_TABLES[name], None if self._traces is None else self._traces[name], p)
            elif p.exists():
                p.unlink()
        p = d / FCT_FILE
        if self._rows.get("fct", 0) > 0 and "fct" in self._parquet:
            put("fct", None, p)
        elif p.exists():
            p.unlink()
        p = d / EVENTS_FILE
        has_events = self._events is not None if self._events_read else self._rows.get("events", 0) > 0
        if has_events:
            put("events", self._events if self._events_read else None, p)
        elif p.exists():
            p.unlink()
        for f in (self.summary.get("pcap") or {}).get("files") or []:
            rel = Path(f["file"])
            src, dst = self.pcap_dir / rel, d / rel
            if rel.is_absolute() or not src.exists() or (dst.exists() and src.samefile(dst)):
                continue
            dst.parent.mkdir(parents=True, exist_ok=True)
            copy_file(src, dst)
        if before_summary is not None:
            before_summary(d)
        write_text(d / SUMMARY_FILE, text)
        return d

    def _remove_stale_pcaps(self, d: Path, earlier: Iterable[str] | None = None) -> None:
        """Remove pcap files (relative paths) that an earlier result saved in ``d`` listed
        (``earlier``, else its summary.json) and this one does not."""
        old_files = set(earlier) if earlier is not None else pcap_files(d)
        keep = {f["file"] for f in (self.summary.get("pcap") or {}).get("files") or []}
        for f in sorted(old_files - keep):
            rel = Path(f)
            if not rel.is_absolute() and ".." not in rel.parts:
                (d / rel).unlink(missing_ok=True)

    @classmethod
    def load(cls, directory: str | Path) -> Result:
        """Read a directory written by :meth:`save`."""
        import io

        import polars as pl

        d = Path(directory)
        summary = json.loads((d / SUMMARY_FILE).read_text(encoding="utf-8"))
        files = {"intervals": INTERVALS_FILE, **{_TRACE_TABLES[n]: f for n, f in TRACE_FILES.items()}, "events": EVENTS_FILE,
                 "fct": FCT_FILE}
        raw = {table: (d / f).read_bytes() for table, f in files.items() if table == "intervals" or (d / f).exists()}
        frames = {table: pl.read_parquet(io.BytesIO(b)) for table, b in raw.items()}
        traces = {name: frames[table] for name, table in _TRACE_TABLES.items() if table in frames}
        res = cls(summary, frames["intervals"], traces, pcap_dir=d, events=frames.get("events"),
                  parquet=raw, rows={table: f.height for table, f in frames.items()})
        # Saved again, the files are these bytes (unless a frame is replaced).
        res._decoded = frames
        return res

    # -- comparison -----------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Result):
            return NotImplemented
        return (
            self.summary == other.summary
            and self.intervals.equals(other.intervals)
            and self.traces.keys() == other.traces.keys()
            and all(self.traces[k].equals(other.traces[k]) for k in self.traces)
            and (self.events is None) == (other.events is None)
            and (self.events is None or other.events is None or self.events.equals(other.events))
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        run = self.summary.get("run", {})
        return (
            f"Result(scenario={self.summary.get('scenario')!r}, seed={self.summary.get('seed')}, "
            f"sim_seconds={run.get('sim_seconds')}, flows={len(self.summary.get('flows') or [])}, "
            f"traces={sorted(self.trace_names)})"
        )


def load(directory: str | Path) -> Result:
    """Read a results directory written by ``tcplab run`` or :meth:`Result.save`."""
    return Result.load(directory)

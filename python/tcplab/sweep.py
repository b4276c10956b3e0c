"""Parameter sweeps: many runs of one base scenario, in parallel, resumable.

A sweep spec (TOML, see ``docs/sweeps.md``) names a base scenario, the overrides to vary
(a ``grid`` whose cartesian product is taken, or an explicit ``list``) and the ``seeds``::

    base = "../scenarios/kalampoukas97/fig2_3.toml"   # relative to this file
    seeds = 3                                          # seeds 1, 2, 3 (or a list)

    [set]                                              # the same for every run
    duration = "60s"
    "metrics.steady_start" = "10s"

    [grid]
    "links.up.rate" = ["100kbps", "200kbps"]
    "flows.fast.ack_size" = [28, 40]

:func:`sweep` runs every (point, seed) pair on all local cores (a process pool) or on a
Dask ``distributed`` cluster and writes, under ``out``::

    runs/<run_id>/        one directory per run, moved into place when complete:
                          summary.json, intervals.parquet (Result.save), scenario.toml,
                          run.json (id, overrides, seed, status, error, attempts)
    manifest.json         every run of the spec: id, overrides, seed, status, error
    summary.parquet       the per-flow summaries of all successful runs, with one column
                          per swept key, plus ``run_id`` and ``seed``

A run id is a stable hash of (base scenario content with ``set`` applied, the run's
overrides, seed). Runs whose directory exists are not run again, so an interrupted sweep
(Ctrl-C, SIGKILL, a lost machine) resumes where it stopped when started again. A run that
raises is recorded as failed (with its message) and the sweep goes on; a run whose worker
process dies is retried.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import json
import math
import multiprocessing
import os
import shutil
import signal
import sys
import threading
import time
import tomllib
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from tcplab import _core
from tcplab.results import Result, _write_parquet
from tcplab.scenario import Scenario, ScenarioError, _plain, describe_value, scenario_error, split_key

__all__ = ["SweepSpec", "SweepRun", "SweepResult", "sweep", "load_sweep", "sweep_table", "run_id", "default_out"]

#: Fields a sweep spec may have.
SPEC_FIELDS = ("base", "name", "description", "seeds", "set", "grid", "list")
RUNS_DIR = "runs"
TMP_DIR = "tmp"
MANIFEST_FILE = "manifest.json"
SUMMARY_FILE = "summary.parquet"
RUN_FILE = "run.json"
SCENARIO_FILE = "scenario.toml"
LOCK_FILE = ".lock"
#: Columns of summary.parquet that are not flow fields or swept keys.
ID_COLUMNS = ("run_id", "seed")

_SEED_MAX = 2**64
_MANIFEST_EVERY_S = 0.5
_ID_VERSION = 1  # part of every run id: bump only if the meaning of a run changes


def _spec_error(field: str, reason: str, file: str | Path | None) -> ScenarioError:
    return scenario_error(field, reason, file)


def _canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def run_id(base: Mapping[str, Any], overrides: Mapping[str, Any], seed: int) -> str:
    """The id of a run: a stable hash of (base scenario data, overrides, seed).

    The base data are hashed in their own key order (the order of the file, which also
    orders flows and links in the simulation); overrides by sorted key.
    """
    doc = {
        "v": _ID_VERSION,
        "base": dict(base),
        "overrides": sorted(([split_key(k), v] for k, v in overrides.items()), key=lambda kv: kv[0]),
        "seed": int(seed),
    }
    return hashlib.sha256(_canonical(doc).encode("utf-8")).hexdigest()[:16]


def _sorted_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Overrides in their canonical application order (by key path: a table before its fields)."""
    return dict(sorted(overrides.items(), key=lambda kv: split_key(kv[0])))


# -- the spec -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepRun:
    """One run of a sweep: a point of the grid or list, and a seed."""

    id: str
    index: int
    overrides: dict[str, Any]
    seed: int


class SweepSpec:
    """A parsed, checked sweep spec.

    Attributes:
        name: the sweep's name (the ``name`` field, else the spec file's stem).
        base: the base :class:`Scenario` with the ``set`` overrides applied.
        base_path: the base scenario file (None when given as data).
        fixed: the ``set`` overrides.
        params: the swept keys, in spec order.
        points: one dict of overrides per point, in spec order.
        seeds: the seeds, in spec order.
        source: the spec file (None when given as data).
    """

    def __init__(
        self,
        *,
        name: str,
        base: Scenario,
        base_path: str | None,
        fixed: dict[str, Any],
        params: list[str],
        points: list[dict[str, Any]],
        seeds: list[int],
        source: str | None,
        description: str | None = None,
    ) -> None:
        self.name = name
        self.base = base
        self.base_path = base_path
        self.fixed = fixed
        self.params = params
        self.points = points
        self.seeds = seeds
        self.source = source
        self.description = description

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def from_toml(cls, path: str | Path) -> SweepSpec:
        """Read and check a sweep spec file (``base`` is relative to the file).

        Problems raise :class:`ScenarioError` naming the spec file and the field, e.g.
        ``sweep.toml: grid.links.up.rate: is an empty list; give at least one value``.
        """
        path = Path(path)
        try:
            text = path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            raise _spec_error("", "no such file", path) from None
        except IsADirectoryError:
            raise _spec_error("", "is a directory, not a sweep spec", path) from None
        except UnicodeDecodeError as e:
            raise _spec_error("", f"not UTF-8 text (byte {e.start})", path) from None
        except OSError as e:
            raise _spec_error("", f"cannot read: {e.strerror or e}", path) from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            from tcplab.scenario import _toml_syntax_reason

            raise _spec_error("", _toml_syntax_reason(e), path) from None
        return cls.from_dict(data, root=path.parent, source=path)

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], root: str | Path | None = None, source: str | Path | None = None
    ) -> SweepSpec:
        """Check a spec given as data (the structure of a spec file).

        ``base`` may be a path (relative to ``root``, default the current directory), a
        :class:`Scenario` or a scenario dict. ``source`` names the spec in errors.
        """
        src = str(source) if source is not None else None
        if not isinstance(data, Mapping):
            raise _spec_error("", f"a sweep spec is a table, not {type(data).__name__}", src)
        unknown = [k for k in data if k not in SPEC_FIELDS]
        if unknown:
            raise _spec_error(unknown[0], f"unknown field (a sweep spec has {', '.join(SPEC_FIELDS)})", src)

        # base
        if "base" not in data:
            raise _spec_error("base", "missing: name the base scenario file, e.g. base = \"fig2_3.toml\"", src)
        raw_base = data["base"]
        base_path: str | None = None
        if isinstance(raw_base, Scenario):
            base = raw_base
            base_path = base.source
        elif isinstance(raw_base, Mapping):
            base = Scenario.from_dict(raw_base)
        elif isinstance(raw_base, (str, Path)) and str(raw_base):
            p = Path(raw_base)
            if not p.is_absolute():
                p = Path(root or ".") / p
            try:
                base = Scenario.from_toml(p)
            except ScenarioError as e:
                raise _spec_error("base", f"{p}: {e.reason}", src) from None
            base_path = str(p)
        else:
            raise _spec_error("base", f"must be the path of a scenario file, not {describe_value(raw_base)}", src)

        # set: fixed overrides
        fixed = _flat_table(data.get("set", {}), "set", src, leaf_lists=False)
        try:
            base = base.with_overrides(_sorted_overrides(fixed))
        except ScenarioError as e:
            raise _spec_error(f"set.{e.field}", e.reason, src) from None
        try:
            base.validate()
        except ScenarioError as e:
            for key in fixed:  # the problem is a value given in `set`
                if e.field and (key == e.field or e.field.startswith(key + ".")):
                    raise _spec_error(f"set.{key}", e.reason, src) from None
            where = f"{base_path}: " if base_path else ""
            raise _spec_error("base", f"{where}{e.field}: {e.reason}" if e.field else f"{where}{e.reason}", src) from None

        # grid or list
        has_grid, has_list = "grid" in data, "list" in data
        if has_grid and has_list:
            raise _spec_error("list", "give either grid or list, not both", src)
        if not has_grid and not has_list:
            raise _spec_error("grid", "missing: give a grid (key = [values]) or a list of override tables", src)
        if has_grid:
            grid = _flat_table(data["grid"], "grid", src, leaf_lists=True)
            if not grid:
                raise _spec_error("grid", "is empty: give at least one key = [values]", src)
            params = list(grid)
            points = [dict(zip(params, combo, strict=True)) for combo in itertools.product(*grid.values())]
        else:
            items = data["list"]
            if not isinstance(items, list):
                raise _spec_error("list", f"must be an array of override tables, not {describe_value(items)}", src)
            if not items:
                raise _spec_error("list", "is empty: give at least one table of overrides", src)
            points, params = [], []
            for i, item in enumerate(items):
                if not isinstance(item, Mapping):
                    raise _spec_error(f"list[{i}]", f"must be a table of overrides, not {describe_value(item)}", src)
                point = _flat_table(item, f"list[{i}]", src, leaf_lists=False)
                points.append(point)
                params += [k for k in point if k not in params]
            seen: dict[str, int] = {}
            for i, point in enumerate(points):
                key = _canonical(sorted(([split_key(k), v] for k, v in point.items()), key=lambda kv: kv[0]))
                if key in seen:
                    raise _spec_error(f"list[{i}]", f"repeats list[{seen[key]}]", src)
                seen[key] = i

        # Packet traces: every run of a sweep would write the same file.
        why = "pcap traces are not written in sweeps (every run would write the same file); run one point with `tcplab run` instead"
        for lname, link in _plain_links(base).items():
            if isinstance(link, Mapping) and "pcap" in link:
                key = f"links.{lname}.pcap"
                if any(split_key(k) == ["links", lname, "pcap"] for k in fixed):
                    raise _spec_error(f"set.{key}", why, src)
                where = f"{base_path}: " if base_path else ""
                raise _spec_error("base", f"{where}{key}: {why}", src)
        for k in params:
            parts = split_key(k)
            if len(parts) == 3 and parts[0] == "links" and parts[2] == "pcap":
                raise _spec_error("grid" if has_grid else "list", f"{k}: {why}", src)

        # seeds
        seeds = _seeds(data.get("seeds"), base, src)

        name = data.get("name")
        if name is not None and not (isinstance(name, str) and name):
            raise _spec_error("name", f"must be a non-empty string, not {describe_value(name)}", src)
        if name is None:
            name = Path(src).stem if src else "sweep"
        desc = data.get("description")
        if desc is not None and not isinstance(desc, str):
            raise _spec_error("description", f"must be a string, not {describe_value(desc)}", src)
        return cls(
            name=name, base=base, base_path=base_path, fixed=fixed, params=params, points=points,
            seeds=seeds, source=src, description=desc,
        )  # fmt: skip

    # -- views ----------------------------------------------------------------------------

    def runs(self) -> list[SweepRun]:
        """Every run, point by point and, within a point, seed by seed."""
        base = self.base.to_dict()
        out: list[SweepRun] = []
        for point in self.points:
            for seed in self.seeds:
                out.append(SweepRun(run_id(base, point, seed), len(out), dict(point), seed))
        return out

    def to_dict(self) -> dict[str, Any]:
        """What manifest.json records about the spec."""
        return {
            "name": self.name,
            "source": self.source,
            "base": self.base_path,
            "set": self.fixed,
            "params": self.params,
            "seeds": self.seeds,
            "points": len(self.points),
        }

    def __repr__(self) -> str:
        return f"SweepSpec(name={self.name!r}, params={self.params}, points={len(self.points)}, seeds={self.seeds})"


_RESERVED_KEYS = {"seed": "vary the seed with `seeds`, not as an override"}


def _flat_table(value: Any, where: str, src: str | None, *, leaf_lists: bool) -> dict[str, Any]:
    """Flatten nested tables into dotted keys.

    For a grid (``leaf_lists``), a key's value is the list of values to sweep and nested
    tables are followed until a list; elsewhere every non-table value is a leaf.
    """
    if not isinstance(value, Mapping):
        raise _spec_error(where, f"must be a table, not {describe_value(value)}", src)
    out: dict[str, Any] = {}
    seen: dict[tuple[str, ...], str] = {}

    def walk(node: Mapping[str, Any], prefix: str) -> None:
        for k, v in node.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, Mapping):
                if not v:
                    raise _spec_error(f"{where}.{key}", "is an empty table", src)
                walk(v, key)
                continue
            try:
                parts = tuple(split_key(key))
            except ScenarioError as e:
                raise _spec_error(f"{where}.{key}", e.reason, src) from None
            if parts[0] in _RESERVED_KEYS and len(parts) == 1:
                raise _spec_error(f"{where}.{key}", _RESERVED_KEYS[parts[0]], src)
            if parts in seen:
                raise _spec_error(f"{where}.{key}", f"given twice (also as {seen[parts]!r})", src)
            seen[parts] = key
            if leaf_lists:
                if not isinstance(v, list):
                    raise _spec_error(f"{where}.{key}", f"must be a list of values, e.g. [{_toml_repr(v)}], not {describe_value(v)}", src)
                if not v:
                    raise _spec_error(f"{where}.{key}", "is an empty list; give at least one value", src)
                values = [_plain(x) for x in v]
                texts = [_canonical(x) for x in values]
                for j, t in enumerate(texts):
                    if t in texts[:j]:
                        raise _spec_error(f"{where}.{key}", f"repeats the value {_toml_repr(values[j])}", src)
                out[key] = values
            else:
                out[key] = _plain(v)

    walk(value, "")
    return out


def _plain_links(base: Scenario) -> dict[str, Any]:
    """The base scenario's link directions after expansion (builders and duplex entries
    generate some), or the links as written when the base does not expand on its own."""
    written = base.to_dict().get("links")
    written = written if isinstance(written, dict) else {}
    try:
        links = base.expand().to_dict().get("links") or {}
    except ScenarioError:
        return written
    # Entries as written first (in file order), then what expansion generated.
    return {**{k: links[k] for k in written if k in links}, **links}


def _seeds(value: Any, base: Scenario, src: str | None) -> list[int]:
    if value is None:
        s = base.to_dict().get("seed", 1)
        return [s] if _ok_seed(s) else [1]
    if isinstance(value, bool) or not isinstance(value, (int, list)):
        raise _spec_error("seeds", f"must be a count (e.g. 5) or a list of seeds, not {describe_value(value)}", src)
    if isinstance(value, int):
        if value < 1:
            raise _spec_error("seeds", f"must be at least 1, got {value}", src)
        if value > 1_000_000:
            raise _spec_error("seeds", f"{value} is too many (at most 1000000)", src)
        return list(range(1, value + 1))
    if not value:
        raise _spec_error("seeds", "is an empty list; give at least one seed", src)
    out: list[int] = []
    for i, s in enumerate(value):
        if not _ok_seed(s):
            raise _spec_error(f"seeds[{i}]", f"must be an integer in [0, 2^64), got {_toml_repr(s)}", src)
        if s in out:
            raise _spec_error(f"seeds[{i}]", f"repeats seed {s}", src)
        out.append(s)
    return out


def _ok_seed(s: Any) -> bool:
    return isinstance(s, int) and not isinstance(s, bool) and 0 <= s < _SEED_MAX


def _toml_repr(v: Any) -> str:
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


# -- executing one run (in a worker) ----------------------------------------------------------


def _default_run(scenario: Scenario, seed: int) -> Result:
    from tcplab.runner import run

    return run(scenario, seed=seed, progress=False)


@dataclass
class _Task:
    id: str
    base: dict[str, Any]
    overrides: dict[str, Any]
    seed: int
    run_fn: Callable[[Scenario, int], Result] | None = None
    #: When set (local workers), the worker writes the run's files into this new directory
    #: and returns only a small outcome; otherwise (Dask) the Result travels back.
    save_to: str | None = None


#: Longest error message (UTF-8 bytes) a worker sends back. Local outcomes stay well under PIPE_BUF
#: (4096 bytes), so each is one atomic pipe write: a worker killed mid-send cannot leave
#: half a message for the pool to wait on forever.
_MAX_ERROR = 1500


def _execute(task: _Task) -> dict[str, Any]:
    """Run one task; never raises for a failing run (the outcome says ``failed``)."""
    t0 = time.perf_counter()
    out: dict[str, Any] = {"id": task.id, "status": "failed", "error": None, "result": None, "scenario_toml": None}
    try:
        sc = Scenario.from_dict(task.base).with_overrides(_sorted_overrides(task.overrides))
        out["scenario_toml"] = sc.with_overrides({"seed": task.seed}).to_toml()
        res = (task.run_fn or _default_run)(sc, task.seed)
        out.update(status="ok", result=res)
    except ScenarioError as e:
        out["error"] = str(e)
    except Exception as e:  # a failing run is recorded, not raised
        out["error"] = f"{type(e).__name__}: {e}"
    if task.save_to is not None:
        try:
            d = Path(task.save_to)
            d.mkdir(parents=True)
            if out["result"] is not None:
                out["result"].save(d)
            if out["scenario_toml"]:
                (d / SCENARIO_FILE).write_text(out["scenario_toml"], encoding="utf-8")
        except Exception as e:
            out.update(status="failed", error=f"cannot write the run's files: {type(e).__name__}: {e}")
        out.update(result=None, scenario_toml=None, saved=str(task.save_to))
    if out["error"] is not None and len(out["error"].encode("utf-8")) > _MAX_ERROR:
        out["error"] = out["error"].encode("utf-8")[: _MAX_ERROR - 3].decode("utf-8", errors="ignore") + "…"
    out["wall_seconds"] = time.perf_counter() - t0
    return out


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """Block SIGINT in this thread while starting workers: they inherit the mask, so a
    Ctrl-C during their start-up stays pending until _worker_init ignores it (the sweep
    process gets its KeyboardInterrupt when the block ends)."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _worker_init() -> None:
    """Pool workers leave Ctrl-C to the sweep process and die with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    ppid = os.getppid()

    def watchdog() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != ppid:
                os._exit(1)

    threading.Thread(target=watchdog, name="tcplab-sweep-watchdog", daemon=True).start()


# -- storing runs -------------------------------------------------------------------------------


class _Store:
    """The output directory: atomic run directories, the manifest, the lock."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.runs = out / RUNS_DIR
        self.tmp = out / TMP_DIR
        self._lock_fd: int | None = None
        self._n = 0

    def open(self) -> None:
        try:
            self.runs.mkdir(parents=True, exist_ok=True)
            self.tmp.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise scenario_error("out", f"{self.out}: cannot create: {e.strerror or e}") from None
        try:
            import fcntl
        except ImportError:  # no advisory locks here: concurrent sweeps are the user's business
            fcntl = None  # type: ignore[assignment]
        if fcntl is not None:
            fd = os.open(self.out / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise scenario_error("out", f"{self.out} is in use by another tcplab sweep") from None
            self._lock_fd = fd
        # Leftovers of an interrupted sweep (runs that were being written when it stopped).
        for p in self.tmp.iterdir():
            _rmtree(p)

    def close(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None
        with contextlib.suppress(OSError):
            self.tmp.rmdir()

    def status(self, rid: str) -> dict[str, Any] | None:
        """The run.json of a finished run, or None."""
        p = self.runs / rid / RUN_FILE
        try:
            rec = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return rec if isinstance(rec, dict) and rec.get("status") in ("ok", "failed") else None

    def forget(self, rid: str) -> None:
        """Remove a run's directory (to run it again)."""
        d = self.runs / rid
        if d.exists():
            self._n += 1
            gone = self.tmp / f"old-{rid}-{self._n}"
            os.rename(d, gone)
            _rmtree(gone)

    def scratch(self, rid: str) -> Path:
        """A fresh, not yet existing directory under tmp/ for a run being written."""
        self._n += 1
        p = self.tmp / f"{rid}-{os.getpid()}-{self._n}"
        _rmtree(p)
        return p

    def write(self, run: SweepRun, outcome: dict[str, Any], attempts: int) -> dict[str, Any]:
        """Write a finished run into ``runs/<id>/`` atomically; returns its run.json record."""
        if outcome.get("saved"):
            tmp = Path(outcome["saved"])
            tmp.mkdir(exist_ok=True)
        else:
            tmp = self.scratch(run.id)
            tmp.mkdir()
        record = {
            "id": run.id,
            "overrides": run.overrides,
            "seed": run.seed,
            "status": outcome["status"],
            "error": outcome.get("error"),
            "attempts": attempts,
            "wall_seconds": round(float(outcome.get("wall_seconds") or 0.0), 6),
            "tcplab_version": _core.__version__,
        }
        if outcome.get("result") is not None:
            outcome["result"].save(tmp)
        if outcome.get("scenario_toml"):
            (tmp / SCENARIO_FILE).write_text(outcome["scenario_toml"], encoding="utf-8")
        (tmp / RUN_FILE).write_text(json.dumps(record, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
        target = self.runs / run.id
        try:
            os.rename(tmp, target)
        except OSError:  # a stale directory is in the way: replace it
            self.forget(run.id)
            os.rename(tmp, target)
        return record

    def write_manifest(self, spec: SweepSpec, runs: Sequence[SweepRun], records: Mapping[str, dict[str, Any]]) -> None:
        rows = []
        for r in runs:
            rec = records.get(r.id) or {}
            rows.append(
                {
                    "id": r.id,
                    "overrides": r.overrides,
                    "seed": r.seed,
                    "status": rec.get("status", "pending"),
                    "error": rec.get("error"),
                }
            )
        counts = {s: sum(1 for x in rows if x["status"] == s) for s in ("ok", "failed", "pending")}
        doc = {"sweep": spec.to_dict(), "counts": counts, "runs": rows}
        _atomic_write(self.out / MANIFEST_FILE, json.dumps(doc, indent=1, ensure_ascii=False, default=str) + "\n")


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _rmtree(p: Path) -> None:
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            p.unlink()


# -- executors ------------------------------------------------------------------------------------


def _mp_context() -> multiprocessing.context.BaseContext:
    # "spawn": each worker is a child of this process, so it dies with it (see
    # _worker_init). Forkserver children keep the server alive and would outlive a killed
    # sweep; fork is unsafe with the threads of polars and rich.
    return multiprocessing.get_context("spawn")


def _terminate(ex: ProcessPoolExecutor) -> None:
    """Stop a pool now, killing a run in progress, and wait for its manager thread.

    Joining here (not at interpreter exit) matters: Python 3.11's exit hook can race the
    manager thread closing its wake-up pipe ("Bad file descriptor").
    """
    term = getattr(ex, "terminate_workers", None)  # Python >= 3.14
    if term is not None:
        with contextlib.suppress(Exception):
            term()
            return
    for p in list((getattr(ex, "_processes", None) or {}).values()):
        with contextlib.suppress(Exception):
            p.terminate()
    # The manager thread sees the dead workers, fails the pending futures and cleans up;
    # outcomes are single small pipe writes, so it never waits on half a message.
    ex.shutdown(wait=True, cancel_futures=True)


Done = Callable[[SweepRun, dict[str, Any], int], None]


def _run_local(
    runs: Sequence[SweepRun], tasks: Callable[[SweepRun], _Task], jobs: int, retries: int, done: Done, store: _Store
) -> None:
    """Run on ``jobs`` single-worker pools, one run in flight on each.

    One run per worker process means a dead worker is attributed to exactly one run:
    that run is retried (up to ``retries`` times) and no other run is disturbed.
    """
    ctx = _mp_context()
    queue = deque(runs)
    attempts: dict[str, int] = {}
    slots: list[ProcessPoolExecutor] = []
    inflight: dict[Future[dict[str, Any]], tuple[int, SweepRun, str]] = {}

    def new_pool() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=1, mp_context=ctx, initializer=_worker_init)

    try:
        slots = [new_pool() for _ in range(max(1, min(jobs, len(runs))))]
        free = list(range(len(slots)))
        while queue or inflight:
            while queue and free:
                i = free.pop()
                run = queue.popleft()
                attempts[run.id] = attempts.get(run.id, 0) + 1
                task = tasks(run)
                task.save_to = str(store.scratch(run.id))
                with _sigint_blocked():  # submit() starts the slot's worker process if needed
                    try:
                        fut = slots[i].submit(_execute, task)
                    except BrokenProcessPool:
                        slots[i] = new_pool()
                        fut = slots[i].submit(_execute, task)
                inflight[fut] = (i, run, task.save_to)
            finished, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
            for fut in finished:
                i, run, scratch = inflight.pop(fut)
                try:
                    outcome = fut.result()
                except BrokenProcessPool:
                    _rmtree(Path(scratch))  # whatever the dead worker had written
                    slots[i].shutdown(wait=True, cancel_futures=True)
                    slots[i] = new_pool()
                    if attempts[run.id] <= retries:
                        queue.appendleft(run)
                    else:
                        n = attempts[run.id]
                        outcome = {"status": "failed", "error": f"the worker process died while running it ({n} attempt{'s' * (n > 1)})"}
                        done(run, outcome, n)
                except Exception as e:  # e.g. the task could not be sent to the worker
                    done(run, {"status": "failed", "error": f"{type(e).__name__}: {e}"}, attempts[run.id])
                else:
                    done(run, outcome, attempts[run.id])
                free.append(i)
    except BaseException:
        for ex in slots:
            _terminate(ex)
        raise
    finally:
        for ex in slots:
            ex.shutdown(wait=True, cancel_futures=True)


def _dask_client(address: Any) -> tuple[Any, bool]:
    """A client of ``address`` (or ``address`` itself when it is a Client) and whether we own it.

    The connection timeout is Dask's ``distributed.comm.timeouts.connect`` (env
    ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT``).
    """
    try:
        from distributed import Client
    except ImportError:
        raise scenario_error("dask", "needs the `distributed` package (pip install 'tcplab[dask]')") from None
    if isinstance(address, Client):
        return address, False
    try:
        return Client(address, set_as_default=False), True
    except (OSError, TimeoutError, ValueError) as e:
        raise scenario_error("dask", f"cannot connect to {address}: {e}") from None


def _run_dask(runs: Sequence[SweepRun], tasks: Callable[[SweepRun], _Task], client: Any, retries: int, done: Done) -> None:
    """Run on an existing Dask cluster; results come back to this process, which writes them.

    A worker lost mid-run has its task rescheduled by the scheduler (up to its
    ``distributed.scheduler.allowed-failures``); ``retries`` re-runs tasks that raised
    outside the simulation (e.g. could not be deserialised).
    """
    from distributed import as_completed

    try:
        from distributed.scheduler import KilledWorker
    except ImportError:  # pragma: no cover - older layouts
        KilledWorker = RuntimeError  # type: ignore[misc,assignment]
    tag = uuid.uuid4().hex[:8]
    by_key: dict[str, SweepRun] = {}
    futures = []
    try:
        for run in runs:
            key = f"tcplab-sweep-{run.id}-{tag}"
            by_key[key] = run
            futures.append(client.submit(_execute, tasks(run), key=key, pure=False, retries=retries))
        for fut in as_completed(futures, loop=client.loop):
            run = by_key[fut.key]
            try:
                outcome = fut.result()
            except KilledWorker as e:
                outcome = {"status": "failed", "error": f"Dask workers died while running it: {e}"}
            except Exception as e:
                outcome = {"status": "failed", "error": f"{type(e).__name__}: {e}"}
            done(run, outcome, 1)
            fut.release()
    except BaseException:
        with contextlib.suppress(Exception):
            client.cancel(futures)
        raise


# -- the result ----------------------------------------------------------------------------------


@dataclass
class SweepResult:
    """The outcome of :func:`sweep` (or :func:`load_sweep`).

    Attributes:
        out: the output directory.
        spec: the sweep spec.
        runs: one row per run: ``run_id, seed, <swept keys>..., status, error, attempts,
            wall_seconds, executed`` (``executed`` is true for runs done by this call).
        summary: the combined per-flow table (``summary.parquet``).
    """

    out: Path
    spec: SweepSpec
    runs: pl.DataFrame
    summary: pl.DataFrame
    wall_seconds: float = 0.0
    warnings: list[str] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> int:
        return int((self.runs["status"] == "ok").sum())

    @property
    def failed(self) -> int:
        return int((self.runs["status"] == "failed").sum())

    @property
    def executed(self) -> int:
        """Runs done by this call (not found finished on disk)."""
        return int(self.runs["executed"].sum())

    @property
    def skipped(self) -> int:
        """Runs found finished on disk and not run again."""
        return self.runs.height - self.executed - int((self.runs["status"] == "pending").sum())

    def result(self, run_id: str) -> Result:
        """The full :class:`Result` of a successful run."""
        return Result.load(self.out / RUNS_DIR / run_id)

    def table(self, max_rows: int = 40) -> Table:
        """A rich table: one row per point, runs ok/total and mean efficiency per flow."""
        return sweep_table(self, max_rows=max_rows)

    def __repr__(self) -> str:
        return (
            f"SweepResult(out={str(self.out)!r}, runs={self.runs.height}, ok={self.ok}, failed={self.failed}, "
            f"executed={self.executed})"
        )


def _param_series(name: str, values: list[Any]) -> pl.Series:
    """One column for a swept key: a plain type when all values share one, else JSON text."""
    present = [v for v in values if v is not None]
    kinds = {type(v) for v in present}
    if kinds <= {bool}:
        return pl.Series(name, values, dtype=pl.Boolean)
    if kinds <= {int} and all(-(2**63) <= v < 2**63 for v in present):
        return pl.Series(name, values, dtype=pl.Int64)
    if kinds <= {int, float}:
        return pl.Series(name, [None if v is None else float(v) for v in values], dtype=pl.Float64)
    if kinds <= {str}:
        return pl.Series(name, values, dtype=pl.String)
    return pl.Series(name, [None if v is None else _canonical(v) for v in values], dtype=pl.String)


def _runs_frame(spec: SweepSpec, runs: Sequence[SweepRun], records: Mapping[str, dict[str, Any]], executed: set[str]) -> pl.DataFrame:
    cols: list[pl.Series] = [
        pl.Series("run_id", [r.id for r in runs], dtype=pl.String),
        pl.Series("seed", [r.seed for r in runs], dtype=pl.UInt64),
    ]
    cols += [_param_series(k, [r.overrides.get(k) for r in runs]) for k in spec.params]
    recs = [records.get(r.id) or {} for r in runs]
    cols += [
        pl.Series("status", [x.get("status", "pending") for x in recs], dtype=pl.String),
        pl.Series("error", [x.get("error") for x in recs], dtype=pl.String),
        pl.Series("attempts", [x.get("attempts") for x in recs], dtype=pl.Int64),
        pl.Series("wall_seconds", [x.get("wall_seconds") for x in recs], dtype=pl.Float64),
        pl.Series("executed", [r.id in executed for r in runs], dtype=pl.Boolean),
    ]
    return pl.DataFrame(cols)


def _summary_frame(spec: SweepSpec, runs: Sequence[SweepRun], out: Path, records: Mapping[str, dict[str, Any]]) -> pl.DataFrame:
    """Per-flow rows of every successful run (spec order), with run_id, seed and swept keys."""
    ok = [r for r in runs if (records.get(r.id) or {}).get("status") == "ok"]
    flow_rows: list[dict[str, Any]] = []
    owner: list[SweepRun] = []
    for r in ok:
        summary = json.loads((out / RUNS_DIR / r.id / "summary.json").read_text(encoding="utf-8"))
        for f in summary.get("flows") or []:
            row = dict(f)
            row["flow"] = row.pop("name", None)
            flow_rows.append(row)
            owner.append(r)
    keys = pl.DataFrame(
        [
            pl.Series("run_id", [r.id for r in owner], dtype=pl.String),
            pl.Series("seed", [r.seed for r in owner], dtype=pl.UInt64),
            *[_param_series(k, [r.overrides.get(k) for r in owner]) for k in spec.params],
        ]
    )
    if not flow_rows:
        return keys
    flows = pl.from_dicts(flow_rows, infer_schema_length=None)
    flows = flows.select("flow", *[c for c in flows.columns if c != "flow"])
    clash = [c for c in flows.columns if c in keys.columns]
    if clash:
        flows = flows.rename({c: f"flow.{c}" for c in clash})
    return keys.hstack(flows)


def sweep_table(res: SweepResult, max_rows: int = 40) -> Table:
    """Rich table of a sweep: one row per point with runs ok/total and per-flow means."""
    spec, runs, summary = res.spec, res.runs, res.summary
    title = f"sweep {spec.name}: {runs.height} runs, {res.ok} ok, {res.failed} failed"
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    for k in spec.params:
        table.add_column(k, no_wrap=True)
    table.add_column("runs ok", justify="right")
    metric = "efficiency" if "efficiency" in summary.columns else ("goodput_bps" if "goodput_bps" in summary.columns else None)
    flows: list[str] = summary["flow"].unique(maintain_order=True).to_list() if "flow" in summary.columns else []
    for f in flows:
        table.add_column(f"{f} {'efficiency' if metric == 'efficiency' else 'goodput'}", justify="right")
    point_of = {r: i for i, r in enumerate(runs["run_id"].to_list())}
    n_seeds = len(spec.seeds)
    stats: dict[tuple[int, str], list[float]] = {}
    if metric and flows:
        for rid, f, v in summary.select("run_id", "flow", metric).iter_rows():
            if v is not None:
                stats.setdefault((point_of[rid] // n_seeds, f), []).append(float(v))
    status = runs["status"].to_list()
    for p, point in enumerate(spec.points):
        if p >= max_rows:
            table.add_row(f"… {len(spec.points) - max_rows} more points")
            break
        st = status[p * n_seeds : (p + 1) * n_seeds]
        n_ok = st.count("ok")
        cells: list[str | Text] = [_cell(point.get(k)) for k in spec.params]
        style = "red" if "failed" in st else ("yellow" if n_ok < len(st) else "")
        cells.append(Text(f"{n_ok}/{len(st)}", style=style))
        for f in flows:
            vals = stats.get((p, f), [])
            if not vals:
                cells.append("-")
            elif metric == "efficiency":
                cells.append(_pm(vals, 100, "%", 1))
            else:
                cells.append(_pm(vals, 1e-3, " kb/s", 1))
        table.add_row(*cells)
    return table


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    return v if isinstance(v, str) else _canonical(v)


def _pm(vals: list[float], scale: float, unit: str, digits: int) -> str:
    m = sum(vals) / len(vals)
    if len(vals) < 2:
        return f"{m * scale:.{digits}f}{unit}"
    sd = math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1))
    return f"{m * scale:.{digits}f} ± {sd * scale:.{digits}f}{unit}"


# -- progress ---------------------------------------------------------------------------------------


class _RunsColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        return Text(f"{task.completed:,.0f}/{task.total or 0:,.0f} runs", style="progress.download")


class _FailedColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        n = int(task.fields.get("failed", 0))
        return Text(f"{n} failed", style="bold red" if n else "dim")


class _EtaColumn(ProgressColumn):
    """ETA from the runs done by this call (runs found on disk do not count)."""

    def render(self, task: Task) -> Text:
        start = task.fields.get("t0")
        done_now = task.completed - task.fields.get("skipped", 0)
        left = (task.total or 0) - task.completed
        if not start or done_now <= 0:
            return Text("eta -:--:--", style="progress.remaining")
        per = (time.perf_counter() - start) / done_now
        s = int(per * left + 0.5)
        return Text(f"eta {s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}", style="progress.remaining")


# -- the entry point --------------------------------------------------------------------------------


def _as_spec(spec: SweepSpec | Mapping[str, Any] | str | Path) -> SweepSpec:
    if isinstance(spec, SweepSpec):
        return spec
    if isinstance(spec, (str, Path)):
        return SweepSpec.from_toml(spec)
    if isinstance(spec, Mapping):
        return SweepSpec.from_dict(spec)
    raise TypeError(f"a sweep spec is a SweepSpec, a dict or the path of a TOML file, not {type(spec).__name__}")


def default_out(spec: SweepSpec) -> Path:
    """Where a sweep writes when no ``out`` is given: ``out/<sweep name>``."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in spec.name).strip("._") or "sweep"
    return Path("out") / safe


def sweep(
    spec: SweepSpec | Mapping[str, Any] | str | Path,
    out: str | Path | None = None,
    *,
    jobs: int | None = None,
    dask: Any = None,
    retries: int = 2,
    retry_failed: bool = False,
    progress: bool = True,
    console: Console | None = None,
    run_fn: Callable[[Scenario, int], Result] | None = None,
) -> SweepResult:
    """Run every run of a sweep that is not finished yet; return all of them.

    Args:
        spec: a spec file path (TOML), a spec dict (``base`` relative to the current
            directory, or a :class:`Scenario`/dict) or a :class:`SweepSpec`.
        out: output directory (default ``out/<sweep name>``). Runs found there finished
            are not run again.
        jobs: worker processes on this machine (default: every core).
        dask: a Dask scheduler address (``"tcp://host:8786"``) or a
            ``distributed.Client``: run there instead of on local processes.
        retries: times a run is retried when its worker process dies (local) or when
            its task raises outside the simulation (Dask).
        retry_failed: run again the runs recorded as failed.
        progress: show a progress bar (runs done, failed, ETA) on stderr.
        console: where the progress bar goes.
        run_fn: ``f(scenario, seed) -> Result`` that executes one run in a worker
            (default :func:`tcplab.run` without progress); must be picklable
            (a module-level function).

    Raises:
        ScenarioError: the spec is invalid, or ``out`` cannot be used.
        KeyboardInterrupt: after stopping the workers; finished runs are kept.
    """
    t_start = time.perf_counter()
    if _in_spawn_bootstrap():
        raise RuntimeError(
            "tcplab.sweep() was called while a worker process was importing your script: worker "
            "processes re-import the main script, so a script must start the sweep under "
            "`if __name__ == \"__main__\":` (see docs/sweeps.md)"
        )
    spec = _as_spec(spec)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise scenario_error("jobs", f"must be a positive integer, got {jobs!r}")
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise scenario_error("retries", f"must be a non-negative integer, got {retries!r}")
    if jobs is None:
        try:
            jobs = len(os.sched_getaffinity(0))
        except AttributeError:
            jobs = os.cpu_count() or 1
    out_dir = Path(out) if out is not None else default_out(spec)
    runs = spec.runs()
    store = _Store(out_dir)
    store.open()
    try:
        records: dict[str, dict[str, Any]] = {}
        for r in runs:
            rec = store.status(r.id)
            if rec is not None and not (retry_failed and rec["status"] == "failed"):
                records[r.id] = rec
            elif rec is not None:
                store.forget(r.id)
        pending = [r for r in runs if r.id not in records]
        skipped = len(runs) - len(pending)
        skipped_failed = sum(1 for x in records.values() if x["status"] == "failed")
        executed: set[str] = set()
        base = spec.base.to_dict()
        store.write_manifest(spec, runs, records)

        def task(r: SweepRun) -> _Task:
            return _Task(r.id, base, r.overrides, r.seed, run_fn)

        client, own_client = (None, False)
        if pending and dask is not None:
            client, own_client = _dask_client(dask)
        bar: Progress | None = None
        tid = None
        failed = sum(1 for x in records.values() if x["status"] == "failed")
        console = console or Console(stderr=True)
        if progress and pending and console.is_terminal:
            bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(bar_width=24),
                _RunsColumn(),
                _FailedColumn(),
                TimeElapsedColumn(),
                _EtaColumn(),
                console=console,
                transient=True,
            )
            name = spec.name if len(spec.name) <= 24 else spec.name[:23] + "…"
            tid = bar.add_task(name, total=len(runs), completed=skipped, failed=failed, skipped=skipped, t0=time.perf_counter())
            bar.start()
        last_manifest = time.perf_counter()

        def done(run: SweepRun, outcome: dict[str, Any], attempts: int) -> None:
            nonlocal failed, last_manifest
            records[run.id] = store.write(run, outcome, attempts)
            executed.add(run.id)
            if outcome["status"] != "ok":
                failed += 1
            if bar is not None and tid is not None:
                bar.update(tid, advance=1, failed=failed)
            now = time.perf_counter()
            if now - last_manifest > _MANIFEST_EVERY_S:
                store.write_manifest(spec, runs, records)
                last_manifest = now

        try:
            if client is not None:
                _run_dask(pending, task, client, retries, done)
            elif pending:
                _run_local(pending, task, jobs, retries, done, store)
        finally:
            if bar is not None:
                bar.stop()
            if own_client and client is not None:
                with contextlib.suppress(Exception):
                    client.close()
            store.write_manifest(spec, runs, records)
        summary = _summary_frame(spec, runs, out_dir, records)
        _write_parquet(summary, out_dir / SUMMARY_FILE)
        frame = _runs_frame(spec, runs, records, executed)
        warnings = _seed_warnings(spec, runs, out_dir, records)
        if skipped_failed:
            warnings.append(
                f"{skipped_failed} run{'s' * (skipped_failed > 1)} recorded as failed in {out_dir} "
                f"{'were' if skipped_failed > 1 else 'was'} skipped; pass retry_failed=True "
                "(tcplab sweep --retry-failed) to run them again"
            )
        warnings += _died_warnings(records, executed, dask is not None)
    finally:
        store.close()
    return SweepResult(out_dir, spec, frame, summary, time.perf_counter() - t_start, warnings)


def _in_spawn_bootstrap() -> bool:
    """Whether this process is a spawned worker still importing the parent's main script
    (multiprocessing's own test for that, as in ``spawn._check_not_importing_main``)."""
    return bool(getattr(multiprocessing.current_process(), "_inheriting", False))


def _died_warnings(records: Mapping[str, dict[str, Any]], executed: set[str], on_dask: bool) -> list[str]:
    """Every run of this call failed because its worker died, from a script: the classic
    missing main guard (the workers re-import the script and fail before running anything)."""
    mine = [records[i] for i in executed if i in records]
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if on_dask or not mine or main_file is None:
        return []
    if all(r["status"] == "failed" and "worker process died" in str(r.get("error", "")) for r in mine):
        return [
            f"every run failed because its worker process died; if the sweep is started from a script "
            f"({Path(main_file).name}), the workers re-import that script: put the sweep under "
            "`if __name__ == \"__main__\":`"
        ]
    return []


def _seed_warnings(spec: SweepSpec, runs: Sequence[SweepRun], out: Path, records: Mapping[str, dict[str, Any]]) -> list[str]:
    """A warning when several seeds are swept but no finished run draws random numbers
    (``run.stochastic`` is false in every summary): the seeds cannot differ."""
    if len(spec.seeds) < 2:
        return []
    flags = []
    for r in runs:
        if (records.get(r.id) or {}).get("status") != "ok":
            continue
        try:
            s = json.loads((out / RUNS_DIR / r.id / "summary.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        flags.append((s.get("run") or {}).get("stochastic"))
    if flags and all(f is False for f in flags):
        return [
            f"{len(spec.seeds)} seeds but no component of the scenario draws random numbers "
            "(no random loss, RED/CHOKe queue, exponential on/off source or start_jitter): every "
            "seed gives the same result, so the spread over seeds is zero; a flow key such as "
            "start_jitter = \"1s\" adds a random start"
        ]
    return []


def load_sweep(out: str | Path, spec: SweepSpec | Mapping[str, Any] | str | Path | None = None) -> SweepResult:
    """Read a sweep's output directory without running anything.

    ``spec`` defaults to the spec file recorded in ``manifest.json``.
    """
    out = Path(out)
    try:
        manifest = json.loads((out / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise scenario_error("out", f"{out}: no sweep here ({MANIFEST_FILE}: {e})") from None
    if spec is None:
        src = (manifest.get("sweep") or {}).get("source")
        if not src:
            raise scenario_error("spec", "the manifest names no spec file; pass the spec")
        spec = src
    sp = _as_spec(spec)
    store = _Store(out)
    runs = sp.runs()
    records = {r.id: rec for r in runs if (rec := store.status(r.id)) is not None}
    summary_path = out / SUMMARY_FILE
    summary = pl.read_parquet(summary_path) if summary_path.exists() else _summary_frame(sp, runs, out, records)
    return SweepResult(out, sp, _runs_frame(sp, runs, records, set()), summary, 0.0)

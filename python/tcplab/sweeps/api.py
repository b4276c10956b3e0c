"""The entry points: :func:`sweep` and :func:`load_sweep`."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from warnings import warn

import polars as pl
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from tcplab.fileio import write_parquet
from tcplab.results import Result
from tcplab.runner import ThreadsWarning, available_cores
from tcplab.scenario import Scenario, scenario_error

from .dask_executor import dask_client, run_dask
from .diagnostics import died_warnings, in_spawn_bootstrap, seed_warnings
from .local import run_local
from .progress import EtaColumn, FailedColumn, RunsColumn
from .spec import SweepRun, SweepSpec
from .store import MANIFEST_FILE, SUMMARY_FILE, Store
from .tables import SweepResult, runs_frame, summary_frame
from .worker import Task

__all__ = ["as_spec", "default_out", "load_sweep", "sweep"]

_MANIFEST_EVERY_S = 0.5


def as_spec(spec: SweepSpec | Mapping[str, Any] | str | Path) -> SweepSpec:
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
        jobs: worker processes on this machine (default: every core, or the cores over the
            runs' ``threads`` when a run asks for several; more than that warns with
            :class:`tcplab.ThreadsWarning`).
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
    if in_spawn_bootstrap():
        raise RuntimeError(
            "tcplab.sweep() was called while a worker process was importing your script: worker "
            "processes re-import the main script, so a script must start the sweep under "
            "`if __name__ == \"__main__\":` (see docs/sweeps.md)"
        )
    spec = as_spec(spec)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise scenario_error("jobs", f"must be a positive integer, got {jobs!r}")
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise scenario_error("retries", f"must be a non-negative integer, got {retries!r}")
    cores = available_cores()
    # Runs with `threads = T` use T cores each: by default as many jobs as fit the cores.
    threads = max(
        [_threads(spec.base.to_dict().get("threads"))]
        + [_threads(p["threads"]) for p in spec.points if "threads" in p]
    )
    if jobs is None:
        jobs = max(1, cores // threads)
    if jobs * threads > cores and dask is None:
        warn(
            f"jobs = {jobs} with threads = {threads} per run: up to {jobs * threads} threads on {cores} available "
            f"core{'s' if cores != 1 else ''}; the runs' partitions take turns on the cores and wait at every "
            f"barrier, so the sweep is slower than with jobs = {max(1, cores // threads)} (the results are the same)",
            ThreadsWarning,
            stacklevel=2,
        )
    out_dir = Path(out) if out is not None else default_out(spec)
    runs = spec.runs()
    store = Store(out_dir)
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

        def task(r: SweepRun) -> Task:
            return Task(r.id, base, r.overrides, r.seed, run_fn)

        client, own_client = (None, False)
        if pending and dask is not None:
            client, own_client = dask_client(dask)
        bar: Progress | None = None
        tid = None
        failed = sum(1 for x in records.values() if x["status"] == "failed")
        console = console or Console(stderr=True)
        if progress and pending and console.is_terminal:
            bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(bar_width=24),
                RunsColumn(),
                FailedColumn(),
                TimeElapsedColumn(),
                EtaColumn(),
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
                run_dask(pending, task, client, retries, done)
            elif pending:
                run_local(pending, task, jobs, retries, done, store)
        finally:
            if bar is not None:
                bar.stop()
            if own_client and client is not None:
                with contextlib.suppress(Exception):
                    client.close()
            store.write_manifest(spec, runs, records)
        summary = summary_frame(spec, runs, out_dir, records)
        write_parquet(summary, out_dir / SUMMARY_FILE)
        frame = runs_frame(spec, runs, records, executed, out_dir)
        warnings = seed_warnings(spec, runs, out_dir, records)
        if skipped_failed:
            warnings.append(
                f"{skipped_failed} run{'s' * (skipped_failed > 1)} recorded as failed in {out_dir} "
                f"{'were' if skipped_failed > 1 else 'was'} skipped; pass retry_failed=True "
                "(tcplab sweep --retry-failed) to run them again"
            )
        warnings += died_warnings(records, executed, dask is not None)
    finally:
        store.close()
    return SweepResult(out_dir, spec, frame, summary, time.perf_counter() - t_start, warnings)




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
    sp = as_spec(spec)
    store = Store(out)
    runs = sp.runs()
    records = {r.id: rec for r in runs if (rec := store.status(r.id)) is not None}
    summary_path = out / SUMMARY_FILE
    summary = pl.read_parquet(summary_path) if summary_path.exists() else summary_frame(sp, runs, out, records)
    return SweepResult(out, sp, runs_frame(sp, runs, records, set(), out), summary, 0.0)


def _threads(v: Any) -> int:
    """A run's `threads` value as a count (1 when unset; the run itself checks the value)."""
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 1 else 1

"""Run a scenario in slices of simulated time, with an optional progress bar.

The core advances with the GIL released; between slices Python regains control, so a
progress bar can be updated and Ctrl-C (KeyboardInterrupt) stops the run promptly.
"""

from __future__ import annotations

import os
import re
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TextColumn
from rich.text import Text

from tcplab import _core
from tcplab.results import Result
from tcplab.scenario import Scenario, ScenarioError, scenario_error

__all__ = ["run", "as_scenario"]

#: Wall seconds after which the progress bar appears (shorter runs print nothing).
PROGRESS_AFTER_S = 2.0
#: Slices aim at this many wall seconds each (adapted as the run goes).
_TARGET_SLICE_WALL_S = 0.1


def as_scenario(scenario: Scenario | Mapping[str, Any] | str | Path) -> Scenario:
    """Coerce what :func:`run` accepts into a :class:`Scenario`.

    A ``str`` or ``Path`` is the path of a scenario TOML file; a mapping is the scenario
    data itself.
    """
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, (str, Path)):
        return Scenario.from_toml(scenario)
    if isinstance(scenario, Mapping):
        return Scenario.from_dict(scenario)
    raise TypeError(f"cannot run a {type(scenario).__name__}; pass a Scenario, a dict or a TOML path")


class _SimSecondsColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        return Text(f"{task.completed:,.0f}/{task.total or 0:,.0f} sim s", style="progress.download")


class _EventRateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        rate = task.fields.get("events_per_s", 0.0)
        return Text(f"{rate / 1e6:,.1f}M ev/s", style="progress.data.speed")


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds + 0.5), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}"


class _WallColumn(ProgressColumn):
    """Wall time since the run began (not since the bar appeared) and the estimate left."""

    def render(self, task: Task) -> Text:
        wall = float(task.fields.get("wall", 0.0))
        done, total = task.completed, task.total or 0.0
        eta = "-:--:--" if done <= 0 else _clock(wall * (total - done) / done)
        return Text(f"{_clock(wall)} eta {eta}", style="progress.elapsed")


def _progress(console: Console | None) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(bar_width=24),
        _SimSecondsColumn(),
        _EventRateColumn(),
        _WallColumn(),
        console=console or Console(stderr=True),
        transient=True,
    )


_SIZE_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def parse_size(value: int | str, field: str) -> int:
    """A byte count: an integer, or a number with a unit (``"16GB"``, ``"8GiB"``, ``"512MB"``).
    Raises ScenarioError naming ``field``."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", value)
        if m and m.group(2).lower() in _SIZE_UNITS and float(m.group(1)) > 0:
            return int(float(m.group(1)) * _SIZE_UNITS[m.group(2).lower()])
    raise scenario_error(field, f"must be a positive size such as 16GB, 8GiB or 512MB, got {value!r}")


class ThreadsWarning(UserWarning):
    """A run asked for more threads than this process has cores: the partitions take turns
    on the cores and wait for each other at every window's barriers, so the run is slower
    than with fewer threads (its results are the same)."""


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run(
    scenario: Scenario | Mapping[str, Any] | str | Path,
    seed: int | None = None,
    progress: bool = True,
    *,
    console: Console | None = None,
    pcap_dir: str | Path | None = None,
    audit: bool | int = False,
    max_memory: int | str | None = None,
    threads: int | None = None,
) -> Result:
    """Run ``scenario`` to completion and return its :class:`Result`.

    Args:
        scenario: a :class:`Scenario`, a scenario dict, or the path of a TOML file.
        seed: overrides the scenario's ``seed`` when given (a non-negative integer).
        progress: show a progress bar (on stderr) once the run has taken more than
            ``PROGRESS_AFTER_S`` wall seconds; short runs print nothing.
        console: where the progress bar goes (default: a stderr console).
        pcap_dir: the directory relative ``links.*.pcap`` paths are written in (default:
            the current directory; ``tcplab run`` uses its ``--out``). It must exist. The
            files are listed in ``result.pcaps``; ``result.save(dir)`` copies them along.
        audit: switch on the engine's invariant auditor (docs/reliability.md): ``True``
            checks the whole state every 1024 events, an integer every that many events.
            Results are identical either way; a violation (an engine bug) raises.
        max_memory: refuse a scenario whose estimated memory once built exceeds this many
            bytes (an integer, or a size such as ``"16GB"`` / ``"8GiB"``); default: half of
            the machine's available memory (docs/scenarios.md, "Size limits").
        threads: run this one simulation on that many threads (default: the scenario's
            ``threads``, else 1). The network is split into partitions that exchange packets
            at barriers; results are bit-identical to one thread (docs/scaling.md). Flow
            schedules, ``metrics.events = ["cwnd"]`` and ``audit`` run on one thread only.
            More threads than :func:`available_cores` warn (:class:`ThreadsWarning`).

    Raises:
        ScenarioError: the scenario is invalid (the field is ``err.args[1]``).
        KeyboardInterrupt: re-raised after the progress bar is closed.
    """
    sc = as_scenario(scenario)
    if not isinstance(audit, bool) and (not isinstance(audit, int) or audit < 0):
        raise scenario_error("audit", f"must be True, False or a number of events >= 1, got {audit!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64):
        raise scenario_error("seed", f"must be an integer in [0, 2^64), got {seed!r}")
    try:
        extra: dict[str, Any] = {} if pcap_dir is None else {"pcap_dir": str(pcap_dir)}
        if audit:
            extra["audit"] = 1024 if audit is True else int(audit)
        if max_memory is not None:
            extra["max_memory"] = parse_size(max_memory, "max_memory")
        if threads is not None:
            if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 1024:
                raise scenario_error("threads", f"must be an integer between 1 and 1024, got {threads!r}")
            extra["threads"] = threads
        sim = _core.Simulation(sc.to_json(), seed, **extra)
    except ScenarioError as e:
        e.file = sc.source
        raise
    cores = available_cores()
    if sim.threads > cores:
        warnings.warn(
            f"threads = {sim.threads} on {cores} available core{'s' if cores != 1 else ''}: the partitions take "
            f"turns on the cores and wait at every barrier, so this run is slower than with threads = {cores} "
            "(the results are the same)",
            ThreadsWarning,
            stacklevel=2,
        )
    duration = sim.duration
    slice_s = duration / 200
    t0 = time.perf_counter()
    bar: Progress | None = None
    task = None
    last_events, last_wall = 0, t0
    try:
        while not sim.finished:
            ts = time.perf_counter()
            step = min(slice_s, max(duration - sim.now, duration * 1e-9))
            sim.advance(step)
            now_wall = time.perf_counter()
            dt = now_wall - ts
            # Keep each slice near the target wall time: long enough that per-slice
            # overhead is negligible, short enough for a lively bar and prompt Ctrl-C.
            if dt < _TARGET_SLICE_WALL_S / 2 and slice_s < duration / 10:
                slice_s *= 2
            elif dt > _TARGET_SLICE_WALL_S * 2 and slice_s > duration / 100_000:
                slice_s /= 2
            if progress and bar is None and now_wall - t0 > PROGRESS_AFTER_S:
                bar = _progress(console)
                name = sc.name if len(sc.name) <= 24 else sc.name[:23] + "…"
                wall = now_wall - t0
                task = bar.add_task(
                    name, total=duration, completed=min(sim.now, duration), events_per_s=sim.events / wall, wall=wall
                )
                last_events, last_wall = sim.events, now_wall
                bar.start()
            if bar is not None and task is not None:
                wall = now_wall - last_wall
                if wall > 0.25 or sim.finished:
                    rate = (sim.events - last_events) / wall if wall > 0 else 0.0
                    last_events, last_wall = sim.events, now_wall
                    bar.update(task, completed=min(sim.now, duration), events_per_s=rate, wall=now_wall - t0)
    finally:
        if bar is not None:
            bar.stop()
    raw = sim.results(lists=False)
    # The simulation may only be freed on the thread that made it: drop it here rather than
    # when this frame dies, which a sampling profiler (e.g. Dask's) can delay to its thread.
    del sim
    return Result.from_core(raw, pcap_dir=Path(pcap_dir) if pcap_dir is not None else Path.cwd())

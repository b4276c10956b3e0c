"""Executing one run in a worker process (local pool or Dask): the task, its outcome, and
the worker's signal set-up."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcplab.results import Result
from tcplab.scenario import Scenario, ScenarioError

from .spec import SweepRun, sorted_overrides
from .store import SCENARIO_FILE

__all__ = ["Done", "Task", "execute", "sigint_blocked", "worker_init"]

#: What an executor calls for each finished run: ``done(run, outcome, attempts)``.
Done = Callable[[SweepRun, dict[str, Any], int], None]

def _default_run(scenario: Scenario, seed: int) -> Result:
    from tcplab.runner import run

    return run(scenario, seed=seed, progress=False)


@dataclass
class Task:
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


def execute(task: Task) -> dict[str, Any]:
    """Run one task; never raises for a failing run (the outcome says ``failed``)."""
    t0 = time.perf_counter()
    out: dict[str, Any] = {"id": task.id, "status": "failed", "error": None, "result": None, "scenario_toml": None}
    try:
        sc = Scenario.from_dict(task.base).with_overrides(sorted_overrides(task.overrides))
        out["scenario_toml"] = sc.with_overrides({"seed": task.seed}).to_toml()
        with warnings.catch_warnings():
            if task.save_to is not None:  # local: the sweep warned once for all its runs
                from tcplab.runner import ThreadsWarning

                warnings.simplefilter("ignore", ThreadsWarning)
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
def sigint_blocked() -> Iterator[None]:
    """Block SIGINT in this thread while starting workers: they inherit the mask, so a
    Ctrl-C during their start-up stays pending until worker_init ignores it (the sweep
    process gets its KeyboardInterrupt when the block ends)."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def worker_init() -> None:
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


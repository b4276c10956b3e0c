"""The Dask executor: runs on an existing ``distributed`` cluster; outcomes come back to
the sweep process, which writes them."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from tcplab.scenario import scenario_error

from .spec import SweepRun
from .worker import Done, Task, execute

__all__ = ["dask_client", "run_dask"]


def dask_client(address: Any) -> tuple[Any, bool]:
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


def run_dask(runs: Sequence[SweepRun], tasks: Callable[[SweepRun], Task], client: Any, retries: int, done: Done) -> None:
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
            futures.append(client.submit(execute, tasks(run), key=key, pure=False, retries=retries))
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


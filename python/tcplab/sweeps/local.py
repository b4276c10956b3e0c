"""The local executor: one single-worker process pool per job, so a dead worker is
attributed to exactly one run."""

from __future__ import annotations

import contextlib
import multiprocessing
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from .spec import SweepRun
from .store import Store, rmtree
from .worker import Done, Task, execute, sigint_blocked, worker_init

__all__ = ["run_local"]


def _mp_context() -> multiprocessing.context.BaseContext:
    # "spawn": each worker is a child of this process, so it dies with it (see
    # worker_init). Forkserver children keep the server alive and would outlive a killed
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




def run_local(
    runs: Sequence[SweepRun], tasks: Callable[[SweepRun], Task], jobs: int, retries: int, done: Done, store: Store
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
        return ProcessPoolExecutor(max_workers=1, mp_context=ctx, initializer=worker_init)

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
                with sigint_blocked():  # submit() starts the slot's worker process if needed
                    try:
                        fut = slots[i].submit(execute, task)
                    except BrokenProcessPool:
                        slots[i] = new_pool()
                        fut = slots[i].submit(execute, task)
                inflight[fut] = (i, run, task.save_to)
            finished, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
            for fut in finished:
                i, run, scratch = inflight.pop(fut)
                try:
                    outcome = fut.result()
                except BrokenProcessPool:
                    rmtree(Path(scratch))  # whatever the dead worker had written
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

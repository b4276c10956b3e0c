"""Picklable ``run_fn`` hooks for sweep tests (imported by worker processes by name)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import tcplab


def _key(scenario: tcplab.Scenario, seed: int) -> str:
    return hashlib.sha256(f"{scenario.to_json()}|{seed}".encode()).hexdigest()[:16]


class Counting:
    """Runs normally and appends one line per execution to ``log`` (O_APPEND: safe across processes)."""

    def __init__(self, log: Path) -> None:
        self.log = str(log)

    def _record(self, scenario: tcplab.Scenario, seed: int) -> None:
        fd = os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, f"{_key(scenario, seed)} {seed} {os.getpid()}\n".encode())
        finally:
            os.close(fd)

    def __call__(self, scenario: tcplab.Scenario, seed: int) -> tcplab.Result:
        self._record(scenario, seed)
        return tcplab.run(scenario, seed=seed, progress=False)


class SlowCounting(Counting):
    """As :class:`Counting`, then waits ``seconds`` before running (so a test can kill the
    sweep while runs are in flight)."""

    def __init__(self, log: Path, seconds: float) -> None:
        super().__init__(log)
        self.seconds = seconds

    def __call__(self, scenario: tcplab.Scenario, seed: int) -> tcplab.Result:
        import time

        self._record(scenario, seed)
        time.sleep(self.seconds)
        return tcplab.run(scenario, seed=seed, progress=False)


class Crash:
    """Kills the worker process (as a segfault or the OOM killer would) when running ``seed``:
    the first ``times`` attempts only (``times=None``: always)."""

    def __init__(self, marker_dir: Path, seed: int, times: int | None = 1) -> None:
        self.marker_dir = str(marker_dir)
        self.seed = seed
        self.times = times

    def __call__(self, scenario: tcplab.Scenario, seed: int) -> tcplab.Result:
        if seed == self.seed:
            d = Path(self.marker_dir)
            n = len(list(d.glob(f"{_key(scenario, seed)}-*")))
            if self.times is None or n < self.times:
                (d / f"{_key(scenario, seed)}-{n}").touch()
                os._exit(3)
        return tcplab.run(scenario, seed=seed, progress=False)


class KillableCounting(Counting):
    """As :class:`Counting`; then, for ``seed``, leaves a file named ``PID-KEY`` in
    ``pid_dir`` and waits ``seconds`` before running, so that a test can SIGKILL the worker
    process from outside while the run is in flight (issue 32: a Dask worker killed
    mid-run)."""

    def __init__(self, log: Path, pid_dir: Path, seed: int, seconds: float) -> None:
        super().__init__(log)
        self.pid_dir = str(pid_dir)
        self.seed = seed
        self.seconds = seconds

    def __call__(self, scenario: tcplab.Scenario, seed: int) -> tcplab.Result:
        import time

        self._record(scenario, seed)
        if seed == self.seed:
            (Path(self.pid_dir) / f"{os.getpid()}-{_key(scenario, seed)}").touch()
            time.sleep(self.seconds)
        return tcplab.run(scenario, seed=seed, progress=False)

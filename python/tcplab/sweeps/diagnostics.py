"""Warnings about a finished sweep: the missing main guard, seeds that cannot differ."""

from __future__ import annotations

import json
import multiprocessing
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .spec import SweepRun, SweepSpec
from .store import RUNS_DIR

__all__ = ["died_warnings", "in_spawn_bootstrap", "seed_warnings"]


def in_spawn_bootstrap() -> bool:
    """Whether this process is a spawned worker still importing the parent's main script
    (multiprocessing's own test for that, as in ``spawn._check_not_importing_main``)."""
    return bool(getattr(multiprocessing.current_process(), "_inheriting", False))


def died_warnings(records: Mapping[str, dict[str, Any]], executed: set[str], on_dask: bool) -> list[str]:
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


def seed_warnings(spec: SweepSpec, runs: Sequence[SweepRun], out: Path, records: Mapping[str, dict[str, Any]]) -> list[str]:
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
            "(no random loss, RED/CHOKe/PIE drop test, FQ-CoDel hash, exponential on/off source, "
            "BBR start phase or start_jitter drew one in any run): every "
            "seed gives the same result, so the spread over seeds is zero; a flow key such as "
            "start_jitter = \"1s\" adds a random start"
        ]
    return []

"""The sweep's output directory: run directories moved into place when complete, the
manifest, the lock, and the scratch space of runs being written."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tcplab import _core
from tcplab.fileio import write_text
from tcplab.scenario import scenario_error

from .spec import SweepRun, SweepSpec

__all__ = [
    "ID_COLUMNS", "LOCK_FILE", "MANIFEST_FILE", "RUNS_DIR", "RUN_FILE", "SCENARIO_FILE", "SUMMARY_FILE", "TMP_DIR",
    "Store", "rmtree",
]  # fmt: skip

RUNS_DIR = "runs"
TMP_DIR = "tmp"
MANIFEST_FILE = "manifest.json"
SUMMARY_FILE = "summary.parquet"
RUN_FILE = "run.json"
SCENARIO_FILE = "scenario.toml"
LOCK_FILE = ".lock"
#: Columns of summary.parquet that are not flow fields or swept keys.
ID_COLUMNS = ("run_id", "seed")


class Store:
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
            rmtree(p)

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
            rmtree(gone)

    def scratch(self, rid: str) -> Path:
        """A fresh, not yet existing directory under tmp/ for a run being written."""
        self._n += 1
        p = self.tmp / f"{rid}-{os.getpid()}-{self._n}"
        rmtree(p)
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
        write_text(self.out / MANIFEST_FILE, json.dumps(doc, indent=1, ensure_ascii=False, default=str) + "\n")


def rmtree(p: Path) -> None:
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            p.unlink()


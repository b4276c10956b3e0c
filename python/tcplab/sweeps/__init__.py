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

# The package's modules: spec (the spec file, runs and run ids), store (the output
# directory), worker (one run in a worker process), local and dask_executor (the two
# executors), tables (SweepResult and its frames), progress, diagnostics (warnings), api
# (sweep, load_sweep). Each imports only the public names of the others.
from .api import default_out, load_sweep, sweep
from .spec import SPEC_FIELDS, SweepRun, SweepSpec, run_id  # noqa: F401 (constants: part of the module's surface)
from .store import ID_COLUMNS, LOCK_FILE, MANIFEST_FILE, RUN_FILE, RUNS_DIR, SCENARIO_FILE, SUMMARY_FILE, TMP_DIR  # noqa: F401
from .tables import SweepResult, sweep_table

__all__ = ["SweepSpec", "SweepRun", "SweepResult", "sweep", "load_sweep", "sweep_table", "run_id", "default_out"]

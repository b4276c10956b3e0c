#!/usr/bin/env python3
"""Sweep speed-up: N independent runs of one benchmark scenario, one at a time vs in parallel.

    python bench/sweep_speedup.py [--runs 8] [--scenario b] [--seconds 10] [--jobs N]

Two ways, each timed serially (1 worker) and with --jobs workers (default: every core):
  1. a process pool over the Rust binary (`tcplab-bench run`, one process per run);
  2. `tcplab.sweep` (the Python package's sweep runner, N seeds of the same scenario) when
     `tcplab` is importable by this Python (e.g. `.venv/bin/python`); skipped otherwise.
The runs are independent, so the ideal speed-up is min(jobs, N); what is lost is process
start-up, writing results, and the two cores sharing caches and memory bandwidth.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def binary_pool(exe: str, scenario: str, secs: float, n: int, jobs: int) -> tuple[float, list[dict]]:
    def one(_: int) -> dict:
        out = subprocess.run([exe, "run", scenario, str(secs)], capture_output=True, text=True,
                             check=True)
        return json.loads(out.stdout)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as ex:  # threads only wait on child processes
        res = list(ex.map(one, range(n)))
    return time.perf_counter() - t0, res


def python_sweep(exe: str, scenario: str, secs: float, n: int, jobs: int) -> float | None:
    try:
        import tcplab  # noqa: F401
        from tcplab.sweeps import sweep
    except Exception as e:  # noqa: BLE001
        print(f"  tcplab.sweep: skipped ({type(e).__name__}: {e})")
        return None
    with tempfile.TemporaryDirectory() as d:
        base = Path(d) / "bench.toml"
        base.write_text(subprocess.run([exe, "toml", scenario, str(secs)], capture_output=True,
                                       text=True, check=True).stdout)
        spec = {"base": str(base), "name": f"bench-{scenario}", "seeds": list(range(1, n + 1)),
                "grid": {"metrics.interval": ["1s"]}}
        t0 = time.perf_counter()
        sweep(spec, Path(d) / "out", jobs=jobs, progress=False)
        return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--scenario", default="b")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--jobs", type=int, default=cores())
    ap.add_argument("--tcplab-bench", default=str(ROOT / "target/release/tcplab-bench"))
    ap.add_argument("--no-python", action="store_true", help="skip the tcplab.sweep measurement")
    a = ap.parse_args()
    n, j = a.runs, a.jobs
    print(f"sweep speed-up: {n} runs of scenario {a.scenario} ({a.seconds} s simulated), "
          f"1 vs {j} workers on {cores()} cores")
    t1, r1 = binary_pool(a.tcplab_bench, a.scenario, a.seconds, n, 1)
    tj, rj = binary_pool(a.tcplab_bench, a.scenario, a.seconds, n, j)
    same = {r["fingerprint"] for r in r1} == {r["fingerprint"] for r in rj}
    per = sum(r["wall_seconds"] for r in r1) / n
    print(f"  binary pool : serial {t1:7.2f} s  parallel {tj:7.2f} s  speed-up {t1 / tj:4.2f}x "
          f"(ideal {min(j, n)}x; one run {per:.2f} s in-loop; results identical: {same})")
    if not a.no_python:
        p1 = python_sweep(a.tcplab_bench, a.scenario, a.seconds, n, 1)
        if p1 is not None:
            pj = python_sweep(a.tcplab_bench, a.scenario, a.seconds, n, j)
            print(f"  tcplab.sweep: serial {p1:7.2f} s  parallel {pj:7.2f} s  "
                  f"speed-up {p1 / pj:4.2f}x (includes writing summary.json + intervals.parquet)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

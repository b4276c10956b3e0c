"""CUBIC vs NewReno through a drop-tail, CoDel, FQ-CoDel and PIE bottleneck.

    .venv/bin/python examples/modern_aqm.py                 # 40 simulated seconds each
    .venv/bin/python examples/modern_aqm.py --duration 20s

Prints, per queue, each flow's goodput (Mb/s: in-order payload delivered to the application,
docs/outputs.md) and queueing delay (mean RTT − minimum RTT, ms), the bottleneck's
utilisation and its drops and marks, then the run's warnings. The scenario is
examples/modern_aqm.toml; the queue is swapped with an override.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import tcplab

SCENARIO = Path(__file__).resolve().parent / "modern_aqm.toml"  # beside this script
QUEUES = {
    "droptail": {"type": "droptail", "limit": 1000},
    "codel": {"type": "codel"},
    "fq_codel": {"type": "fq_codel"},
    "pie": {"type": "pie"},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", default=os.environ.get("TCPLAB_MODERN_AQM_DURATION", "40s"))
    args = ap.parse_args()
    base = tcplab.Scenario.from_toml(SCENARIO)
    print(f"{'queue':<9} {'flow':<8} {'goodput Mb/s':>12} {'queue ms':>9}   bottleneck")
    warnings: list[str] = []
    for qname, queue in QUEUES.items():
        sc = base.with_overrides(
            {"duration": args.duration, "metrics.steady_start": "5s", "dumbbell.bottleneck.queue": queue}
        )
        res = tcplab.run(sc, seed=1)
        bn = next(ln for ln in res.summary["links"] if ln["name"] == "bn")
        for k, fl in enumerate(res.summary["flows"]):
            mean, lo = fl["mean_rtt_s"], fl["min_rtt_s"]
            qdelay = f"{1e3 * (mean - lo):>9.1f}" if mean is not None and lo is not None else f"{'-':>9}"
            link = (
                f"util {bn['utilization']:.3f}, drops {bn['drops']}, marks {bn['marks']}" if k == 0 else ""
            )
            print(f"{qname:<9} {fl['name']:<8} {fl['goodput_bps'] / 1e6:>12.2f} {qdelay}   {link}")
        warnings += [f"{qname}: {w}" for w in res.warnings]
    for w in warnings:
        print(f"warning: {w}")


if __name__ == "__main__":
    main()

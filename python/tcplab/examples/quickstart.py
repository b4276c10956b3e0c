"""Quickstart: run the Fig. 2.3 reproduction for a short time and look at the results.

    .venv/bin/python examples/quickstart.py                 # 120 simulated seconds
    .venv/bin/python examples/quickstart.py --duration 60s --out out/quickstart

The duration can also come from the environment: TCPLAB_QUICKSTART_DURATION=60s.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import tcplab
from tcplab.reporting.plots import plot_efficiency
from tcplab.repro.reproduce import paper_dir

# The paper scenarios ship with the package (scenarios/ in a checkout is the same folder).
SCENARIO = paper_dir("kalampoukas97") / "fig2_3.toml"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", default=os.environ.get("TCPLAB_QUICKSTART_DURATION", "120s"), help="simulated time, e.g. 60s")
    ap.add_argument("--out", type=Path, default=Path("out") / "quickstart", help="where to write results and the plot")
    args = ap.parse_args()

    # 1. Load the scenario file and shorten it. Overrides use the dotted field paths of
    #    the TOML file; the steady-state window must start before the end of the run.
    scenario = tcplab.Scenario.from_toml(SCENARIO).with_overrides(
        {"duration": args.duration, "metrics.steady_start": "10s"}
    )
    scenario.validate()  # raises tcplab.ScenarioError naming the field if anything is off

    # 2. Run it (a progress bar appears only for runs longer than ~2 wall seconds).
    result = tcplab.run(scenario, seed=1)

    # 3. Per-flow numbers as a polars DataFrame.
    print(result.flows.select("name", "cc", "goodput_bps", "efficiency", "retransmits", "timeouts"))
    # The closed-form comparison, when the scenario asks for one.
    if result.analysis:
        for row in result.analysis["rows"]:
            print(f"{row['flow']}: Theorem 1 predicts {row['analytic']:.1%}, simulated {row['simulated']:.1%}")

    # 4. Save everything and plot efficiency per interval.
    out = result.save(args.out)
    plot_efficiency(result, out / "efficiency.png")
    print(f"wrote {out}/summary.json, {out}/intervals.parquet and {out}/efficiency.png")


if __name__ == "__main__":
    main()

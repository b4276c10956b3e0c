"""Flow completion times against queueing theory: one bottleneck, Poisson arrivals of flows
with web-search sizes at loads 0.3 / 0.5 / 0.7 (load counted with headers, `load_of` the
bottleneck), and the mean slowdown of the flows of at least 10 BDPs beside processor
sharing's 1 / (1 - rho) (M/G/1-PS: a job of size x stays x / (C (1 - rho)) on average,
whatever the size distribution). TCP shares the link among the flows present, as PS does,
but not instantly: slow start, the round trip and the queue make the gap, reported, not
tuned.

    python bench/mg1ps.py            # prints the table
    python bench/mg1ps.py --write    # and writes it into docs/workloads.md
"""

from __future__ import annotations

import argparse
from pathlib import Path

import polars as pl

import tcplab
from docblock import write_block

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "workloads.md"
RATE = 1e9  # bottleneck, bit/s
SENDERS = 4


#: (label, the flows' transport, the bottleneck queue): a loss-based TCP that fills the
#: buffer, and DCTCP with step marking at K = 20 packets (a short standing queue).
TRANSPORTS = [
    ("CUBIC, drop-tail", {"cc": "cubic"}, {"type": "droptail", "limit": 2000}),
    ("DCTCP, K = 20", {"cc": "dctcp", "ecn": True}, {"type": "droptail", "limit": 2000, "mark_threshold": 20}),
]


def scenario(load: float, seconds: float, seed: int, transport: int = 0) -> dict:
    _, flow, queue = TRANSPORTS[transport]
    nodes = {f"s{i}": "host" for i in range(SENDERS)} | {"r1": "router", "r2": "router", "d": "host"}
    links = {f"a{i}": {"from": f"s{i}", "to": "r1", "rate": "10Gbps", "delay": "5us", "duplex": True}
             for i in range(SENDERS)}  # fmt: skip
    links["bn"] = {"from": "r1", "to": "r2", "rate": "1Gbps", "delay": "15us", "duplex": True,
                   "queue": queue}  # fmt: skip
    links["out"] = {"from": "r2", "to": "d", "rate": "10Gbps", "delay": "5us", "duplex": True}
    return {
        "name": f"M/G/1-PS check, load {load}", "seed": seed, "duration": f"{seconds}s",
        "nodes": nodes, "links": links,
        "workloads": {"web": {
            "type": "load", "sizes": "web_search", "load": load, "load_of": "bn",
            "from": [f"s{i}" for i in range(SENDERS)], "to": ["d"],
            "stop": f"{seconds * 0.8}s", "flow": flow,
        }},
    }  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=40.0, help="simulated seconds per load")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--write", action="store_true", help="write the table into docs/workloads.md")
    args = ap.parse_args()
    rtt = 2 * (5e-6 + 15e-6 + 5e-6)
    bdp = RATE * rtt / 8
    rows = []
    for (label, _, _), load in [(t, x) for t in TRANSPORTS for x in (0.3, 0.5, 0.7)]:
        ti = [t[0] for t in TRANSPORTS].index(label)
        frames = []
        wall = 0.0
        for seed in range(1, args.seeds + 1):
            res = tcplab.run(tcplab.Scenario.from_dict(scenario(load, args.seconds, seed, ti)), progress=False)
            wall += res.summary["run"]["wall_seconds"]
            frames.append(res.fct)
        fct = pl.concat(frames)
        done = fct.filter(pl.col("completed") == 1)
        big = done.filter(pl.col("bytes") >= 10 * bdp)
        small = done.filter(pl.col("bytes") < 10 * bdp)
        rows.append({
            "transport": label, "timeouts": int(big["timeouts"].sum()),
            "small": small["slowdown"].mean(),
            "p99": big["slowdown"].quantile(0.99, "linear"), "load": load, "flows": fct.height, "completed": done.height / fct.height, "big": big.height,
            "mean": big["slowdown"].mean(), "ps": 1 / (1 - load), "p50": big["slowdown"].median(), "wall": wall,
        })  # fmt: skip
    lines = [
        f"| transport | load ρ | flows | completed | flows ≥ 10 BDP ({10 * bdp / 1e3:.0f} KB) | their mean slowdown "
        "| M/G/1-PS 1/(1 − ρ) | ratio | their median | their p99 | their timeouts | shorter flows' mean slowdown |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['transport']} | {r['load']} | {r['flows']} | {r['completed']:.1%} | {r['big']} | {r['mean']:.2f} "
                     f"| {r['ps']:.2f} | {r['mean'] / r['ps']:.2f} | {r['p50']:.2f} | {r['p99']:.1f} | {r['timeouts']} | {r['small']:.2f} |")  # fmt: skip
    table = "\n".join(lines)
    print(table)
    if args.write:
        body = (f"{table}\n\n{args.seeds} seeds × {args.seconds:g} simulated s per load (arrivals in the first 80 %); "
                f"{sum(r['wall'] for r in rows):.0f} s of simulation wall time.")  # fmt: skip
        return write_block(DOC, "mg1ps", f"python bench/mg1ps.py --seconds {args.seconds:g} --seeds {args.seeds} --write", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

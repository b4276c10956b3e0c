"""Speed of a workload run beside bulk traffic (docs/workloads.md, "Speed"): the k = 8
fat-tree of examples/websearch_fattree.toml (web search at 50 % load plus incast, DCTCP)
against the same fat-tree with one bulk DCTCP flow per host (a permutation), each on 1 and
2 threads (best of 3 wall times), with the outputs of 1 and 2 threads compared.

    python bench/workload_speed.py [--write]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import tcplab
from docblock import write_block
from tcplab import Scenario

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "workloads.md"


def scenario(threads: int, bulk: bool) -> Scenario:
    d = Scenario.from_toml(REPO / "examples" / "websearch_fattree.toml").with_overrides({
        "fat_tree.k": 8, "duration": "40ms", "workloads.web.stop": "30ms", "workloads.incast.stop": "30ms",
    }).to_dict()  # fmt: skip
    if bulk:
        d.pop("workloads")
        d["fat_tree"]["traffic"] = "permutation"
        d["defaults"] = {"flows": {"cc": "dctcp", "ecn": True}}
    d["threads"] = threads
    return Scenario.from_dict(d)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write the table into docs/workloads.md")
    args = ap.parse_args()
    lines = ["| traffic | threads | wall s (best of 3) | packet transmissions (all hops) | M transmissions / s | speed-up | outputs equal to 1 thread |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for bulk in (False, True):
        one = None
        for th in (1, 2):
            runs = [tcplab.run(scenario(th, bulk), progress=False) for _ in range(3)]
            r = min(runs, key=lambda x: x.summary["run"]["wall_seconds"])
            w = r.summary["run"]["wall_seconds"]
            hops = sum(ln["tx_packets"] for ln in r.summary["links"])
            if one is None:
                one = (w, r)
            same = r.fct.equals(one[1].fct) and r.summary["links"] == one[1].summary["links"] and r.summary["flows"] == one[1].summary["flows"]
            label = "bulk: one flow per host (permutation)" if bulk else f"web search 50 % + incast ({r.fct.height} flows)"
            lines.append(f"| {label} | {th} | {w:.2f} | {hops:,} | {hops / w / 1e6:.2f} | {one[0] / w:.2f} | {'yes' if same else 'NO'} |")
    table = "\n".join(lines)
    print(table)
    if args.write:
        body = f"{table}\n\nMeasured on this project's {os.cpu_count()}-core {os.uname().machine} machine."
        return write_block(DOC, "speed", "python bench/workload_speed.py --write", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

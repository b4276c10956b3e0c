#!/usr/bin/env python3
"""Scale runs: cost per packet and memory from 16 to 10 000 flows, and the k = 8 fat-tree.

    python3 bench/scale_plot.py --run     # measure (about 20-30 min on a loaded 2-core box),
                                          # writes bench/scale_results.json, then plots
    python3 bench/scale_plot.py           # plot and print the table from the saved results

Scenarios (crates/tcplab-core/src/bin/bench.rs, "Scale runs"): n16, n100, n1000, n10000
(dumbbells on one 10 Gb/s, 40 ms bottleneck, buffer max(1 BDP, 10 packets per flow),
init_ssthresh at the middle of the AIMD sawtooth) and fat8 (k = 8 fat-tree, permutation).

Each scenario runs twice:

* natively, full length (dumbbells 1.5 s, the last 0.5 s measured; fat8 30 ms, the last
  10 ms): wall time per packet in the measured window, peak RSS, RSS after the build;
* under callgrind, shorter (dumbbells 0.7 s, the last 0.2 s measured; fat8 12 ms, the last
  4 ms), counting only `measured_window` (`--collect-atstart=no
  --toggle-collect=*measured_window*`): instructions per packet in steady state, which
  machine load does not change. Wall times on a loaded machine are not reliable; the
  instruction counts are the figures to compare.

Writes docs/scale.png: instructions and wall nanoseconds per bottleneck packet against the
number of flows.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# TCPLAB_BENCH: a built binary to measure (no cargo build).
BENCH = Path(os.environ.get("TCPLAB_BENCH", REPO / "target" / "release" / "tcplab-bench"))
RESULTS = REPO / "bench" / "scale_results.json"
PLOT = REPO / "docs" / "scale.png"

# name -> (native seconds, native warm-up, callgrind seconds, callgrind warm-up)
RUNS = {
    "n16": (1.5, 1.0, 0.7, 0.5),
    "n100": (1.5, 1.0, 0.7, 0.5),
    "n1000": (1.5, 1.0, 0.7, 0.5),
    "n10000": (1.5, 1.0, 0.7, 0.5),
    "fat8": (0.03, 0.02, 0.012, 0.008),
}


def run_native(name: str, secs: float, warm: float) -> dict:
    out = subprocess.run([str(BENCH), "run", name, str(secs), "--warmup", str(warm)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def run_callgrind(name: str, secs: float, warm: float) -> dict:
    with tempfile.TemporaryDirectory() as d:
        cg = Path(d) / "cg.out"
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=*measured_window*",
             f"--callgrind-out-file={cg}", str(BENCH), "run", name, str(secs), "--warmup", str(warm)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        m = re.search(r"Collected : (\d+)", out.stderr)
        if not m:
            sys.exit(f"callgrind printed no total for {name}:\n{out.stderr[-2000:]}")
        v = json.loads(out.stdout)
        v["window_instructions"] = int(m.group(1))
        return v


def measure() -> dict:
    if "TCPLAB_BENCH" not in os.environ:
        subprocess.run(["cargo", "build", "--release", "-p", "tcplab-core", "--bin", "tcplab-bench"], cwd=REPO, check=True)
    sizes = json.loads(subprocess.run([str(BENCH), "sizes"], capture_output=True, text=True, check=True).stdout)
    res: dict = {"sizes": sizes, "runs": {}}
    for name, (s, w, cs, cw) in RUNS.items():
        print(f"{name}: native {s} s ...", flush=True)
        nat = run_native(name, s, w)
        print(f"{name}: callgrind {cs} s ...", flush=True)
        cg = run_callgrind(name, cs, cw)
        for v in (nat, cg):  # 10 000 per-flow numbers each: keep the file small
            v.pop("per_flow_goodput_bps", None)
        res["runs"][name] = {"native": nat, "callgrind": cg}
        RESULTS.write_text(json.dumps(res, indent=1))
    return res


def per_packet(r: dict) -> dict:
    """Figures per packet: bottleneck packets for the dumbbells, host packets (data and acks
    the hosts send) for the fat-tree."""
    nat, cg = r["native"], r["callgrind"]
    key = "window_host_packets" if nat["name"] == "fat8" else "window_bottleneck_packets"
    return {
        "packets": nat[key],
        "instr": cg["window_instructions"] / cg[key],
        "instr_per_event": cg["window_instructions"] / cg["window_events"],
        "instr_per_hop": cg["window_instructions"] / cg["window_hop_deliveries"],
        "events": nat["window_events"] / nat[key],
        "wall_ns": nat["window_wall_seconds"] * 1e9 / nat[key],
    }


def table(res: dict) -> str:
    rows = [
        "| run | flows | links | packets in window | events/pkt | instructions/pkt (callgrind) | instr/event | instr/hop | wall ns/pkt (loaded) | RSS after build | peak RSS | util | timeouts |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in res["runs"].items():
        nat = r["native"]
        p = per_packet(r)
        rows.append(
            f"| {name} | {nat['flows']} | {nat['links']} | {p['packets']:,} | {p['events']:.2f} | {p['instr']:,.0f} | "
            f"{p['instr_per_event']:.0f} | {p['instr_per_hop']:.0f} | {p['wall_ns']:,.0f} | "
            f"{nat['rss_after_build_kib'] / 1024:.1f} MiB | {nat['peak_rss_kib'] / 1024:.1f} MiB | {nat['utilization']:.3f} | {nat['timeouts']} |"
        )
    return "\n".join(rows)


def plot(res: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in res["runs"] if n != "fat8"]
    flows = [res["runs"][n]["native"]["flows"] for n in names]
    pp = [per_packet(res["runs"][n]) for n in names]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.plot(flows, [p["instr"] for p in pp], "o-", color="C0", label="instructions / packet (callgrind)")
    ax.set_xscale("log")
    ax.set_xlabel("flows on one 10 Gb/s bottleneck")
    ax.set_ylabel("instructions per bottleneck packet", color="C0")
    ax.set_ylim(0, max(p["instr"] for p in pp) * 1.3)
    ax2 = ax.twinx()
    ax2.plot(flows, [p["wall_ns"] for p in pp], "s--", color="C1", label="wall ns / packet (loaded machine)")
    ax2.set_ylabel("wall ns per bottleneck packet (loaded machine)", color="C1")
    ax2.set_ylim(0, max(p["wall_ns"] for p in pp) * 1.3)
    for f, p in zip(flows, pp):
        ax.annotate(f"{p['instr']:,.0f}", (f, p["instr"]), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
    lines = ax.get_lines() + ax2.get_lines()
    ax.legend(lines, [ln.get_label() for ln in lines], loc="lower left", fontsize=8)
    ax.set_title("tcplab: cost per packet vs number of flows (NewReno dumbbell)")
    fig.tight_layout()
    fig.savefig(PLOT, dpi=120)
    print(f"wrote {PLOT.relative_to(REPO)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="store_true", help="measure (slow) before plotting")
    a = ap.parse_args()
    res = measure() if a.run else json.loads(RESULTS.read_text())
    print(f"struct sizes (bytes): {res['sizes']}")
    print(table(res))
    plot(res)


if __name__ == "__main__":
    main()

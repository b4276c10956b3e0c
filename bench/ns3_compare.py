#!/usr/bin/env python3
"""tcplab next to ns-3 on the benchmark dumbbells (scenarios a-d of tcplab-bench).

    python bench/ns3_compare.py [--quick] [--only a,b] [--json FILE] [--tcplab-bench PATH]

Needs the PyPI package `ns3` (cppyy bindings) importable by this Python; `make bench-ns3`
creates target/ns3-venv with it. Where ns-3 cannot be imported it prints why and exits 0.

Per scenario it runs, each in its own child process:
  * ns-3 for a shorter simulated time (ns-3 is slow) -> speed per bottleneck packet, goodput;
  * tcplab for the same simulated time and window   -> the cross-check numbers (with
    `partial_ack_timer = "first"`, ns-3's NewReno timer behaviour);
  * tcplab for its benchmark length                 -> tcplab's speed figure.
The topology, queue sizes and start times come from `tcplab-bench run` (one definition);
bench/ns3_dumbbell.cc builds the same dumbbell in ns-3, configured to match tcplab's TCP.

Cross-check (a and b): aggregate goodput and bottleneck utilisation within 3 %, Jain index
within 0.05. It reports agreement or disagreement; it does not fail the command, and neither
side is tuned to the other. docs/performance.md explains the differences.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# Simulated seconds (and start of the goodput window) for ns-3 and the same-length tcplab
# run; tcplab's speed run uses its own benchmark lengths (tcplab-bench).
NS3_RUNS = {
    #      full (secs, warmup)  quick (secs, warmup)
    "a": ((100.0, 60.0), (20.0, 10.0)),
    "b": ((12.0, 4.0), (5.0, 2.0)),
    "c": ((2.0, 1.0), (0.5, 0.25)),
    "d": ((0.6, 0.3), (0.25, 0.15)),
}
TCPLAB_SPEED_RUNS = {"a": (100.0, 10.0, 10.0, 2.0), "b": (30.0, 10.0, 5.0, 2.0),
                     "c": (20.0, 5.0, 3.0, 1.0), "d": (5.0, 2.0, 1.0, 0.5)}
CROSS_CHECK = ("a", "b")
# Diagnostic rows: the same runs with the initial ssthresh at each flow's share of the BDP, so
# that slow start does not overshoot by a whole BDP. Multi-loss recovery without SACK is where
# the two TCPs differ most (docs/performance.md); these rows show how far apart they are
# without that transient. Same setting on both sides; not part of the pass/fail tolerance.
SS_VARIANTS = ("a", "b")
TOL_GOODPUT = 0.03
TOL_UTIL = 0.03
TOL_JAIN = 0.05


def jain(xs: list[float]) -> float:
    s, q = sum(xs), sum(x * x for x in xs)
    return 1.0 if q == 0 else s * s / (len(xs) * q)


def bdp_bytes(spec: dict) -> float:
    return spec["rate_bps"] * spec["rtt_ms"] / 1000 / 8


def snd_buf(spec: dict) -> int:
    """ns-3 send buffer: 8x the per-flow share of (BDP + bottleneck buffer), 4 MB to 1 GiB."""
    b = spec["bottleneck_buffer"]
    buf = int(b[:-1]) * (spec["mss"] + 40) if b.endswith("p") else int(b[:-1])
    return int(min(max(8 * (bdp_bytes(spec) + buf) / spec["flows"], 4e6), 1 << 30))


def peak_rss_kib() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


# ---------------------------------------------------------------------------------------------
# ns-3 child


def ns3_child(spec: dict, secs: float, warmup: float) -> dict:
    """Build and run the dumbbell in ns-3 (in this process); returns its figures."""
    t0 = time.perf_counter()
    from ns import ns  # noqa: F401  (loads the ns-3 libraries and headers into cppyy)
    import cppyy

    cppyy.cppdef((HERE / "ns3_dumbbell.cc").read_text())
    load_s = time.perf_counter() - t0
    r = cppyy.gbl.tcplab_ns3.Run(
        int(spec["flows"]), int(spec["rate_bps"]), int(spec["bottleneck_delay_us"]),
        int(spec["mss"]), str(spec["bottleneck_buffer"]), int(spec["access_limit_packets"]),
        snd_buf(spec), int(spec.get("init_ssthresh_bytes") or 0xFFFFFFFF),
        float(secs), float(warmup))
    window = secs - warmup
    per_flow = [b * 8.0 / window for b in r.rx_window_bytes]
    wall = r.wall_seconds
    return {
        "tool": "ns-3",
        "ns3_version": getattr(ns, "__version__", "3.44 (PyPI ns3)"),
        "name": spec["name"],
        "sim_seconds": secs,
        "warmup_seconds": warmup,
        "load_seconds": load_s,
        "setup_seconds": r.setup_seconds,
        "wall_seconds": wall,
        "events": int(r.events),
        "events_per_s": r.events / wall,
        "bottleneck_packets": int(r.bottleneck_packets),
        "bottleneck_pkts_per_s": r.bottleneck_packets / wall,
        "events_per_bottleneck_packet": r.events / max(1, r.bottleneck_packets),
        "wall_per_sim": wall / secs,
        "utilization": r.bottleneck_bytes_window * 8.0 / (spec["rate_bps"] * window),
        "goodput_bps": sum(per_flow),
        "per_flow_goodput_bps": per_flow,
        "jain": jain(per_flow),
        "bottleneck_drops": int(r.bottleneck_drops),
        "access_drops": int(r.access_drops),
        "max_bottleneck_queue_packets": int(r.bottleneck_max_queue),
        "peak_rss_kib": peak_rss_kib(),
        "snd_buf_bytes": snd_buf(spec),
    }


# ---------------------------------------------------------------------------------------------
# parent


def ns3_importable(python: str) -> tuple[bool, str]:
    p = subprocess.run([python, "-c", "from ns import ns; ns.Simulator.Now()"],
                       capture_output=True, text=True, timeout=600)
    if p.returncode == 0:
        return True, ""
    tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
    return False, " | ".join(tail) or f"exit {p.returncode}"


def run_tcplab(exe: str, name: str, secs: float, warmup: float, ssthresh: int | None = None,
               partial_ack_timer: str = "every") -> dict:
    extra = ["--init-ssthresh", str(ssthresh)] if ssthresh else []
    extra += ["--partial-ack-timer", partial_ack_timer]
    out = subprocess.run([exe, "run", name, str(secs), "--warmup", str(warmup), *extra],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def run_ns3(python: str, spec: dict, secs: float, warmup: float) -> dict:
    p = subprocess.run([python, __file__, "--ns3-child", json.dumps(spec), str(secs), str(warmup)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"ns-3 run of {spec['name']} failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def mbps(x: float) -> str:
    return f"{x / 1e6:9.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    default=os.environ.get("TCPLAB_BENCH_QUICK", "") not in ("", "0"))
    ap.add_argument("--only", default="a,b,c,d")
    ap.add_argument("--json", dest="json_out")
    ap.add_argument("--tcplab-bench", default=str(ROOT / "target/release/tcplab-bench"))
    ap.add_argument("--ns3-python", default=sys.executable,
                    help="Python that can import ns (default: this one)")
    ap.add_argument("--ns3-child", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()

    if a.ns3_child:
        spec, secs, warm = json.loads(a.ns3_child[0]), float(a.ns3_child[1]), float(a.ns3_child[2])
        print(json.dumps(ns3_child(spec, secs, warm)))
        return 0

    ok, why = ns3_importable(a.ns3_python)
    if not ok:
        print(f"ns3_compare: SKIPPED: ns-3 is not importable by {a.ns3_python} ({why}).\n"
              f"  Install it with `make bench-ns3` (creates target/ns3-venv with `pip install ns3`).")
        return 0
    if not Path(a.tcplab_bench).exists():
        print(f"ns3_compare: {a.tcplab_bench} not found; run `cargo build --release -p tcplab-core`")
        return 2

    names = [n for n in a.only.split(",") if n in NS3_RUNS]
    jobs = [(n, False) for n in names] + [(n, True) for n in names if n in SS_VARIANTS]
    mode = 1 if a.quick else 0
    print(f"ns3_compare{' --quick' if a.quick else ''}: tcplab vs ns-3 (PyPI ns3, cppyy), "
          f"dumbbells {','.join(names)}; every run in its own process")
    print("speed per bottleneck packet (each tool's wall time of the event loop only):")
    print("sc | ns-3 sim s   wall s  kpkt/s  ev/pkt RSS MiB | tcplab sim s  wall s  Mpkt/s  ev/pkt"
          " | per-packet speed-up")
    rows = []
    for n, ss in jobs:
        (secs, warm) = NS3_RUNS[n][mode]
        ts, tw, qs, qw = TCPLAB_SPEED_RUNS[n]
        speed = run_tcplab(a.tcplab_bench, n, qs if a.quick else ts, qw if a.quick else tw)
        ssth = None
        if ss:
            probe = run_tcplab(a.tcplab_bench, n, 0.001, 0.0)
            ssth = int(bdp_bytes(probe) / probe["flows"])
        # Same TCP as ns-3: its timer restarts on the first partial ack only ("impatient").
        same = run_tcplab(a.tcplab_bench, n, secs, warm, ssth, "first")
        nsr = run_ns3(a.ns3_python, same, secs, warm)
        label = n + ("*" if ss else "")
        ratio = speed["bottleneck_pkts_per_s"] / nsr["bottleneck_pkts_per_s"]
        print(f"{label:2} | {secs:10.2f} {nsr['wall_seconds']:8.2f} {nsr['bottleneck_pkts_per_s'] / 1e3:7.1f}"
              f" {nsr['events_per_bottleneck_packet']:7.1f} {nsr['peak_rss_kib'] / 1024:7.0f} |"
              f" {speed['sim_seconds']:12.1f} {speed['wall_seconds']:7.3f}"
              f" {speed['bottleneck_pkts_per_s'] / 1e6:7.3f} {speed['events_per_bottleneck_packet']:7.1f}"
              f" | {ratio:8.0f}x", flush=True)
        rows.append({"name": label, "init_ssthresh": ssth, "ns3": nsr, "tcplab_same_window": same, "tcplab_speed": speed,
                     "speedup_per_packet": ratio})

    print("\ngoodput over the same window [warmup, end] of the same simulated run length:")
    print("sc  window s      | goodput Mb/s ns-3  tcplab    diff | util ns-3 tcplab    diff |"
          " jain ns-3 tcplab  diff | drops ns-3 tcplab | verdict")
    verdicts = {}
    for r in rows:
        nsr, tl = r["ns3"], r["tcplab_same_window"]
        dg = tl["goodput_bps"] / nsr["goodput_bps"] - 1 if nsr["goodput_bps"] else float("inf")
        du = tl["utilization"] / nsr["utilization"] - 1 if nsr["utilization"] else float("inf")
        dj = tl["jain"] - nsr["jain"]
        checked = r["name"] in CROSS_CHECK
        agree = abs(dg) <= TOL_GOODPUT and abs(du) <= TOL_UTIL and abs(dj) <= TOL_JAIN
        verdict = ("AGREE" if agree else "DISAGREE") if checked else "(not checked)"
        verdicts[r["name"]] = {"goodput_rel_diff": dg, "util_rel_diff": du, "jain_diff": dj,
                               "checked": checked, "agree": agree if checked else None}
        print(f"{r['name']:2}  [{nsr['warmup_seconds']:5.2f},{nsr['sim_seconds']:6.2f}] |"
              f"      {mbps(nsr['goodput_bps'])} {mbps(tl['goodput_bps'])} {dg * 100:+6.1f}% |"
              f" {nsr['utilization']:9.3f} {tl['utilization']:6.3f} {du * 100:+6.1f}% |"
              f" {nsr['jain']:9.3f} {tl['jain']:6.3f} {dj:+5.2f} |"
              f" {nsr['bottleneck_drops']:10d} {tl['bottleneck_drops']:6d} | {verdict}")
    print(f"(tolerances: goodput and utilisation {TOL_GOODPUT:.0%}, Jain {TOL_JAIN}; "
          "* = diagnostic row, initial ssthresh = each flow's share of the BDP on both sides; "
          "see docs/performance.md for the TCP differences behind any gap)")
    if a.json_out:
        Path(a.json_out).write_text(json.dumps({"quick": a.quick, "runs": rows,
                                                "cross_check": verdicts}, indent=1))
        print(f"wrote {a.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

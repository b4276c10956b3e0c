#!/usr/bin/env python3
"""tcplab's flow completion times against ns-3 on the same flow list: DCTCP on one 10 Gb/s
bottleneck, web-search sizes at 50 % load (docs/workloads.md, "Against ns-3: DCTCP on one
bottleneck").

    target/ns3-venv/bin/python bench/ns3_fct.py            # prints the tables
    target/ns3-venv/bin/python bench/ns3_fct.py --write    # and writes them into docs/workloads.md
    target/ns3-venv/bin/python bench/ns3_fct.py --alone 1000,50000   # flows alone, both sides

Run it with a Python that imports `ns` (the PyPI `ns3`, `make target/ns3-venv/.stamp`); the
tcplab side runs in a child process under .venv/bin/python (`--tcplab-python`). Where ns-3
cannot be imported it says why and exits 0.

1. tcplab runs the scenario below: SENDERS senders, each on its own 10 Gb/s access link into
   a switch `sw`, and one 10 Gb/s link sw -> d to one receiver host d (every link 5 us, base
   round trip 20 us), a drop-tail bottleneck of BUFFER packets with step marking at K = 65;
   `[workloads.web]` of `type = "load"`, web-search sizes, load 0.5 of the bottleneck
   (`load_of`), DCTCP (below). Its fct.parquet is the flow list.
2. ns-3 (bench/ns3_fct.cc) builds the same network and runs exactly those flows: one
   BulkSendApplication per flow (MaxBytes = its bytes, started at its arrival, so its SYN
   leaves then), one PacketSink on d. Each flow's FCT is measured at the sender, as tcplab
   defines it: from the arrival to the first ack that covers the last byte (the socket's
   HighestRxAck trace). The ideal FCT and the size buckets are tcplab's (its ideal_fct_s
   column: the same flow on the same path), so the slowdowns differ only by the FCTs.
3. Per size bucket (tcplab's default edges 10 KB, 100 KB, 1 MB, 10 MB; a bucket is [low,
   high)): flows, completion share, slowdown p50 / p99 (linear interpolation, completed
   flows, as tcplab's summary) on both sides and their ratio, retransmissions and timeouts;
   p50 compared where a bucket has >= 50 flows, p99 where >= 200, against the issue's 15 %.

The TCP on both sides is ns-3.44's defaults (tcplab `profile = "ns3"`: SACK with PRR,
timestamps, 52-byte headers, initial window 10, delayed acks every second segment with a
200 ms timer, 128 KiB buffers, no limited transmit modelled), with these set on both:
  * DCTCP (ns-3 TcpDctcp: g 1/16, alpha 1 at start, ECT(0) on every packet), ECN on;
  * a SYN first (ns-3 always opens with a handshake; tcplab `syn = true`);
  * mss 1448 (SegmentSize; 1500-byte IP packets with the timestamp option);
  * minimum RTO 5 ms (MinRto; the profile's 1 s would make every timeout 1 s), ns-3's RTO
    clock granularity 1 ns (tcplab models none), ns-3's limited transmit off (tcplab has
    none), ns-3's DataRetries 1000 (tcplab never gives a connection up);
The profile itself gives a DCTCP flow `ack_counting = "segments"` (TcpDctcp is a
TcpLinuxReno, whose SlowStart and CongestionAvoidance count the segments an ack covers) and
every flow `quickack = 1` with `quickack_after_idle = false` (ns-3's receiver acks the first
data segment of a connection at once: TcpSocketBase::ProcessSynRcvd sets m_delAckCount =
m_delAckMaxCount, "Always respond to first data packet").

ns-3 runs three times (--ns3): `stock` (ns-3.44's TcpDctcp: the comparison), and two
diagnostics that repair what docs/workloads.md traces the difference to, subclasses in
bench/ns3_fct.cc: `floor` (TcpDctcpFloor: a two-segment floor under the ECN reduction) and
`floor-ack` (TcpDctcpFloorAck: also the receiver's ack at a change of CE state covering the
segment held for the delayed ack). --trace-flow N records flow N's ns-3 timeline (cwnd,
ssthresh, congestion and ECN states, segments sent, acks received) into OUT/ns3-*.json.
cppyy prints two "Failed to materialize symbols" lines when `ns` loads (as for
bench/ns3_compare.py); they are harmless.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DOC = ROOT / "docs" / "workloads.md"

SENDERS = 4
RATE_BPS = 10_000_000_000
DELAY_NS = 5_000  # every link, one way
BUFFER = 300  # bottleneck packets
K = 65  # DCTCP marking threshold, packets (Alizadeh et al. 2010 for 10 Gb/s)
HOST_QUEUE = 1000  # tcplab's default link queue; ns-3's device queues elsewhere
MSS = 1448
RTO_MIN = "5ms"
EDGES = (10_000, 100_000, 1_000_000, 10_000_000)  # tcplab's default metrics.fct_buckets
P50_MIN, P99_MIN = 50, 200  # flows a bucket needs for its p50 / p99 to be compared
TOL = 0.15

#: The flows' transport (both sides; module docstring).
TCP = {"cc": "dctcp", "ecn": True, "profile": "ns3", "syn": True, "mss": MSS, "rto_min": RTO_MIN}

#: ns-3 attributes beyond its defaults (Config::SetDefault), the counterparts of TCP.
NS3_DEFAULTS = ";".join([
    "ns3::TcpL4Protocol::SocketType=ns3::TcpDctcp",
    "ns3::TcpSocketBase::UseEcn=On",
    f"ns3::TcpSocket::SegmentSize={MSS}",
    "ns3::TcpSocketBase::MinRto=5ms",
    "ns3::TcpSocketBase::ClockGranularity=1ns",
    "ns3::TcpSocketBase::LimitedTransmit=false",
    "ns3::TcpSocket::DataRetries=1000",
])


def bucket_labels(edges=EDGES) -> list[str]:
    """tcplab's bucket names for these edges (summary.json's `bucket`)."""
    def s(b):
        for unit, f in (("MB", 1_000_000), ("KB", 1_000)):
            if b >= f and b % f == 0:
                return f"{b // f}{unit}"
        return f"{b}B"
    out = [f"<{s(edges[0])}"]
    out += [f"{s(lo)}-{s(hi)}" for lo, hi in zip(edges, edges[1:])]
    return out + [f">={s(edges[-1])}"]


def bucket_of(nbytes: int, edges=EDGES) -> int:
    """The bucket index of a flow of `nbytes`: bucket i is [edges[i-1], edges[i])."""
    return sum(1 for e in edges if nbytes >= e)


def quantile(xs: list[float], q: float) -> float:
    """Linear interpolation between order statistics (polars' and tcplab's "linear")."""
    s = sorted(xs)
    if not s:
        return math.nan
    pos = q * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def sender_index(host: str, senders: int = SENDERS) -> int:
    """`s3` -> 3: the ns-3 sender node of a tcplab source host."""
    if not (host.startswith("s") and host[1:].isdigit() and int(host[1:]) < senders):
        raise ValueError(f"not a sender host of this scenario: {host!r}")
    return int(host[1:])


def ns3_flow_list(rows: list[dict], senders: int = SENDERS, receiver: str = "d") -> dict:
    """tcplab's fct rows (from, to, bytes, start_s) as the ns-3 side's arrays: sender index,
    bytes and start time in whole nanoseconds (ns-3's time step), in tcplab's row order."""
    src, nbytes, start = [], [], []
    for r in rows:
        if r["to"] != receiver:
            raise ValueError(f"flow to {r['to']!r}: this scenario has one receiver {receiver!r}")
        if not (r["bytes"] > 0 and r["start_s"] >= 0):
            raise ValueError(f"flow with bytes {r['bytes']} at {r['start_s']}")
        src.append(sender_index(r["from"], senders))
        nbytes.append(int(r["bytes"]))
        start.append(round(r["start_s"] * 1e9))
    return {"src": src, "bytes": nbytes, "start_ns": start}


def scenario(stop: float, duration: float, seed: int, tcp: dict) -> dict:
    nodes = {f"s{i}": "host" for i in range(SENDERS)} | {"sw": "router", "d": "host"}
    link = {"rate": f"{RATE_BPS // 10**9}Gbps", "delay": f"{DELAY_NS // 1000}us", "duplex": True}
    links = {f"a{i}": {"from": f"s{i}", "to": "sw", **link} for i in range(SENDERS)}
    links["bn"] = {"from": "sw", "to": "d", **link,
                   "queue": {"type": "droptail", "limit": BUFFER, "mark_threshold": K}}
    return {
        "name": "DCTCP web search against ns-3", "seed": seed, "duration": f"{duration}s",
        "nodes": nodes, "links": links,
        "workloads": {"web": {
            "type": "load", "sizes": "web_search", "load": 0.5, "load_of": "bn",
            "from": [f"s{i}" for i in range(SENDERS)], "to": ["d"], "stop": f"{stop}s", "flow": tcp,
        }},
    }  # fmt: skip


def alone_scenario(sizes: list[int], gap: float, tcp: dict) -> dict:
    """One flow at a time from s0: sizes[i] bytes at (i + 1) * gap."""
    sc = scenario(1.0, (len(sizes) + 1) * gap, 1, tcp)
    del sc["workloads"]
    sc["flows"] = {f"f{i}": {"from": "s0", "to": "d", **tcp,
                             "app": {"type": "transfer", "bytes": b, "start": f"{(i + 1) * gap}s"}}
                   for i, b in enumerate(sizes)}  # fmt: skip
    return sc


# ---------------------------------------------------------------------------------------------
# tcplab child (.venv/bin/python)


def tcplab_child(out: Path, stop: float, duration: float, seed: int, alone: list[int] | None,
                 gap: float) -> None:
    import tcplab

    res = {}
    for name, tcp in (("aligned", TCP),):
        sc = alone_scenario(alone, gap, tcp) if alone else scenario(stop, duration, seed, tcp)
        t0 = time.perf_counter()
        r = tcplab.run(tcplab.Scenario.from_dict(sc), progress=False)
        proc = time.perf_counter() - t0
        if name == "aligned":
            r.fct.write_parquet(out / "fct.parquet")
        links = {lk["name"]: lk for lk in r.summary["links"]}
        bn = links["bn"]
        res[name] = {
            "rows": r.fct.select("from", "to", "bytes", "start_s", "fct_s", "ideal_fct_s",
                                 "retransmits", "timeouts", "completed").to_dicts(),
            "wall_seconds": r.summary["run"]["wall_seconds"], "run_seconds": proc,
            "events": r.summary["run"]["events"],
            "packets_all_hops": sum(lk["tx_packets"] for lk in links.values()),
            "bottleneck_packets": bn["tx_packets"], "bottleneck_marks": bn["marks"],
            "bottleneck_drops": bn["drops"], "bottleneck_max_queue": bn["max_queue"],
            "tcplab_version": getattr(tcplab, "__version__", "?"),
        }  # fmt: skip
    (out / "tcplab.json").write_text(json.dumps(res))


# ---------------------------------------------------------------------------------------------
# ns-3 child (the ns3 venv's Python)


def ns3_child(flows_file: Path, out: Path, seconds: float, trace_flow: int = -1,
              variant: str = "stock") -> None:
    t0 = time.perf_counter()
    import cppyy
    from ns import ns  # noqa: F401  (loads the ns-3 libraries and headers into cppyy)

    cppyy.cppdef((HERE / "ns3_fct.cc").read_text())
    defaults = NS3_DEFAULTS
    if variant not in VARIANT_NAMES:
        raise SystemExit(f"ns3_fct: unknown ns-3 variant {variant!r}")
    if variant != "stock":
        getattr(cppyy.gbl.tcplab_fct, VARIANT_NAMES[variant]).GetTypeId()  # registers the TypeId
        defaults = defaults.replace("=ns3::TcpDctcp;", f"=ns3::{VARIANT_NAMES[variant]};")
    load_s = time.perf_counter() - t0
    fl = json.loads(flows_file.read_text())
    vec = cppyy.gbl.std.vector
    r = cppyy.gbl.tcplab_fct.Run(
        SENDERS, RATE_BPS, DELAY_NS, DELAY_NS, BUFFER, K, HOST_QUEUE, MSS,
        vec["uint32_t"](fl["src"]), vec["uint64_t"](fl["bytes"]), vec["uint64_t"](fl["start_ns"]),
        float(seconds), defaults, trace_flow)  # fmt: skip
    tr = list(r.trace)
    res = {
        "end_s": [float(x) for x in r.end_s], "retransmits": [int(x) for x in r.retransmits],
        "timeouts": [int(x) for x in r.timeouts], "cwr": [int(x) for x in r.cwr],
        "recoveries": [int(x) for x in r.recoveries],
        "wall_seconds": r.wall_seconds, "setup_seconds": r.setup_seconds, "load_seconds": load_s,
        "run_seconds": time.perf_counter() - t0, "events": int(r.events),
        "bottleneck_packets": int(r.bottleneck_packets), "bottleneck_marks": int(r.bottleneck_marks),
        "bottleneck_drops": int(r.bottleneck_drops), "other_drops": int(r.other_drops),
        "bottleneck_max_queue": int(r.bottleneck_max_qdisc),
        "ns3_version": getattr(ns, "__version__", "3.44 (PyPI ns3)"), "variant": variant,
        "trace": [tr[k:k + 4] for k in range(0, len(tr), 4)],
    }  # fmt: skip
    out.write_text(json.dumps(res).replace("NaN", "null"))


# ---------------------------------------------------------------------------------------------
# parent


def ns3_rows(tl_rows: list[dict], ns: dict) -> list[dict]:
    """ns-3's per-flow results as fct rows: tcplab's flow (bytes, start, ideal) with ns-3's end."""
    out = []
    for r, end, rx, to in zip(tl_rows, ns["end_s"], ns["retransmits"], ns["timeouts"]):
        done = end is not None and not math.isnan(end)
        fct = end - r["start_s"] if done else math.nan
        out.append({**r, "fct_s": fct, "completed": int(done), "retransmits": rx, "timeouts": to})
    return out


def buckets(rows: list[dict], edges=EDGES) -> list[dict]:
    """Per bucket: flows, completed share, slowdown p50 / p99 of the completed, sums of
    retransmissions and timeouts."""
    labels = bucket_labels(edges)
    per = [[] for _ in labels]
    for r in rows:
        per[bucket_of(r["bytes"], edges)].append(r)
    out = []
    for lab, rs in zip(labels, per):
        sd = [r["fct_s"] / r["ideal_fct_s"] for r in rs if r["completed"]]
        out.append({"bucket": lab, "flows": len(rs), "completed": len(sd) / len(rs) if rs else math.nan,
                    "p50": quantile(sd, 0.5), "p99": quantile(sd, 0.99),
                    "retransmits": sum(r["retransmits"] for r in rs),
                    "timeouts": sum(r["timeouts"] for r in rs)})  # fmt: skip
    return out


def compare(tl: list[dict], ns: list[dict]) -> list[dict]:
    rows = []
    for a, b in zip(buckets(tl), buckets(ns)):
        row = {"bucket": a["bucket"], "flows": a["flows"], "tl": a, "ns": b}
        for q, need in (("p50", P50_MIN), ("p99", P99_MIN)):
            ratio = a[q] / b[q] if b[q] and not math.isnan(b[q]) else math.nan
            row[f"{q}_ratio"] = ratio
            row[f"{q}_ok"] = (abs(ratio - 1) <= TOL) if a["flows"] >= need else None
        rows.append(row)
    return rows


def verdict(ok: bool | None) -> str:
    return "–" if ok is None else ("yes" if ok else "**no**")


def table(rows: list[dict], left: str = "tcplab") -> str:
    lines = [
        f"| size bucket | flows | completed {left} / ns-3 | slowdown p50 {left} / ns-3 | ratio | "
        f"within 15 % | slowdown p99 {left} / ns-3 | ratio | within 15 % | retransmissions {left} / ns-3 "
        f"| timeouts {left} / ns-3 |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        a, b = r["tl"], r["ns"]
        lines.append(
            f"| {r['bucket']} | {r['flows']} | {a['completed']:.1%} / {b['completed']:.1%} "
            f"| {a['p50']:.2f} / {b['p50']:.2f} | {r['p50_ratio']:.3f} | {verdict(r['p50_ok'])} "
            f"| {a['p99']:.2f} / {b['p99']:.2f} | {r['p99_ratio']:.3f} | {verdict(r['p99_ok'])} "
            f"| {a['retransmits']} / {b['retransmits']} | {a['timeouts']} / {b['timeouts']} |")
    return "\n".join(lines)


def speed_table(tl: dict, ns: dict[str, dict]) -> str:
    lines = [
        "| simulator | event loop wall s | whole run wall s | bottleneck packets | bottleneck CE marks / drops "
        "| bottleneck packets per event-loop s | events |",
        "|---|---|---|---|---|---|---|",
        f"| tcplab | {tl['wall_seconds']:.2f} | {tl['run_seconds']:.2f} (in-process run) "
        f"| {tl['bottleneck_packets']:,} | {tl['bottleneck_marks']:,} / {tl['bottleneck_drops']} "
        f"| {tl['bottleneck_packets'] / tl['wall_seconds'] / 1e6:.2f} M "
        f"({tl['packets_all_hops'] / tl['wall_seconds'] / 1e6:.2f} M all hops) | {tl['events']:,} |",
    ]  # fmt: skip
    for v, r in ns.items():
        lines.append(
            f"| ns-3 ({VARIANT_NAMES[v]}) | {r['wall_seconds']:.1f} | {r['run_seconds']:.1f} (cppyy load "
            f"{r['load_seconds']:.0f} s) | {r['bottleneck_packets']:,} "
            f"| {r['bottleneck_marks']:,} / {r['bottleneck_drops']} "
            f"| {r['bottleneck_packets'] / r['wall_seconds'] / 1e3:.1f} k | {r['events']:,} |")  # fmt: skip
    return "\n".join(lines)


VARIANT_NAMES = {"stock": "TcpDctcp", "floor": "TcpDctcpFloor", "floor-ack": "TcpDctcpFloorAck"}
VARIANT_WHAT = {
    "stock": "ns-3.44 as released: **the comparison**",
    "floor": "diagnostic, bench/ns3_fct.cc: TcpDctcp with a two-segment floor under the ECN reduction",
    "floor-ack": "diagnostic, bench/ns3_fct.cc: the floor, and the receiver's ack at a change of CE state "
                 "covering the segment held for the delayed ack",
}
TITLES = {"aligned": "tcplab against ns-3 with `{cls}` ({what}):"}


def run_children(a, out: Path, alone: list[int] | None) -> tuple[dict, dict[str, dict]]:
    out.mkdir(parents=True, exist_ok=True)
    common = ["--stop", str(a.stop), "--drain", str(a.drain), "--seed", str(a.seed), "--gap", str(a.gap)]
    if alone:
        common += ["--alone-sizes", ",".join(map(str, alone))]
    t0 = time.perf_counter()
    subprocess.run([a.tcplab_python, __file__, "--tcplab-child", str(out), *common], check=True)
    tl_wall = time.perf_counter() - t0
    tl = json.loads((out / "tcplab.json").read_text())
    tl["aligned"]["child_seconds"] = tl_wall
    rows = tl["aligned"]["rows"]
    (out / "flows.json").write_text(json.dumps(ns3_flow_list(rows)))
    seconds = (len(alone) + 1) * a.gap if alone else a.stop + a.drain
    print(f"ns3_fct: tcplab {len(rows)} flows in {tl_wall:.1f} s; ns-3 runs them "
          f"({seconds:g} simulated s) ...", flush=True)
    ns = {}
    for v in a.ns3.split(","):
        t0 = time.perf_counter()
        p = subprocess.run([a.ns3_python, __file__, "--ns3-child", str(out / "flows.json"),
                            str(out / f"ns3-{v}.json"), str(seconds), str(a.trace_flow), v])  # fmt: skip
        if p.returncode != 0:
            raise SystemExit(f"ns3_fct: the ns-3 run ({v}) failed (exit {p.returncode})")
        ns[v] = json.loads((out / f"ns3-{v}.json").read_text())
        ns[v]["end_s"] = [math.nan if x is None else x for x in ns[v]["end_s"]]
        print(f"ns3_fct: ns-3 ({v}) done in {time.perf_counter() - t0:.0f} s", flush=True)
    return tl, ns


def alone(a, out: Path) -> int:
    sizes = [int(x) for x in a.alone.split(",")]
    tl, ns = run_children(a, out, sizes)
    vs = list(ns)
    print("one flow at a time from s0 (alone on the network), FCT in µs:")
    print("bytes     | ideal   | tcplab | " + " | ".join(f"ns-3 {v}" for v in vs) + " | ns-3 / tcplab")
    rows = sorted(zip(range(len(sizes)), tl["aligned"]["rows"]), key=lambda x: x[1]["start_s"])
    for i, r in rows:
        nf = [ns[v]["end_s"][i] - r["start_s"] for v in vs]
        print(f"{r['bytes']:9d} | {r['ideal_fct_s'] * 1e6:7.2f} | {r['fct_s'] * 1e6:6.2f} | "
              + " | ".join(f"{x * 1e6:{len(v) + 5}.2f}" for x, v in zip(nf, vs))
              + f" | {nf[0] / r['fct_s']:.4f}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stop", type=float, default=7.0, help="arrivals in [0, stop) s (default 7)")
    ap.add_argument("--drain", type=float, default=0.5, help="simulated s after the last arrival")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write", action="store_true", help="write the tables into docs/workloads.md")
    ap.add_argument("--out", default=str(ROOT / "target" / "ns3-fct"),
                    help="where fct.parquet and the two sides' JSON go")
    ap.add_argument("--alone", default=None, metavar="BYTES,...",
                    help="instead: these flows one at a time, alone, on both sides")
    ap.add_argument("--gap", type=float, default=0.02, help="--alone: seconds between the flows")
    ap.add_argument("--tcplab-python", default=str(ROOT / ".venv" / "bin" / "python"))
    ap.add_argument("--ns3-python", default=sys.executable)
    ap.add_argument("--tcplab-child", help=argparse.SUPPRESS)
    ap.add_argument("--alone-sizes", help=argparse.SUPPRESS)
    ap.add_argument("--trace-flow", type=int, default=-1,
                    help="record this flow's ns-3 timeline (cwnd, states, segments, acks) into OUT/ns3.json")
    ap.add_argument("--ns3", default="stock,floor,floor-ack", metavar="VARIANT,...",
                    help="ns-3 runs: stock (ns-3.44's TcpDctcp, the comparison), and the diagnostic "
                         "classes of ns3_fct.cc: floor (TcpDctcpFloor), floor-ack (TcpDctcpFloorAck); "
                         "default all three")
    ap.add_argument("--ns3-child", nargs=5, help=argparse.SUPPRESS)
    a = ap.parse_args()

    if a.tcplab_child:
        sizes = [int(x) for x in a.alone_sizes.split(",")] if a.alone_sizes else None
        tcplab_child(Path(a.tcplab_child), a.stop, a.stop + a.drain, a.seed, sizes, a.gap)
        return 0
    if a.ns3_child:
        ns3_child(Path(a.ns3_child[0]), Path(a.ns3_child[1]), float(a.ns3_child[2]), int(a.ns3_child[3]),
                  a.ns3_child[4])
        return 0

    from ns3_compare import ns3_importable  # bench/ (on sys.path when run as a script)

    ok, why = ns3_importable(a.ns3_python)
    if not ok:
        print(f"ns3_fct: SKIPPED: ns-3 is not importable by {a.ns3_python} ({why}).\n"
              "  `make bench-ns3-fct` creates target/ns3-venv with `pip install ns3`.")
        return 0
    out = Path(a.out)
    if a.alone:
        return alone(a, out)
    t_all = time.perf_counter()
    tl, ns = run_children(a, out, None)
    tl_rows = tl["aligned"]["rows"]
    head = (f"{len(tl_rows)} flows (arrivals in [0, {a.stop:g}) s, seed {a.seed}, run to "
            f"{a.stop + a.drain:g} s); ns-3 {next(iter(ns.values()))['ns3_version']}, tcplab "
            f"{tl['aligned']['tcplab_version']}.")  # fmt: skip
    print(head)
    blocks = []
    for side, v in [("aligned", v) for v in ns]:
        res = ns[v]
        t = table(compare(tl_rows, ns3_rows(tl_rows, res)), left="tcplab")
        title = TITLES[side].format(cls=VARIANT_NAMES[v], what=VARIANT_WHAT[v])
        blocks += [title, t]
        print(f"\n{title}\n{t}")
        if side == "aligned":
            print(f"(ns-3 {v}: {sum(res['cwr'])} ECN reductions, {sum(res['recoveries'])} fast recoveries, "
                  f"{res['bottleneck_drops'] + res['other_drops']} drops; most packets in the queue disc "
                  f"{res['bottleneck_max_queue']}, tcplab's most waiting {tl['aligned']['bottleneck_max_queue']})")
    sp = speed_table(tl["aligned"], ns)
    print(f"\n{sp}\n({time.perf_counter() - t_all:.0f} s in all)")
    if a.write:
        from docblock import write_block

        body = "\n\n".join([head, *blocks, "Speed on this workload (one run each; this project's "
                             "2-core x86_64 machine):", sp])  # fmt: skip
        cmd = "target/ns3-venv/bin/python bench/ns3_fct.py"
        if (a.stop, a.drain, a.seed) != (7.0, 0.5, 1):
            cmd += f" --stop {a.stop:g} --drain {a.drain:g} --seed {a.seed}"
        if a.ns3 != "stock,floor,floor-ack":
            cmd += f" --ns3 {a.ns3}"
        return write_block(DOC, "ns3fct", cmd + " --write", body)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    raise SystemExit(main())

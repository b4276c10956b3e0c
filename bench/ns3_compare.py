#!/usr/bin/env python3
"""tcplab next to ns-3 on the benchmark dumbbells (scenarios a-d of tcplab-bench).

    python bench/ns3_compare.py [--quick] [--only a,b] [--json FILE] [--tcplab-bench PATH]
    python bench/ns3_compare.py --vegas [--quick] [--only v1,v4] [--json FILE]
    python bench/ns3_compare.py --algo CASE,...|default [--quick] [--trace S] [--json FILE]

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

--vegas (`make bench-ns3-vegas`): tcplab's Vegas against ns-3's TcpVegas (Alpha 1, Beta 3,
Gamma 1) on scenarios v1, v4, v16 of tcplab-bench (1, 4, 16 flows, 10 Mb/s, 40 ms, 1000-packet
buffer, initial window 1). Both sides sample the packets waiting in the bottleneck queue and
every flow's cwnd each 10 ms over [warmup, end]. Printed: queue mean, 5-95 % range and
min-max against Vegas's N·alpha..N·beta, utilisation, Jain, per-flow goodput and cwnd.
Agreement: mean queue within N·alpha packets, utilisation within 3 %, Jain within 0.05, every
flow's goodput within 10 % of the fair share. docs/performance.md ("Vegas against ns-3")
traces the differences to the two implementations.

--algo (`make bench-ns3-algo CASES=...`): today's TCP and AQMs (issue 16: SACK NewReno, CUBIC,
DCTCP with step marking, CoDel, FQ-CoDel, PIE), Westwood+/Scalable (issue 14), HighSpeed TCP
and RED with averaging, without and with ECN (issue 12) against ns-3's TcpCubic, TcpDctcp +
RedQueueDisc, CoDelQueueDisc, FqCoDelQueueDisc, PieQueueDisc, TcpWestwoodPlus, TcpScalable,
TcpHighSpeed and RedQueueDisc on scenarios a, a4 (a with 4 flows) and b; ALGO_CASES below says
what each case sets on both sides. Printed per case: goodput, utilisation, Jain, drops and CE
marks in the window, fast retransmits, timeouts, retransmissions, queue-delay distribution,
drops and marks per reason, and per-flow goodput; --trace S records every flow's
cwnd/ssthresh on both sides into the JSON. docs/performance.md ("Today's TCP and AQMs against ns-3") traces the differences.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import tomllib
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
    # CUBIC (ns-3 TcpCubic): run only with --only a-cubic,b-cubic.
    "a-cubic": ((100.0, 60.0), (20.0, 10.0)),
    "b-cubic": ((12.0, 4.0), (5.0, 2.0)),
    # BBR (ns-3 TcpBbr, paced, SACK + PRR): run only with --only a-bbr.
    "a-bbr": ((100.0, 60.0), (20.0, 10.0)),
}
TCPLAB_SPEED_RUNS = {"a": (100.0, 10.0, 10.0, 2.0), "b": (30.0, 10.0, 5.0, 2.0),
                     "c": (20.0, 5.0, 3.0, 1.0), "d": (5.0, 2.0, 1.0, 0.5)}
TCPLAB_SPEED_RUNS.update({"a-cubic": TCPLAB_SPEED_RUNS["a"], "b-cubic": TCPLAB_SPEED_RUNS["b"],
                          "a-bbr": TCPLAB_SPEED_RUNS["a"]})
CROSS_CHECK = ("a", "b", "a-cubic", "b-cubic")
# Diagnostic rows: the same runs with the initial ssthresh at each flow's share of the BDP, so
# that slow start does not overshoot by a whole BDP. Multi-loss recovery without SACK is where
# the two TCPs differ most (docs/performance.md); these rows show how far apart they are
# without that transient. Same setting on both sides; not part of the pass/fail tolerance.
SS_VARIANTS = ("a", "b")
TOL_GOODPUT = 0.03
TOL_UTIL = 0.03
TOL_JAIN = 0.05

# Vegas cross-check: simulated seconds and warmup, full and quick.
VEGAS_RUNS = {n: ((100.0, 30.0), (40.0, 15.0)) for n in ("v1", "v4", "v16")}
TOL_VEGAS_FLOW = 0.10  # per-flow goodput, fraction of the fair share


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


# RFC 6937 PRR written from the RFC for this diagnostic (not ns-3's code), for SACK
# connections (the --algo cases that use PRR): DeliveredData as the socket passes it (no
# extra segment per duplicate ack), 64-bit arithmetic,
# slow start reduction bound. RecoverFS is the pipe at entry, as in ns-3.44's own class, so
# that only the two arithmetic differences change (issue 16; docs/performance.md, points 5
# and 9 of "Today's TCP and AQMs against ns-3"). `--algo ... --prr-rfc` and
# `ns3_tx_trace.py ... --prr-rfc` use it in place of ns-3.44's TcpPrrRecovery.
PRR_RFC = r'''
namespace tcplab_prr {
class TcpPrrRfc : public ns3::TcpRecoveryOps {
 public:
  static ns3::TypeId GetTypeId() {
    static ns3::TypeId tid = ns3::TypeId("ns3::TcpPrrRfc")
                                 .SetParent<ns3::TcpRecoveryOps>()
                                 .SetGroupName("Internet")
                                 .AddConstructor<TcpPrrRfc>();
    return tid;
  }
  std::string GetName() const override { return "TcpPrrRfc"; }
  void EnterRecovery(ns3::Ptr<ns3::TcpSocketState> tcb, uint32_t, uint32_t,
                     uint32_t deliveredBytes) override {
    delivered = 0;
    out = 0;
    recoverFs = std::max<int64_t>(tcb->m_bytesInFlight.Get(), 1);
    DoRecovery(tcb, deliveredBytes, true);
  }
  void DoRecovery(ns3::Ptr<ns3::TcpSocketState> tcb, uint32_t deliveredBytes, bool isDupAck) override {
    int64_t d = deliveredBytes;
    int64_t mss = tcb->m_segmentSize;
    (void)isDupAck;  // SACK connections only: no DeliveredData estimate per duplicate ack
    if (d == 0) return;
    delivered += d;
    int64_t pipe = tcb->m_bytesInFlight.Get();
    int64_t ss = tcb->m_ssThresh.Get();
    int64_t snd;
    if (pipe > ss) {
      snd = (delivered * ss + recoverFs - 1) / recoverFs - out;
    } else {
      snd = std::min(ss - pipe, std::max(delivered - out, d) + mss);
    }
    snd = std::max<int64_t>(snd, 0);
    tcb->m_cWnd = static_cast<uint32_t>(pipe + snd);
  }
  void ExitRecovery(ns3::Ptr<ns3::TcpSocketState> tcb) override { tcb->m_cWnd = tcb->m_ssThresh.Get(); }
  void UpdateBytesSent(uint32_t b) override { out += b; }
  ns3::Ptr<ns3::TcpRecoveryOps> Fork() override { return ns3::CopyObject<TcpPrrRfc>(this); }
 private:
  int64_t delivered = 0, out = 0, recoverFs = 1;
};
}
'''

PRR_RFC_TYPE = "ns3::TcpPrrRfc"


def define_prr_rfc(cppyy) -> None:
    """Compile PRR_RFC and register its TypeId (so RecoveryType can name it)."""
    cppyy.cppdef(PRR_RFC)
    cppyy.gbl.tcplab_prr.TcpPrrRfc.GetTypeId()


def ns3_child(spec: dict, secs: float, warmup: float) -> dict:
    """Build and run the dumbbell in ns-3 (in this process); returns its figures."""
    t0 = time.perf_counter()
    import cppyy
    from ns import ns  # noqa: F401  (loads the ns-3 libraries and headers into cppyy)

    cppyy.cppdef((HERE / "ns3_dumbbell.cc").read_text())
    if spec.get("ns3_extra", {}).get("recovery") == PRR_RFC_TYPE:
        define_prr_rfc(cppyy)
    load_s = time.perf_counter() - t0
    cc = cc_params(spec) if "ns3_cc" not in spec else {"algorithm": spec["ns3_cc"]}
    sample_s = float(spec["queue_sample_s"]) if "queue_samples" in spec else 0.0
    extra = cppyy.gbl.tcplab_ns3.Extra()
    ex = dict(spec.get("ns3_extra", {}))
    if cc["algorithm"] == "bbr":  # TcpBbr as tcplab's a-bbr runs it: SACK with PRR
        for k, v in NS3_SACK.items():
            ex.setdefault(k, v)
    for k, v in ex.items():
        setattr(extra, k, v)
    r = cppyy.gbl.tcplab_ns3.Run(
        int(spec["flows"]), int(spec["rate_bps"]), int(spec["bottleneck_delay_us"]),
        int(spec["mss"]), str(spec["bottleneck_buffer"]), int(spec["access_limit_packets"]),
        snd_buf(spec), int(spec.get("init_ssthresh_bytes") or 0xFFFFFFFF),
        float(secs), float(warmup), cc["algorithm"], int(spec.get("init_cwnd", 10)),
        int(cc.get("alpha", 0)), int(cc.get("beta", 0)), int(cc.get("gamma", 0)), sample_s,
        extra)
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
        "queue_samples": [int(q) for q in r.queue_samples],
        "per_flow_mean_cwnd_segments": [float(c) for c in r.cwnd_mean_segments],
        "bottleneck_marks": int(r.bottleneck_marks),
        "bottleneck_drops_window": int(r.bottleneck_drops_window),
        "bottleneck_marks_window": int(r.bottleneck_marks_window),
        "per_flow_recoveries": [int(x) for x in r.recoveries],
        "per_flow_timeouts": [int(x) for x in r.losses],
        "per_flow_ecn_reductions": [int(x) for x in r.cwr],
        "per_flow_retransmits": [int(x) for x in r.retransmits],
        "per_flow_recoveries_at_recover": [int(x) for x in r.recoveries_at_recover],
        "cong_events": [list(r.cong_events[k:k + 3]) for k in range(0, len(r.cong_events), 3)],
        "window_by_reason": {str(k): int(v) for k, v in zip(r.reasons, r.reason_counts)},
        "cwnd_trace": trace_pairs(list(r.trace_cwnd), list(r.trace_ssthresh), spec["flows"]),
    }


def trace_pairs(cwnd: list[int], ssth: list[int], flows: int) -> list[list[list[int]]]:
    """ns-3's flattened trace (sample-major) as tcplab-bench's: per flow, [cwnd, ssthresh]."""
    return [[[cwnd[k], ssth[k]] for k in range(i, len(cwnd), flows)] for i in range(flows)]


def cc_params(spec: dict) -> dict:
    """The flows' `cc` (TOML from tcplab-bench) as {"algorithm": ..., parameters}. ns-3's
    TcpVegas takes whole packets for Alpha, Beta and Gamma: others are refused, not rounded."""
    cc = tomllib.loads("cc = " + spec.get("cc", '"newreno"'))["cc"]
    cc = {"algorithm": cc} if isinstance(cc, str) else dict(cc)
    if cc["algorithm"] not in ("newreno", "vegas", "cubic", "bbr"):
        raise SystemExit(f"ns3_compare: no ns-3 counterpart for cc {cc['algorithm']!r}")
    for k in ("alpha", "beta", "gamma"):
        if k in cc and cc[k] != int(cc[k]):
            raise SystemExit(f"ns3_compare: ns-3's TcpVegas needs a whole {k}, got {cc[k]}")
    return cc


# ---------------------------------------------------------------------------------------------
# parent


def ns3_importable(python: str) -> tuple[bool, str]:
    p = subprocess.run([python, "-c", "from ns import ns; ns.Simulator.Now()"],
                       capture_output=True, text=True, timeout=600)
    if p.returncode == 0:
        return True, ""
    tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
    return False, " | ".join(tail) or f"exit {p.returncode}"


def check_flow_order(tl: dict) -> dict:
    """tcplab-bench's per-flow lists must be in flow index order (f0, f1, ..., as ns-3's):
    binaries before 2026-11-25 wrote them in name order (f0, f1, f10, ..., f2, ...), which
    paired b's and v16's flows 2-15 with the wrong ns-3 flows."""
    want = [f"f{i}" for i in range(tl["flows"])]
    if tl.get("flow_names") != want:
        raise SystemExit("ns3_compare: tcplab-bench does not list flows in index order "
                         f"(flow_names {tl.get('flow_names')}); rebuild it "
                         "(cargo build --release -p tcplab-core --bin tcplab-bench)")
    return tl


def run_tcplab(exe: str, name: str, secs: float, warmup: float, ssthresh: int | None = None,
               partial_ack_timer: str = "every") -> dict:
    extra = ["--init-ssthresh", str(ssthresh)] if ssthresh else []
    extra += ["--partial-ack-timer", partial_ack_timer]
    out = subprocess.run([exe, "run", name, str(secs), "--warmup", str(warmup), *extra],
                         capture_output=True, text=True, check=True)
    return check_flow_order(json.loads(out.stdout))


def run_ns3(python: str, spec: dict, secs: float, warmup: float) -> dict:
    p = subprocess.run([python, __file__, "--ns3-child", json.dumps(spec), str(secs), str(warmup)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"ns-3 run of {spec['name']} failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def mbps(x: float) -> str:
    return f"{x / 1e6:9.2f}"


def queue_stats(q: list[int]) -> dict:
    s = sorted(q)
    n = len(s)
    pct = lambda p: s[min(n - 1, int(p * n))] if n else float("nan")  # noqa: E731
    return {"mean": sum(s) / n if n else float("nan"), "p5": pct(0.05), "p95": pct(0.95),
            "min": s[0] if n else float("nan"), "max": s[-1] if n else float("nan"), "samples": n}


def vegas(a, python: str) -> int:
    names = [n for n in a.only.split(",") if n in VEGAS_RUNS] if a.only else list(VEGAS_RUNS)
    mode = 1 if a.quick else 0
    print(f"ns3_compare --vegas{' --quick' if a.quick else ''}: tcplab Vegas vs ns-3 TcpVegas "
          f"(PyPI ns3), alpha 1, beta 3, gamma 1; scenarios {','.join(names)}")
    rows = []
    for n in names:
        secs, warm = VEGAS_RUNS[n][mode]
        tl = run_tcplab(a.tcplab_bench, n, secs, warm)
        nsr = run_ns3(python, tl, secs, warm)
        cc = cc_params(tl)
        flows = tl["flows"]
        fair = tl["rate_bps"] / flows
        qn, qt = queue_stats(nsr["queue_samples"]), queue_stats(tl["queue_samples"])
        lo, hi = flows * cc["alpha"], flows * cc["beta"]
        du = tl["utilization"] / nsr["utilization"] - 1
        dj = tl["jain"] - nsr["jain"]
        dflow = max(abs(x - y) / fair for x, y in
                    zip(tl["per_flow_goodput_bps"], nsr["per_flow_goodput_bps"]))
        dq = qt["mean"] - qn["mean"]
        agree = {"queue": abs(dq) <= lo, "util": abs(du) <= TOL_UTIL,
                 "jain": abs(dj) <= TOL_JAIN, "per_flow": dflow <= TOL_VEGAS_FLOW}
        rows.append({"name": n, "flows": flows, "window": [warm, secs], "target_queue": [lo, hi],
                     "queue": {"ns3": qn, "tcplab": qt}, "agree": agree,
                     "util_rel_diff": du, "jain_diff": dj, "max_flow_diff_of_fair": dflow,
                     "ns3": {k: v for k, v in nsr.items() if k != "queue_samples"},
                     "tcplab": {k: v for k, v in tl.items() if k != "queue_samples"}})
    print(f"\nbottleneck queue (packets waiting, sampled every "
          f"{rows[0]['tcplab']['queue_sample_s'] * 1e3:.0f} ms over [warmup, end]):" if rows else "")
    print("sc   N  window s   | target N·a..N·b | queue mean [p5, p95] (min-max): ns-3"
          "            tcplab            | diff")
    for r in rows:
        qn, qt = r["queue"]["ns3"], r["queue"]["tcplab"]
        f = lambda q: f"{q['mean']:6.2f} [{q['p5']:3d},{q['p95']:3d}] ({q['min']}-{q['max']})"  # noqa: E731
        print(f"{r['name']:4} {r['flows']:2}  [{r['window'][0]:3.0f},{r['window'][1]:4.0f}] |"
              f" {r['target_queue'][0]:6.0f}..{r['target_queue'][1]:<6.0f}  |"
              f" {f(qn):28} {f(qt):28} | {qt['mean'] - qn['mean']:+6.2f}")
    print("\nthroughput over the same window:")
    print("sc   | util ns-3 tcplab   diff | Jain ns-3 tcplab  diff | per-flow Mb/s min-max:"
          " ns-3       tcplab      | max |diff|/fair | drops ns-3 tcplab | verdict")
    for r in rows:
        nsr, tl = r["ns3"], r["tcplab"]
        mm = lambda xs: f"{min(xs) / 1e6:5.3f}-{max(xs) / 1e6:5.3f}"  # noqa: E731
        bad = [k for k, ok in r["agree"].items() if not ok]
        print(f"{r['name']:4} | {nsr['utilization']:9.3f} {tl['utilization']:6.3f}"
              f" {r['util_rel_diff'] * 100:+6.1f}% | {nsr['jain']:9.3f} {tl['jain']:6.3f}"
              f" {r['jain_diff']:+5.2f} | {mm(nsr['per_flow_goodput_bps']):>27}"
              f" {mm(tl['per_flow_goodput_bps']):11} | {r['max_flow_diff_of_fair'] * 100:13.1f}% |"
              f" {nsr['bottleneck_drops']:10d} {tl['bottleneck_drops']:6d} |"
              f" {'AGREE' if not bad else 'DISAGREE (' + ', '.join(bad) + ')'}")
    print("\nper flow (start order): goodput Mb/s / mean cwnd segments")
    for r in rows:
        for side, key in (("ns-3  ", "ns3"), ("tcplab", "tcplab")):
            d = r[key]
            cells = " ".join(f"{g / 1e6:.3f}/{c:.1f}" for g, c in
                             zip(d["per_flow_goodput_bps"], d["per_flow_mean_cwnd_segments"]))
            print(f"{r['name']:4} {side} {cells}")
    print(f"(agreement: mean queue within N·alpha packets, utilisation {TOL_UTIL:.0%}, Jain "
          f"{TOL_JAIN}, every flow's goodput within {TOL_VEGAS_FLOW:.0%} of the fair share; "
          "docs/performance.md explains the differences)")
    if a.json_out:
        Path(a.json_out).write_text(json.dumps({"quick": a.quick, "vegas": rows}, indent=1))
        print(f"wrote {a.json_out}")
    return 0


# ---------------------------------------------------------------------------------------------
# --algo: today's TCP and AQMs (issue 16) and Westwood+/Scalable (issue 14) against ns-3

# TCP both sides run unless a case says otherwise: the harness's (every segment acked, initial
# window 10, RTO min 200 ms, no timestamps, no limited transmit). "SACK" = tcplab `sack = true`
# (RFC 6675 recovery with PRR-SSRB) and ns-3 `Sack=true` with `TcpPrrRecovery` (its default
# reduction bound is SSRB).
NS3_SACK = {"sack": True, "recovery": "ns3::TcpPrrRecovery"}
# With SACK, tcplab's flows set `rto_unsacked_flight = true`: at a timeout ns-3's algorithms
# get BytesInFlight (RFC 6675 pipe), which leaves out SACKed bytes.
# A queue disc under test sits on the bottleneck (r1 -> r2) with a 1-packet device queue
# below it (ns-3's PointToPoint default is a 100-packet DropTail device queue that the queue
# disc cannot see; tcplab has one queue per link). Every AQM's limit is the scenario's buffer
# (1 BDP) on both sides, not ns-3's defaults (CoDel 1500p, FQ-CoDel 10240p, PIE 25p).


def _aqm(base: str, tl_queue: str, ns3_qdisc: str, ns3_defaults: str) -> dict:
    return {"queue": tl_queue, "ns3_extra": {"qdisc": ns3_qdisc, "defaults": ns3_defaults}}


def dctcp_k(base: str) -> int:
    """Marking threshold K for DCTCP runs: the BDP/7 guideline of Alizadeh et al. 2010."""
    return {"a": 48, "a4": 48, "b": 476}[base]


ALGO_CASES: dict[str, dict] = {}


def _case(name, base, runs, cc, ns3_cc, sack=True, queue=None, flow_keys="", ns3_extra=None,
          note=""):
    ex = dict(NS3_SACK) if sack else {}
    ex.update(ns3_extra or {})
    if sack:
        # ns-3 computes ssthresh at a timeout from BytesInFlight (pipe: SACKed bytes left out).
        flow_keys = "\n".join(k for k in (flow_keys, "rto_unsacked_flight = true") if k)
    ALGO_CASES[name] = {"base": base, "runs": runs, "cc": cc, "ns3_cc": ns3_cc, "sack": sack,
                        "queue": queue, "flow_keys": flow_keys, "ns3_extra": ex, "note": note}


# (full secs, warmup), (quick secs, warmup). ns-3 needs ~0.2 wall s per simulated s on a and
# 2-3 on b (16 flows at 1 Gb/s), plus ~20 s to load.
RUN_A = ((60.0, 20.0), (30.0, 10.0))
RUN_B = ((30.0, 10.0), (10.0, 4.0))
for _b, _r in (("a", RUN_A), ("a4", RUN_A), ("b", RUN_B)):
    _case(f"{_b}-cubic-nosack", _b, _r, '"cubic"', "cubic", sack=False,
          note="the known gap: no SACK, both sides' HyStart on")
    _case(f"{_b}-cubic-nosack-nohs", _b, _r, '{ algorithm = "cubic", hystart = false }', "cubic",
          sack=False, ns3_extra={"defaults": "ns3::TcpCubic::HyStart=false"})
    _case(f"{_b}-newreno-sack", _b, _r, '"newreno"', "newreno")
    _case(f"{_b}-cubic-sack", _b, _r, '"cubic"', "cubic")
    _case(f"{_b}-cubic-sack-nohs", _b, _r, '{ algorithm = "cubic", hystart = false }', "cubic",
          ns3_extra={"defaults": "ns3::TcpCubic::HyStart=false"})
    _k = dctcp_k(_b)
    _case(f"{_b}-dctcp", _b, _r, '"dctcp"', "dctcp", flow_keys="ecn = true",
          queue=f'{{ type = "droptail", mark_threshold = {_k} }}',
          ns3_extra={"qdisc": "ns3::RedQueueDisc",
                     "defaults": f"ns3::RedQueueDisc::UseEcn=true;ns3::RedQueueDisc::UseHardDrop=false;"
                                 f"ns3::RedQueueDisc::Gentle=false;ns3::RedQueueDisc::QW=1;"
                                 f"ns3::RedQueueDisc::MinTh={_k};ns3::RedQueueDisc::MaxTh={_k};"
                                 f"ns3::RedQueueDisc::MeanPktSize=1500;"
                                 f"ns3::RedQueueDisc::MaxSize={{buffer}}"})
    _case(f"{_b}-codel", _b, _r, '"newreno"', "newreno", queue='{ type = "codel" }',
          ns3_extra={"qdisc": "ns3::CoDelQueueDisc",
                     "defaults": "ns3::CoDelQueueDisc::MaxSize={buffer}"})
    _case(f"{_b}-fq_codel", _b, _r, '"newreno"', "newreno",
          queue='{ type = "fq_codel", ecn = false }',
          ns3_extra={"qdisc": "ns3::FqCoDelQueueDisc",
                     "defaults": "ns3::FqCoDelQueueDisc::MaxSize={buffer}"})
    _case(f"{_b}-pie", _b, _r, '"newreno"', "newreno",
          queue='{ type = "pie", mean_packet_size = 1000 }',
          ns3_extra={"qdisc": "ns3::PieQueueDisc",
                     "defaults": "ns3::PieQueueDisc::MaxSize={buffer}"})
    _case(f"{_b}-westwoodplus", _b, _r, '{ algorithm = "westwood", estimator = "plus" }',
          "westwoodplus")
    # ns-3's TcpScalable adds one segment per min(cwnd, AIFactor = 50) acked segments: a =
    # 0.02 per ack above 50 segments (Linux's TCP_SCALABLE_AI_CNT); tcplab's default is Kelly's
    # 0.01, so these runs set a = 0.02. b = 0.125 on both (MDFactor).
    _case(f"{_b}-scalable", _b, _r, '{ algorithm = "scalable", a = 0.02 }', "scalable")
    _case(f"{_b}-westwoodplus-nosack", _b, _r,
          '{ algorithm = "westwood", estimator = "plus" }', "westwoodplus", sack=False)
    _case(f"{_b}-scalable-nosack", _b, _r, '{ algorithm = "scalable", a = 0.02 }', "scalable",
          sack=False)


def red_th(base: str) -> tuple[int, int]:
    """RED thresholds (packets) for the RED cases: min_th = BDP/10, max_th = 3·min_th."""
    return {"a": (33, 100), "a4": (33, 100), "b": (333, 1000)}[base]


# RED with averaging (issue 12) against ns-3's RedQueueDisc, configured the same: min_th =
# BDP/10, max_th = 3·min_th, max_p = 0.1 (LInterm 10), w_q = 0.002 (QW), gentle, mean packet
# 1500 B (the idle-time decay), limit = the buffer (MaxSize, packets), forced region drops
# even ECN-capable packets (tcplab forced_drop, ns-3 UseHardDrop, its default). ns-3's
# LinkBandwidth (its idle-time clock; default 1.5 Mb/s) is set to the bottleneck rate, and
# Wait = false: ns-3's default Wait = true spaces early signals uniformly between 1/p_b and
# 2/p_b packets (ns-2's wait_), FJ93's count-based spacing (tcplab's count_spacing) between
# 1 and 1/p_b.
def _red(base: str, ecn: bool) -> dict:
    lo, hi = red_th(base)
    tl = (f'{{ type = "red", min_th = {lo}, max_th = {hi}, max_p = 0.1, w_q = 0.002, '
          f'gentle = true, count_spacing = true, mean_packet_size = 1500, ecn = {str(ecn).lower()}, '
          f'forced_drop = true }}')
    d = (f"ns3::RedQueueDisc::MinTh={lo};ns3::RedQueueDisc::MaxTh={hi};"
         f"ns3::RedQueueDisc::LInterm=10;ns3::RedQueueDisc::QW=0.002;"
         f"ns3::RedQueueDisc::Gentle=true;ns3::RedQueueDisc::Wait=false;"
         f"ns3::RedQueueDisc::MeanPktSize=1500;ns3::RedQueueDisc::UseHardDrop=true;"
         f"ns3::RedQueueDisc::UseEcn={str(ecn).lower()};"
         f"ns3::RedQueueDisc::LinkBandwidth={{rate}}bps;"
         f"ns3::RedQueueDisc::MaxSize={{buffer}}")
    if ecn:
        d += ";ns3::TcpSocketBase::UseEcn=On"
    return {"queue": tl, "ns3_extra": {"qdisc": "ns3::RedQueueDisc", "defaults": d}}


for _b, _r in (("a", RUN_A), ("a4", RUN_A), ("b", RUN_B)):
    # HighSpeed TCP (RFC 3649). ns-3's TcpHighSpeed and Linux's tcp_highspeed take a(w), b(w)
    # from RFC 3649's Appendix B table, the first row whose window is at or above w (a = 2,
    # b = 0.44 for 38 < w <= 118): tcplab's aimd = "table_up".
    _case(f"{_b}-highspeed", _b, _r, '{ algorithm = "highspeed", aimd = "table_up" }',
          "highspeed")
    for _ecn in (False, True):
        _q = _red(_b, _ecn)
        _case(f"{_b}-red{'-ecn' if _ecn else ''}", _b, _r, '"newreno"', "newreno",
              queue=_q["queue"], flow_keys="ecn = true" if _ecn else "",
              ns3_extra=_q["ns3_extra"])

ALGO_DEFAULT = ("a-cubic-nosack", "a-cubic-sack", "a4-newreno-sack", "a4-cubic-sack",
                "a4-dctcp", "a4-codel", "a4-fq_codel", "a4-pie", "a-westwoodplus",
                "a4-westwoodplus", "a-scalable", "a4-scalable", "b-newreno-sack", "b-cubic-sack",
                "a-highspeed", "a4-highspeed", "a4-red", "a4-red-ecn")


def delay_stats(q: list[int], pkt_ms: float) -> dict:
    d = queue_stats(q)
    s = sorted(q)
    n = len(s)
    pct = lambda p: s[min(n - 1, int(p * n))] if n else float("nan")  # noqa: E731
    out = {k: (v * pkt_ms if k != "samples" else v) for k, v in d.items()}
    out["p50"] = pct(0.50) * pkt_ms
    out["p99"] = pct(0.99) * pkt_ms
    return out


def run_tcplab_case(exe: str, c: dict, secs: float, warm: float, trace: float) -> dict:
    args = [exe, "run", c["base"], str(secs), "--warmup", str(warm), "--sample", "true",
            "--cc", c["cc"], "--sack", "true" if c["sack"] else "false"]
    if c["queue"]:
        args += ["--queue", c["queue"]]
    if c["flow_keys"]:
        args += ["--flow-keys", c["flow_keys"]]
    if not c["sack"]:
        args += ["--partial-ack-timer", "first"]  # ns-3's classic recovery timer rule
    if trace:
        args += ["--trace", str(trace)]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return check_flow_order(json.loads(out.stdout))


def algo(a, python: str) -> int:
    names = a.algo.split(",") if a.algo != "default" else list(ALGO_DEFAULT)
    for n in names:
        if n not in ALGO_CASES:
            raise SystemExit(f"ns3_compare: unknown --algo case {n!r}; known: {', '.join(ALGO_CASES)}")
    mode = 1 if a.quick else 0
    print(f"ns3_compare --algo{' --quick' if a.quick else ''}: tcplab vs ns-3 (PyPI ns3 3.44); "
          f"cases {','.join(names)}"
          f"{'; ns-3 SACK cases with PRR_RFC (RFC 6937 PRR)' if a.prr_rfc else ''}", flush=True)
    rows = []
    for n in names:
        c = ALGO_CASES[n]
        secs, warm = c["runs"][mode]
        tl = run_tcplab_case(a.tcplab_bench, c, secs, warm, a.trace)
        # The child needs the scenario, not tcplab's samples (argv has a size limit).
        spec = {k: v for k, v in tl.items() if k not in ("cwnd_trace", "queue_samples")}
        spec["queue_samples"] = []  # present: the child samples the queue too
        spec["ns3_cc"] = c["ns3_cc"]
        ex = dict(c["ns3_extra"])
        ex["defaults"] = (ex.get("defaults", "").replace("{buffer}", tl["bottleneck_buffer"])
                          .replace("{rate}", str(tl["rate_bps"])))
        ex["watch"] = True
        ex["trace_s"] = float(a.trace or 0.0)
        if a.prr_rfc and ex.get("recovery") == NS3_SACK["recovery"]:
            ex["recovery"] = PRR_RFC_TYPE
        spec["ns3_extra"] = ex
        nsr = run_ns3(python, spec, secs, warm)
        pkt_ms = (tl["mss"] + 40) * 8 / tl["rate_bps"] * 1e3
        dg = tl["goodput_bps"] / nsr["goodput_bps"] - 1 if nsr["goodput_bps"] else float("inf")
        row = {"name": n, "window": [warm, secs], "note": c["note"], "goodput_rel_diff": dg,
               "agree": abs(dg) <= TOL_GOODPUT,
               "delay_ms": {"ns3": delay_stats(nsr["queue_samples"], pkt_ms),
                            "tcplab": delay_stats(tl["queue_samples"], pkt_ms)},
               "ns3": nsr, "tcplab": tl}
        rows.append(row)
        print_algo_row(row, header=len(rows) == 1)
        if a.json_out:
            Path(a.json_out).write_text(json.dumps({"quick": a.quick, "algo": rows}))
    print("\nqueue delay at the bottleneck (packets waiting x packet time, sampled every 10 ms "
          "over the window), ms: mean [p5, p50, p95, p99] max")
    for r in rows:
        f = lambda d: (f"{d['mean']:7.2f} [{d['p5']:6.2f},{d['p50']:6.2f},{d['p95']:6.2f},"  # noqa: E731
                       f"{d['p99']:6.2f}] {d['max']:7.2f}")
        print(f"{r['name']:22} ns-3   {f(r['delay_ms']['ns3'])}")
        print(f"{'':22} tcplab {f(r['delay_ms']['tcplab'])}")
    print("\nat the bottleneck queue, drops (d:) and marks (m:) by reason in the window:")
    for r in rows:
        print(f"{r['name']:22} ns-3   {r['ns3'].get('window_by_reason', {})}")
        print(f"{'':22} tcplab {r['tcplab'].get('bottleneck_window_by_reason', {})}")
    print("\nper flow (start order), goodput Mb/s:")
    for r in rows:
        for side, key in (("ns-3  ", "ns3"), ("tcplab", "tcplab")):
            print(f"{r['name']:22} {side} " + " ".join(
                f"{g / 1e6:.1f}" for g in r[key]["per_flow_goodput_bps"]))
    if a.json_out:
        Path(a.json_out).write_text(json.dumps({"quick": a.quick, "algo": rows}))
        print(f"wrote {a.json_out}")
    return 0


def print_algo_row(r: dict, header: bool) -> None:
    if header:
        print("case                   window     | goodput Mb/s ns-3   tcplab    diff | util ns-3 "
              "tcplab | Jain ns-3 tcplab | drops+marks in window ns-3 / tcplab | FR ns-3/tl | "
              "RTO ns-3/tl | retx ns-3/tl | verdict")
    nsr, tl = r["ns3"], r["tcplab"]
    w = r["window"]
    print(f"{r['name']:22} [{w[0]:4.0f},{w[1]:4.0f}] | {mbps(nsr['goodput_bps'])} "
          f"{mbps(tl['goodput_bps'])} {r['goodput_rel_diff'] * 100:+6.1f}% |"
          f" {nsr['utilization']:9.3f} {tl['utilization']:6.3f} | {nsr['jain']:9.3f} "
          f"{tl['jain']:6.3f} | {nsr['bottleneck_drops_window']:7d}+{nsr['bottleneck_marks_window']:<7d} /"
          f" {tl['bottleneck_drops_window']:7d}+{tl['bottleneck_marks_window']:<7d} |"
          f" {sum(nsr['per_flow_recoveries']):5d}/{tl['fast_retransmits']:<5d} |"
          f" {sum(nsr['per_flow_timeouts']):5d}/{tl['timeouts']:<5d} |"
          f" {sum(nsr['per_flow_retransmits']):6d}/{tl['retransmits']:<6d} |"
          f" {'AGREE' if r['agree'] else 'DISAGREE'}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    default=os.environ.get("TCPLAB_BENCH_QUICK", "") not in ("", "0"))
    ap.add_argument("--only", default=None, help="scenarios (default a,b,c,d; --vegas: v1,v4,v16)")
    ap.add_argument("--vegas", action="store_true", help="Vegas cross-check (v1, v4, v16)")
    ap.add_argument("--algo", default=None,
                    help="comma-separated --algo cases (or 'default'): CUBIC, SACK NewReno, "
                         "DCTCP, CoDel, FQ-CoDel, PIE, Westwood+, Scalable, HighSpeed, RED "
                         "against ns-3; "
                         f"known: {', '.join(ALGO_CASES)}")
    ap.add_argument("--prr-rfc", action="store_true",
                    help="--algo: SACK cases run ns-3 with PRR_RFC (RFC 6937 PRR) instead of "
                         "ns-3.44's TcpPrrRecovery (docs/performance.md, points 5 and 9)")
    ap.add_argument("--trace", type=float, default=0.0,
                    help="--algo: record every flow's cwnd/ssthresh with this period (s)")
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

    if a.vegas:
        return vegas(a, a.ns3_python)
    if a.algo:
        return algo(a, a.ns3_python)
    names = [n for n in (a.only or "a,b,c,d").split(",") if n in NS3_RUNS]
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

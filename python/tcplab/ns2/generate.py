"""Random scenarios for cross-checking tcplab against ns-2.35 on set-ups nobody chose.

``generate(gen_seed, index)`` is scenario *index* of generator seed *gen_seed*: a plain
scenario dict (``profile = "ns2"``, the topology written out as ``[nodes]`` and ``[links]``,
no builders) that validates and that :func:`tcplab.ns2.translate` accepts. The same
(gen_seed, index) gives the same scenario, and the same TOML text (:func:`to_toml`), on
every machine: the random stream is ``random.Random("tcplab-ns2-gen:{gen_seed}:{index}")``
(string seeds go through SHA-512), and only its ``random()`` method is used, the one whose
sequence Python promises to keep (integers, choices and shuffles are derived from it
here). Every number written is rounded: rates to whole kb/s, delays to 0.1 ms, times to
1 ms, probabilities and RED/GAIMD parameters to 4 significant digits.

``python -m tcplab.ns2.generate --seed S --count N --out DIR`` writes scenarios 0 … N-1 as
``DIR/genS_000.toml`` … and prints their paths (:func:`write`).

What a scenario states is what a user writing the ns-2 experiment states: topology, rates,
delays, buffers, the agent and the sink of each flow, its receiver window (``max_window``),
``mss = 1000`` (ns-2's ``packetSize_``) and its start time. Everything else (headers, ack
size, timers, initial window, ns-2's recovery rules) comes from the ``ns2`` profile.

Ranges (:data:`RANGES` holds them as data):

* Topology, uniformly one of three, always a tree:

  - **dumbbell**: one host pair per flow, ``sNN -> r1 -> r2 -> dNN``; the bottleneck is
    ``bn`` (r1 -> r2), duplex.
  - **parking lot**: two bottleneck hops ``h1`` (r1 -> r2) and ``h2`` (r2 -> r3) of one
    rate; each flow group crosses both hops (``long``) or one of them (``hop1``: sources
    at r1, sinks at r2; ``hop2``: sources at r2, sinks at r3). The first group (in a
    shuffled order) is long, the second crosses one hop, others any of the three.
  - **asymmetric two-way**: a dumbbell whose reverse bottleneck ``bn_rev`` (r2 -> r1)
    runs at 1/10 to 1/2 of the forward rate (uniform), with flow groups in both
    directions (the first group forward, the second reverse: data from ``dNN`` to
    ``sNN``, others either way).

  Access links (``sNN``, ``dNN``, named after their host) run at 10 times the bottleneck
  rate with tcplab's default queue (1000 packets).
* Flows: 1 to 16 TCP flows (uniform; at least one per group) in 1 to 3 RTT classes
  ``r1 < r2 < r3`` and 1 to 3 agents. Groups are (agent, class) pairs, every agent and
  class in at least one, and a flow's ``group`` is ``"<agent>-<class>"``
  (``"newreno-r1"``): the flows of a group share agent, sink, RTT and path. Parking lots
  and two-way dumbbells have at least two groups.
* Round-trip times: class RTTs log-uniform in 2-400 ms (whole 0.2 ms). A flow's
  propagation RTT is its class's: the bottleneck's one-way delay (dumbbell; a parking
  lot's two hops together) is 10-80 % of half the shortest class RTT, sink access links
  0.1 ms, and each source access link makes up the rest.
* Bottleneck rate: log-uniform 0.5 Mb/s - 1 Gb/s, then lowered (all rates together) to
  the packet budget below.
* Duration: 100 round trips of the longest class, at least 20 s (whole seconds).
  ``metrics.steady_start``: 20 % of it, at least 5 s.
* Packet budget: bottleneck rate x duration / (8 x 1040 bytes) <= :data:`BUDGET` packets
  (1 500 000): above it, the rates are lowered, the duration never shortened.
* Buffers: log-uniform 0.1-4 bandwidth-delay products of the mean class RTT (1040-byte
  packets), at least 2 packets, as the bottleneck queue's packet ``limit`` (the reverse
  bottleneck of a two-way dumbbell: the same factor of its own rate's product).
* Queues on the bottleneck(s), both directions: drop-tail or RED, half each. RED is
  half ns-2's defaults (``{ type = "red", limit = N }`` only: ns-2.35's automatic
  thresholds and weight, the profile's gentle RED with max_p 0.1) and half explicit:
  ``min_th`` 2-20 % of the limit (at least 2), ``max_th = 3 min_th``, ``w_q`` 0.001-0.01,
  ``max_p`` 0.02-0.2 (uniform). ECN marking (``ecn = true`` on the queue) with
  probability 0.2 on RED; then each eligible group (reno, newreno, sack, gaimd,
  highspeed) uses ECN with probability 1/2, at least one.
* Agents, uniformly among reno, newreno, sack (NewReno with ``sack = true, prr = "off"``:
  ns-2's Sack1), vegas, highspeed (``aimd = "general"``: ns-2's windowOption_ 8), gaimd
  (TCP(alpha, beta): beta uniform 0.5-0.9375, alpha = 4(1 - beta^2)/3, TCP-friendly),
  cubic, scalable and westwood (Westwood+) on ns-2's Agent/TCP/Linux (``sack = true``,
  its recovery left to the profile; CUBIC and Scalable with the constants of ns-2's Linux 2.6 modules:
  ``beta = 0.8, hystart = false`` and ``a = 0.0196``). **xcp** with probability 0.08 as
  a scenario of its own: every flow XCP, every bottleneck queue XCP, no RED, ECN,
  delayed acks or UDP traffic (ns-2.35's Queue/XCP keeps other traffic apart, which the
  translator refuses, and its XCP sink has no delayed acks).
* Sinks: per group, delayed acks (``delayed_ack = "100ms"``, ns-2's DelAck sink) or an
  ack per segment, half each.
* Receiver window: ``max_window`` = twice (the flow's path bandwidth-delay product plus
  its bottleneck buffer), at least 20 000 bytes, in whole kB: never the limit of a lone
  flow.
* Start times: each flow's uniform in the first 10 % of the run (1 ms steps).
* Random loss with probability 0.3: Bernoulli on the forward bottleneck's data
  direction (a parking lot's first hop), p log-uniform 0.0001-0.03, placed
  ``before_queue`` (ns-2's ``lossmodel``) or ``after_link`` (``link-lossmodel``), half
  each.
* UDP background with probability 0.3 (not with XCP): one source (hosts ``su``, ``du``)
  across the bottleneck(s), either direction of a two-way dumbbell, at 5-30 % of that
  direction's bottleneck rate (uniform), 1000-byte packets: constant rate (``cbr``) or
  exponential on/off (``onoff``: mean on time 0.1-1 s, peak 2-10 times the mean rate),
  half each.

Not generated: byte-counted buffers, RED-I, CHOKe, CoDel, PIE and other queues, loss on
the acks' path, Gilbert-Elliott and outage errors, TCP flows with CBR/on-off sources or
finite transfers, ECN on Vegas and the Linux agents (their ns-2 agents' ECN response is
not checked here), and keys ns-2 cannot express (the translator refuses them).
"""

from __future__ import annotations

import argparse
import copy
import math
import random
from pathlib import Path
from typing import Any

from tcplab.scenario import Scenario

#: Most bottleneck packets (of 1040 bytes on the wire) a scenario may offer: rate x
#: duration / (8 x 1040). Rates are lowered to it.
BUDGET = 1_500_000
#: Wire bytes of a full data packet under the ns2 profile (mss 1000 + 40 header bytes).
WIRE_BYTES = 1040

TOPOLOGIES = ("dumbbell", "parking_lot", "two_way")
#: Every agent; "xcp" only as a scenario of its own (see the module docstring).
AGENTS = ("reno", "newreno", "sack", "vegas", "highspeed", "gaimd", "cubic", "scalable", "westwood", "xcp")
#: Agents whose ns-2 agent (Reno, Newreno, Sack1, windowOption_ 8) gets ECN with RED.
ECN_AGENTS = ("reno", "newreno", "sack", "gaimd", "highspeed")

#: Every range the generator draws from (the module docstring says the same in prose).
RANGES: dict[str, Any] = {
    "topology": TOPOLOGIES,
    "flows": (1, 16),
    "rtt_classes": (1, 3),
    "agents_per_scenario": (1, 3),
    "agents": AGENTS,
    "p_xcp_scenario": 0.08,
    "rtt_ms": (2.0, 400.0),  # log-uniform, whole 0.2 ms
    "bottleneck_delay_fraction": (0.1, 0.8),  # of half the shortest class RTT
    "sink_access_delay_ms": 0.1,
    "bottleneck_rate_bps": (0.5e6, 1e9),  # log-uniform, then lowered to the budget
    "access_rate_factor": 10,
    "two_way_reverse_fraction": (0.1, 0.5),
    "duration_rtts": 100,
    "duration_min_s": 20,
    "steady_start_fraction": 0.2,
    "steady_start_min_s": 5,
    "budget_packets": BUDGET,
    "buffer_bdp": (0.1, 4.0),  # log-uniform, of the mean class RTT
    "buffer_min_packets": 2,
    "p_red": 0.5,
    "p_red_ns2_defaults": 0.5,
    "red_min_th_fraction": (0.02, 0.2),  # of the limit, at least 2 packets
    "red_max_th_over_min_th": 3,
    "red_w_q": (0.001, 0.01),
    "red_max_p": (0.02, 0.2),
    "p_ecn_on_red": 0.2,
    "p_ecn_per_group": 0.5,
    "gaimd_beta": (0.5, 0.9375),  # alpha = 4 (1 - beta^2) / 3
    "p_delayed_ack": 0.5,
    "delayed_ack": "100ms",
    "max_window_min_bytes": 20_000,
    "start_fraction": (0.0, 0.1),  # of the duration
    "p_loss": 0.3,
    "loss_p": (1e-4, 0.03),  # log-uniform
    "p_udp_background": 0.3,
    "udp_rate_fraction": (0.05, 0.30),  # of the bottleneck it crosses
    "onoff_on_s": (0.1, 1.0),
    "onoff_peak_over_mean": (2.0, 10.0),
    "udp_packet_size": 1000,
    "mss": 1000,
}

# Delays are handled in ticks of 0.1 ms (integers), times in whole ms.
_TICKS_PER_MS = 10


# -- the random stream: only Random.random(), whose sequence Python keeps -----------------------

def _uniform(rng: random.Random, lo: float, hi: float) -> float:
    return lo + (hi - lo) * rng.random()


def _log_uniform(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(_uniform(rng, math.log(lo), math.log(hi)))


def _randint(rng: random.Random, lo: int, hi: int) -> int:
    """An integer in [lo, hi], both included."""
    return lo + min(hi - lo, int(rng.random() * (hi - lo + 1)))


def _choice(rng: random.Random, items: tuple[Any, ...] | list[Any]) -> Any:
    return items[_randint(rng, 0, len(items) - 1)]


def _chance(rng: random.Random, p: float) -> bool:
    return rng.random() < p


def _shuffled(rng: random.Random, items: list[Any]) -> list[Any]:
    """A Fisher-Yates shuffle of a copy of ``items``."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = _randint(rng, 0, i)
        out[i], out[j] = out[j], out[i]
    return out


# -- rounding and units ------------------------------------------------------------------------

def _sig4(x: float) -> float:
    return float(f"{x:.4g}")


def _rate(kbps: int) -> str:
    return f"{kbps}kbps"


def _delay(ticks: int) -> str:
    return f"{ticks // _TICKS_PER_MS}.{ticks % _TICKS_PER_MS}ms"


def _time(ms: int) -> str:
    return f"{ms // 1000}.{ms % 1000:03d}s"


# -- the generator -----------------------------------------------------------------------------

def _agent_keys(rng: random.Random, agent: str) -> dict[str, Any]:
    """The flow keys that choose ns-2's agent (and sink kind) for ``agent``."""
    if agent == "sack":
        return {"cc": "newreno", "sack": True, "prr": "off"}
    if agent == "highspeed":
        return {"cc": {"algorithm": "highspeed", "aimd": "general"}}
    if agent == "gaimd":
        beta = _sig4(_uniform(rng, *RANGES["gaimd_beta"]))
        alpha = _sig4(4 * (1 - beta * beta) / 3)
        return {"cc": {"algorithm": "gaimd", "alpha": alpha, "beta": beta}}
    if agent == "cubic":  # ns-2's Linux 2.6 module: beta 819/1024, no HyStart
        return {"cc": {"algorithm": "cubic", "beta": 0.8, "hystart": False}, "sack": True}
    if agent == "scalable":  # ns-2's Linux 2.6 module: one segment per 51 acks
        return {"cc": {"algorithm": "scalable", "a": 0.0196}, "sack": True}
    if agent == "westwood":
        return {"cc": {"algorithm": "westwood", "estimator": "plus"}, "sack": True}
    return {"cc": agent}  # reno, newreno, vegas, xcp


def _groups(rng: random.Random, kind: str) -> tuple[list[int], list[dict[str, Any]]]:
    """(class half-RTTs in ticks, ascending; groups as dicts with agent, class index, path)."""
    if _chance(rng, RANGES["p_xcp_scenario"]):
        agents = ["xcp"]
    else:
        agents = _shuffled(rng, [a for a in AGENTS if a != "xcp"])[:_randint(rng, 1, 3)]
    n_classes = _randint(rng, 1, 3)
    if kind != "dumbbell" and len(agents) == 1 and n_classes == 1:
        n_classes = 2  # two groups at least: one per path
    lo, hi = RANGES["rtt_ms"]
    # half an RTT in 0.1-ms ticks: RTT = 2 x half x 0.1 ms, at least 2 ms
    halves = sorted(max(10, min(2000, round(_log_uniform(rng, lo, hi) * _TICKS_PER_MS / 2)))
                    for _ in range(n_classes))
    pairs = [(agents[i % len(agents)], i % n_classes) for i in range(max(len(agents), n_classes))]
    others = _shuffled(rng, [(a, c) for a in agents for c in range(n_classes) if (a, c) not in pairs])
    pairs += others[:_randint(rng, 0, len(others))]
    pairs = _shuffled(rng, pairs)
    groups = []
    for i, (agent, cls) in enumerate(pairs):
        if kind == "parking_lot":
            paths = [("long",), ("hop1", "hop2"), ("long", "hop1", "hop2")][min(i, 2)]
        elif kind == "two_way":
            paths = [("forward",), ("reverse",), ("forward", "reverse")][min(i, 2)]
        else:
            paths = ("forward",)
        path = paths[0] if len(paths) == 1 else _choice(rng, paths)
        groups.append({"agent": agent, "cls": cls, "path": path, "name": f"{agent}-r{cls + 1}",
                       "keys": _agent_keys(rng, agent),
                       "delayed_ack": agent != "xcp" and _chance(rng, RANGES["p_delayed_ack"])})
    groups.sort(key=lambda g: g["name"])
    return halves, groups


def _queue(kind: str, red_ns2: bool, red: dict[str, float], ecn: bool,
           limit: int) -> dict[str, Any]:
    """A bottleneck queue of ``limit`` packets."""
    if kind == "droptail":
        return {"type": "droptail", "limit": limit}
    if kind == "xcp":
        return {"type": "xcp", "limit": limit}
    q: dict[str, Any] = {"type": "red", "limit": limit}
    if not red_ns2:
        min_th = max(2, round(red["min_th_fraction"] * limit))
        q.update(min_th=min_th, max_th=3 * min_th, w_q=red["w_q"], max_p=red["max_p"])
    if ecn:
        q["ecn"] = True
    return q


def generate(gen_seed: int, index: int) -> dict[str, Any]:
    """Scenario ``index`` of generator seed ``gen_seed`` (a plain, TOML-serialisable dict)."""
    rng = random.Random(f"tcplab-ns2-gen:{gen_seed}:{index}")
    kind = _choice(rng, TOPOLOGIES)
    halves, groups = _groups(rng, kind)
    xcp = groups[0]["agent"] == "xcp"

    # flows: at least one per group, the rest spread at random
    n_flows = _randint(rng, len(groups), RANGES["flows"][1])
    counts = [1] * len(groups)
    for _ in range(n_flows - len(groups)):
        counts[_randint(rng, 0, len(groups) - 1)] += 1

    # delays (ticks of 0.1 ms): the bottleneck hop(s), then each class's source access link
    path_ticks = max(2, round(_uniform(rng, *RANGES["bottleneck_delay_fraction"]) * halves[0]))
    hop1 = _randint(rng, 1, path_ticks - 1) if kind == "parking_lot" else path_ticks
    hop2 = path_ticks - hop1

    # duration, then the rates under the packet budget
    duration_s = max(RANGES["duration_min_s"], -(-halves[-1] * 2 * RANGES["duration_rtts"] // 10_000))
    kbps = round(_log_uniform(rng, *RANGES["bottleneck_rate_bps"]) / 1000)
    kbps = max(1, min(kbps, BUDGET * 8 * WIRE_BYTES // (duration_s * 1000)))
    rev_kbps = max(1, round(kbps * _uniform(rng, *RANGES["two_way_reverse_fraction"]))) if kind == "two_way" else kbps
    access = _rate(RANGES["access_rate_factor"] * kbps)

    # buffers: a factor of the mean class RTT's bandwidth-delay product
    factor = _log_uniform(rng, *RANGES["buffer_bdp"])
    mean_rtt_s = sum(halves) * 2 / len(halves) / (1000 * _TICKS_PER_MS)

    def limit_of(rate_kbps: int) -> int:
        return max(RANGES["buffer_min_packets"], round(factor * rate_kbps * 1000 * mean_rtt_s / (8 * WIRE_BYTES)))

    fwd_limit, rev_limit = limit_of(kbps), limit_of(rev_kbps)

    # queues
    qkind = "xcp" if xcp else "red" if _chance(rng, RANGES["p_red"]) else "droptail"
    red_ns2 = qkind == "red" and _chance(rng, RANGES["p_red_ns2_defaults"])
    red = {"min_th_fraction": _uniform(rng, *RANGES["red_min_th_fraction"]),
           "w_q": _sig4(_uniform(rng, *RANGES["red_w_q"])), "max_p": _sig4(_uniform(rng, *RANGES["red_max_p"]))}
    eligible = [g for g in groups if g["agent"] in ECN_AGENTS]
    ecn = qkind == "red" and bool(eligible) and _chance(rng, RANGES["p_ecn_on_red"])
    if ecn:
        for g in eligible:
            g["ecn"] = _chance(rng, RANGES["p_ecn_per_group"])
        if not any(g.get("ecn") for g in eligible):
            eligible[0]["ecn"] = True
    fwd_q = _queue(qkind, red_ns2, red, ecn, fwd_limit)
    rev_q = _queue(qkind, red_ns2, red, ecn, rev_limit)

    # random loss on the forward bottleneck's data direction
    error = None
    if _chance(rng, RANGES["p_loss"]):
        p = _sig4(_log_uniform(rng, *RANGES["loss_p"]))
        error = {"model": "bernoulli", "p": p,
                 "placement": _choice(rng, ("before_queue", "after_link"))}

    # topology
    nodes: dict[str, str] = {}
    links: dict[str, dict[str, Any]] = {}
    if kind == "parking_lot":
        routers = ["r1", "r2", "r3"]
        hops = {"h1": ("r1", "r2", hop1), "h2": ("r2", "r3", hop2)}
    else:
        routers = ["r1", "r2"]
        hops = {"bn": ("r1", "r2", path_ticks)}
    for name, (a, b, ticks) in hops.items():
        link: dict[str, Any] = {"from": a, "to": b, "rate": _rate(kbps), "delay": _delay(ticks), "queue": fwd_q,
                                "duplex": True}
        reverse: dict[str, Any] = {}
        if kind == "two_way":
            reverse.update(rate=_rate(rev_kbps), queue=rev_q)
        if error is not None and name in ("bn", "h1"):
            link["error"] = error
            reverse["error"] = "none"
        if reverse:
            link["reverse"] = reverse
        links[name] = link
    # (source router, sink router, one-way bottleneck ticks) of each path
    ends = {"forward": ("r1", "r2", path_ticks), "reverse": ("r1", "r2", path_ticks),
            "long": ("r1", "r3", path_ticks), "hop1": ("r1", "r2", hop1), "hop2": ("r2", "r3", hop2)}

    def host_pair(src: str, dst: str, src_router: str, dst_router: str, src_ticks: int) -> None:
        nodes[src] = nodes[dst] = "host"
        links[src] = {"from": src, "to": src_router, "rate": access, "delay": _delay(src_ticks), "duplex": True}
        links[dst] = {"from": dst_router, "to": dst, "rate": access, "delay": _delay(1), "duplex": True}

    flows: dict[str, dict[str, Any]] = {}
    start_max_ms = duration_s * 1000 * 10 // 100
    i = 0
    for g, count in zip(groups, counts):
        src_router, dst_router, bn_ticks = ends[g["path"]]
        half = halves[g["cls"]]
        src_ticks = half - bn_ticks - 1
        reverse_path = g["path"] == "reverse"
        path_kbps = rev_kbps if reverse_path else kbps
        limit = rev_limit if reverse_path else fwd_limit
        bdp_bytes = path_kbps * 1000 * half * 2 // (8 * 1000 * _TICKS_PER_MS)
        window = max(RANGES["max_window_min_bytes"], 2 * (bdp_bytes + limit * WIRE_BYTES))
        window = -(-window // 1000) * 1000
        for _ in range(count):
            i += 1
            s, d = f"s{i:02d}", f"d{i:02d}"
            host_pair(s, d, src_router, dst_router, src_ticks)
            flow: dict[str, Any] = {"from": d, "to": s} if reverse_path else {"from": s, "to": d}
            flow["group"] = g["name"]
            flow.update(g["keys"])
            if g.get("ecn"):
                flow.update(ecn=True, ecn_retransmits=True)
            if g["delayed_ack"]:
                flow["delayed_ack"] = RANGES["delayed_ack"]
            flow["mss"] = RANGES["mss"]
            flow["max_window"] = f"{window}B"
            flow["app"] = {"type": "bulk", "start": _time(_randint(rng, 0, start_max_ms))}
            flows[f"f{i:02d}"] = flow

    # UDP background
    background = ""
    if not xcp and _chance(rng, RANGES["p_udp_background"]):
        reverse_path = kind == "two_way" and _chance(rng, 0.5)
        path = "long" if kind == "parking_lot" else "forward"
        src_router, dst_router, bn_ticks = ends[path]
        host_pair("su", "du", src_router, dst_router, max(1, halves[0] - bn_ticks - 1))
        mean_kbps = max(1, round((rev_kbps if reverse_path else kbps) * _uniform(rng, *RANGES["udp_rate_fraction"])))
        start = _time(_randint(rng, 0, start_max_ms))
        size = RANGES["udp_packet_size"]
        if _chance(rng, 0.5):
            app: dict[str, Any] = {"type": "cbr", "rate": _rate(mean_kbps), "packet_size": size, "start": start}
        else:
            peak_kbps = max(mean_kbps + 1, round(mean_kbps * _uniform(rng, *RANGES["onoff_peak_over_mean"])))
            on_ms = round(1000 * _uniform(rng, *RANGES["onoff_on_s"]))
            app = {"type": "onoff", "rate": _rate(peak_kbps), "packet_size": size, "on": _time(on_ms),
                   "mean_rate": _rate(mean_kbps), "start": start}
        ends_udp = {"from": "du", "to": "su"} if reverse_path else {"from": "su", "to": "du"}
        # header 0: a packet_size of 1000 is the whole packet, as ns-2's packetSize_
        flows["udp"] = {**ends_udp, "transport": "udp", "header": 0, "app": app}
        background = f", UDP {app['type']} {mean_kbps} kb/s{' reverse' if reverse_path else ''}"
    for r in routers:
        nodes[r] = "router"

    rtts = "/".join(f"{2 * h / _TICKS_PER_MS:g}" for h in halves)
    queue_text = qkind + (" (ns-2 defaults)" if red_ns2 else "") + (" ECN" if ecn else "")
    loss_text = f", loss {error['p']} {error['placement']}" if error else ""
    description = (f"{kind}, {n_flows} TCP flows in {len(groups)} groups "
                   f"({', '.join(g['name'] for g in groups)}), RTTs {rtts} ms, bottleneck {kbps} kb/s"
                   + (f" / reverse {rev_kbps} kb/s" if kind == "two_way" else "")
                   + f", {queue_text} {fwd_limit} packets{loss_text}{background}")
    return {
        "profile": "ns2",
        "name": f"gen{gen_seed}/{index:03d}",
        "description": description,
        "duration": f"{duration_s}s",
        "nodes": dict(sorted(nodes.items())),
        "links": links,
        "flows": flows,
        "metrics": {"steady_start": _time(max(RANGES["steady_start_min_s"] * 1000,
                                               duration_s * 1000 * 20 // 100))},
    }


#: The largest start offset :func:`with_start_jitter` adds, milliseconds.
JITTER_MS = 1000


def with_start_jitter(d: dict[str, Any], seed: int) -> dict[str, Any]:
    """``d`` with every flow's start moved later by 0 to :data:`JITTER_MS` ms (whole
    milliseconds, drawn per flow from ``(name, seed, flow)``), so that the seeds of a run
    sample the flows' phases on both sides: without random loss or RED, ns-2 and tcplab are
    otherwise deterministic, and one seed's phase would stand for all."""
    out = copy.deepcopy(d)
    for name, flow in sorted(out.get("flows", {}).items()):
        app = flow.get("app")
        if not isinstance(app, dict) or "start" not in app:
            continue
        rng = random.Random(f"tcplab-ns2-jitter:{d.get('name', '')}:{seed}:{name}")
        ms = round(float(str(app["start"]).rstrip("s")) * 1000) + _randint(rng, 0, JITTER_MS)
        app["start"] = _time(ms)
    return out


def to_toml(d: dict[str, Any]) -> str:
    """The scenario's TOML text (stable: the same dict always gives the same text)."""
    return Scenario(d).to_toml()


def write(gen_seed: int, count: int, out_dir: str | Path) -> list[Path]:
    """Write scenarios 0 … count-1 of ``gen_seed`` as ``out_dir/gen{seed}_{index:03d}.toml``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        path = out / f"gen{gen_seed}_{index:03d}.toml"
        path.write_text(to_toml(generate(gen_seed, index)))
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> None:
    """``python -m tcplab.ns2.generate --seed S --count N --out DIR``."""
    parser = argparse.ArgumentParser(prog="python -m tcplab.ns2.generate",
                                     description="Write random scenarios for the ns-2.35 cross-check.")
    parser.add_argument("--seed", type=int, required=True, help="generator seed")
    parser.add_argument("--count", type=int, required=True, help="number of scenarios (indices 0 … N-1)")
    parser.add_argument("--out", required=True, help="directory to write them in")
    args = parser.parse_args(argv)
    for path in write(args.seed, args.count, args.out):
        print(path)


if __name__ == "__main__":
    main()

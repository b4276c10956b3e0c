"""tcplab beside ns-2.35: translate a scenario to OTcl, run both simulators, compare.

Importable without ns-2 installed; only :func:`run_ns2` needs the ``ns`` binary (Debian's
package ``ns2``). docs/crosscheck.md ("ns-2.35") describes what is translated, what is
refused and why, and the metric definitions on both sides.

* :func:`to_otcl` writes the OTcl script for the subset ns-2 expresses: nodes, link
  directions (rate, delay, DropTail, RED or XCP queue, Bernoulli loss after the link, outage
  schedules with tcplab's down periods), TCP
  agents with every tcplab flow key set explicitly to the agent variable of the same
  meaning, sinks, FTP/CBR/exponential on-off sources, start and stop times, and the
  measurement code that writes a JSON file at the end of the run. Anything else raises
  :class:`Ns2Unsupported`, whose message is one line naming the key.
* :func:`run_ns2` and :func:`run_tcplab` return the same metrics (:data:`FLOW_METRICS`,
  :data:`LINK_METRICS`) from each simulator; :func:`compare` puts them side by side.

The scenario is translated as written: a flow without ``profile = "ns2"`` becomes "ns-2 set
to match tcplab" (ns-2's own defaults, where they differ from tcplab's, are overridden in
the script). What ns-2 cannot switch off is listed in :attr:`Ns2Script.notes`.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from tcplab.analysis import jain
from tcplab.results import INTERVAL_SCHEMA, Result
from tcplab.scenario import Scenario

__all__ = [
    "Ns2Unsupported",
    "Ns2Error",
    "Ns2Script",
    "FLOW_METRICS",
    "LINK_METRICS",
    "expanded",
    "translate",
    "to_otcl",
    "run_ns2",
    "run_ns2_result",
    "ns2_result",
    "run_tcplab",
    "compare",
    "run_both",
    "ns2_available",
    "SAMPLE_PERIOD_S",
]

INTERVAL_COLUMNS = tuple(INTERVAL_SCHEMA)
#: ns-2 agents whose fast retransmit calls `TcpAgent::slowdown()` (tcp-reno.cc,
#: tcp-newreno.cc, tcp-sack1.cc), so that `ncwndcuts1_` counts it.
_SLOWDOWN_AGENTS = ("Agent/TCP/Reno", "Agent/TCP/Newreno", "Agent/TCP/Sack1")

#: Period of the cwnd and queue samples on both sides (seconds).
SAMPLE_PERIOD_S = 0.01

#: Per-flow metrics, same definition on both sides (docs/crosscheck.md, "ns-2.35").
FLOW_METRICS = ("goodput_bps", "cwnd_mean", "data_packets", "retransmits", "timeouts")
#: Per-link-direction metrics.
LINK_METRICS = ("arrivals", "drops", "marks", "q_mean", "q_p5", "q_p95")

#: ns-2 ticks its RTO estimator in `tcpTick_` units; tcplab's estimator runs on the exact
#: clock unless the flow sets `rto_tick`. 1 ms is the closest ns-2.35 does reliably (the
#: estimator keeps integer ticks; the issue's authors checked 1 ms side by side).
EXACT_CLOCK_TICK_S = 0.001

# tcplab's flow defaults (crates/tcplab-core/src/scenario/mod.rs, FlowSpec), for keys the
# expanded scenario leaves out.
_FLOW_DEFAULTS: dict[str, Any] = {
    "cc": "newreno",
    "mss": 1460,
    "ack_size": 40,
    "max_window": 1 << 30,
    "init_cwnd": 1,
    "rto_initial": "1s",
    "rto_min": "200ms",
    "rto_max": "60s",
    "quickack": 0,
    "dupack_threshold": 3,
    "partial_ack_timer": "every",
    "recovery_exit": "ssthresh",
    "ack_counting": "acks",
    "sack": False,
    "nextseg_rule3": False,
    "frto": False,
    "dsack_undo": False,
    "rto_unsacked_flight": False,
    "ecn": False,
    "ecn_retransmits": False,
    "ece_increase": True,
    "rto_restart_on_retransmit": False,
    "transport": "tcp",
}

# Keys that change nothing ns-2 could see (labels, outputs) or that apply to another kind.
_IGNORED_FLOW_KEYS = {"from", "to", "efficiency_link", "group", "receiver_clock_offset", "profile"}


# tcplab parameter -> the value built into ns-2.35's Linux 2.6 module, and tcplab's default.
_LINUX_MODULES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    # bic_scale 41: C = 41 * 10 / 1024; beta 819/1024; fast convergence and TCP friendliness
    # on; no HyStart in this version.
    "cubic": ({"c": 0.4004, "beta": 0.7998, "fast_convergence": True, "reno_friendly": True, "hystart": False},
              {"c": 0.4, "beta": 0.7, "fast_convergence": True, "reno_friendly": True, "hystart": True}),
    # one segment per min(cwnd, 50) + 1 acks (1/51 per ack above 50 segments; Reno-like
    # below, which tcplab's legacy_window, halving below it, is not); cuts cwnd/8.
    "scalable": ({"a": 1 / 51, "b": 0.125}, {"a": 0.01, "b": 0.125}),
}


class Ns2Unsupported(ValueError):
    """A scenario element ns-2.35 cannot express; ``str()`` is one line naming the key,
    e.g. ``flows.f1.loss_detection: ns-2.35 has no RACK (refused)``."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason} (refused)")
        self.key = key
        self.reason = reason


class Ns2Error(RuntimeError):
    """ns-2 did not run to the end (missing binary, Tcl error, timeout); one line."""


# -- units -----------------------------------------------------------------------------------

_NUM = r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"


def _split(text: str) -> tuple[float, str]:
    m = re.fullmatch(rf"\s*{_NUM}\s*(.*?)\s*", str(text))
    if not m:
        raise ValueError(f"'{text}' is not a number with a unit")
    return float(m.group(1)), m.group(2)


def _rate_bps(value: Any) -> float:
    if isinstance(value, Mapping):  # seed 001's asymmetry factor (docs/scenarios.md)
        fwd = _rate_bps(value["forward"])
        return float(round(fwd * value.get("ack_size", 40) / (value["asym_k"] * value.get("data_size", 1000))))
    n, unit = _split(value)
    mult = {"bps": 1, "b/s": 1, "bit/s": 1, "kbps": 1e3, "kb/s": 1e3, "kbit/s": 1e3, "mbps": 1e6, "mb/s": 1e6,
            "mbit/s": 1e6, "gbps": 1e9, "gb/s": 1e9, "gbit/s": 1e9, "tbps": 1e12, "tb/s": 1e12, "tbit/s": 1e12}
    return n * mult[unit.lower()]


def _seconds(value: Any) -> float:
    if isinstance(value, (int, float)):
        return float(value)
    n, unit = _split(value)
    if unit == "" and n == 0:
        return 0.0
    return n * {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}[unit]


def _bytes(value: Any) -> int:
    if isinstance(value, int):
        return value
    n, unit = _split(value)
    return int(n * {"": 1, "B": 1, "bytes": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024,
                    "MiB": 1024**2, "GiB": 1024**3}[unit])


def _limit_packets(limit: Any, key: str) -> int | None:
    """A queue limit in packets (None = unlimited); byte limits are refused."""
    if limit is None:
        return 1000
    if isinstance(limit, int):
        return limit
    s = str(limit).strip()
    if s == "unlimited":
        return None
    m = re.fullmatch(r"(\d+)\s*(p|pkt|pkts|packets)", s)
    if m:
        return int(m.group(1))
    raise Ns2Unsupported(key, f"byte limit '{s}' is not translated (ns-2's byte mode counts mean_pktsize_ units)")


def _byte_limit(limit: Any) -> int | None:
    """A queue limit in bytes, or None when it counts packets (or is unlimited)."""
    if limit is None or isinstance(limit, int):
        return None
    s = str(limit).strip()
    if s == "unlimited" or re.fullmatch(r"\d+\s*(p|pkt|pkts|packets)", s):
        return None
    return _bytes(s)


def _num(x: float) -> str:
    """A Tcl number: integers without a point, floats with repr (exact round trip)."""
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


# -- the expanded scenario --------------------------------------------------------------------


def expanded(scenario: Scenario | Mapping[str, Any] | str | Path) -> dict[str, Any]:
    """The plain dict ``tcplab expand`` prints (builders, duplex links, defaults and
    profiles replaced by what they generate)."""
    from tcplab.runner import as_scenario

    return as_scenario(scenario).expand().to_dict()


def _variant(value: Any, tag: str, default: str) -> tuple[str, dict[str, Any]]:
    """(`type`/`algorithm`/`model` name, parameters) of a variant table or bare name."""
    if value is None:
        return default, {}
    if isinstance(value, str):
        return value, {}
    params = dict(value)
    return str(params.pop(tag, default)), params


def _window(sc: Mapping[str, Any]) -> tuple[float, float]:
    """The measurement window: tcplab's steady-state window [steady_start, duration]."""
    duration = _seconds(sc["duration"])
    start = _seconds((sc.get("metrics") or {}).get("steady_start", 0))
    return start, duration


# -- translation ----------------------------------------------------------------------------


@dataclass
class Ns2Script:
    """The OTcl text and what the Python side needs to read its JSON back."""

    otcl: str
    window: tuple[float, float]
    flows: list[str]
    links: list[str]
    #: flow name -> payload bytes per packet (goodput from ns-2's packet counts)
    payload: dict[str, int]
    #: flow name -> "tcp" | "udp"
    transport: dict[str, str]
    #: UDP flow name -> wire bytes per datagram (payload + header)
    wire: dict[str, int] = field(default_factory=dict)
    #: behaviours tcplab has and ns-2.35 cannot switch (documented differences, not refusals)
    notes: list[str] = field(default_factory=list)
    #: `[outages.NAME]` -> the down periods [down, up] (seconds) the script plays: tcplab's
    #: for the seed (summary.json's ``outages.NAME.periods``)
    outages: dict[str, list[list[float]]] = field(default_factory=dict)
    #: TCP flow name -> its ns-2 agent class (e.g. "Agent/TCP/Reno")
    agents: dict[str, str] = field(default_factory=dict)


class _Tcl:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str = "") -> None:
        self.lines.append(line)


def _check_tree(sc: Mapping[str, Any]) -> None:
    """ns-2's static routing and tcplab's break ties differently: only topologies without
    cycles (every path unique) are translated."""
    parent: dict[str, str] = {n: n for n in sc.get("nodes", {})}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    seen: set[frozenset[str]] = set()
    for name, link in sorted(sc.get("links", {}).items()):
        pair = frozenset((link["from"], link["to"]))
        if pair in seen:
            continue  # the other direction of a link already joined
        seen.add(pair)
        a, b = find(link["from"]), find(link["to"])
        if a == b:
            raise Ns2Unsupported(f"links.{name}", "the topology has a cycle; only trees (unique paths) are translated")
        parent[a] = b


def _queue_tcl(name: str, link: Mapping[str, Any], rate: float) -> tuple[str, list[str], str]:
    """(ns-2 queue class, `$q set` lines, kind) for one link direction."""
    key = f"links.{name}.queue"
    qtype, q = _variant(link.get("queue"), "type", "droptail")
    sets: list[str] = []
    if qtype == "droptail":
        if q.get("mark_threshold") is not None:
            raise Ns2Unsupported(f"{key}.mark_threshold", "ns-2.35's DropTail has no step marking")
        lim = q.get("limit", 1000)
        nbytes = _byte_limit(lim)
        if nbytes is not None:
            # tcplab admits a packet if the waiting bytes plus its size are at most B; ns-2's
            # byte mode drops if byteLength + size >= limit_ * mean_pktsize_: with
            # mean_pktsize_ 1 and limit_ B + 1 that is the same test.
            sets += ["queue_in_bytes_ true", "mean_pktsize_ 1", f"limit_ {nbytes + 1}"]
            return "DropTail", sets, "droptail"
        n = _limit_packets(lim, f"{key}.limit")
        # tcplab holds N packets waiting (not counting the one in transmission); ns-2's
        # DropTail drops when length + 1 >= limit_ (queue/drop-tail.cc), so N + 1.
        sets.append(f"limit_ {1_000_000 if n is None else n + 1}")
        return "DropTail", sets, "droptail"
    if qtype in ("red", "red_i"):
        inst = qtype == "red_i"
        for k, why in (("mark_to_drop", "ns-2.35's RED has no mark-to-drop"),):
            if q.get(k, 0):
                raise Ns2Unsupported(f"{key}.{k}", why)
        if not q.get("count_spacing", not inst):
            raise Ns2Unsupported(f"{key}.count_spacing", "ns-2.35's RED always spaces drops by the count since the last one")
        n = _limit_packets(q.get("limit", 1000), f"{key}.limit")
        # RED drops when the waiting queue is already at limit_ (queue/red.cc: qlen >= qlim),
        # so it holds limit_ waiting packets, as tcplab's limit N.
        sets.append(f"limit_ {1_000_000 if n is None else n}")
        sets += ["bytes_ false", "queue_in_bytes_ false"]
        sets.append(f"thresh_ {_num(q['min_th'])}")
        sets.append(f"maxthresh_ {_num(q['max_th'])}")
        max_p = float(q.get("max_p", 1.0 if inst else 0.1))
        sets.append(f"linterm_ {_num(1.0 / max_p)}")
        w_q = 1.0 if inst else q.get("w_q", 0.002)
        sets.append(f"q_weight_ {0 if w_q == 'auto' else _num(float(w_q))}")  # 0: ns-2's 1 - exp(-1/C)
        mps = int(q.get("mean_packet_size", 1000))
        sets += [f"mean_pktsize_ {mps}", f"idle_pktsize_ {mps}"]
        sets.append(f"gentle_ {'true' if q.get('gentle', False) else 'false'}")
        # FJ93's p_a = p_b / (1 - count * p_b) (tcplab count_spacing); ns-2's wait_ true is
        # another rule (p_b / (2 - count * p_b)).
        sets.append("wait_ false")
        ecn = bool(q.get("ecn", True))
        sets.append(f"setbit_ {'true' if ecn else 'false'}")
        if q.get("forced_drop", False):
            sets.append("use_mark_p_ false")  # forced region (avg >= max_th, gentle 2 max_th) drops
        else:
            # tcplab marks ECN-capable packets in the forced region too: with use_mark_p_ and
            # mark_p_ above 1 every signal (probability up to 1) on an ECT packet is a mark.
            sets += ["use_mark_p_ true", "mark_p_ 2.0"]
        sets += ["drop_tail_ true", "drop_front_ false", "drop_rand_ false", "cautious_ 0", "adaptive_ 0"]
        return "RED", sets, qtype
    if qtype == "xcp":
        for k, default in (("alpha", 0.4), ("beta", 0.226), ("gamma", 0.1), ("init_interval", None)):
            if k in q and (default is None or abs(float(q[k]) - default) > 1e-12):
                raise Ns2Unsupported(f"{key}.{k}", "ns-2.35's Queue/XCP has fixed constants")
        n = _limit_packets(q.get("limit", 1000), f"{key}.limit")
        sets.append(f"limit_ {1_000_000 if n is None else n + 1}")
        return "XCP", sets, "xcp"
    raise Ns2Unsupported(f"{key}.type", f"ns-2.35 has no '{qtype}' queue here (DropTail, RED, XCP are translated)")


def _error_tcl(name: str, link: Mapping[str, Any]) -> float:
    """The Bernoulli loss probability of a link direction (0 = none; also for an outage
    schedule, :func:`_outage_of`)."""
    if link.get("loss"):
        return float(link["loss"])
    model, e = _variant(link.get("error"), "model", "none")
    if model in ("none", "outage"):
        return 0.0
    if model == "bernoulli":
        return float(e.get("p", 0.0))
    raise Ns2Unsupported(f"links.{name}.error.model", f"'{model}' is not translated (Bernoulli and outage only)")


def _outage_of(link: Mapping[str, Any]) -> str | None:
    """The `[outages.NAME]` schedule a link direction's error model follows, or None. (tcplab
    gives a direction one error model, so an outage never shares a direction with `loss`.)"""
    model, e = _variant(link.get("error"), "model", "none")
    return str(e["schedule"]) if model == "outage" else None


def _outage_periods(sc: Mapping[str, Any], seed: int) -> dict[str, list[tuple[float, float]]]:
    """The down periods ``[down, up)`` (seconds) of every ``[outages.NAME]`` schedule, exactly
    as tcplab realizes them for ``seed``: a schedule's lengths come from its own stream (the
    schedule's index among the sorted names) and depend on nothing but the ``[outages]``
    table and the seed (docs/scenarios.md, "Outages"), so tcplab's engine runs the table
    alone (two hosts, one link without an error model, no flows: no events) for the
    scenario's duration and reports them in its summary (``outages.NAME.periods``: those that
    begin before the end, ``up`` cut at the end), the periods the full run's links see."""
    import json as _json

    from tcplab import _core

    probe = {
        "name": "outage schedules",
        "duration": sc["duration"],
        "seed": seed,
        "outages": sc["outages"],
        "nodes": {"a": "host", "b": "host"},
        "links": {"ab": {"from": "a", "to": "b", "rate": "1Mbps"}},
    }
    sim = _core.Simulation(_json.dumps(probe), seed)
    while not sim.finished:
        sim.advance(max(sim.duration, 1e-9))
    out = _json.loads(sim.results(lists=False)["summary"]).get("outages") or {}
    del sim
    periods: dict[str, list[tuple[float, float]]] = {}
    for name, o in sorted(out.items()):
        if o.get("truncated"):
            raise Ns2Unsupported(f"outages.{name}", "more than 10,000 down periods in the run are not translated")
        periods[name] = [(float(d), float(u)) for d, u in o["periods"]]
    return periods


def _paths(sc: Mapping[str, Any]) -> dict[tuple[str, str], list[str]]:
    """Link directions (names) on the unique path between every two nodes (trees only:
    :func:`_check_tree`); a pair without a path is absent."""
    out_links: dict[str, list[tuple[str, str]]] = {}
    for name, link in sorted(sc.get("links", {}).items()):
        out_links.setdefault(link["from"], []).append((link["to"], name))
    paths: dict[tuple[str, str], list[str]] = {}
    for src in sorted(sc.get("nodes", {})):
        todo, seen = [(src, [])], {src}
        while todo:
            node, path = todo.pop()
            paths[(src, node)] = path
            for nxt, name in out_links.get(node, []):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append((nxt, path + [name]))
    return paths


def _largest_packets(sc: Mapping[str, Any]) -> dict[str, int]:
    """Link direction -> wire bytes of the largest packet any flow sends across it (TCP data
    segments ``mss + header`` forward, acks ``ack_size`` back; UDP datagrams forward, and
    back when echoed)."""
    paths = _paths(sc)
    big: dict[str, int] = {}

    def cross(a: str, b: str, size: int) -> None:
        for ln in paths.get((a, b), []):
            big[ln] = max(big.get(ln, 0), size)

    for flow in sc.get("flows", {}).values():
        a, b = flow["from"], flow["to"]
        if flow.get("transport", "tcp") == "udp":
            _, app = _variant(flow.get("app"), "type", "bulk")
            size = int(app.get("packet_size", 1000)) + int(flow.get("header", 28))
            cross(a, b, size)
            if flow.get("echo"):
                cross(b, a, size)
        else:
            cross(a, b, int(_flow_value(flow, "mss")) + _tcp_header(flow))
            cross(b, a, int(_flow_value(flow, "ack_size")))
    return big


def _outage_toggles(periods: list[tuple[float, float]], delay: float, tx_max: float,
                    end: float) -> list[tuple[float, float]]:
    """The intervals during which a link direction's ErrorModel (after the link, asked when a
    packet arrives at the far end, ``delay`` after its transmission ended) loses everything:
    tcplab's ``[down, up)`` shifted to arrival times, ``[down + delay, up + delay + tx_max)``;
    overlapping or touching ones merged (a capped length makes ``up`` the next ``down``);
    none beginning at or after ``end`` (the run's end)."""
    out: list[list[float]] = []
    for down, up in periods:
        a, b = down + delay, up + delay + tx_max
        if a >= end:
            break
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


#: The congestion controls :func:`_agent` translates (every other one is refused).
_NS2_ALGORITHMS = ("newreno", "reno", "gaimd", "vegas", "highspeed", "cubic", "scalable", "westwood", "xcp")


def _flow_value(flow: Mapping[str, Any], key: str) -> Any:
    return flow[key] if key in flow else _FLOW_DEFAULTS.get(key)


def _tcp_header(flow: Mapping[str, Any]) -> int:
    """A TCP flow's header bytes on every data packet: `header` plus XCP's congestion header
    (`cc.header_bytes`)."""
    algo, cc = _variant(flow.get("cc"), "algorithm", "newreno")
    return int(flow.get("header", 40)) + (int(cc.get("header_bytes", 0)) if algo == "xcp" else 0)


def _agent(name: str, flow: Mapping[str, Any], notes: list[str]) -> tuple[str, list[str], str, list[str]]:
    """(agent class, `$tcp set` lines, sink class, extra Tcl lines using $tcp) for a TCP flow."""
    key = f"flows.{name}"
    v = lambda k: _flow_value(flow, k)  # noqa: E731
    algo, cc = _variant(flow.get("cc"), "algorithm", "newreno")
    sack = bool(v("sack"))
    sets: list[str] = []
    extra: list[str] = []

    # Refusals first: an algorithm without an ns-2.35 agent (the most basic reason), then
    # recovery and loss-detection machinery ns-2.35 does not have.
    if algo not in _NS2_ALGORITHMS:
        raise Ns2Unsupported(f"{key}.cc", f"ns-2.35 has no agent for '{algo}'")
    refuse_if = [
        ("loss_detection", lambda x: x == "rack", "ns-2.35 has no RACK"),
        ("loss_detection", lambda x: x == "vegas" and algo != "vegas",
         "Vegas' fine-grained retransmission exists in ns-2.35's Vegas agent only"),
        ("tlp", lambda x: bool(x), "ns-2.35 has no tail loss probes"),
        ("frto", lambda x: bool(x), "F-RTO is not translated"),
        ("dsack_undo", lambda x: bool(x), "ns-2.35 has no D-SACK undo"),
        ("pacing", lambda x: x not in (None, "off"), "ns-2.35's TCP agents do not pace"),
        ("nextseg_rule3", lambda x: bool(x), "ns-2.35's Sack1 has no RFC 6675 NextSeg"),
        ("rto_unsacked_flight", lambda x: bool(x), "ns-2.35's Sack1 has no RFC 6675 recovery"),
        ("quickack", lambda x: bool(x), "ns-2.35's DelAck sink has no quick-ack mode"),
        ("ack_counting", lambda x: x != "acks", "ns-2.35 grows the window per ack (ack_counting = \"acks\")"),
        ("init_ssthresh", lambda x: x is not None, "not translated (ns-2 starts with ssthresh_ = window_)"),
        ("start_jitter", lambda x: x is not None, "a random start drawn from tcplab's stream cannot be reproduced"),
        ("recovery_exit", lambda x: x != "ssthresh", "not translated (ns-2's Newreno exit_recovery_fix_ is not the same rule)"),
    ]
    for k, bad, why in refuse_if:
        if k in flow and bad(flow[k]):
            raise Ns2Unsupported(f"{key}.{k}", why)
    if sack:
        if flow.get("recovery", "rfc6675") != "rfc6675" and "recovery" in flow and flow["recovery"] == "newreno":
            raise Ns2Unsupported(f"{key}.recovery", "SACK blocks with NewReno recovery are not translated")
        if flow.get("prr", "ssrb") != "off":
            raise Ns2Unsupported(f"{key}.prr", "ns-2.35's Sack1 has no PRR (set prr = \"off\")")
    if v("ecn"):
        if flow.get("ecn_echo", "rfc3168") != "rfc3168":
            raise Ns2Unsupported(f"{key}.ecn_echo", "ns-2.35's sink echoes ECE until CWR (rfc3168) only")
        if not v("ecn_retransmits"):
            raise Ns2Unsupported(f"{key}.ecn_retransmits", "ns-2.35 sets ECT on retransmissions too (set ecn_retransmits = true)")

    # The agent.
    sink = "Agent/TCPSink/Sack1" if sack else "Agent/TCPSink"
    if algo in ("reno", "newreno") or algo == "gaimd":
        if algo == "gaimd":
            recovery = cc.get("recovery", "reno")
            base = "Newreno" if recovery == "newreno" else "Reno"
            alpha, beta = float(cc.get("alpha", 1.0)), float(cc.get("beta", 0.5))
            # slowdown() keeps decrease_num_ x window (tcp.cc: decreasewin = decrease_num_ * window()).
            sets += [f"increase_num_ {_num(alpha)}", f"decrease_num_ {_num(beta)}"]
            if not cc.get("ns2_compat", False):
                notes.append(f"{key}.cc.ns2_compat: false in tcplab; ns-2's slowdown() halves at the first decrease, "
                             "in slow start and at timeouts (tcp.cc), whatever decrease_num_")
            if not cc.get("ns2_window", False):
                notes.append(f"{key}.cc.ns2_window: false in tcplab; ns-2's slowdown() keeps ssthresh_ in whole "
                             "packets and cwnd_ = decrease_num_ x window untruncated, and the ack ending fast "
                             "recovery grows cwnd_ once (tcp.cc, tcp-reno.cc)")
        else:
            base = "Newreno" if algo == "newreno" else "Reno"
        agent = "Agent/TCP/Sack1" if sack else f"Agent/TCP/{base}"
        if sack and algo == "gaimd":
            raise Ns2Unsupported(f"{key}.sack", "TCP(alpha, beta) over Sack1 is not translated")
    elif algo == "vegas":
        if cc.get("alt"):
            raise Ns2Unsupported(f"{key}.cc.alt", "ns-2.35's Vegas has no ALT timestamps")
        if cc.get("ss_exit_cut"):
            raise Ns2Unsupported(f"{key}.cc.ss_exit_cut", "ns-2.35's Vegas does not cut to 7/8 at slow-start exit")
        if cc.get("rtt_sample", "mean") != "mean":
            raise Ns2Unsupported(f"{key}.cc.rtt_sample", "ns-2.35's Vegas has no distinguished-segment RTT "
                                 "(VegasTcpAgent::recv takes the mean of the round's samples)")
        if sack:
            raise Ns2Unsupported(f"{key}.sack", "ns-2.35's Vegas has no SACK")
        if cc.get("restart_window", 1) != 2:
            notes.append(f"{key}.cc.restart_window: {cc.get('restart_window', 1)} in tcplab; ns-2's Vegas restarts "
                         "from 2 segments after a timeout (v_slowstart_, not settable from OTcl)")
        agent = "Agent/TCP/Vegas"
        if v("loss_detection") != "vegas":
            notes.append(f"{key}.loss_detection: ns-2's Vegas agent always retransmits by its fine-grained "
                         "timer on early duplicate acks (tcp-vegas.cc); tcplab does with loss_detection = \"vegas\"")
        sets += [f"v_alpha_ {_num(cc.get('alpha', 1))}", f"v_beta_ {_num(cc.get('beta', 3))}",
                 f"v_gamma_ {_num(cc.get('gamma', 1))}"]
    elif algo == "highspeed":
        if cc.get("aimd", "formula") != "general":
            raise Ns2Unsupported(f"{key}.cc.aimd", "ns-2.35's HighSpeed TCP (windowOption_ 8) is aimd = \"general\" "
                                 f"(p(w) on the log-log line), not '{cc.get('aimd', 'formula')}'")
        if cc.get("b_floor", "a_peak") not in ("a_peak",):
            raise Ns2Unsupported(f"{key}.cc.b_floor", "not translated")
        agent = "Agent/TCP/Sack1" if sack else "Agent/TCP/Newreno"
        sets += ["windowOption_ 8", f"low_window_ {_num(cc.get('low_window', 38))}",
                 f"high_window_ {_num(cc.get('high_window', 83000))}", f"high_p_ {_num(cc.get('high_p', 1e-7))}",
                 f"high_decrease_ {_num(cc.get('high_decrease', 0.1))}"]
        if not cc.get("ns2_compat", False):
            notes.append(f"{key}.cc.ns2_compat: false in tcplab; ns-2's slowdown() halves at the first decrease, "
                         "in slow start and (ssthresh) at timeouts (tcp.cc), not by b(w)")
        notes.append(f"{key}.cc: ns-2's HighSpeed computes a(w), b(w) from the window in floating point; "
                     "tcplab at floor(w); beyond high_window ns-2 keeps extending the line (tcplab: b_floor)")
    elif algo in ("cubic", "scalable", "westwood"):
        if algo == "westwood" and cc.get("estimator", "be") != "plus":
            raise Ns2Unsupported(f"{key}.cc.estimator", "ns-2.35's Linux agent has Westwood+ only (estimator = \"plus\")")
        # The Linux 2.6 modules' constants (tcp/linux/src/tcp_cubic.c, tcp_scalable.c): a
        # parameter the flow sets to another value is refused; a tcplab default that differs
        # is a note.
        module, defaults = _LINUX_MODULES.get(algo, ({}, {}))
        if algo == "westwood":
            # ns-2's agent runs the module without CA_EVENT_COMPLETE_CWR and with min_cwnd at a
            # loss (tcp-linux.cc), tcplab's plus_rules = "ns2" (docs/crosscheck.md item 4).
            rules = cc.get("plus_rules", "linux")
            if rules != "ns2":
                if "plus_rules" in cc:
                    raise Ns2Unsupported(f"{key}.cc.plus_rules", "ns-2.35's Agent/TCP/Linux runs Westwood+ with "
                                         "plus_rules = \"ns2\"'s window rules")
                notes.append(f"{key}.cc.plus_rules: \"linux\" in tcplab; ns-2.35's Agent/TCP/Linux never raises "
                             "CA_EVENT_COMPLETE_CWR and goes to min_cwnd at a loss (plus_rules = \"ns2\")")
        for k in cc:
            if k not in ("estimator", "plus_rules") and k not in module:
                raise Ns2Unsupported(f"{key}.cc.{k}", f"ns-2.35's Linux {algo} module has no such parameter")
        for k, want in module.items():
            have = cc.get(k, defaults[k])
            same = have == want if not isinstance(want, float) else abs(float(have) - want) <= 0.002 * abs(want)
            if not same:
                if k in cc:
                    raise Ns2Unsupported(f"{key}.cc.{k}", f"ns-2.35's Linux {algo} module has {k} = {want!r}")
                notes.append(f"{key}.cc.{k}: {have!r} in tcplab; ns-2.35's Linux {algo} module has {want!r}")
        if not sack:
            # With a plain TCPSink the Linux agent times out at every loss (bench/ns2's cubic2:
            # 51 timeouts per flow in 50 s, half the link); ns-2's own examples pair it with
            # Agent/TCPSink/Sack1 and RFC 1323 timestamp echoes.
            raise Ns2Unsupported(f"{key}.sack", "ns-2.35's Agent/TCP/Linux needs SACK acks (set sack = true, "
                                 "prr = \"off\")")
        agent = "Agent/TCP/Linux"
        ca = {"cubic": "cubic", "scalable": "scalable", "westwood": "westwood"}[algo]
        extra.append(f"$ns at 0 \"$tcp select_ca {ca}\"")
        extra.append("$sink set ts_echo_rfc1323_ true")
        sets += ["timestamps_ true", "ts_option_size_ 0"]
        notes.append(f"{key}.cc: Agent/TCP/Linux runs Linux 2.6's {ca} module with Linux's own recovery; "
                     f"tcplab runs its own {algo}")
    elif algo == "xcp":
        if sack:
            raise Ns2Unsupported(f"{key}.sack", "ns-2.35's XCP agent has no SACK")
        for k in cc:
            if k != "header_bytes":
                raise Ns2Unsupported(f"{key}.cc.{k}", "not translated")
        agent = "Agent/TCP/Reno/XCP"
        sink = "Agent/TCPSink/XCPSink"
        sets += ["ts_option_size_ 0"]
        if int(cc.get("header_bytes", 0)):
            # ns-2.35 charges no bytes for hdr_xcp (XCP_HDR_LEN, xcp/xcp-end-sys.h, is unused;
            # XcpEndsys::send leaves hdr_cmn::size() alone): cc.header_bytes goes into
            # tcpip_base_hdr_size_ below, which enlarges data packets and the SYN as tcplab does.
            notes.append(f"{key}.cc.header_bytes: ns-2.35's XCP agent adds no bytes for its congestion header; "
                         "translated into tcpip_base_hdr_size_ (data packets and the SYN, not acks)")
    else:
        raise Ns2Unsupported(f"{key}.cc", f"ns-2.35 has no agent for '{algo}'")

    if agent == "Agent/TCP/Sack1":
        notes.append(f"{key}.sack: ns-2's Sack1 is Fall & Floyd's SACK recovery (pipe, one hole per ack), "
                     "tcplab's RFC 6675; same scoreboard idea, different rules")

    # Every tcplab key, written explicitly.
    mss = int(v("mss"))
    header = _tcp_header(flow)
    if agent == "Agent/TCP/Vegas":
        # VegasTcpAgent::output (tcp/tcp-vegas.cc) is its own and never adds headersize():
        # useHeaders_ is ignored and a segment is packetSize_ bytes on the wire. So the
        # header goes into packetSize_ (acks still count segments: goodput = segments x mss).
        sets += [f"packetSize_ {mss + header}", f"tcpip_base_hdr_size_ {header}", "useHeaders_ true"]
    else:
        sets += [f"packetSize_ {mss}", f"tcpip_base_hdr_size_ {header}", "useHeaders_ true"]
    max_window = _bytes(v("max_window"))
    sets.append(f"window_ {max(1, max_window // mss)}")
    sets.append("maxcwnd_ 0")
    sets += [f"windowInit_ {int(v('init_cwnd'))}", "windowInitOption_ 1"]
    sets += [f"rtxcur_init_ {_num(_seconds(v('rto_initial')))}", f"minrto_ {_num(_seconds(v('rto_min')))}",
             f"maxrto_ {_num(_seconds(v('rto_max')))}"]
    tick = flow.get("rto_tick")
    sets.append(f"tcpTick_ {_num(_seconds(tick)) if tick is not None else _num(EXACT_CLOCK_TICK_S)}")
    sets.append(f"numdupacks_ {int(v('dupack_threshold'))}")
    sets.append(f"ecn_ {1 if v('ecn') else 0}")
    if v("ecn") and agent in ("Agent/TCP/Reno", "Agent/TCP/Newreno", "Agent/TCP/Sack1"):
        # tcp.cc recv_newack_helper: opencwnd() on an ECN-Echo ack (once ect_ is set) only if
        # old_ecn_ and ecn_burst_ (an earlier ack of the same run had ECE). old_ecn_ 0 (ns-2's
        # default) is ece_increase = false exactly; old_ecn_ 1 is the nearest to tcplab's
        # default but still skips the first ECE ack of each run.
        if v("ece_increase"):
            sets.append("old_ecn_ 1")
            notes.append(f"{key}.ece_increase: true in tcplab (every ECN-Echo ack may open the window); ns-2.35 "
                         "with old_ecn_ 1 still skips opencwnd() on the first ECN-Echo ack after one without "
                         "(tcp.cc recv_newack_helper, ecn_burst_); ece_increase = false is old_ecn_ 0")
        else:
            sets.append("old_ecn_ 0")
    sets.append(f"syn_ {'true' if flow.get('syn', False) else 'false'}")
    # bugFix_: no second fast retransmit for duplicate acks at or below recover_. tcplab's
    # NewReno already has RFC 6582's rule, its Reno not (the key `bugfix` says so).
    default_bugfix = algo in ("newreno", "highspeed", "xcp", "vegas") or (algo == "gaimd" and cc.get("recovery") == "newreno")
    sets.append(f"bugFix_ {'true' if flow.get('bugfix', default_bugfix) else 'false'}")
    sets.append(f"singledup_ {1 if flow.get('limited_transmit', False) else 0}")
    # maxburst_ caps every send_much() (0 = none, as tcplab outside recovery). Newreno's cap of 2
    # segments per ack during recovery is written into tcp-newreno.cc (recv: send_much(0, 0, 2)
    # while dupacks_ >= numdupacks_, newreno_changes_ 0): tcplab's `recovery_burst` = 2 is it.
    sets.append("maxburst_ 0")
    burst = int(flow.get("recovery_burst", 0))
    ns2_burst = 2 if agent == "Agent/TCP/Newreno" else 0
    if burst != ns2_burst and agent not in ("Agent/TCP/Sack1", "Agent/TCP/Linux"):
        notes.append(f"{key}.recovery_burst: {burst} in tcplab; ns-2.35's {agent.split('/')[-1]} "
                     + ("sends at most 2 segments per ack in recovery (tcp-newreno.cc recv: send_much(0, 0, 2))"
                        if ns2_burst else "has no burst cap in recovery"))
    if "newreno" in agent.lower():
        sets.append(f"newreno_changes1_ {1 if v('partial_ack_timer') == 'first' else 0}")
        sets += ["partial_window_deflation_ 1", "exit_recovery_fix_ 0", "newreno_changes_ 0"]
    sets.append("overhead_ 0")

    # Behaviours ns-2.35 cannot switch; named so a disagreement can be traced.
    if not flow.get("rto_restart_on_fast_retransmit", False) and not v("rto_restart_on_retransmit"):
        notes.append(f"{key}.rto_restart_on_fast_retransmit: false in tcplab; ns-2.35 restarts the timer at every "
                     "fast retransmit (dupack_action: reset_rtx_timer)")
    # main's `ssthresh_basis` (first named `timeout_ssthresh`, for timeouts only).
    basis_key = "ssthresh_basis" if "ssthresh_basis" in flow or "timeout_ssthresh" not in flow else "timeout_ssthresh"
    if flow.get(basis_key, "flightsize") != "window":
        notes.append(f"{key}.{basis_key}: tcplab halves FlightSize for the new ssthresh; ns-2.35's slowdown() "
                     "halves the window, min(cwnd_, window_), at timeouts and fast retransmits (tcp.cc)")
    if v("rto_restart_on_retransmit") and "newreno" in agent.lower() and v("partial_ack_timer") == "first":
        notes.append(f"{key}.rto_restart_on_retransmit: true in tcplab restarts the timer at every partial ack's "
                     "retransmission; ns-2.35's Newreno with newreno_changes1_ 1 at the first only")
    if tick is None:
        notes.append(f"{key}.rto_tick: tcplab's RTO estimator runs on the exact clock; ns-2 with tcpTick_ "
                     f"{EXACT_CLOCK_TICK_S} (its integer-tick estimator)")

    delack = flow.get("delayed_ack")
    if delack is not None:
        sink = {"Agent/TCPSink": "Agent/TCPSink/DelAck", "Agent/TCPSink/Sack1": "Agent/TCPSink/Sack1/DelAck"}.get(sink)
        if sink is None:
            raise Ns2Unsupported(f"{key}.delayed_ack", "ns-2.35's XCP sink has no delayed acks")
        extra.append(f"$sink set interval_ {_num(_seconds(delack))}")
    extra.append(f"$sink set packetSize_ {int(v('ack_size'))}")
    extra.append("$sink set ecn_syn_ false")
    return agent, sets, sink, extra


def _tie_notes(sc: Mapping[str, Any]) -> list[str]:
    """A note for every link fed by two or more links of exactly its own rate (links that
    precede it on some flow's data or ack path): their packets
    reach its queue at the same instants (equal transmission times), and which of two tied
    arrivals a full buffer drops is the simulators' tie order, not the protocols: ns-2 runs
    equal-time events first in, first out (common/scheduler.cc `CalendarScheduler::insert`),
    tcplab in its hashed per-instant order (docs/scaling.md). Seed 003's Figs 9-11 turn on it
    (docs/reproductions.md)."""
    links = sc.get("links", {})
    paths = _paths(sc)
    fed: dict[str, set[str]] = {}
    for flow in sc.get("flows", {}).values():
        for a, b in ((flow["from"], flow["to"]), (flow["to"], flow["from"])):
            p = paths.get((a, b), [])
            for up, down in zip(p, p[1:]):
                fed.setdefault(down, set()).add(up)
    out = []
    for name, lk in sorted(links.items()):
        r = _rate_bps(lk["rate"])
        feeders = sorted(n for n in fed.get(name, ()) if _rate_bps(links[n]["rate"]) == r)
        if len(feeders) >= 2:
            shown = ", ".join(feeders[:3]) + (f" and {len(feeders) - 3} more" if len(feeders) > 3 else "")
            out.append(f"links.{name}: fed by {len(feeders)} links of exactly its rate ({shown}): same-instant "
                       "arrivals at its queue; ns-2 breaks the ties first in, first out, tcplab in its hashed "
                       "order, and which tied packet a full buffer drops can decide the flows' shares")
    return out


def translate(scenario: Scenario | Mapping[str, Any] | str | Path, seed: int | None = None,
              out_json: str = "ns2_result.json", samples: bool = True) -> Ns2Script:
    """Translate a tcplab scenario (any form :func:`expanded` accepts) to an ns-2.35 script
    that writes its metrics to ``out_json`` (a path ns-2 opens, relative to its working
    directory). ``samples = False`` leaves out the 10-ms cwnd and queue samples (the
    ``cwnd_mean`` and ``q_*`` metrics): each sample reads every flow's and link's traced
    variables in OTcl, which dominates ns-2's time on runs of many flows (a 10-flow,
    24-link, 100-s run: 10.4 s with them)
    directory). Raises :class:`Ns2Unsupported` naming the first key ns-2 cannot express."""
    sc = expanded(scenario)
    for k in ("schedules", "agents"):
        if sc.get(k):
            raise Ns2Unsupported(k, f"[{k}] is not translated")
    if (sc.get("routing") or {}).get("ecmp", "first") != "first":
        raise Ns2Unsupported("routing.ecmp", "not translated")
    nodes = sorted(sc.get("nodes", {}))
    links = dict(sorted(sc.get("links", {}).items()))
    flows = dict(sorted(sc.get("flows", {}).items()))
    _check_tree(sc)
    xcp_links = [n for n, ln in sorted(sc.get("links", {}).items()) if _variant(ln.get("queue"), "type", "droptail")[0] == "xcp"]
    if xcp_links:
        for fname, flow in sorted(sc.get("flows", {}).items()):
            if flow.get("transport", "tcp") != "tcp" or _variant(flow.get("cc"), "algorithm", "newreno")[0] != "xcp":
                raise Ns2Unsupported(f"links.{xcp_links[0]}.queue", "ns-2.35's Queue/XCP serves XCP and other traffic "
                                     f"from separate queues (tcplab: one FIFO); flow {fname} is not XCP")
    t0, t1 = _window(sc)
    interval_s = _seconds((sc.get("metrics") or {}).get("interval", "1s"))
    n_iv = int(math.floor(_seconds(sc["duration"]) / interval_s + 1e-9))
    seed = int(sc.get("seed", 1) if seed is None else seed)
    notes: list[str] = []
    # [outages]: the down periods tcplab's run of this seed has (its own engine draws them).
    outages = _outage_periods(sc, seed) if sc.get("outages") else {}
    for name, link in links.items():
        sched = _outage_of(link)
        if sched is not None and sched not in outages:
            raise Ns2Unsupported(f"links.{name}.error.schedule", f"no outage schedule '{sched}'")
    largest = _largest_packets(sc) if outages else {}
    duration = _seconds(sc["duration"])
    for sched in sorted({s for s in map(_outage_of, links.values()) if s is not None}):
        notes.append(f"outages.{sched}: ns-2 loses what arrives at the far end of each direction in "
                     "[down + delay, up + delay + T), T the transmission time of the largest packet crossing "
                     "it (tcplab: transmission overlaps [down, up)); a smaller packet starting less than "
                     "T minus its own transmission time after `up` is lost in ns-2, delivered in tcplab")
    t = _Tcl()
    nid = {n: i for i, n in enumerate(nodes)}

    t("# ns-2.35 script written by tcplab.ns2 from a tcplab scenario (docs/crosscheck.md, \"ns-2.35\").")
    t(f"# scenario: {str(sc.get('name', '')).replace(chr(10), ' ')}")
    t("set ns [new Simulator]")
    # ns-2's RNG: seed 0 would mean "from the clock"; tcplab seeds start at 0.
    t(f"$defaultRNG seed {seed + 1}")
    # 0: the XCP queue gets the whole link (1 gives it only its weight's share, xcp/xcp.cc
    # set-link-capacity, for links shared with TCP queues; tcplab's XCP queue is one FIFO).
    t("Queue/XCP set tcp_xcp_on_ 0")
    for n in nodes:
        t(f"set n({nid[n]}) [$ns node]  ;# {n}")

    # Links: one simplex-link per tcplab direction (duplex-link when both directions match).
    link_names = list(links)
    lid = {name: i for i, name in enumerate(link_names)}
    kinds: dict[str, str] = {}
    done: set[str] = set()
    for name, link in links.items():
        if link.get("backpressure") is not None:
            raise Ns2Unsupported(f"links.{name}.backpressure", "ns-2.35 has no end-host backpressure")
        rate = _rate_bps(link["rate"])
        delay = _seconds(link.get("delay", 0))
        qclass, qsets, kind = _queue_tcl(name, link, rate)
        kinds[name] = kind
        if kind == "red":
            q = _variant(link.get("queue"), "type", "droptail")[1]
            if int(q.get("min_waiting", 0)) != 2 or not q.get("restart_count", False):
                notes.append(f"links.{name}.queue: ns-2.35's REDQueue::enque (queue/red.cc) signals no arrival that finds "
                             "fewer than 2 packets waiting and restarts its count without a signal (edv_.old); tcplab "
                             "does the same only with min_waiting = 2, restart_count = true")
        loss = _error_tcl(name, link)
        a, b = nid[link["from"]], nid[link["to"]]
        if name in done:
            continue
        rev = next((m for m, l2 in links.items() if m != name and m not in done
                    and l2["from"] == link["to"] and l2["to"] == link["from"]), None)
        same = rev is not None and all(
            links[rev].get(k) == link.get(k) for k in ("rate", "delay", "queue", "loss", "error"))
        if same:
            t(f"$ns duplex-link $n({a}) $n({b}) {_num(rate)} {_num(delay)} {qclass}  ;# {name}, {rev}")
            done.update({name, rev})
        else:
            t(f"$ns simplex-link $n({a}) $n({b}) {_num(rate)} {_num(delay)} {qclass}  ;# {name}")
            done.add(name)
    for name, link in links.items():
        a, b = nid[link["from"]], nid[link["to"]]
        qclass, qsets, kind = _queue_tcl(name, link, _rate_bps(link["rate"]))
        t(f"set q({lid[name]}) [[$ns link $n({a}) $n({b})] queue]  ;# {name}")
        for s in qsets:
            if s.startswith("limit_ "):
                t(f"$ns queue-limit $n({a}) $n({b}) {s.split()[1]}")
            else:
                t(f"$q({lid[name]}) set {s}")
        if kind == "xcp":
            t(f"$q({lid[name]}) set-link-capacity [[[$ns link $n({a}) $n({b})] set link_] set bandwidth_]")
        loss = _error_tcl(name, link)
        sched = _outage_of(link)
        if loss > 0 or sched is not None:
            # After the link: the packet uses the link's time and is lost at the far end, as
            # tcplab's error models (net/error: asked once per transmitted packet).
            t(f"set em({lid[name]}) [new ErrorModel]")
            t(f"$em({lid[name]}) unit pkt")
            t(f"$em({lid[name]}) set rate_ {_num(loss)}")
            t(f"$em({lid[name]}) ranvar [new RandomVariable/Uniform]")
            t(f"$ns link-lossmodel $em({lid[name]}) $n({a}) $n({b})")
            t(f"$em({lid[name]}) drop-target [new Agent/Null]")
        if sched is not None:
            # An outage (net/error/outage.rs) loses a packet whose transmission [start, end)
            # overlaps a down period [down, up), and the transmitter does not notice: the
            # queue keeps draining at the link's rate. The ErrorModel after the link
            # (SimpleLink insert-linkloss, tcl/lib/ns-link.tcl) is asked when a packet
            # reaches the far end, delay after its transmission ended (LinkDelay::recv,
            # link/delay.cc; a lost packet has used the link: the queue resumes after its
            # transmission time), so rate_ 1 (ErrorModel::CorruptPkt, queue/errmodel.cc:
            # u < rate_) from down + delay gives end > down exactly: packets on the wire at
            # `down` arrive, the one in transmission and everything after it is lost. The
            # end, start < up, is end < up + its own transmission time: rate_ goes back at
            # up + delay + T, T the largest packet's transmission time here (exact for those,
            # a smaller one starting less than T minus its own after `up` is lost: a note).
            # ns-2's dynamic links (rtmodel, Link down in ns-link.tcl) are further off: going
            # down resets the queue and LinkDelay (queued and propagating packets dropped)
            # and DynamicLink::recv (link/dynalink.cc) drops arrivals at the link's head.
            tx_max = 8 * largest.get(name, 0) / _rate_bps(link["rate"])
            delay = _seconds(link.get("delay", 0))
            t(f"# links.{name}: outage schedule {sched}, tcplab's [down, up) -> [down + {_num(delay)}, "
              f"up + {_num(delay)} + {_num(tx_max)})")
            for a_t, b_t in _outage_toggles(outages[sched], delay, tx_max, duration):
                t(f"$ns at {_num(a_t)} \"$em({lid[name]}) set rate_ 1\"")
                if b_t < duration:
                    t(f"$ns at {_num(b_t)} \"$em({lid[name]}) set rate_ {_num(loss)}\"")
        t(f"set qm({lid[name]}) [$ns monitor-queue $n({a}) $n({b}) 0]")

    # Flows.
    flow_names = list(flows)
    payload: dict[str, int] = {}
    wire: dict[str, int] = {}
    transport: dict[str, str] = {}
    agents: dict[str, str] = {}
    for i, (name, flow) in enumerate(flows.items()):
        key = f"flows.{name}"
        a, b = nid[flow["from"]], nid[flow["to"]]
        app_type, app = _variant(flow.get("app"), "type", "bulk")
        start = _seconds(app.get("start", 0))
        stop = app.get("stop")
        tr = flow.get("transport", "tcp")
        transport[name] = tr
        t(f"# flow {name}")
        if tr == "udp":
            if app_type not in ("cbr", "onoff"):
                raise Ns2Unsupported(f"{key}.app.type", f"'{app_type}' over UDP is not translated (cbr and onoff only)")
            header = int(flow.get("header", 28))
            size = int(app.get("packet_size", 1000))
            payload[name] = size
            wire[name] = size + header
            t("set udp [new Agent/UDP]")
            t(f"$udp set packetSize_ {size + header}")
            t(f"$ns attach-agent $n({a}) $udp")
            t("set sink [new Agent/LossMonitor]")
            t(f"$ns attach-agent $n({b}) $sink")
            t("$ns connect $udp $sink")
            peak = _rate_bps(app["rate"]) * (size + header) / size  # ns-2's rate_ counts whole packets
            if app_type == "cbr":
                t("set app [new Application/Traffic/CBR]")
                t(f"$app set packetSize_ {size + header}")
                t(f"$app set rate_ {_num(peak)}")
                t("$app set random_ 0")
            elif app_type == "onoff":
                if app.get("distribution", "exponential") != "exponential":
                    raise Ns2Unsupported(f"{key}.app.distribution", "ns-2.35's on/off source here is exponential")
                on = _seconds(app["on"])
                if "mean_rate" in app:
                    mean = _rate_bps(app["mean_rate"])
                    if mean <= 0:
                        t(f"# {name}: mean rate 0, never sends")
                        t(f"set a({i}) $sink")
                        t(f"set s({i}) $sink")
                        continue
                    off = on * (_rate_bps(app["rate"]) / mean - 1)
                else:
                    off = _seconds(app.get("off", 0))
                t("set app [new Application/Traffic/Exponential]")
                t(f"$app set packetSize_ {size + header}")
                t(f"$app set burst_time_ {_num(on)}")
                t(f"$app set idle_time_ {_num(off)}")
                t(f"$app set rate_ {_num(peak)}")
                if app.get("semantics", "ns3") != "ns2":
                    notes.append(f"{key}.app: ns-2's Exponential source (tools/expoo.cc) draws burst lengths in "
                                 "whole packets (max(1, round(Exp))) and adds one packet interval to each off "
                                 "period; tcplab's draws on durations and carries the spacing across off periods "
                                 "(same means; app.semantics = \"ns2\", set by profile ns2, draws as ns-2)")
            else:  # pragma: no cover - refused above
                raise Ns2Unsupported(f"{key}.app.type", f"'{app_type}' over UDP is not translated")
            t("$app attach-agent $udp")
            t(f"$ns at {_num(start)} \"$app start\"")
            if stop is not None:
                t(f"$ns at {_num(_seconds(stop))} \"$app stop\"")
            t(f"set a({i}) $udp")
            t(f"set s({i}) $sink")
            continue
        if app_type not in ("bulk", "cbr"):
            raise Ns2Unsupported(f"{key}.app.type", f"'{app_type}' over TCP is not translated (bulk and cbr only)")
        if app_type == "cbr":
            # CBR over TCP (application-limited TCP): ns-2's Application/Traffic/CBR calls
            # TcpAgent::sendmsg(packetSize_) every packetSize_·8/rate_ s (tools/cbr_traffic.cc
            # `CBR_Traffic::next_interval`), which queues ceil(bytes/size_) whole packets
            # (tcp.cc); tcplab adds packet_size bytes to the application limit per write.
            # The two agree when a write is a whole number of segments.
            size, mss = int(app.get("packet_size", 1000)), int(_flow_value(flow, "mss"))
            if size % mss:
                raise Ns2Unsupported(f"{key}.app.packet_size", f"{size} B is not a whole number of {mss}-B "
                                     "segments: ns-2's TcpAgent::sendmsg rounds each write up to whole packets")
        # ns-2.35's agents queue every application write (tcp.cc `TcpAgent::sendmsg`,
        # `advanceby`: `curseq_` grows without a bound) and use a fixed advertised window
        # (`window_`, `wnd_`; `TcpAgent::window()` is min(cwnd_, wnd_)); no sink advertises a
        # window from a buffer, and no TCP agent has a send buffer (FullTcp neither).
        if flow.get("send_buffer_bytes") is not None:
            raise Ns2Unsupported(f"{key}.send_buffer_bytes", "ns-2.35's TCP agents have no finite send buffer "
                                 "(TcpAgent::sendmsg queues every write)")
        if flow.get("playback_rwnd_cap") is not None:
            raise Ns2Unsupported(f"{key}.playback_rwnd_cap", "ns-2.35's sinks advertise no window; its agents use "
                                 "the fixed window_ (max_window)")
        for k in flow:
            if k not in _FLOW_DEFAULTS and k not in _IGNORED_FLOW_KEYS and k not in {
                "header", "app", "delayed_ack", "recovery", "prr", "loss_detection", "tlp", "pacing", "ecn_echo",
                "init_ssthresh", "start_jitter", "bugfix", "timeout_ssthresh", "ssthresh_basis",
                "rto_restart_on_fast_retransmit",
                "rto_tick", "syn", "limited_transmit", "recovery_burst"}:
                raise Ns2Unsupported(f"{key}.{k}", "key not known to the ns-2 translator")
        agent, sets, sink, extra = _agent(name, flow, notes)
        agents[name] = agent
        payload[name] = int(_flow_value(flow, "mss"))
        t(f"set tcp [new {agent}]")
        for s in sets:
            t(f"$tcp set {s}")
        t(f"$ns attach-agent $n({a}) $tcp")
        t(f"set sink [new {sink}]")
        for s in extra:
            if "$sink" in s:
                t(s)
        t(f"$ns attach-agent $n({b}) $sink")
        t("$ns connect $tcp $sink")
        for s in extra:
            if "$sink" not in s:
                t(s)
        if app_type == "cbr":
            t("set app [new Application/Traffic/CBR]")
            t(f"$app set packetSize_ {int(app.get('packet_size', 1000))}")
            t(f"$app set rate_ {_num(_rate_bps(app['rate']))}")
            t("$app set random_ 0")
        else:
            t("set app [new Application/FTP]")
        t("$app attach-agent $tcp")
        t(f"$ns at {_num(start)} \"$app start\"")
        if stop is not None:
            t(f"$ns at {_num(_seconds(stop))} \"$app stop\"")
        t(f"set a({i}) $tcp")
        t(f"set s({i}) $sink")

    # Measurement (docs/crosscheck.md): counters at the window's edges, samples every 10 ms.
    nl = len(link_names)
    tcp_idx = [i for i, n in enumerate(flow_names) if transport[n] == "tcp"]
    udp_idx = [i for i, n in enumerate(flow_names) if transport[n] == "udp"]
    t("# measurement")
    t(f"set tcpflows {{{' '.join(map(str, tcp_idx))}}}")
    t(f"set udpflows {{{' '.join(map(str, udp_idx))}}}")
    t(f"set nlinks {nl}")
    # window_ is constant: read once (each traced-variable read costs ~30 us in ns-2.35).
    t("foreach i $tcpflows { set rwnd($i) [$a($i) set window_] }")
    t("proc wnd {i} { global a rwnd; set c [$a($i) set cwnd_]; "
      "if {$c > $rwnd($i)} {return $rwnd($i)}; return $c }")
    t("proc occ {l} { global qm q; return [expr {[$qm($l) set pkts_] + ([$q($l) set blocked_] ? 1 : 0)}] }")
    t("proc mark_start {} {")
    t("  global a s qm ack0 bytes0 tcpflows udpflows nlinks lk0")
    t("  foreach i $tcpflows { set ack0($i) [$a($i) set ack_] }")
    t("  foreach i $udpflows { set bytes0($i) [$s($i) set bytes_] }")
    t("  for {set l 0} {$l < $nlinks} {incr l} { set lk0($l) [list [$qm($l) set parrivals_] "
      "[$qm($l) set pdrops_] [$qm($l) set pmarks_] [$qm($l) set bdepartures_]] }")
    t("}")
    # Per-interval counters (metrics.interval, from t = 0): the sender's cumulative ack and
    # window for TCP, the sink's byte count for UDP (tcplab-shaped results, ns2_result()).
    t("set niv 0")
    t("proc ivsample {} {")
    t("  global a s tcpflows udpflows iack icw isr ibytes niv")
    t("  foreach i $tcpflows { lappend iack($i) [$a($i) set ack_]; lappend icw($i) [wnd $i]; "
      "lappend isr($i) [$a($i) set srtt_] }")
    t("  foreach i $udpflows { lappend ibytes($i) [$s($i) set bytes_] }")
    t("  incr niv")
    t("}")
    t("proc sample {} {")
    t("  global ns tcpflows nlinks cw ql")
    t("  foreach i $tcpflows { lappend cw($i) [wnd $i] }")
    t("  for {set l 0} {$l < $nlinks} {incr l} { lappend ql($l) [occ $l] }")
    t("}")
    t("proc jlist {xs} { return \"\\[[join $xs ,]\\]\" }")
    t("proc finish {} {")
    t("  global a s qm ack0 bytes0 tcpflows udpflows nlinks cw ql lk0 iack icw isr ibytes niv")
    t(f"  if {{$niv < {n_iv + 1}}} {{ ivsample }}")
    t(f"  set f [open {{{out_json}}} w]")
    t("  puts $f \"{\\\"flows\\\": {\"")
    t("  set first 1")
    t("  foreach i $tcpflows {")
    t("    if {!$first} { puts $f \",\" }; set first 0")
    t("    if {![info exists cw($i)]} { set cw($i) {} }")
    t("    if {![info exists ack0($i)]} { set ack0($i) 0 }")
    t("    puts -nonewline $f \"\\\"$i\\\": {\\\"ack0\\\": $ack0($i), \\\"ack1\\\": [$a($i) set ack_], "
      "\\\"data_packets\\\": [$a($i) set ndatapack_], \\\"retransmits\\\": [$a($i) set nrexmitpack_], "
      "\\\"timeouts\\\": [$a($i) set nrexmit_], \\\"cuts1\\\": [$a($i) set ncwndcuts1_], "
      "\\\"ecn_cuts\\\": [$a($i) set necnresponses_], \\\"srtt_bits\\\": [$a($i) set T_SRTT_BITS], "
      "\\\"tick\\\": [$a($i) set tcpTick_], \\\"isr\\\": [jlist $isr($i)], "
      "\\\"cwnd\\\": [jlist $cw($i)], \\\"iack\\\": [jlist $iack($i)], \\\"icw\\\": [jlist $icw($i)]}\"")
    t("  }")
    t("  foreach i $udpflows {")
    t("    if {!$first} { puts $f \",\" }; set first 0")
    t("    if {![info exists bytes0($i)]} { set bytes0($i) 0 }")
    t("    puts -nonewline $f \"\\\"$i\\\": {\\\"bytes0\\\": $bytes0($i), \\\"bytes1\\\": [$s($i) set bytes_], "
      "\\\"packets\\\": [$s($i) set npkts_], \\\"ibytes\\\": [jlist $ibytes($i)]}\"")
    t("  }")
    t("  puts $f \"}, \\\"links\\\": {\"")
    t("  for {set l 0} {$l < $nlinks} {incr l} {")
    t("    if {$l > 0} { puts $f \",\" }")
    t("    if {![info exists ql($l)]} { set ql($l) {} }")
    t("    puts -nonewline $f \"\\\"$l\\\": {\\\"arrivals\\\": [$qm($l) set parrivals_], "
      "\\\"drops\\\": [$qm($l) set pdrops_], \\\"marks\\\": [$qm($l) set pmarks_], \\\"q\\\": [jlist $ql($l)], \\\"bdep\\\": [$qm($l) set bdepartures_], \\\"at0\\\": [jlist $lk0($l)]}\"")
    t("  }")
    t("  puts $f \"}}\"")
    t("  close $f")
    t("  exit 0")
    t("}")
    t(f"$ns at {_num(t0)} \"mark_start\"")
    n_samples = int(math.floor((t1 - t0) / SAMPLE_PERIOD_S + 1e-9)) + 1 if samples else 0
    t(f"for {{set k 0}} {{$k < {n_samples}}} {{incr k}} {{ $ns at [expr {{{_num(t0)} + $k * {SAMPLE_PERIOD_S}}}] \"sample\" }}")
    t(f"for {{set k 0}} {{$k <= {n_iv}}} {{incr k}} {{ $ns at [expr {{$k * {_num(interval_s)}}}] \"ivsample\" }}")
    t(f"$ns at {_num(t1)} \"finish\"")
    t("$ns run")
    notes.extend(_tie_notes(sc))
    return Ns2Script(
        otcl="\n".join(t.lines) + "\n",
        window=(t0, t1),
        flows=flow_names,
        links=link_names,
        payload=payload,
        transport=transport,
        wire=wire,
        notes=notes,
        outages={k: [list(p) for p in v] for k, v in outages.items()},
        agents=agents,
    )


def to_otcl(scenario: Scenario | Mapping[str, Any] | str | Path, seed: int | None = None) -> str:
    """The ns-2.35 OTcl script of a tcplab scenario (:func:`translate`'s text)."""
    return translate(scenario, seed).otcl


# -- running --------------------------------------------------------------------------------


def ns2_available() -> str | None:
    """The path of ns-2's ``ns`` binary, or None."""
    return shutil.which("ns")


def _summary_stats(xs: list[float]) -> tuple[float, float, float]:
    """(mean, p5, p95) of samples (NaN when empty); percentiles by the nearest rank."""
    if not xs:
        return math.nan, math.nan, math.nan
    s = sorted(xs)

    def pct(p: float) -> float:
        return float(s[min(len(s) - 1, max(0, math.ceil(p / 100 * len(s)) - 1))])

    return sum(s) / len(s), pct(5), pct(95)


def run_ns2(scenario: Scenario | Mapping[str, Any] | str | Path, seed: int | None = None,
            out_dir: str | Path | None = None, timeout_s: float = 600.0) -> dict[str, Any]:
    """Translate ``scenario``, run ``ns`` on it (at most ``timeout_s`` wall seconds) and
    return the metrics: ``{"window": [t0, t1], "flows": {name: {...}}, "links": {name:
    {...}}, "notes": [...], "wall_s": ...}``. The script and its JSON stay in ``out_dir``
    (a temporary directory when None). Raises :class:`Ns2Unsupported` or :class:`Ns2Error`."""
    script = translate(scenario, seed, out_json="ns2_result.json")
    raw, wall = _execute(script, out_dir, timeout_s)
    return _ns2_metrics(script, raw, wall)


def run_ns2_result(scenario: Scenario | Mapping[str, Any] | str | Path, seed: int | None = None,
                   out_dir: str | Path | None = None, timeout_s: float = 3600.0) -> Result:
    """Run ``scenario`` in ns-2.35 and return a tcplab-shaped :class:`~tcplab.results.Result`
    (what ``tcplab reproduce --engine ns2`` tabulates; docs/crosscheck.md, "ns-2.35 as an
    engine" has each key's ns-2 source). ``out_dir`` keeps ``scenario.tcl`` and ns-2's JSON.
    Raises :class:`Ns2Unsupported` or :class:`Ns2Error`."""
    sc = expanded(scenario)
    if seed is not None:
        sc["seed"] = int(seed)
    script = translate(sc, seed, out_json="ns2_result.json", samples=False)
    raw, wall = _execute(script, out_dir, timeout_s)
    return ns2_result(sc, script, raw, wall)


def _execute(script: Ns2Script, out_dir: str | Path | None, timeout_s: float) -> tuple[dict[str, Any], float]:
    import time

    binary = ns2_available()
    if binary is None:
        raise Ns2Error("ns-2 is not installed: `apt-get install -y ns2` (Debian/Ubuntu) gives /usr/bin/ns")
    with tempfile.TemporaryDirectory(prefix="tcplab-ns2-") as tmp:
        d = Path(out_dir) if out_dir is not None else Path(tmp)
        d.mkdir(parents=True, exist_ok=True)
        (d / "scenario.tcl").write_text(script.otcl)
        (d / "ns2_result.json").unlink(missing_ok=True)
        w0 = time.perf_counter()
        try:
            proc = subprocess.run([binary, "scenario.tcl"], cwd=d, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise Ns2Error(f"ns-2 ran longer than {timeout_s:g} s on {d / 'scenario.tcl'}") from None
        wall = time.perf_counter() - w0
        res = d / "ns2_result.json"
        if proc.returncode != 0 or not res.exists():
            tail = (proc.stderr or proc.stdout).strip().splitlines()
            msg = tail[0] if tail else f"exit status {proc.returncode}"
            raise Ns2Error(f"ns-2 failed on {d / 'scenario.tcl'}: {msg}")
        raw = json.loads(res.read_text())
    return raw, wall


def ns2_result(sc: Mapping[str, Any], script: Ns2Script, raw: Mapping[str, Any], wall: float) -> Result:
    """A tcplab-shaped result from ns-2's JSON (see :func:`run_ns2_result`). Definitions,
    as close to docs/outputs.md as ns-2's counters allow:

    * TCP goodput: the sender's cumulative ack (``ack_``) advanced over the window, times
      the mss (in-order data delivered, as the sender learns it: half a round trip after
      tcplab's receiver-side count); throughput: the same segments at ``mss + header``.
    * UDP goodput / throughput: the sink's (LossMonitor) ``bytes_``, net of / with headers.
    * Per interval (``metrics.interval`` from t = 0): the same counters' differences; the
      window at the interval's end (``cwnd_``, capped by ``window_``) times the mss; the
      smoothed RTT at the interval's end (``srtt_``, in whole ``tcpTick_`` units; NaN before
      the first sample).
    * ``fast_retransmits`` (Reno, Newreno and Sack1 agents): ``ncwndcuts1_ − nrexmit_ −
      necnresponses_``.
    * Links: ``offered``, ``drops``, ``marks`` from the queue monitor over the whole run,
      ``steady_*`` over the window; utilisation from ``bdepartures_`` (bytes sent)."""
    t0, t1 = script.window
    span = t1 - t0
    duration = _seconds(sc["duration"])
    interval = _seconds((sc.get("metrics") or {}).get("interval", "1s"))
    links_sc = sc.get("links", {})
    rate = {n: _rate_bps(lk["rate"]) for n, lk in links_sc.items()}
    flows_out: list[dict[str, Any]] = []
    rows: dict[str, list[Any]] = {c: [] for c in INTERVAL_COLUMNS}
    for i, name in enumerate(script.flows):
        f = sc["flows"][name]
        r = raw["flows"][str(i)]
        tcp = script.transport[name] == "tcp"
        eff_link = f.get("efficiency_link") or next(
            (n for n, lk in sorted(links_sc.items()) if lk["from"] == f["from"]), None)
        eff_rate = rate.get(eff_link or "", math.nan)
        app_type, app = _variant(f.get("app"), "type", "bulk")
        start = _seconds(app.get("start", 0))
        stop = _seconds(app["stop"]) if app.get("stop") is not None else math.inf
        if tcp:
            mss = int(_flow_value(f, "mss"))
            wire = mss + _tcp_header(f)
            per_unit, wire_per_unit = mss, wire  # per segment acked
            c0, c1, series = r["ack0"], r["ack1"], r["iack"]
        else:
            per_unit = script.payload[name] / script.wire[name]
            wire_per_unit = 1.0  # per byte on the wire
            c0, c1, series = r["bytes0"], r["bytes1"], r["ibytes"]
        good = (c1 - c0) * per_unit * 8 / span if span > 0 else math.nan
        thr = (c1 - c0) * wire_per_unit * 8 / span if span > 0 else math.nan
        # the window at the end of each interval that ends in the steady-state window
        cw = [w for k, w in enumerate(r.get("icw") or []) if k * interval > t0 + 1e-9]
        # Fast retransmits: the agent's window cuts with data outstanding (`ncwndcuts1_`,
        # tcp.cc `slowdown()`) less its timeouts (`nrexmit_`) and ECN responses
        # (`necnresponses_`): the agents whose fast retransmit goes through `slowdown()`.
        fr = {}
        if tcp and script.agents.get(name) in _SLOWDOWN_AGENTS and "cuts1" in r:
            fr = {"fast_retransmits": r["cuts1"] - r["timeouts"] - r.get("ecn_cuts", 0)}
        # The smoothed RTT at each interval's end: `t_srtt_` in ticks << T_SRTT_BITS (tcp.cc).
        srtt = [(v >> r["srtt_bits"]) * r["tick"] if v > 0 else math.nan for v in r.get("isr") or []] if tcp else []
        # The steady window's mean RTT: the mean of those interval-end smoothed RTTs (ns-2
        # keeps no per-ack samples; tcplab's `mean_rtt_s` averages every ack's RTT).
        st = [x for k, x in enumerate(srtt) if k * interval > t0 + 1e-9 and not math.isnan(x)]
        rtt = {"mean_rtt_s": sum(st) / len(st)} if st else {}
        flows_out.append({
            "name": name, "from": f["from"], "to": f["to"],
            # "cc" only on TCP flows, as tcplab's summary (tcplab.repro.metrics picks TCP flows by it)
            **({"cc": _variant(f.get("cc"), "algorithm", "newreno")[0]} if tcp else {}),
            "transport": script.transport[name], "goodput_bps": good, "throughput_bps": thr,
            "efficiency": thr / eff_rate if eff_rate else math.nan, "efficiency_link": eff_link,
            "segments_sent": r.get("data_packets", r.get("packets")), "retransmits": r.get("retransmits", 0),
            "timeouts": r.get("timeouts", 0), **fr, **rtt,
            "mean_cwnd_bytes": (sum(cw) / len(cw) * int(_flow_value(f, "mss"))) if tcp and cw else None,
            "group": f.get("group"),
        })
        icw = r.get("icw") or []
        for k in range(min(len(series) - 1, int(math.ceil(duration / interval - 1e-9)))):
            a, b = k * interval, min((k + 1) * interval, duration)
            n = series[k + 1] - series[k]
            rows["flow"].append(name)
            rows["t_start"].append(a)
            rows["t_end"].append(b)
            rows["goodput_bps"].append(n * per_unit * 8 / (b - a))
            tp = n * wire_per_unit * 8 / (b - a)
            rows["throughput_bps"].append(tp)
            rows["efficiency"].append(tp / eff_rate if eff_rate else math.nan)
            rows["cwnd_bytes"].append(int(icw[k + 1] * int(_flow_value(f, "mss"))) if tcp and k + 1 < len(icw) else 0)
            rows["srtt_s"].append(srtt[k + 1] if k + 1 < len(srtt) else math.nan)
            rows["active"].append(max(0.0, min(b, stop) - max(a, start)) / (b - a))
    links_out: list[dict[str, Any]] = []
    for j, name in enumerate(script.links):
        r = raw["links"][str(j)]
        lk = links_sc[name]
        a0, d0, m0, b0 = r["at0"]
        steady_arr = r["arrivals"] - a0
        links_out.append({
            "name": name, "from": lk["from"], "to": lk["to"], "rate_bps": rate[name],
            "delay_s": _seconds(lk.get("delay", 0)), "queue": _variant(lk.get("queue"), "type", "droptail")[0],
            "offered": r["arrivals"], "drops": r["drops"], "marks": r["marks"],
            "steady_drops": r["drops"] - d0, "steady_marks": r["marks"] - m0,
            "steady_drop_rate": (r["drops"] - d0) / steady_arr if steady_arr else 0.0,
            "steady_mark_rate": (r["marks"] - m0) / steady_arr if steady_arr else 0.0,
            "utilization": r["bdep"] * 8 / (rate[name] * duration) if duration > 0 else math.nan,
            "steady_utilization": (r["bdep"] - b0) * 8 / (rate[name] * span) if span > 0 else math.nan,
        })
    tcp_good = [f["goodput_bps"] for f in flows_out if f["transport"] == "tcp"]
    groups: dict[str, dict[str, Any]] = {}
    for f in flows_out:
        if f["group"] is not None:
            groups.setdefault(str(f["group"]), {"rates": []})["rates"].append(f["goodput_bps"])
    stochastic = any((lk.get("error") or lk.get("loss")) for lk in links_sc.values()) or any(
        _variant(f.get("app"), "type", "bulk")[0] == "onoff" for f in sc["flows"].values())
    summary = {
        "engine": "ns-2.35",
        "run": {"engine": "ns-2.35", "sim_seconds": duration, "steady_start_s": t0, "stochastic": bool(stochastic),
                "wall_seconds": wall, "events": None, "packets_dropped": sum(lk["drops"] for lk in links_out)},
        "seed": int(sc.get("seed", 1)),
        "flows": flows_out,
        "links": links_out,
        "fairness": {"jain": jain(tcp_good), "flows": len(tcp_good),
                     "groups": {g: {"jain": jain(v["rates"]), "flows": len(v["rates"]), "goodput_bps": sum(v["rates"])}
                                for g, v in sorted(groups.items())}},
        "analysis": {},
        "pcap": [],
        "scenario": str(sc.get("name", "")),
        "warnings": list(script.notes),
    }
    if script.outages:  # as tcplab's summary (tcplab.repro.metrics.post_outage reads them)
        summary["outages"] = {k: {"periods": v, "truncated": False} for k, v in script.outages.items()}
    intervals = pl.DataFrame(rows, schema=INTERVAL_SCHEMA)
    return Result(summary, intervals)


def _ns2_metrics(script: Ns2Script, raw: Mapping[str, Any], wall: float) -> dict[str, Any]:
    t0, t1 = script.window
    span = t1 - t0
    flows: dict[str, dict[str, Any]] = {}
    for i, name in enumerate(script.flows):
        r = raw["flows"][str(i)]
        if script.transport[name] == "tcp":
            cw = r["cwnd"]
            flows[name] = {
                "goodput_bps": (r["ack1"] - r["ack0"]) * script.payload[name] * 8 / span if span > 0 else math.nan,
                "cwnd_mean": sum(cw) / len(cw) if cw else math.nan,
                "data_packets": r["data_packets"],
                "retransmits": r["retransmits"],
                "timeouts": r["timeouts"],
            }
        else:
            # LossMonitor counts whole packets (payload + header) in bytes_; goodput is payload.
            share = script.payload[name] / script.wire[name]
            flows[name] = {"goodput_bps": (r["bytes1"] - r["bytes0"]) * share * 8 / span if span > 0 else math.nan,
                           "cwnd_mean": math.nan, "data_packets": r["packets"], "retransmits": 0, "timeouts": 0}
    links: dict[str, dict[str, Any]] = {}
    for j, name in enumerate(script.links):
        r = raw["links"][str(j)]
        mean, p5, p95 = _summary_stats(r["q"])
        links[name] = {"arrivals": r["arrivals"], "drops": r["drops"], "marks": r["marks"],
                       "q_mean": mean, "q_p5": p5, "q_p95": p95}
    return {"window": [t0, t1], "flows": flows, "links": links, "notes": script.notes, "wall_s": wall}


def run_tcplab(scenario: Scenario | Mapping[str, Any] | str | Path, seed: int | None = None) -> dict[str, Any]:
    """Run ``scenario`` in tcplab (cwnd and queue traces every 10 ms) and return the metrics
    of :func:`run_ns2` from its outputs: goodput = summary ``goodput_bps`` (steady-state
    window); cwnd mean = mean of ``cwnd_bytes``/mss over the trace samples in the window;
    data packets, retransmits, timeouts = ``segments_sent``, ``retransmits``, ``timeouts``
    (whole run); arrivals, drops, marks = ``offered``, ``drops``, ``marks`` (whole run);
    queue = the queue trace's ``packets`` (waiting plus in transmission) in the window."""
    import time

    from tcplab.runner import run

    sc = Scenario(expanded(scenario))
    events = list((sc.to_dict().get("metrics") or {}).get("events") or [])
    sc = sc.with_overrides({"metrics.trace": f"{SAMPLE_PERIOD_S}s",
                            "metrics.events": events + (["cwnd"] if "cwnd" not in events else [])})
    w0 = time.perf_counter()
    res = run(sc, seed=seed, progress=False)
    wall = time.perf_counter() - w0
    d = sc.to_dict()
    t0, t1 = _window(d)
    eps = 1e-9
    flows: dict[str, dict[str, Any]] = {}
    cwnd = _uninflated(res.traces.get("cwnd"), res.events)
    for f in res.summary["flows"]:
        name = f["name"]
        spec = d["flows"][name]
        if f.get("transport") == "udp":
            flows[name] = {"goodput_bps": f["goodput_bps"], "cwnd_mean": math.nan, "data_packets": f["packets_delivered"],
                           "retransmits": 0, "timeouts": 0}
            continue
        mss = int(_flow_value(spec, "mss"))
        cm = math.nan
        if cwnd is not None:
            import polars as pl

            sel = cwnd.filter((pl.col("flow") == name) & (pl.col("t") >= t0 - eps) & (pl.col("t") <= t1 + eps))
            if sel.height:
                cm = float(sel["window"].mean()) / mss
        flows[name] = {"goodput_bps": f["goodput_bps"], "cwnd_mean": cm, "data_packets": f["segments_sent"],
                       "retransmits": f["retransmits"], "timeouts": f["timeouts"]}
    links: dict[str, dict[str, Any]] = {}
    queue = res.traces.get("queue")
    for ln in res.summary["links"]:
        name = ln["name"]
        xs: list[float] = []
        if queue is not None:
            import polars as pl

            sel = queue.filter((pl.col("link") == name) & (pl.col("t") >= t0 - eps) & (pl.col("t") <= t1 + eps))
            xs = [float(x) for x in sel["packets"].to_list()]
        mean, p5, p95 = _summary_stats(xs)
        links[name] = {"arrivals": ln["offered"], "drops": ln["drops"], "marks": ln["marks"],
                       "q_mean": mean, "q_p5": p5, "q_p95": p95}
    return {"window": [t0, t1], "flows": flows, "links": links, "wall_s": wall}


def _uninflated(trace: Any, events: Any) -> Any:
    """tcplab's cwnd trace with a ``window`` column comparable to ns-2's ``cwnd_``: the
    sender's window, except during fast recovery, where tcplab's ``cwnd_bytes`` is the
    recovery window inflated by the duplicate acks and ns-2 keeps that inflation apart
    (Reno/Newreno's ``dupwnd_``, not readable from Tcl): there the window is
    min(ssthresh, cwnd_bytes). The state at each sample comes from the cwnd events."""
    if trace is None:
        return None
    import polars as pl

    tr = trace.select("flow", "t", pl.col("cwnd_bytes").cast(pl.Float64)).sort("t")
    if events is None or "state" not in events.columns:
        return tr.with_columns(pl.col("cwnd_bytes").alias("window"))
    ev = (events.filter(pl.col("event") == "cwnd")
          .select("flow", "t", "state", pl.col("ssthresh_bytes").cast(pl.Float64).alias("ssthresh"))
          .sort("t"))
    j = tr.join_asof(ev, on="t", by="flow", strategy="backward", check_sortedness=False)  # sorted by t above
    return j.with_columns(
        pl.when(pl.col("state") == "recovery")
        .then(pl.min_horizontal("ssthresh", "cwnd_bytes"))
        .otherwise(pl.col("cwnd_bytes"))
        .alias("window"))


def compare(ns2: Mapping[str, Any], tcplab: Mapping[str, Any], scenario: str = "") -> list[dict[str, Any]]:
    """Rows side by side: one per flow and metric, one per link direction and metric:
    ``{"scenario", "kind" ("flow"/"link"), "name", "metric", "ns2", "tcplab", "ratio"}``
    (ratio = tcplab / ns-2; NaN when ns-2's value is 0 and tcplab's not; 1 when both 0)."""
    rows: list[dict[str, Any]] = []
    for kind, metrics in (("flow", FLOW_METRICS), ("link", LINK_METRICS)):
        a, b = ns2[f"{kind}s"], tcplab[f"{kind}s"]
        for name in sorted(set(a) | set(b)):
            for m in metrics:
                x = a.get(name, {}).get(m, math.nan)
                y = b.get(name, {}).get(m, math.nan)
                if x == 0 and y == 0:
                    r = 1.0
                elif x == 0 or x is None or y is None or (isinstance(x, float) and math.isnan(x)):
                    r = math.nan
                else:
                    r = y / x
                rows.append({"scenario": scenario, "kind": kind, "name": name, "metric": m, "ns2": x,
                             "tcplab": y, "ratio": r})
    return rows


def run_both(scenario: Scenario | Mapping[str, Any] | str | Path, seed: int,
             out_dir: str | Path | None = None, timeout_s: float = 600.0) -> tuple[dict[str, Any], dict[str, Any]]:
    """(ns-2 metrics, tcplab metrics) of one scenario and seed."""
    sc = expanded(scenario)
    return run_ns2(sc, seed, out_dir, timeout_s), run_tcplab(sc, seed)

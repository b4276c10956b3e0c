"""Scenario -> OTcl: :func:`translate` writes the ns-2.35 script of a tcplab scenario (nodes,
link directions with their queues, error models and outage schedules, the flows, and the
measurement code that writes a JSON file at the end of the run); :func:`to_otcl` is its
text. The TCP agents come from :mod:`tcplab.ns2.agents`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcplab.scenario import Scenario

from .agents import _agent, _ns2_rule
from .common import (
    _FLOW_DEFAULTS,
    SAMPLE_PERIOD_S,
    Ns2Unsupported,
    _byte_limit,
    _flow_value,
    _limit_packets,
    _num,
    _rate_bps,
    _seconds,
    _tcp_header,
    _variant,
    _window,
    expanded,
)

# Keys that change nothing ns-2 could see (labels, outputs) or that apply to another kind.
_IGNORED_FLOW_KEYS = {"from", "to", "efficiency_link", "group", "receiver_clock_offset", "profile"}
# Flow keys the translator knows besides tcplab's defaults and the ignored ones: each is
# translated or refused where it matters (:func:`tcplab.ns2.agents._agent`).
_TRANSLATED_FLOW_KEYS = {
    "header", "app", "delayed_ack", "recovery", "prr", "loss_detection", "tlp", "pacing", "ecn_echo",
    "init_ssthresh", "start_jitter", "bugfix", "timeout_ssthresh", "ssthresh_basis",
    "rto_restart_on_fast_retransmit",
    "rto_tick", "syn", "limited_transmit", "recovery_burst", "delack_echo", "rto_restart_on_dupack",
    "sack_clear_at_exit"}


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
        # so it holds limit_ waiting packets, as tcplab's limit N (in byte mode limit_ x
        # mean_pktsize_ bytes, as tcplab's queue_in_bytes).
        sets.append(f"limit_ {1_000_000 if n is None else n}")
        sets.append(f"bytes_ {'true' if q.get('byte_drop', False) else 'false'}")
        sets.append(f"queue_in_bytes_ {'true' if q.get('queue_in_bytes', False) else 'false'}")
        # "auto" thresholds are ns-2.35's 0 (REDQueue::initialize_params, targetdelay_).
        sets.append(f"thresh_ {0 if q.get('min_th', 'auto') == 'auto' else _num(q['min_th'])}")
        sets.append(f"maxthresh_ {0 if q.get('max_th', 'auto') == 'auto' else _num(q['max_th'])}")
        sets.append(f"targetdelay_ {_num(_seconds(q.get('target_delay', '5ms')))}")
        max_p = float(q.get("max_p", 1.0 if inst else 0.1))
        sets.append(f"linterm_ {_num(1.0 / max_p)}")
        w_q = 1.0 if inst else q.get("w_q", 0.002)
        # "auto": ns-2's q_weight_ 0 (1 - exp(-1/C)); "auto_rtt": its -1 (ten assumed RTTs)
        sets.append(f"q_weight_ {({'auto': 0, 'auto_rtt': -1}.get(w_q) if isinstance(w_q, str) else _num(float(w_q)))}")
        mps = int(q.get("mean_packet_size", 1000))
        sets += [f"mean_pktsize_ {mps}", f"idle_pktsize_ {mps}"]
        sets.append(f"gentle_ {'true' if q.get('gentle', False) else 'false'}")
        # FJ93's p_a = p_b / (1 - count * p_b) (tcplab count_spacing) is ns-2's wait_ false;
        # ns-2's wait_ true (its default) is tcplab's wait_spacing.
        sets.append(f"wait_ {'true' if q.get('wait_spacing', False) else 'false'}")
        ecn = bool(q.get("ecn", True))
        sets.append(f"setbit_ {'true' if ecn else 'false'}")
        mark_p = float(q.get("mark_p", 1.0))
        if mark_p < 1.0:
            # ns-2's use_mark_p_: marks only while p_b <= mark_p_, every signal through
            # drop_early (above mark_p_, the forced region included, a drop)
            sets += ["use_mark_p_ true", f"mark_p_ {_num(mark_p)}"]
        elif q.get("forced_drop", False):
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


def _without_profiles(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _without_profiles(v) for k, v in value.items() if k != "profile"}
    if isinstance(value, list):
        return [_without_profiles(v) for v in value]
    return value


def stated(scenario: Scenario | Mapping[str, Any] | str | Path) -> dict[str, Any]:
    """What a scenario states, by expanded name: ``{"flows": {name: keys}, "links": {name:
    keys}}`` with each flow's keys and ``[defaults.flows]``' and each link direction's keys
    (a duplex link's reverse direction with its ``reverse`` table over them) and
    ``[defaults.links]``'; none that a profile fills in. Only for scenarios written with
    explicit ``[nodes]``, ``[links]`` and ``[flows]`` (what :mod:`tcplab.ns2.generate`
    writes): a builder's keys cannot be told from its profile's."""
    from tcplab.runner import as_scenario

    d = _without_profiles(as_scenario(scenario).to_dict())
    builders = sorted(k for k in d if k not in _EXPLICIT_SECTIONS)
    if builders:
        raise Ns2Unsupported(builders[0], "ns-2 at its own defaults needs explicit [nodes], [links] and [flows] "
                             "(a builder's keys cannot be told from its profile's)")
    dflt = d.get("defaults") or {}
    flows = {name: {**(dflt.get("flows") or {}), **f} for name, f in (d.get("flows") or {}).items()}
    links: dict[str, Any] = {}
    for name, entry in (d.get("links") or {}).items():
        base = {**(dflt.get("links") or {}), **{k: v for k, v in entry.items() if k not in ("duplex", "reverse", "reverse_rate")}}
        links[name] = base
        if entry.get("duplex"):
            rev = dict(entry.get("reverse") or {})
            rname = rev.pop("name", f"{name}_rev")
            r = {**base, "from": base.get("to"), "to": base.get("from"), **rev}
            if "reverse_rate" in entry:
                r["rate"] = entry["reverse_rate"]
            links[rname] = r
    return {"flows": flows, "links": links}


#: Top-level keys of a scenario written without builders.
_EXPLICIT_SECTIONS = {"name", "description", "duration", "seed", "nodes", "links", "flows", "defaults", "metrics",
                      "outages", "routing", "claims", "explain", "schedules", "events"}


#: ns-2 queue variable -> the tcplab queue key it comes from (``ns2_defaults``: written
#: only when the scenario states that key).
_QUEUE_VAR_KEYS = {
    "limit_": "limit", "queue_in_bytes_": "queue_in_bytes", "bytes_": "byte_drop", "thresh_": "min_th",
    "maxthresh_": "max_th", "targetdelay_": "target_delay", "linterm_": "max_p", "q_weight_": "w_q",
    "mean_pktsize_": "mean_packet_size", "idle_pktsize_": "mean_packet_size", "gentle_": "gentle",
    "wait_": "wait_spacing", "setbit_": "ecn", "use_mark_p_": "mark_p", "mark_p_": "mark_p",
}
#: ns-2 agent / sink variable -> the tcplab flow key (``cc.KEY``: the congestion control's
#: table) it comes from; "" = part of the agent's identity (ns-2.35's HighSpeed is
#: windowOption_ 8, its Linux agent runs with timestamps as ns-2's examples do), always written.
_AGENT_VAR_KEYS = {
    "packetSize_": "mss", "window_": "max_window", "ecn_": "ecn", "syn_": "syn", "windowInit_": "init_cwnd",
    "minrto_": "rto_min", "maxrto_": "rto_max", "rtxcur_init_": "rto_initial", "tcpTick_": "rto_tick",
    "numdupacks_": "dupack_threshold", "bugFix_": "bugfix", "singledup_": "limited_transmit",
    "tcpip_base_hdr_size_": "header", "windowOption_": "", "timestamps_": "",
    "increase_num_": "cc.alpha", "decrease_num_": "cc.beta", "v_alpha_": "cc.alpha", "v_beta_": "cc.beta",
    "v_gamma_": "cc.gamma", "low_window_": "cc.low_window", "high_window_": "cc.high_window",
    "high_p_": "cc.high_p", "high_decrease_": "cc.high_decrease",
}
_SINK_VAR_KEYS = {"interval_": "delayed_ack", "packetSize_": "ack_size", "ts_echo_rfc1323_": ""}


def _is_stated(key: str | None, written: Mapping[str, Any]) -> bool:
    if key is None:
        return False
    if key == "":
        return True
    if key.startswith("cc."):
        cc = written.get("cc")
        return isinstance(cc, Mapping) and key[3:] in cc
    return key in written


def _stated_agent_lines(sets: list[str], extra: list[str], written: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The agent's ``$tcp set`` lines and extra lines (``$sink set ...``, ``select_ca``) of
    the keys a flow states, and its identity's (``ns2_defaults``)."""
    keep = [x for x in sets if _is_stated(_AGENT_VAR_KEYS.get(x.split()[0]), written)]
    # packetSize_ is the stated mss (Vegas' translation adds the header, a profile value).
    keep = [f"packetSize_ {int(written['mss'])}" if x.startswith("packetSize_ ") else x for x in keep]
    out = []
    for line in extra:
        if line.startswith("$sink set "):
            if _is_stated(_SINK_VAR_KEYS.get(line.split()[2]), written):
                out.append(line)
        else:
            out.append(line)  # select_ca: the agent's module
    return keep, out


def translate(scenario: Scenario | Mapping[str, Any] | str | Path, seed: int | None = None,
              out_json: str = "ns2_result.json", samples: bool = True,
              ns2_defaults: bool = False) -> Ns2Script:
    """Translate a tcplab scenario (any form :func:`~tcplab.ns2.expanded` accepts) to an
    ns-2.35 script that writes its metrics to ``out_json`` (a path ns-2 opens, relative to its
    working directory). ``samples = False`` leaves out the 10-ms cwnd and queue samples (the
    ``cwnd_mean`` and ``q_*`` metrics): each sample reads every flow's and link's traced
    variables in OTcl, which dominates ns-2's time on runs of many flows (a 10-flow,
    24-link, 100-s run: 10.4 s with them). Raises :class:`Ns2Unsupported` naming the first
    key ns-2 cannot express.

    ``ns2_defaults = True`` writes only what the scenario states (:func:`stated`): the
    topology, rates, delays, queue classes and the queue keys the scenario writes, agent and
    sink classes, the flow keys it writes (``mss``, ``max_window``, ``ecn``, ...), error
    models, sources and start times; every other agent and queue variable stays at ns-2.35's
    default. That is how a scenario with ``profile = "ns2"`` is checked: the profile's values
    are then tcplab's claim about ns-2's defaults, not copied into the script."""
    sc = expanded(scenario)
    st = stated(scenario) if ns2_defaults else None
    _refuse_scenario(sc)
    nodes = sorted(sc.get("nodes", {}))
    links = dict(sorted(sc.get("links", {}).items()))
    flows = dict(sorted(sc.get("flows", {}).items()))
    t0, t1 = _window(sc)
    interval_s = _seconds((sc.get("metrics") or {}).get("interval", "1s"))
    n_iv = int(math.floor(_seconds(sc["duration"]) / interval_s + 1e-9))
    seed = int(sc.get("seed", 1) if seed is None else seed)
    notes: list[str] = []
    outages = _outages(sc, links, seed, notes)
    largest = _largest_packets(sc) if outages else {}
    duration = _seconds(sc["duration"])
    t = _Tcl()
    nid = {n: i for i, n in enumerate(nodes)}
    _header_tcl(t, sc, seed, nodes, nid)
    link_names = list(links)
    lid = {name: i for i, name in enumerate(link_names)}
    _links_tcl(t, links, nid, notes)
    _link_directions_tcl(t, links, nid, lid, outages, largest, duration, st)
    fl = _flows_tcl(t, flows, nid, notes, st)
    flow_names = list(flows)
    _measurement_tcl(t, flow_names, fl.transport, len(link_names), (t0, t1), n_iv, interval_s, out_json, samples)
    notes.extend(_tie_notes(sc))
    return Ns2Script(
        otcl="\n".join(t.lines) + "\n",
        window=(t0, t1),
        flows=flow_names,
        links=link_names,
        payload=fl.payload,
        transport=fl.transport,
        wire=fl.wire,
        notes=notes,
        outages={k: [list(p) for p in v] for k, v in outages.items()},
        agents=fl.agents,
    )


def _refuse_scenario(sc: Mapping[str, Any]) -> None:
    """The scenario-wide refusals: tables ns-2 has no counterpart for, ECMP, topologies with
    cycles, and XCP queues shared with other traffic."""
    for k in ("schedules", "agents"):
        if sc.get(k):
            raise Ns2Unsupported(k, f"[{k}] is not translated")
    if (sc.get("routing") or {}).get("ecmp", "first") != "first":
        raise Ns2Unsupported("routing.ecmp", "not translated")
    _check_tree(sc)
    xcp_links = [n for n, ln in sorted(sc.get("links", {}).items()) if _variant(ln.get("queue"), "type", "droptail")[0] == "xcp"]
    if xcp_links:
        for fname, flow in sorted(sc.get("flows", {}).items()):
            if flow.get("transport", "tcp") != "tcp" or _variant(flow.get("cc"), "algorithm", "newreno")[0] != "xcp":
                raise Ns2Unsupported(f"links.{xcp_links[0]}.queue", "ns-2.35's Queue/XCP serves XCP and other traffic "
                                     f"from separate queues (tcplab: one FIFO); flow {fname} is not XCP")


def _outages(sc: Mapping[str, Any], links: Mapping[str, Any], seed: int, notes: list[str]) -> dict[str, list[tuple[float, float]]]:
    """``[outages]``: the down periods tcplab's run of this seed has (its own engine draws
    them), every schedule a link direction names checked, and a note per schedule used."""
    outages = _outage_periods(sc, seed) if sc.get("outages") else {}
    for name, link in links.items():
        sched = _outage_of(link)
        if sched is not None and sched not in outages:
            raise Ns2Unsupported(f"links.{name}.error.schedule", f"no outage schedule '{sched}'")
    for sched in sorted({s for s in map(_outage_of, links.values()) if s is not None}):
        notes.append(f"outages.{sched}: ns-2 loses what arrives at the far end of each direction in "
                     "[down + delay, up + delay + T), T the transmission time of the largest packet crossing "
                     "it (tcplab: transmission overlaps [down, up)); a smaller packet starting less than "
                     "T minus its own transmission time after `up` is lost in ns-2, delivered in tcplab")
    return outages


def _header_tcl(t: _Tcl, sc: Mapping[str, Any], seed: int, nodes: list[str], nid: dict[str, int]) -> None:
    """The script's head: the simulator, its RNG seed, XCP's global switch, the nodes."""
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


def _links_tcl(t: _Tcl, links: Mapping[str, Any], nid: dict[str, int], notes: list[str]) -> None:
    """Links: one simplex-link per tcplab direction (duplex-link when both directions match)."""
    done: set[str] = set()
    for name, link in links.items():
        if link.get("backpressure") is not None:
            raise Ns2Unsupported(f"links.{name}.backpressure", "ns-2.35 has no end-host backpressure")
        rate = _rate_bps(link["rate"])
        delay = _seconds(link.get("delay", 0))
        qclass, qsets, kind = _queue_tcl(name, link, rate)
        if kind == "red":
            q = _variant(link.get("queue"), "type", "droptail")[1]
            if int(q.get("min_waiting", 0)) != 2 or not q.get("restart_count", False):
                notes.append(f"links.{name}.queue: ns-2.35's REDQueue::enque (queue/red.cc) signals no arrival that finds "
                             "fewer than 2 packets waiting and restarts its count without a signal (edv_.old); tcplab "
                             "does the same only with min_waiting = 2, restart_count = true")
        _error_tcl(name, link)  # its refusal comes before the next direction's
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


def _link_directions_tcl(t: _Tcl, links: Mapping[str, Any], nid: dict[str, int], lid: dict[str, int],
                         outages: Mapping[str, list[tuple[float, float]]], largest: Mapping[str, int],
                         duration: float, st: Mapping[str, Any] | None = None) -> None:
    """Per link direction: its queue's settings, its error model, its queue monitor (with
    ``st``, :func:`stated`, only the queue keys the scenario writes)."""
    for name, link in links.items():
        a, b = nid[link["from"]], nid[link["to"]]
        qclass, qsets, kind = _queue_tcl(name, link, _rate_bps(link["rate"]))
        if st is not None:
            written = _variant((st.get("links", {}).get(name) or {}).get("queue"), "type", "droptail")[1]
            qsets = [x for x in qsets if _QUEUE_VAR_KEYS.get(x.split()[0]) in written]
        t(f"set q({lid[name]}) [[$ns link $n({a}) $n({b})] queue]  ;# {name}")
        for s in qsets:
            if s.startswith("limit_ "):
                t(f"$ns queue-limit $n({a}) $n({b}) {s.split()[1]}")
            else:
                t(f"$q({lid[name]}) set {s}")
        if kind == "xcp":
            t(f"$q({lid[name]}) set-link-capacity [[[$ns link $n({a}) $n({b})] set link_] set bandwidth_]")
        # The queue monitor and the error module both go at the head of the link (ns-link.tcl:
        # attach-monitors, errormodule's add-to-head), the later one first: a module after the
        # link (link-lossmodel) goes in before the monitor, one before the queue (lossmodel)
        # after it, so that the monitor counts only what reaches the queue (a packet the
        # module loses would otherwise count as queued for the rest of the run).
        before = _variant(link.get("error"), "model", "none")[1].get("placement") == "before_queue"
        if not before:
            _error_model_tcl(t, name, link, lid, a, b, outages, largest, duration)
        t(f"set qm({lid[name]}) [$ns monitor-queue $n({a}) $n({b}) 0]")
        if before:
            _error_model_tcl(t, name, link, lid, a, b, outages, largest, duration)


def _error_model_tcl(t: _Tcl, name: str, link: Mapping[str, Any], lid: dict[str, int], a: int, b: int,
                     outages: Mapping[str, list[tuple[float, float]]], largest: Mapping[str, int],
                     duration: float) -> None:
    """A direction's Bernoulli loss and outage schedule: an ErrorModel placed where the
    model's ``placement`` says."""
    loss = _error_tcl(name, link)
    sched = _outage_of(link)
    if loss > 0 or sched is not None:
        # placement "after_link" (the default): the packet uses the link's time and is lost
        # at the far end (net/error: asked once per transmitted packet), ns-2's
        # link-lossmodel (SimpleLink insert-linkloss, tcl/lib/ns-link.tcl); "before_queue":
        # asked once per arriving packet, ns-2's lossmodel (SimpleLink errormodule: the
        # module at the head of the link, before the queue).
        _, e = _variant(link.get("error"), "model", "none")
        command = "lossmodel" if e.get("placement") == "before_queue" else "link-lossmodel"
        t(f"set em({lid[name]}) [new ErrorModel]")
        t(f"$em({lid[name]}) unit pkt")
        t(f"$em({lid[name]}) set rate_ {_num(loss)}")
        t(f"$em({lid[name]}) ranvar [new RandomVariable/Uniform]")
        t(f"$ns {command} $em({lid[name]}) $n({a}) $n({b})")
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


@dataclass
class _Flows:
    """Per flow, what the Python side needs to read the script's JSON back (:class:`Ns2Script`)."""

    payload: dict[str, int] = field(default_factory=dict)
    wire: dict[str, int] = field(default_factory=dict)
    transport: dict[str, str] = field(default_factory=dict)
    agents: dict[str, str] = field(default_factory=dict)


def _flows_tcl(t: _Tcl, flows: Mapping[str, Any], nid: dict[str, int], notes: list[str],
               st: Mapping[str, Any] | None = None) -> _Flows:
    """Flows: each flow's agents, application and start/stop times (`a(i)`, `s(i)`: the
    sender and the sink the measurement reads; with ``st``, :func:`stated`, only the
    agent variables of the flow keys the scenario writes)."""
    out = _Flows()
    for i, (name, flow) in enumerate(flows.items()):
        tr = flow.get("transport", "tcp")
        out.transport[name] = tr
        t(f"# flow {name}")
        if tr == "udp":
            out.payload[name], out.wire[name] = _udp_flow_tcl(t, i, name, flow, nid, notes)
        else:
            written = None if st is None else (st.get("flows", {}).get(name) or {})
            out.agents[name] = _tcp_flow_tcl(t, i, name, flow, nid, notes, written)
            out.payload[name] = int(_flow_value(flow, "mss"))
    return out


def _app(flow: Mapping[str, Any]) -> tuple[str, dict[str, Any], float, Any]:
    """(application type, its parameters, start in seconds, stop as written or None)."""
    app_type, app = _variant(flow.get("app"), "type", "bulk")
    return app_type, app, _seconds(app.get("start", 0)), app.get("stop")


def _udp_flow_tcl(t: _Tcl, i: int, name: str, flow: Mapping[str, Any], nid: dict[str, int],
                  notes: list[str]) -> tuple[int, int]:
    """A UDP flow: Agent/UDP, a LossMonitor sink and a CBR or exponential on/off source.
    Returns (payload, wire) bytes per datagram."""
    key = f"flows.{name}"
    a, b = nid[flow["from"]], nid[flow["to"]]
    app_type, app, start, stop = _app(flow)
    if app_type not in ("cbr", "onoff"):
        raise Ns2Unsupported(f"{key}.app.type", f"'{app_type}' over UDP is not translated (cbr and onoff only)")
    header = int(flow.get("header", 28))
    size = int(app.get("packet_size", 1000))
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
                return size, size + header
            off = on * (_rate_bps(app["rate"]) / mean - 1)
        else:
            off = _seconds(app.get("off", 0))
        t("set app [new Application/Traffic/Exponential]")
        t(f"$app set packetSize_ {size + header}")
        t(f"$app set burst_time_ {_num(on)}")
        t(f"$app set idle_time_ {_num(off)}")
        t(f"$app set rate_ {_num(peak)}")
        if _ns2_rule(app, "semantics", "ns2", "ns3") != "ns2":
            notes.append(f"{key}.app: ns-2's Exponential source (tools/expoo.cc) draws burst lengths in "
                         "whole packets (max(1, round(Exp))) and adds one packet interval to each off "
                         "period; tcplab's draws on durations and carries the spacing across off periods "
                         "(same means; app.compat = \"ns2\", i.e. semantics = \"ns2\", set by profile ns2, draws as ns-2)")
    else:  # pragma: no cover - refused above
        raise Ns2Unsupported(f"{key}.app.type", f"'{app_type}' over UDP is not translated")
    t("$app attach-agent $udp")
    t(f"$ns at {_num(start)} \"$app start\"")
    if stop is not None:
        t(f"$ns at {_num(_seconds(stop))} \"$app stop\"")
    t(f"set a({i}) $udp")
    t(f"set s({i}) $sink")
    return size, size + header


def _tcp_flow_tcl(t: _Tcl, i: int, name: str, flow: Mapping[str, Any], nid: dict[str, int], notes: list[str],
                  written: Mapping[str, Any] | None = None) -> str:
    """A TCP flow: its agent (:func:`tcplab.ns2.agents._agent`), sink and FTP or CBR source
    (with ``written``, the flow's stated keys, only their agent and sink variables).
    Returns the agent class."""
    key = f"flows.{name}"
    a, b = nid[flow["from"]], nid[flow["to"]]
    app_type, app, start, stop = _app(flow)
    _refuse_tcp_flow(key, flow, app_type, app)
    agent, sets, sink, extra = _agent(name, flow, notes)
    if written is not None:
        sets, extra = _stated_agent_lines(sets, extra, written)
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
    return agent


def _refuse_tcp_flow(key: str, flow: Mapping[str, Any], app_type: str, app: Mapping[str, Any]) -> None:
    """The applications, buffers and keys a TCP flow cannot have in ns-2.35."""
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
        if k not in _FLOW_DEFAULTS and k not in _IGNORED_FLOW_KEYS and k not in _TRANSLATED_FLOW_KEYS:
            raise Ns2Unsupported(f"{key}.{k}", "key not known to the ns-2 translator")


def _measurement_tcl(t: _Tcl, flow_names: list[str], transport: Mapping[str, str], nl: int,
                     window: tuple[float, float], n_iv: int, interval_s: float, out_json: str,
                     samples: bool) -> None:
    """Measurement (docs/crosscheck.md): counters at the window's edges, samples every 10 ms,
    per-interval counters from t = 0, and `finish`, which writes the JSON."""
    t0, t1 = window
    tcp_idx = [i for i, n in enumerate(flow_names) if transport[n] == "tcp"]
    udp_idx = [i for i, n in enumerate(flow_names) if transport[n] == "udp"]
    t("# measurement")
    t(f"set tcpflows {{{' '.join(map(str, tcp_idx))}}}")
    t(f"set udpflows {{{' '.join(map(str, udp_idx))}}}")
    t(f"set nlinks {nl}")
    _sampling_procs_tcl(t)
    _finish_proc_tcl(t, n_iv, out_json)
    t(f"$ns at {_num(t0)} \"mark_start\"")
    n_samples = int(math.floor((t1 - t0) / SAMPLE_PERIOD_S + 1e-9)) + 1 if samples else 0
    t(f"for {{set k 0}} {{$k < {n_samples}}} {{incr k}} {{ $ns at [expr {{{_num(t0)} + $k * {SAMPLE_PERIOD_S}}}] \"sample\" }}")
    t(f"for {{set k 0}} {{$k <= {n_iv}}} {{incr k}} {{ $ns at [expr {{$k * {_num(interval_s)}}}] \"ivsample\" }}")
    t(f"$ns at {_num(t1)} \"finish\"")
    t("$ns run")


def _sampling_procs_tcl(t: _Tcl) -> None:
    """The procs that read windows, queues and counters: `wnd`, `occ`, `mark_start` (the
    window's start), `ivsample` (each interval's end), `sample` (every 10 ms), `jlist`."""
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


def _finish_proc_tcl(t: _Tcl, n_iv: int, out_json: str) -> None:
    """`finish`: the last interval sample, then every counter and sample list as JSON."""
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


def to_otcl(scenario: Scenario | Mapping[str, Any] | str | Path, seed: int | None = None) -> str:
    """The ns-2.35 OTcl script of a tcplab scenario (:func:`translate`'s text)."""
    return translate(scenario, seed).otcl


"""The TCP agent of a flow: tcplab's congestion control and flow keys become an ns-2.35
agent class, its ``$tcp set`` lines, a sink and its lines, and notes on what ns-2 cannot
switch (docs/crosscheck.md, "ns-2.35"). :func:`_agent` is the entry point; a key ns-2.35
cannot express raises :class:`~tcplab.ns2.common.Ns2Unsupported` naming it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common import EXACT_CLOCK_TICK_S, Ns2Unsupported, _bytes, _flow_value, _num, _seconds, _tcp_header, _variant

#: ns-2 agents whose fast retransmit calls `TcpAgent::slowdown()` (tcp-reno.cc,
#: tcp-newreno.cc, tcp-sack1.cc), so that `ncwndcuts1_` counts it.
_SLOWDOWN_AGENTS = ("Agent/TCP/Reno", "Agent/TCP/Newreno", "Agent/TCP/Sack1")

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

#: The congestion controls :func:`_agent` translates (every other one is refused).
_NS2_ALGORITHMS = ("newreno", "reno", "gaimd", "vegas", "highspeed", "cubic", "scalable", "westwood", "xcp")


def _agent(name: str, flow: Mapping[str, Any], notes: list[str]) -> tuple[str, list[str], str, list[str]]:
    """(agent class, `$tcp set` lines, sink class, extra Tcl lines using $tcp) for a TCP flow:
    the refusals, the agent of its congestion control, every tcplab key written explicitly,
    the behaviours ns-2.35 cannot switch (appended to ``notes``), and the sink."""
    key = f"flows.{name}"
    algo, cc = _variant(flow.get("cc"), "algorithm", "newreno")
    sack = bool(_flow_value(flow, "sack"))
    _refuse(key, flow, algo, sack)
    agent, sink, sets, extra = _agent_class(key, flow, algo, cc, sack, notes)
    if agent == "Agent/TCP/Sack1":
        notes.append(f"{key}.sack: ns-2's Sack1 is Fall & Floyd's SACK recovery (pipe, one hole per ack), "
                     "tcplab's RFC 6675; same scoreboard idea, different rules")
    sets += _segment_sets(flow, agent)
    sets += _ecn_sets(key, flow, agent, notes)
    sets += _recovery_sets(key, flow, algo, cc, agent, notes)
    notes.extend(_unswitchable_notes(key, flow, agent))
    sink, sink_lines = _sink(key, flow, sink)
    return agent, sets, sink, extra + sink_lines


def _refuse(key: str, flow: Mapping[str, Any], algo: str, sack: bool) -> None:
    """Refusals first: an algorithm without an ns-2.35 agent (the most basic reason), then
    recovery and loss-detection machinery ns-2.35 does not have."""
    if algo not in _NS2_ALGORITHMS:
        raise Ns2Unsupported(f"{key}.cc", f"ns-2.35 has no agent for '{algo}'")
    refuse_if = [
        ("loss_detection", lambda x: x == "rack", "ns-2.35 has no RACK"),
        ("loss_detection", lambda x: x == "vegas" and algo != "vegas",
         "Vegas' fine-grained retransmission exists in ns-2.35's Vegas agent only"),
        ("loss_detection", lambda x: x == "fack" and algo not in _LINUX_AGENT_ALGORITHMS,
         "FACK as tcplab models it is Agent/TCP/Linux's scoreboard (CUBIC, Scalable, Westwood+ only)"),
        ("sack_clear_at_exit", lambda x: bool(x) and algo not in _LINUX_AGENT_ALGORITHMS,
         "only ns-2.35's Agent/TCP/Linux clears its scoreboard when recovery ends (CUBIC, Scalable, Westwood+)"),
        ("rto_restart_on_dupack", lambda x: bool(x) and algo not in _LINUX_AGENT_ALGORITHMS,
         "only ns-2.35's Agent/TCP/Linux re-arms the timer on duplicate acks (CUBIC, Scalable, Westwood+)"),
        ("tlp", lambda x: bool(x), "ns-2.35 has no tail loss probes"),
        ("frto", lambda x: bool(x), "F-RTO is not translated"),
        ("dsack_undo", lambda x: bool(x), "ns-2.35 has no D-SACK undo"),
        ("pacing", lambda x: x not in (None, "off"), "ns-2.35's TCP agents do not pace"),
        ("nextseg_rule3", lambda x: bool(x), "ns-2.35's Sack1 has no RFC 6675 NextSeg"),
        ("rto_unsacked_flight", lambda x: bool(x), "ns-2.35's Sack1 has no RFC 6675 recovery"),
        ("quickack", lambda x: bool(x), "ns-2.35's DelAck sink has no quick-ack mode"),
        ("fin", lambda x: bool(x), "ns-2.35's one-way agents send no FIN (set fin = false)"),
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
        prr = flow.get("prr", "ssrb")
        if algo in _LINUX_AGENT_ALGORITHMS:
            if prr not in ("off", "rate_halving"):
                raise Ns2Unsupported(f"{key}.prr", "ns-2.35's Agent/TCP/Linux has no PRR: it rate-halves "
                                     "(set prr = \"rate_halving\")")
        elif prr != "off":
            raise Ns2Unsupported(f"{key}.prr", "ns-2.35's Sack1 has no PRR (set prr = \"off\")")
    if _flow_value(flow, "ecn"):
        if flow.get("ecn_echo", "rfc3168") != "rfc3168":
            raise Ns2Unsupported(f"{key}.ecn_echo", "ns-2.35's sink echoes ECE until CWR (rfc3168) only")
        if not _flow_value(flow, "ecn_retransmits"):
            raise Ns2Unsupported(f"{key}.ecn_retransmits", "ns-2.35 sets ECT on retransmissions too (set ecn_retransmits = true)")


def _agent_class(key: str, flow: Mapping[str, Any], algo: str, cc: dict[str, Any], sack: bool,
                 notes: list[str]) -> tuple[str, str, list[str], list[str]]:
    """(agent class, sink class, the algorithm's `$tcp set` lines, extra Tcl lines)."""
    sink = "Agent/TCPSink/Sack1" if sack else "Agent/TCPSink"
    extra: list[str] = []
    if algo in ("reno", "newreno", "gaimd"):
        agent, sets = _reno_agent(key, algo, cc, sack, notes)
    elif algo == "vegas":
        agent, sets = _vegas_agent(key, flow, cc, sack, notes)
    elif algo == "highspeed":
        agent, sets = _highspeed_agent(key, cc, sack, notes)
    elif algo in ("cubic", "scalable", "westwood"):
        agent, sets, extra = _linux_agent(key, algo, cc, sack, notes)
        _linux_agent_notes(key, flow, notes)
    elif algo == "xcp":
        agent, sets = _xcp_agent(key, cc, sack, notes)
        sink = "Agent/TCPSink/XCPSink"
    else:
        raise Ns2Unsupported(f"{key}.cc", f"ns-2.35 has no agent for '{algo}'")
    return agent, sink, sets, extra


def _ns2_rule(table: dict[str, Any], key: str, ns2_value: Any, default: Any) -> Any:
    """A table's value of one of ns-2's rules: the key where the table writes it (an alias),
    else ``ns2_value`` under ``compat = "ns2"`` (the one spelling the ns2 profile writes),
    else the built-in default."""
    if key in table:
        return table[key]
    return ns2_value if table.get("compat") == "ns2" else default


def _reno_agent(key: str, algo: str, cc: dict[str, Any], sack: bool, notes: list[str]) -> tuple[str, list[str]]:
    """Reno, NewReno and TCP(alpha, beta) (GAIMD: ns-2's increase_num_ and decrease_num_)."""
    sets: list[str] = []
    if algo == "gaimd":
        recovery = cc.get("recovery", "reno")
        base = "Newreno" if recovery == "newreno" else "Reno"
        alpha, beta = float(cc.get("alpha", 1.0)), float(cc.get("beta", 0.5))
        # slowdown() keeps decrease_num_ x window (tcp.cc: decreasewin = decrease_num_ * window()).
        sets += [f"increase_num_ {_num(alpha)}", f"decrease_num_ {_num(beta)}"]
        if not _ns2_rule(cc, "ns2_compat", True, False):
            notes.append(f"{key}.cc.ns2_compat: false in tcplab; ns-2's slowdown() halves at the first decrease, "
                         "in slow start and at timeouts (tcp.cc), whatever decrease_num_")
        if not _ns2_rule(cc, "ns2_window", True, False):
            notes.append(f"{key}.cc.ns2_window: false in tcplab; ns-2's slowdown() keeps ssthresh_ in whole "
                         "packets and cwnd_ = decrease_num_ x window untruncated, and the ack ending fast "
                         "recovery grows cwnd_ once (tcp.cc, tcp-reno.cc)")
    else:
        base = "Newreno" if algo == "newreno" else "Reno"
    agent = "Agent/TCP/Sack1" if sack else f"Agent/TCP/{base}"
    if sack and algo == "gaimd":
        raise Ns2Unsupported(f"{key}.sack", "TCP(alpha, beta) over Sack1 is not translated")
    return agent, sets


def _vegas_agent(key: str, flow: Mapping[str, Any], cc: dict[str, Any], sack: bool,
                 notes: list[str]) -> tuple[str, list[str]]:
    """Vegas: ns-2.35's own agent (tcp/tcp-vegas.cc)."""
    sets: list[str] = []
    if cc.get("alt"):
        raise Ns2Unsupported(f"{key}.cc.alt", "ns-2.35's Vegas has no ALT timestamps")
    if cc.get("rules", "paper") != "ns2":
        notes.append(f"{key}.cc.rules: \"paper\" in tcplab (seed 001's eq. 1 and Brakmo's slow start); ns-2's "
                     "Vegas runs its own (VegasTcpAgent::recv: its Expected and Actual, the 7/8 cut at slow-start "
                     "exit, a linear increase spread over the round's acks; rules = \"ns2\")")
    if cc.get("rtt_sample", "mean") != "mean":
        raise Ns2Unsupported(f"{key}.cc.rtt_sample", "ns-2.35's Vegas has no distinguished-segment RTT "
                             "(VegasTcpAgent::recv takes the mean of the round's samples)")
    if sack:
        raise Ns2Unsupported(f"{key}.sack", "ns-2.35's Vegas has no SACK")
    if cc.get("restart_window", 1) != 2:
        notes.append(f"{key}.cc.restart_window: {cc.get('restart_window', 1)} in tcplab; ns-2's Vegas restarts "
                     "from 2 segments after a timeout (v_slowstart_, not settable from OTcl)")
    agent = "Agent/TCP/Vegas"
    if not cc.get("round_delta", False):
        notes.append(f"{key}.cc.round_delta: false in tcplab (real-valued Delta); ns-2's Vegas compares "
                     "int(Delta + 0.5) with v_alpha_, v_beta_, v_gamma_ (VegasTcpAgent::recv)")
    if _flow_value(flow, "loss_detection") != "vegas":
        notes.append(f"{key}.loss_detection: ns-2's Vegas agent always retransmits by its fine-grained "
                     "timer on early duplicate acks (tcp-vegas.cc); tcplab does with loss_detection = \"vegas\"")
    sets += [f"v_alpha_ {_num(cc.get('alpha', 1))}", f"v_beta_ {_num(cc.get('beta', 3))}",
             f"v_gamma_ {_num(cc.get('gamma', 1))}"]
    return agent, sets


def _highspeed_agent(key: str, cc: dict[str, Any], sack: bool, notes: list[str]) -> tuple[str, list[str]]:
    """HighSpeed TCP: windowOption_ 8 on NewReno (or Sack1)."""
    sets: list[str] = []
    if cc.get("aimd", "formula") != "general":
        raise Ns2Unsupported(f"{key}.cc.aimd", "ns-2.35's HighSpeed TCP (windowOption_ 8) is aimd = \"general\" "
                             f"(p(w) on the log-log line), not '{cc.get('aimd', 'formula')}'")
    if cc.get("b_floor", "a_peak") not in ("a_peak",):
        raise Ns2Unsupported(f"{key}.cc.b_floor", "not translated")
    agent = "Agent/TCP/Sack1" if sack else "Agent/TCP/Newreno"
    sets += ["windowOption_ 8", f"low_window_ {_num(cc.get('low_window', 38))}",
             f"high_window_ {_num(cc.get('high_window', 83000))}", f"high_p_ {_num(cc.get('high_p', 1e-7))}",
             f"high_decrease_ {_num(cc.get('high_decrease', 0.1))}"]
    if not _ns2_rule(cc, "ns2_compat", True, False):
        notes.append(f"{key}.cc.ns2_compat: false in tcplab; ns-2's slowdown() halves at the first decrease, "
                     "in slow start and (ssthresh) at timeouts (tcp.cc), not by b(w)")
    notes.append(f"{key}.cc: ns-2's HighSpeed computes a(w), b(w) from the window in floating point; "
                 "tcplab at floor(w); beyond high_window ns-2 keeps extending the line (tcplab: b_floor)")
    return agent, sets


def _linux_agent(key: str, algo: str, cc: dict[str, Any], sack: bool,
                 notes: list[str]) -> tuple[str, list[str], list[str]]:
    """CUBIC, Scalable and Westwood+: Agent/TCP/Linux running Linux 2.6's module."""
    sets: list[str] = []
    extra: list[str] = []
    if algo == "westwood" and cc.get("estimator", "be") != "plus":
        raise Ns2Unsupported(f"{key}.cc.estimator", "ns-2.35's Linux agent has Westwood+ only (estimator = \"plus\")")
    # The Linux 2.6 modules' constants (tcp/linux/src/tcp_cubic.c, tcp_scalable.c): a
    # parameter the flow sets to another value is refused; a tcplab default that differs
    # is a note.
    module, defaults = _LINUX_MODULES.get(algo, ({}, {}))
    if algo == "westwood":
        # ns-2's agent runs the module without CA_EVENT_COMPLETE_CWR and with min_cwnd at a
        # loss (tcp-linux.cc), tcplab's plus_rules = "ns2" (docs/crosscheck.md item 4).
        rules = _ns2_rule(cc, "plus_rules", "ns2", "linux")
        if rules != "ns2":
            if "plus_rules" in cc:
                raise Ns2Unsupported(f"{key}.cc.plus_rules", "ns-2.35's Agent/TCP/Linux runs Westwood+ with "
                                     "plus_rules = \"ns2\"'s window rules")
            notes.append(f"{key}.cc.plus_rules: \"linux\" in tcplab; ns-2.35's Agent/TCP/Linux never raises "
                         "CA_EVENT_COMPLETE_CWR and goes to min_cwnd at a loss (plus_rules = \"ns2\")")
    if algo == "scalable":
        # The module's rules (profile ns2 sets both): tcp_scalable_cong_avoid counts acks up
        # to min(cwnd, AI_CNT); min_cwnd = tcp_reno_min_cwnd (ssthresh/2) in recovery.
        for k, refusal, note in (
            ("linux_count", "counts acks up to min(cwnd, 50) (linux_count = true)",
             "adds a segment per min(cwnd, 50) + 1 acks"),
            ("linux_min_cwnd", "recovers towards ssthresh/2 (linux_min_cwnd = true)",
             "sets cwnd to ssthresh/2 in recovery (tcp_reno_min_cwnd)"),
        ):
            if k in cc and not cc[k]:
                raise Ns2Unsupported(f"{key}.cc.{k}", f"ns-2.35's Linux scalable module {refusal}")
            if k not in cc:
                notes.append(f"{key}.cc.{k}: false in tcplab; ns-2.35's Linux scalable module {note}")
    for k in cc:
        if k not in ("estimator", "plus_rules", "compat", "linux_count", "linux_min_cwnd") and k not in module:
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
        raise Ns2Unsupported(f"{key}.sack", "ns-2.35's Agent/TCP/Linux needs SACK acks (set sack = true)")
    agent = "Agent/TCP/Linux"
    ca = {"cubic": "cubic", "scalable": "scalable", "westwood": "westwood"}[algo]
    extra.append(f"$ns at 0 \"$tcp select_ca {ca}\"")
    extra.append("$sink set ts_echo_rfc1323_ true")
    sets += ["timestamps_ true", "ts_option_size_ 0"]
    notes.append(f"{key}.cc: Agent/TCP/Linux runs Linux 2.6's {ca} module with Linux's own recovery; "
                 f"tcplab runs its own {algo}")
    return agent, sets, extra


#: The algorithms the translator runs on Agent/TCP/Linux.
_LINUX_AGENT_ALGORITHMS = ("cubic", "scalable", "westwood")


def _linux_agent_notes(key: str, flow: Mapping[str, Any], notes: list[str]) -> None:
    """What Agent/TCP/Linux always does and a tcplab flow may leave off: named so that a
    disagreement can be traced (profile ``ns2`` sets both)."""
    if _flow_value(flow, "loss_detection") != "fack":
        notes.append(f"{key}.loss_detection: Agent/TCP/Linux marks losses by FACK and finds lost "
                     "retransmissions (tcp/scoreboard1.cc); tcplab does with loss_detection = \"fack\"")
    if flow.get("prr", "ssrb") != "rate_halving":
        notes.append(f"{key}.prr: Agent/TCP/Linux rate-halves in recovery (LinuxTcpAgent::send_much's "
                     "next_pkts_in_flight_); tcplab does with prr = \"rate_halving\"")
    if not flow.get("sack_clear_at_exit", False):
        notes.append(f"{key}.sack_clear_at_exit: false in tcplab; Agent/TCP/Linux clears its scoreboard when "
                     "the ack reaches recover_ (LinuxTcpAgent::tcp_fastretrans_alert)")
    if not flow.get("rto_restart_on_dupack", False):
        notes.append(f"{key}.rto_restart_on_dupack: false in tcplab; Agent/TCP/Linux re-arms the timer on "
                     "every ack (LinuxTcpAgent::time_processing)")


def _xcp_agent(key: str, cc: dict[str, Any], sack: bool, notes: list[str]) -> tuple[str, list[str]]:
    """XCP end hosts (their sink is Agent/TCPSink/XCPSink)."""
    sets: list[str] = []
    if sack:
        raise Ns2Unsupported(f"{key}.sack", "ns-2.35's XCP agent has no SACK")
    for k in cc:
        if k != "header_bytes":
            raise Ns2Unsupported(f"{key}.cc.{k}", "not translated")
    agent = "Agent/TCP/Reno/XCP"
    sets += ["ts_option_size_ 0"]
    if int(cc.get("header_bytes", 0)):
        # ns-2.35 charges no bytes for hdr_xcp (XCP_HDR_LEN, xcp/xcp-end-sys.h, is unused;
        # XcpEndsys::send leaves hdr_cmn::size() alone): cc.header_bytes goes into
        # tcpip_base_hdr_size_ below, which enlarges data packets and the SYN as tcplab does.
        notes.append(f"{key}.cc.header_bytes: ns-2.35's XCP agent adds no bytes for its congestion header; "
                     "translated into tcpip_base_hdr_size_ (data packets and the SYN, not acks)")
    return agent, sets


def _segment_sets(flow: Mapping[str, Any], agent: str) -> list[str]:
    """Every tcplab key, written explicitly: segment and header sizes, the windows, the RTO
    estimator and the duplicate-ack threshold."""
    sets: list[str] = []
    mss = int(_flow_value(flow, "mss"))
    header = _tcp_header(flow)
    if agent == "Agent/TCP/Vegas":
        # VegasTcpAgent::output (tcp/tcp-vegas.cc) is its own and never adds headersize():
        # useHeaders_ is ignored and a segment is packetSize_ bytes on the wire. So the
        # header goes into packetSize_ (acks still count segments: goodput = segments x mss).
        sets += [f"packetSize_ {mss + header}", f"tcpip_base_hdr_size_ {header}", "useHeaders_ true"]
    else:
        sets += [f"packetSize_ {mss}", f"tcpip_base_hdr_size_ {header}", "useHeaders_ true"]
    max_window = _bytes(_flow_value(flow, "max_window"))
    sets.append(f"window_ {max(1, max_window // mss)}")
    sets.append("maxcwnd_ 0")
    sets += [f"windowInit_ {int(_flow_value(flow, 'init_cwnd'))}", "windowInitOption_ 1"]
    sets += [f"rtxcur_init_ {_num(_seconds(_flow_value(flow, 'rto_initial')))}",
             f"minrto_ {_num(_seconds(_flow_value(flow, 'rto_min')))}",
             f"maxrto_ {_num(_seconds(_flow_value(flow, 'rto_max')))}"]
    tick = flow.get("rto_tick")
    tick = None if tick == "off" else tick
    sets.append(f"tcpTick_ {_num(_seconds(tick)) if tick is not None else _num(EXACT_CLOCK_TICK_S)}")
    sets.append(f"numdupacks_ {int(_flow_value(flow, 'dupack_threshold'))}")
    return sets


def _ecn_sets(key: str, flow: Mapping[str, Any], agent: str, notes: list[str]) -> list[str]:
    """ECN: ecn_, and old_ecn_ for tcplab's ece_increase."""
    sets: list[str] = []
    sets.append(f"ecn_ {1 if _flow_value(flow, 'ecn') else 0}")
    if _flow_value(flow, "ecn") and agent in ("Agent/TCP/Reno", "Agent/TCP/Newreno", "Agent/TCP/Sack1"):
        # tcp.cc recv_newack_helper: opencwnd() on an ECN-Echo ack (once ect_ is set) only if
        # old_ecn_ and ecn_burst_ (an earlier ack of the same run had ECE). old_ecn_ 0 (ns-2's
        # default) is ece_increase = false exactly; old_ecn_ 1 is the nearest to tcplab's
        # default but still skips the first ECE ack of each run.
        if _flow_value(flow, "ece_increase"):
            sets.append("old_ecn_ 1")
            notes.append(f"{key}.ece_increase: true in tcplab (every ECN-Echo ack may open the window); ns-2.35 "
                         "with old_ecn_ 1 still skips opencwnd() on the first ECN-Echo ack after one without "
                         "(tcp.cc recv_newack_helper, ecn_burst_); ece_increase = false is old_ecn_ 0")
        else:
            sets.append("old_ecn_ 0")
    return sets


def _recovery_sets(key: str, flow: Mapping[str, Any], algo: str, cc: dict[str, Any], agent: str,
                   notes: list[str]) -> list[str]:
    """The connection's start (SYN) and the loss-recovery switches: bugFix_, limited
    transmit, bursts in recovery, NewReno's partial acks."""
    sets: list[str] = []
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
        sets.append(f"newreno_changes1_ {1 if _flow_value(flow, 'partial_ack_timer') == 'first' else 0}")
        sets += ["partial_window_deflation_ 1", "exit_recovery_fix_ 0", "newreno_changes_ 0"]
    sets.append("overhead_ 0")
    return sets


def _unswitchable_notes(key: str, flow: Mapping[str, Any], agent: str) -> list[str]:
    """Behaviours ns-2.35 cannot switch; named so a disagreement can be traced."""
    notes: list[str] = []
    if not flow.get("rto_restart_on_fast_retransmit", False) and not _flow_value(flow, "rto_restart_on_retransmit"):
        notes.append(f"{key}.rto_restart_on_fast_retransmit: false in tcplab; ns-2.35 restarts the timer at every "
                     "fast retransmit (dupack_action: reset_rtx_timer)")
    # main's `ssthresh_basis` (first named `timeout_ssthresh`, for timeouts only).
    basis_key = "ssthresh_basis" if "ssthresh_basis" in flow or "timeout_ssthresh" not in flow else "timeout_ssthresh"
    if flow.get(basis_key, "flightsize") != "window":
        notes.append(f"{key}.{basis_key}: tcplab halves FlightSize for the new ssthresh; ns-2.35's slowdown() "
                     "halves the window, min(cwnd_, window_), at timeouts and fast retransmits (tcp.cc)")
    if (_flow_value(flow, "rto_restart_on_retransmit") and "newreno" in agent.lower()
            and _flow_value(flow, "partial_ack_timer") == "first"):
        notes.append(f"{key}.rto_restart_on_retransmit: true in tcplab restarts the timer at every partial ack's "
                     "retransmission; ns-2.35's Newreno with newreno_changes1_ 1 at the first only")
    if flow.get("rto_tick") in (None, "off"):
        notes.append(f"{key}.rto_tick: tcplab's RTO estimator runs on the exact clock; ns-2 with tcpTick_ "
                     f"{EXACT_CLOCK_TICK_S} (its integer-tick estimator)")
    return notes


def _sink(key: str, flow: Mapping[str, Any], sink: str) -> tuple[str, list[str]]:
    """The sink class (with delayed acks its DelAck variant) and its `$sink set` lines."""
    extra: list[str] = []
    delack = flow.get("delayed_ack")
    if delack not in (None, "off"):
        sink = {"Agent/TCPSink": "Agent/TCPSink/DelAck", "Agent/TCPSink/Sack1": "Agent/TCPSink/Sack1/DelAck"}.get(sink)
        if sink is None:
            raise Ns2Unsupported(f"{key}.delayed_ack", "ns-2.35's XCP sink has no delayed acks")
        extra.append(f"$sink set interval_ {_num(_seconds(delack))}")
    extra.append(f"$sink set packetSize_ {int(_flow_value(flow, 'ack_size'))}")
    extra.append("$sink set ecn_syn_ false")
    return sink, extra

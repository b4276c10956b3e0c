"""tcplab.ns2: the ns-2.35 translator (no ns needed) and one short cross-check (needs `ns`).

docs/crosscheck.md, "ns-2.35". The end-to-end test is skipped with a message where ns-2 is
not installed (`apt-get install -y ns2`; .ci/run installs it).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from tcplab import ScenarioError, ns2

ROOT = Path(__file__).resolve().parents[1]


def dumbbell(flows=None, bottleneck=None, **flow_defaults):
    fd = {"mss": 1000, "header": 40, "ack_size": 40, "max_window": "100000B"}
    fd.update(flow_defaults)
    return {
        "duration": "12s",
        "profile": "classic",  # the translator's own tests: tcplab's classic flow keys
        "dumbbell": {
            "bottleneck": bottleneck or {"rate": "10Mbps", "delay": "20ms", "buffer": 50},
            "access": {"rate": "100Mbps", "delay": "1ms"},
            "rtt": "44ms",
            "flows": flows if flows is not None else [{"count": 2, "cc": "newreno"}],
        },
        "defaults": {"flows": fd},
        "metrics": {"steady_start": "4s"},
    }


def refusal(sc) -> str:
    with pytest.raises(ns2.Ns2Unsupported) as e:
        ns2.to_otcl(sc)
    msg = str(e.value)
    assert "\n" not in msg and msg.endswith("(refused)")
    return msg


def test_droptail_dumbbell_lines():
    tcl = ns2.to_otcl(dumbbell(), seed=4)
    assert "$defaultRNG seed 5" in tcl  # tcplab seed 4; ns-2's 0 means "from the clock"
    # Bottleneck both ways identical: one duplex-link; access links too.
    assert re.search(r"^\$ns duplex-link \$n\(\d+\) \$n\(\d+\) 10000000 0\.02 DropTail  ;# bn, bn_rev$", tcl, re.M)
    # tcplab's limit 50 (waiting, not counting the packet in transmission) is ns-2's 51
    # (DropTail drops when length + 1 >= limit_); the default 1000 is 1001.
    assert tcl.count("queue-limit") == 10
    assert len(re.findall(r"queue-limit \$n\(\d+\) \$n\(\d+\) 51$", tcl, re.M)) == 2
    assert len(re.findall(r"queue-limit \$n\(\d+\) \$n\(\d+\) 1001$", tcl, re.M)) == 8
    for line in ("set tcp [new Agent/TCP/Newreno]", "$tcp set packetSize_ 1000", "$tcp set tcpip_base_hdr_size_ 40",
                 "$tcp set window_ 100", "$tcp set windowInit_ 1", "$tcp set rtxcur_init_ 1", "$tcp set minrto_ 0.2",
                 "$tcp set maxrto_ 60", "$tcp set numdupacks_ 3", "$tcp set syn_ false", "$tcp set singledup_ 0",
                 "$tcp set newreno_changes1_ 0", "$tcp set tcpTick_ 0.001", "$tcp set ecn_ 0",
                 "set sink [new Agent/TCPSink]", "$sink set packetSize_ 40", "set app [new Application/FTP]"):
        assert tcl.count(line) == 2, line
    assert "ErrorModel" not in tcl and "RED" not in tcl


def test_window_is_the_steady_state_window():
    s = ns2.translate(dumbbell())
    assert s.window == (4.0, 12.0)
    assert '$ns at 4 "mark_start"' in s.otcl and '$ns at 12 "finish"' in s.otcl
    assert s.flows == ["f1", "f2"] and "bn" in s.links


def test_flow_keys_map_to_agent_variables():
    sc = dumbbell(flows=[{"cc": "newreno", "init_cwnd": 4, "rto_initial": "3s", "rto_min": "1s", "rto_max": "64s",
                          "dupack_threshold": 5, "partial_ack_timer": "first", "delayed_ack": "100ms",
                          "ack_size": 52, "mss": 1460, "header": 52, "max_window": "64KiB"}])
    tcl = ns2.to_otcl(sc)
    for line in ("$tcp set windowInit_ 4", "$tcp set rtxcur_init_ 3", "$tcp set minrto_ 1", "$tcp set maxrto_ 64",
                 "$tcp set numdupacks_ 5", "$tcp set newreno_changes1_ 1", "$tcp set packetSize_ 1460",
                 "$tcp set tcpip_base_hdr_size_ 52", "$tcp set window_ 44",
                 "set sink [new Agent/TCPSink/DelAck]", "$sink set interval_ 0.1", "$sink set packetSize_ 52"):
        assert line in tcl, line
    # "off" is the absent value: a plain sink, and the exact-clock tick.
    off = ns2.to_otcl(dumbbell(flows=[{"cc": "newreno", "delayed_ack": "off", "rto_tick": "off"}]))
    assert off == ns2.to_otcl(dumbbell(flows=[{"cc": "newreno"}]))
    assert "DelAck" not in off


def test_agents():
    gaimd = {"algorithm": "gaimd", "alpha": 0.31, "beta": 0.875, "recovery": "reno", "ns2_compat": True}
    tcl = ns2.to_otcl(dumbbell(flows=[{"cc": gaimd}, "vegas"]))
    assert "new Agent/TCP/Reno]" in tcl and "$tcp set increase_num_ 0.31" in tcl
    assert "$tcp set decrease_num_ 0.875" in tcl and "new Agent/TCP/Vegas]" in tcl
    assert "$tcp set v_alpha_ 1" in tcl and "$tcp set v_beta_ 3" in tcl
    tcl = ns2.to_otcl(dumbbell(flows=[{"cc": {"algorithm": "highspeed", "aimd": "general"}},
                                      {"cc": "cubic", "sack": True, "prr": "off"}]))
    assert "$tcp set windowOption_ 8" in tcl and "$tcp set low_window_ 38" in tcl
    assert "new Agent/TCP/Linux]" in tcl and "select_ca cubic" in tcl
    tcl = ns2.to_otcl(dumbbell(flows=[{"count": 2, "cc": "newreno", "sack": True, "prr": "off"}]))
    assert "new Agent/TCP/Sack1]" in tcl and "new Agent/TCPSink/Sack1]" in tcl
    tcl = ns2.to_otcl(dumbbell(flows=[{"count": 2, "cc": "xcp"}],
                                bottleneck={"rate": "10Mbps", "delay": "20ms", "buffer": 50, "queue": {"type": "xcp"}}))
    assert "new Agent/TCP/Reno/XCP]" in tcl and "XCPSink" in tcl and "set-link-capacity" in tcl
    # XCP's congestion header: ns-2.35 charges none, so header_bytes goes into the TCP/IP
    # header size (data packets and the SYN; the sink's acks keep packetSize_ 40).
    xbn = {"rate": "10Mbps", "delay": "20ms", "buffer": 50, "queue": {"type": "xcp"}}
    assert "$tcp set tcpip_base_hdr_size_ 40" in tcl
    hdr = ns2.translate(dumbbell(flows=[{"count": 2, "cc": {"algorithm": "xcp", "header_bytes": 20}}], bottleneck=xbn))
    assert hdr.otcl.count("$tcp set tcpip_base_hdr_size_ 60") == 2 and "tcpip_base_hdr_size_ 40" not in hdr.otcl
    assert hdr.otcl.count("$sink set packetSize_ 40") == 2
    assert any("cc.header_bytes" in n and "XCP" in n for n in hdr.notes)
    zero = ns2.translate(dumbbell(flows=[{"count": 2, "cc": {"algorithm": "xcp", "header_bytes": 0}}], bottleneck=xbn))
    assert zero.otcl == ns2.translate(dumbbell(flows=[{"count": 2, "cc": "xcp"}], bottleneck=xbn)).otcl
    assert not any("header_bytes" in n for n in zero.notes)


def test_droptail_byte_limit():
    # tcplab admits while waiting bytes + size <= B; ns-2's byte mode drops when
    # byteLength + size >= limit_ * mean_pktsize_: mean_pktsize_ 1, limit_ B + 1.
    tcl = ns2.to_otcl(dumbbell(bottleneck={"rate": "10Mbps", "delay": "20ms", "buffer": "64KiB"}))
    assert len(re.findall(r"queue-limit \$n\(\d+\) \$n\(\d+\) 65537$", tcl, re.M)) == 2
    assert tcl.count("set queue_in_bytes_ true") == 2 and tcl.count("set mean_pktsize_ 1\n") == 2


def test_red_and_loss():
    bn = {"rate": "10Mbps", "delay": "20ms", "loss": 0.01, "reverse": {"loss": 0},
          "queue": {"type": "red", "min_th": 5, "max_th": 15, "limit": 60, "gentle": True, "max_p": 0.2}}
    tcl = ns2.to_otcl(dumbbell(bottleneck=bn))
    # RED holds limit_ waiting packets (queue/red.cc: qlen >= qlim), so tcplab's 60 is 60.
    assert len(re.findall(r"queue-limit \$n\(\d+\) \$n\(\d+\) 60$", tcl, re.M)) == 2
    for line in ("set thresh_ 5", "set maxthresh_ 15", "set linterm_ 5", "set q_weight_ 0.002", "set gentle_ true",
                 "set wait_ false", "set bytes_ false", "set queue_in_bytes_ false"):
        assert line in tcl, line
    # One direction has loss, so the two directions are simplex links; the error model sits
    # after the link (link-lossmodel), dropping into a null agent (not the queue's drops).
    assert tcl.count("simplex-link") == 2 and "ErrorModel" in tcl
    assert "$em(0) set rate_ 0.01" in tcl and "link-lossmodel $em(0)" in tcl


def test_loss_placement_chooses_lossmodel_or_link_lossmodel():
    # placement = "before_queue" is ns-2's `$ns lossmodel` (SimpleLink errormodule: before
    # the queue); the default, "after_link", its link-lossmodel. Under profile = "ns2" the
    # link's `loss` is written out as a Bernoulli model before the queue.
    def bn(error):
        return {"rate": "10Mbps", "delay": "20ms", "buffer": 50, "error": error, "reverse": {"error": {"model": "none"}}}

    before = ns2.to_otcl(dumbbell(bottleneck=bn({"model": "bernoulli", "p": 0.01, "placement": "before_queue"})))
    assert "$ns lossmodel $em(0)" in before and "link-lossmodel" not in before
    after = ns2.to_otcl(dumbbell(bottleneck=bn({"model": "bernoulli", "p": 0.01})))
    assert "$ns link-lossmodel $em(0)" in after and "$ns lossmodel" not in after
    # The monitor goes behind a module before the queue (both are added at the link's head,
    # the later one first), so that it counts only what reaches the queue.
    def order(tcl):
        lines = tcl.splitlines()
        return (next(i for i, ln in enumerate(lines) if "lossmodel $em(0)" in ln)
                < next(i for i, ln in enumerate(lines) if ln.startswith("set qm(0)")))
    assert order(after) and not order(before)
    under_ns2 = dumbbell(bottleneck={"rate": "10Mbps", "delay": "20ms", "buffer": 50, "loss": 0.01,
                                     "reverse": {"loss": 0}})
    under_ns2["defaults"]["links"] = {"profile": "ns2"}
    assert "$ns lossmodel $em(0)" in ns2.to_otcl(under_ns2)


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 not installed (apt-get install -y ns2)")
def test_loss_placement_agrees_with_ns2_on_an_overloaded_lossy_link():
    """11.5 Mb/s of CBR into 10 Mb/s with 20 % Bernoulli loss. Before the queue (ns-2's
    lossmodel) the lost packets take no link time: what is left fits, nothing overflows, and
    about 9.2 Mb/s arrive. After the link (link-lossmodel) the link carries 10 Mb/s, the
    queue overflows and 80 % of that arrives. Both simulators, both placements."""
    from tcplab.ns2.compare import run_tcplab

    got = {}
    for place in ("before_queue", "after_link"):
        sc = {"duration": "10s", "profile": "ns2", "nodes": {"s": "host", "r": "router", "d": "host"},
              "links": {"sr": {"from": "s", "to": "r", "rate": "100Mbps", "delay": "1ms", "duplex": True},
                        "rd": {"from": "r", "to": "d", "rate": "10Mbps", "delay": "10ms",
                               "queue": {"type": "droptail", "limit": 20},
                               "error": {"model": "bernoulli", "p": 0.2, "placement": place}},
                        "dr": {"from": "d", "to": "r", "rate": "10Mbps", "delay": "10ms"}},
              "flows": {"u": {"from": "s", "to": "d", "transport": "udp",
                              "app": {"type": "cbr", "rate": "11.5Mbps", "packet_size": 1000}}},
              "metrics": {"steady_start": "2s"}}
        got[place] = (ns2.run_ns2(sc, 1), run_tcplab(sc, 1))
    for place, (a, b) in got.items():
        ga, gb = a["flows"]["u"]["goodput_bps"], b["flows"]["u"]["goodput_bps"]
        assert abs(gb / ga - 1) < 0.02, (place, ga, gb)
        da, db = a["links"]["rd"]["drops"], b["links"]["rd"]["drops"]
        if place == "before_queue":
            assert da == db == 0, (da, db)
            assert abs(b["links"]["rd"]["q_mean"] - a["links"]["rd"]["q_mean"]) < 1.0
        else:
            n = a["links"]["rd"]["arrivals"]
            assert da > 0.1 * n and abs(db / da - 1) < 0.05, (da, db, n)
    for sim in (0, 1):
        g = [got[p][sim]["flows"]["u"]["goodput_bps"] for p in ("before_queue", "after_link")]
        assert g[0] > 1.1 * g[1], g


def test_red_ns2_rules_are_noted_when_missing():
    # ns-2's REDQueue::enque signals nothing with fewer than 2 waiting and restarts its count
    # (edv_.old): tcplab's min_waiting = 2, restart_count = true; without them, a note.
    red = {"type": "red", "min_th": 5, "max_th": 15, "limit": 60}
    plain = ns2.translate(dumbbell(bottleneck={"rate": "10Mbps", "delay": "20ms", "queue": red}))
    assert any("min_waiting = 2, restart_count = true" in n for n in plain.notes)
    ns2_like = {**red, "min_waiting": 2, "restart_count": True}
    same = ns2.translate(dumbbell(bottleneck={"rate": "10Mbps", "delay": "20ms", "queue": ns2_like}))
    assert not any("min_waiting" in n for n in same.notes)


def test_onoff_semantics_note():
    # ns-2's Exponential source (tools/expoo.cc) draws whole-packet bursts: tcplab's
    # app.semantics = "ns2"; without it, a note. The script is the same either way.
    app = {"type": "onoff", "rate": "30Mbps", "packet_size": 1000, "on": "0.5s", "mean_rate": "40kbps"}
    vbr = {"name": "vbr", "direction": "reverse", "transport": "udp", "header": 0}
    plain = ns2.translate(dumbbell(flows=["vegas", {**vbr, "app": app}]))
    assert any("expoo.cc" in n and 'semantics = "ns2"' in n for n in plain.notes)
    same = ns2.translate(dumbbell(flows=["vegas", {**vbr, "app": {**app, "semantics": "ns2"}}]))
    assert not any("expoo.cc" in n for n in same.notes)
    assert "$app set burst_time_ 0.5" in same.otcl and "$app set idle_time_ 374.5" in same.otcl
    assert same.otcl == plain.otcl
    compat = ns2.translate(dumbbell(flows=["vegas", {**vbr, "app": {**app, "compat": "ns2"}}]))
    assert not any("expoo.cc" in n for n in compat.notes) and compat.otcl == plain.otcl


def test_westwood_plus_rules():
    ww = {"algorithm": "westwood", "estimator": "plus"}
    linux = ns2.translate(dumbbell(flows=[{"cc": ww, "sack": True, "prr": "off"}]))
    assert any("plus_rules" in n and "CA_EVENT_COMPLETE_CWR" in n for n in linux.notes)
    ok = ns2.translate(dumbbell(flows=[{"cc": {**ww, "plus_rules": "ns2"}, "sack": True, "prr": "off"}]))
    assert not any("plus_rules" in n for n in ok.notes) and "select_ca westwood" in ok.otcl
    compat = ns2.translate(dumbbell(flows=[{"cc": {**ww, "compat": "ns2"}, "sack": True, "prr": "off"}]))
    assert not any("plus_rules" in n for n in compat.notes) and compat.otcl == ok.otcl
    assert refusal(dumbbell(flows=[{"cc": {**ww, "plus_rules": "linux"}, "sack": True, "prr": "off"}])).startswith(
        "flows.f1.cc.plus_rules: ns-2.35's Agent/TCP/Linux")
    # BE's virtual null samples (null_samples) have no ns-2.35 counterpart: BE is refused
    # as a whole, and with Westwood+ the core already refuses the key when expanding.
    assert refusal(dumbbell(flows=[{"cc": {"algorithm": "westwood", "null_samples": 2}, "sack": True,
                                    "prr": "off"}])).startswith("flows.f1.cc.estimator: ")
    with pytest.raises(ScenarioError, match=r"flows\.f1\.cc\.null_samples"):
        ns2.translate(dumbbell(flows=[{"cc": {**ww, "plus_rules": "ns2", "null_samples": 2}, "sack": True,
                                       "prr": "off"}]))


def test_refusals_name_the_key():
    assert refusal(dumbbell(flows=[{"cc": "newreno", "sack": True, "loss_detection": "rack"}])) == \
        "flows.f1.loss_detection: ns-2.35 has no RACK (refused)"
    assert refusal(dumbbell(flows=["bbr"])).startswith("flows.f1.cc: ns-2.35 has no agent for 'bbr'")
    assert refusal(dumbbell(flows=[{"cc": "newreno", "pacing": "10Mbps"}])).startswith("flows.f1.pacing:")
    assert refusal(dumbbell(flows=[{"cc": "newreno", "sack": True}])).startswith("flows.f1.prr:")
    assert refusal(dumbbell(bottleneck={"rate": "10Mbps", "delay": "1ms", "queue": "codel"})).startswith(
        "links.bn.queue.type: ns-2.35 has no 'codel' queue")
    red_bytes = {"type": "red", "min_th": 5, "max_th": 15, "limit": "64KiB"}
    assert refusal(dumbbell(bottleneck={"rate": "10Mbps", "delay": "1ms", "queue": red_bytes})).startswith(
        "links.bn.queue.limit: byte limit")
    assert refusal(dumbbell(flows=[{"cc": "newreno", "ecn": True}])).startswith("flows.f1.ecn_retransmits:")
    assert refusal(dumbbell(flows=[{"cc": "highspeed"}])).startswith("flows.f1.cc.aimd:")
    assert refusal(dumbbell(flows=["cubic"])).startswith("flows.f1.sack: ns-2.35's Agent/TCP/Linux needs SACK")
    # The Linux 2.6 module's constants: another value set is refused, a differing tcplab
    # default (beta 0.7, HyStart++) is a note.
    assert refusal(dumbbell(flows=[{"cc": {"algorithm": "cubic", "c": 1.0}, "sack": True, "prr": "off"}])) == \
        "flows.f1.cc.c: ns-2.35's Linux cubic module has c = 0.4004 (refused)"
    notes = ns2.translate(dumbbell(flows=[{"cc": "cubic", "sack": True, "prr": "off"}])).notes
    assert any(n.startswith("flows.f1.cc.beta: 0.7 in tcplab") for n in notes)
    # Vegas' fine-grained retransmission is ns-2's Vegas agent's own: accepted there (and
    # without it, a note says ns-2 does it anyway), refused for any other algorithm.
    assert refusal(dumbbell(flows=[{"cc": "newreno", "loss_detection": "vegas"}])) == \
        "flows.f1.loss_detection: Vegas' fine-grained retransmission exists in ns-2.35's Vegas agent only (refused)"
    assert "Agent/TCP/Vegas" in ns2.translate(dumbbell(flows=[{"cc": "vegas", "loss_detection": "vegas"}])).otcl
    notes = ns2.translate(dumbbell(flows=[{"cc": "vegas"}])).notes
    assert any(n.startswith("flows.f1.loss_detection: ns-2's Vegas agent always retransmits") for n in notes)
    # Brakmo's distinguished-segment RTT is not in ns-2.35's Vegas (the mean is, and is translated).
    assert refusal(dumbbell(flows=[{"cc": {"algorithm": "vegas", "rtt_sample": "distinguished"}}])) == \
        "flows.f1.cc.rtt_sample: ns-2.35's Vegas has no distinguished-segment RTT (VegasTcpAgent::recv takes " \
        "the mean of the round's samples) (refused)"
    assert "Agent/TCP/Vegas" in ns2.translate(dumbbell(flows=[{"cc": {"algorithm": "vegas", "rtt_sample": "mean"}}])).otcl



def test_send_and_playback_buffers_are_refused():
    # ns-2.35 queues every write (TcpAgent::sendmsg) and advertises a fixed window_.
    assert refusal(dumbbell(flows=[{"cc": "newreno", "send_buffer_bytes": 16000}])).startswith(
        "flows.f1.send_buffer_bytes: ns-2.35's TCP agents have no finite send buffer")
    assert refusal(dumbbell(flows=[{"cc": "newreno", "playback_rwnd_cap": {"buffer": 125000}}])).startswith(
        "flows.f1.playback_rwnd_cap: ns-2.35's sinks advertise no window")

def test_bench_scenarios_translate():
    files = sorted((ROOT / "bench" / "ns2").glob("*.toml"))
    assert len(files) >= 15
    agents = set()
    for f in files:
        tcl = ns2.to_otcl(f)
        agents.update(re.findall(r"new (Agent/TCP[/\w]*)\]", tcl))
    assert {"Agent/TCP/Reno", "Agent/TCP/Newreno", "Agent/TCP/Sack1", "Agent/TCP/Vegas", "Agent/TCP/Linux",
            "Agent/TCP/Reno/XCP"} <= agents


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 not installed (apt-get install -y ns2): end-to-end "
                    "cross-check skipped")
def test_two_newreno_flows_agree_with_ns2(tmp_path):
    # A 2-flow NewReno dumbbell with 1-segment windows' worth of buffer to spare: both
    # simulators fill the link; each flow's goodput within 5 % of ns-2's (seed 1).
    sc = dumbbell()
    sc["dumbbell"]["bottleneck"]["buffer"] = 100
    sc["defaults"]["flows"]["max_window"] = "40000B"  # window-limited: no loss, no recovery
    a, b = ns2.run_both(sc, 1, tmp_path)
    assert (tmp_path / "scenario.tcl").exists()
    for f in ("f1", "f2"):
        x, y = a["flows"][f]["goodput_bps"], b["flows"][f]["goodput_bps"]
        assert x > 1e6 and abs(y / x - 1) < 0.05, (f, x, y)
        assert a["flows"][f]["timeouts"] == b["flows"][f]["timeouts"] == 0
    assert a["links"]["bn"]["drops"] == b["links"]["bn"]["drops"] == 0


def test_ns2_profile_is_ns2s_defaults():
    # profile = "ns2" (main's keys) written out: the script sets ns-2.35's own defaults and
    # nothing is left that ns-2 cannot switch (no notes) for NewReno.
    s = ns2.translate(dumbbell(profile="ns2"))
    for line in ("$tcp set syn_ true", "$tcp set tcpTick_ 0.01", "$tcp set bugFix_ true", "$tcp set singledup_ 1",
                 "$tcp set newreno_changes1_ 1", "$tcp set windowInit_ 2", "$tcp set rtxcur_init_ 3",
                 "$tcp set maxburst_ 0"):
        assert s.otcl.count(line) == 2, line
    assert s.notes == []
    # Reno under the profile: bugFix_ true, and no recovery cap (ns-2's Reno has none), so
    # nothing is left to note either.
    s = ns2.translate(dumbbell(flows=[{"count": 2, "cc": "reno"}], profile="ns2"))
    assert s.otcl.count("$tcp set bugFix_ true") == 2
    assert s.notes == []


def test_ece_increase_is_old_ecn():
    # tcp.cc recv_newack_helper: with old_ecn_ 0 (ns-2's default) no opencwnd() on an ECN-Echo
    # ack once ect_ is set: tcplab's ece_increase = false. True (tcplab's default) is written as
    # old_ecn_ 1, the nearest, with a note (ns-2 still skips the first ECE ack of each run).
    ecn = {"ecn": True, "ecn_retransmits": True}
    s = ns2.translate(dumbbell(flows=[{"count": 2, "cc": "newreno"}], **ecn))
    assert s.otcl.count("$tcp set old_ecn_ 1") == 2
    assert [n.split(":")[0] for n in s.notes if "ece_increase" in n] == ["flows.f1.ece_increase",
                                                                         "flows.f2.ece_increase"]
    assert all("old_ecn_ 1 still skips" in n for n in s.notes if "ece_increase" in n)
    s = ns2.translate(dumbbell(flows=[{"count": 2, "cc": "reno"}], ece_increase=False, **ecn))
    assert s.otcl.count("$tcp set old_ecn_ 0") == 2 and "old_ecn_ 1" not in s.otcl
    assert not any("ece_increase" in n for n in s.notes)
    # The ns2 profile sets it: old_ecn_ 0, and nothing left to note for NewReno.
    s = ns2.translate(dumbbell(profile="ns2", **ecn))
    assert s.otcl.count("$tcp set old_ecn_ 0") == 2
    assert s.notes == []
    # Without ECN, or on agents without the rule (Vegas), nothing is written.
    assert "old_ecn_" not in ns2.to_otcl(dumbbell())
    assert "old_ecn_" not in ns2.to_otcl(dumbbell(flows=[{"cc": "vegas"}], **ecn))


def test_cbr_over_tcp_is_a_cbr_application_on_the_agent():
    # Seed 003's Fig 8: 1 Mb/s CBR of 1000-B writes over TCP. ns-2's CBR_Traffic calls
    # TcpAgent::sendmsg(packetSize_) every 8 ms (payload bytes; the agent adds the header).
    app = {"type": "cbr", "rate": "1Mbps", "packet_size": 1000, "stop": "9s"}
    tcl = ns2.to_otcl(dumbbell(flows=[{"count": 2, "cc": "newreno", "app": app}]))
    assert tcl.count("set app [new Application/Traffic/CBR]") == 2 and "Application/FTP" not in tcl
    assert tcl.count("$app set packetSize_ 1000\n") == 2 and tcl.count("$app set rate_ 1000000\n") == 2
    assert tcl.count("$app attach-agent $tcp") == 2 and tcl.count('"$app stop"') == 2
    # Two segments per write are fine; a write that is not whole segments is refused.
    ns2.to_otcl(dumbbell(flows=[{"cc": "newreno", "app": {**app, "packet_size": 2000}}]))
    msg = refusal(dumbbell(flows=[{"cc": "newreno", "app": {**app, "packet_size": 1500}}]))
    assert "app.packet_size" in msg and "whole packets" in msg
    msg = refusal(dumbbell(flows=[{"cc": "newreno", "app": {"type": "transfer", "bytes": 10000}}]))
    assert "'transfer' over TCP" in msg


def test_equal_rate_feeders_are_noted():
    # Seed 003's dumbbell: access links at exactly the bottleneck's rate tie at its queue.
    eq = ns2.translate(dumbbell(flows=[{"count": 3, "cc": "newreno"}], bottleneck={"rate": "100Mbps", "delay": "20ms",
                                                                                  "buffer": 50}))
    ties = [n for n in eq.notes if "exactly its rate" in n]
    # The data direction (fed by the three senders' access links) and the acks' (by the
    # receivers'); an access link is fed by one link only, and not by the other access links.
    assert [n.split(":")[0] for n in ties] == ["links.bn", "links.bn_rev"], eq.notes
    assert "fed by 3 links of exactly its rate (s1, s2, s3)" in ties[0]
    assert not any("exactly its rate" in n for n in ns2.translate(dumbbell()).notes)


def test_udp_apps_other_than_cbr_and_onoff_are_refused_by_name():
    # Refused naming the app type (a probe source has no `rate` key: once a KeyError).
    sc = dumbbell(flows=[{"count": 1, "cc": "newreno"}])
    sc["dumbbell"]["flows"].append({"transport": "udp", "app": {"type": "poisson", "rate": "1Mbps"}})
    msg = refusal(sc)
    assert "app.type" in msg and "'poisson' over UDP" in msg


def test_gaimd_slowdown_rules_are_noted_unless_the_profile_sets_them():
    # ns-2's slowdown() always halves at the first decrease (ns2_compat) and keeps its
    # window arithmetic (ns2_window): a gaimd flow without them gets one note each; the ns2
    # profile sets both, leaving nothing to note.
    g = {"algorithm": "gaimd", "alpha": 0.31, "beta": 0.875}
    s = ns2.translate(dumbbell(flows=[{"cc": g}]))
    assert sorted(n.split(":")[0] for n in s.notes if "ns2_" in n.split(":")[0]) == [
        "flows.f1.cc.ns2_compat", "flows.f1.cc.ns2_window"]
    p = ns2.translate(dumbbell(flows=[{"cc": g}], profile="ns2"))
    assert not any("ns2_compat" in n or "ns2_window" in n for n in p.notes)
    assert "$tcp set decrease_num_ 0.875" in p.otcl


# -- ns-2 as an engine of `tcplab reproduce` (issue 29: the ns-2 column) ---------------------

NEEDS_NS = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 not installed (apt-get install -y ns2)")


@NEEDS_NS
def test_cbr_over_tcp_runs_at_its_rate_on_ns2():
    # Two 1 Mb/s CBR writers over TCP on a 10 Mb/s bottleneck: each delivers its rate.
    app = {"type": "cbr", "rate": "1Mbps", "packet_size": 1000}
    res = ns2.run_ns2(dumbbell(flows=[{"count": 2, "cc": "newreno", "app": app}]), seed=1)
    for f in res["flows"].values():
        assert abs(f["goodput_bps"] - 1e6) / 1e6 < 0.02, f


@NEEDS_NS
def test_ns2_result_is_tcplab_shaped(tmp_path):
    # run_ns2_result gives a Result with tcplab's interval schema and summary keys, built
    # from the same counters as run_ns2's metrics; the per-interval series adds up to the
    # steady-state goodput, and nothing exceeds the bottleneck's rate.
    from tcplab.results import INTERVAL_SCHEMA, load

    sc = dumbbell()
    res = ns2.run_ns2_result(sc, 1, tmp_path / "r")
    assert (tmp_path / "r" / "scenario.tcl").exists()
    assert dict(res.intervals.schema) == INTERVAL_SCHEMA
    flows = {f["name"]: f for f in res.summary["flows"]}
    assert set(flows) == {"f1", "f2"} and res.summary["engine"] == "ns-2.35"
    metrics = ns2.run_ns2(sc, 1)
    bn = next(lk for lk in res.summary["links"] if lk["name"] == "bn")
    total = 0.0
    for name, f in flows.items():
        assert f["goodput_bps"] == pytest.approx(metrics["flows"][name]["goodput_bps"])
        assert f["throughput_bps"] == pytest.approx(f["goodput_bps"] * 1040 / 1000)
        iv = res.intervals.filter((res.intervals["flow"] == name) & (res.intervals["t_start"] >= 4.0))
        assert iv.height == 8 and iv["goodput_bps"].mean() == pytest.approx(f["goodput_bps"])
        total += f["throughput_bps"]
    assert 0.8 * 10e6 < total <= 10e6
    assert 0.8 < bn["steady_utilization"] <= 1.0 and bn["offered"] == metrics["links"]["bn"]["arrivals"]
    j = res.summary["fairness"]["jain"]
    assert 0.5 < j <= 1.0
    res.save(tmp_path / "saved")
    assert load(tmp_path / "saved") == res


def _ns2_manifest(tmp_path: Path) -> Path:
    d = tmp_path / "paper"
    d.mkdir()
    (d / "db.toml").write_text("""
name = "two flows"
profile = "classic"
duration = "10s"
[dumbbell]
bottleneck = { rate = "10Mbps", delay = "20ms", buffer = 50 }
access = { rate = "100Mbps", delay = "1ms" }
rtt = "44ms"
flows = [{ count = 2, cc = "newreno" }]
[defaults.flows]
mss = 1000
header = 40
max_window = "100000B"
[metrics]
steady_start = "4s"
""")
    (d / "reproduce.toml").write_text("""
paper = "ns-2 engine test"
[[figure]]
id = "g"
title = "goodput vs buffer"
kind = "grid"
scenario = "db.toml"
vary = ["dumbbell.bottleneck.buffer"]
x = [20, 50]
flow = "f1"
metric = "goodput_bps"
y_scale = 1e-6
curves = [{ id = "newreno", label = "NewReno" },
          { id = "bbr", label = "BBR", set = { "dumbbell.flows" = [{ count = 2, cc = "bbr", sack = true, init_cwnd = 10 }] } }]

[[claim]]
id = "runs"
text = "NewReno's f1 gets between 1 and 10 Mb/s at 50 packets"
kind = "value"
a = { figure = "g", curve = "newreno", x = 50 }
lo = 1
hi = 10

[[claim]]
id = "vs_bbr"
text = "BBR over NewReno"
kind = "ratio"
a = { figure = "g", curve = "bbr", x = 50 }
b = { figure = "g", curve = "newreno", x = 50 }
lo = 0.1

[[claim]]
id = "highest"
text = "NewReno highest"
kind = "highest"
a = { figure = "g", curve = "newreno" }
lo = 0
""")
    return d


@NEEDS_NS
def test_reproduce_engine_ns2_and_columns(tmp_path):
    from tcplab.repro.reproduce import reproduce

    d = _ns2_manifest(tmp_path)
    df = reproduce(str(d), tmp_path / "ns2", jobs=1, engine="ns2")
    rows = {r["claim"]: r for r in df.iter_rows(named=True)}
    assert rows["runs"]["met"] is True and 1 < rows["runs"]["simulated"] < 10
    # BBR has no ns-2 agent: its claims are not run and say why, naming the key; a claim over
    # every curve of the figure ("highest") depends on BBR's runs too.
    for c in ("vs_bbr", "highest"):
        assert rows[c]["met"] is None and "flows.f1.cc" in rows[c]["note"] and "bbr" in rows[c]["note"], rows[c]
    assert not (tmp_path / "ns2" / "g" / "bbr").exists()
    md = (tmp_path / "ns2" / "report.md").read_text()
    assert "Engine: ns-2.35" in md and "1 of 3 claims met, 2 not run." in md  # one seed of a deterministic run: exact
    assert (tmp_path / "ns2" / "g" / "newreno" / "x50" / "s1" / "scenario.tcl").exists()
    # The tcplab reproduction with the ns-2 column and the ns2-profile column: the ns-2
    # column is the engine run's value, the profile column a tcplab run of its own.
    both = reproduce(str(d), tmp_path / "main", jobs=1, columns=["ns2", "ns2_profile"])
    r = {x["claim"]: x for x in both.iter_rows(named=True)}
    assert r["runs"]["ns2_simulated"] == pytest.approx(rows["runs"]["simulated"])
    assert r["vs_bbr"]["ns2_met"] is None and r["vs_bbr"]["met"] is not None
    assert r["vs_bbr"]["ns2_profile_met"] is not None
    prof = json.loads((tmp_path / "main" / "ns2_profile" / "g" / "newreno" / "x50" / "s1" / "job.json").read_text())
    assert prof["overrides"]["defaults.flows.profile"] == "ns2"
    md = (tmp_path / "main" / "report.md").read_text()
    assert "| ns2 | ns2_profile |" in md
    # resume: an ns-2 run already complete is not run again (same OTcl script)
    before = (tmp_path / "ns2" / "g" / "newreno" / "x50" / "s1" / "summary.json").stat().st_mtime_ns
    reproduce(str(d), tmp_path / "ns2", jobs=1, engine="ns2", resume=True)
    assert (tmp_path / "ns2" / "g" / "newreno" / "x50" / "s1" / "summary.json").stat().st_mtime_ns == before


def test_reproduce_engine_errors(tmp_path):
    from tcplab.repro.reproduce import reproduce
    from tcplab.scenario import ScenarioError

    with pytest.raises(ScenarioError) as e:
        reproduce("ho2011", tmp_path, engine="ns3")
    assert e.value.field == "engine" and "tcplab, ns2" in e.value.reason
    with pytest.raises(ScenarioError) as e:
        reproduce("ho2011", tmp_path, columns=["ns4"])
    assert e.value.field == "columns" and "ns2_profile" in e.value.reason
    with pytest.raises(ScenarioError) as e:  # seed 000's figures compare closed forms
        reproduce("kalampoukas97", tmp_path, engine="ns2", only=["fig2_3"])
    assert e.value.field == "engine" and "closed forms" in e.value.reason


def test_vegas_segments_carry_their_header_on_the_wire():
    # ns-2.35's VegasTcpAgent::output never adds headersize() (useHeaders_ is ignored), so
    # the translator puts the header into packetSize_ for Vegas only.
    s = ns2.translate(dumbbell(flows=[{"count": 1, "cc": {"algorithm": "vegas"}}])).otcl
    assert "$tcp set packetSize_ 1040" in s
    s = ns2.translate(dumbbell(flows=[{"count": 1, "cc": "newreno"}])).otcl
    assert "$tcp set packetSize_ 1000" in s


@NEEDS_NS
def test_vegas_in_ns2_fills_the_link_with_whole_packets(tmp_path):
    # One Vegas flow with a window far above the BDP: the bottleneck is busy all the time
    # and carries 1040-B packets, so the throughput (1040 B per acked segment) is the rate.
    sc = dumbbell(flows=[{"count": 1, "cc": {"algorithm": "vegas"}}], max_window="1000000B")
    res = ns2.run_ns2_result(sc, 1, tmp_path)
    f = res.summary["flows"][0]
    bn = next(lk for lk in res.summary["links"] if lk["name"] == "bn")
    assert bn["steady_utilization"] > 0.99
    assert 0.99 * 10e6 < f["throughput_bps"] <= 1.001 * 10e6


def outage_path(flow, intervals=(("2s", "3s"),), duration="5s"):
    """s -- r -- d: 100 Mb/s, 1 ms to the router, then a 10 Mb/s, 5 ms link whose two
    directions follow the outage schedule `h` (a list of [down, up])."""
    out = {"model": "outage", "schedule": "h"}
    return {
        "duration": duration, "seed": 3, "profile": "classic",
        "outages": {"h": {"type": "list", "intervals": [list(iv) for iv in intervals]}},
        "nodes": {"s": "host", "r": "router", "d": "host"},
        "links": {"sr": {"from": "s", "to": "r", "rate": "100Mbps", "delay": "1ms"},
                  "rs": {"from": "r", "to": "s", "rate": "100Mbps", "delay": "1ms"},
                  "rd": {"from": "r", "to": "d", "rate": "10Mbps", "delay": "5ms", "error": out},
                  "dr": {"from": "d", "to": "r", "rate": "10Mbps", "delay": "5ms", "error": out}},
        "flows": {"f": {"from": "s", "to": "d", **flow}},
        "metrics": {"interval": "0.5s"},
    }


def test_outage_schedule_lines():
    # The ErrorModel after the link is asked when a packet reaches the far end: tcplab's
    # [down, up) becomes [down + delay, up + delay + T), T the transmission time of the
    # largest packet crossing the direction: r -> d carries 1040-B segments (832 us at
    # 10 Mb/s), d -> r 40-B acks (32 us). [2, 3) and [3, 3.5) touch: one ns-2 interval. The
    # last outage [5, 7) is cut at the run's end (6 s): rate_ never goes back.
    sc = outage_path({"mss": 1000, "header": 40, "ack_size": 40},
                     intervals=(("2s", "3s"), ("3s", "3.5s"), ("5s", "7s")), duration="6s")
    s = ns2.translate(sc)
    assert s.outages == {"h": [[2.0, 3.0], [3.0, 3.5], [5.0, 6.0]]}
    tcl = s.otcl
    # nodes by name: d = 0, r = 1, s = 2; links by name: dr = 0, rd = 1
    assert "$ns link-lossmodel $em(0) $n(0) $n(1)" in tcl and "$ns link-lossmodel $em(1) $n(1) $n(0)" in tcl
    toggles = [ln for ln in tcl.splitlines() if ln.startswith("$ns at") and "$em(" in ln]
    assert toggles == [
        '$ns at 2.005 "$em(0) set rate_ 1"', '$ns at 3.505032 "$em(0) set rate_ 0"', '$ns at 5.005 "$em(0) set rate_ 1"',
        '$ns at 2.005 "$em(1) set rate_ 1"', '$ns at 3.505832 "$em(1) set rate_ 0"', '$ns at 5.005 "$em(1) set rate_ 1"',
    ]
    assert "$em(0) set rate_ 0" in tcl and "$em(1) set rate_ 0" in tcl  # up at the start
    assert any(n.startswith("outages.h: ns-2 loses what arrives") for n in s.notes)
    # No [outages]: nothing of the kind.
    assert ns2.translate(dumbbell()).outages == {}
    with pytest.raises(ScenarioError):  # tcplab refuses a schedule that does not exist
        ns2.translate({**sc, "links": {**sc["links"], "rd": {**sc["links"]["rd"], "error": {"model": "outage",
                                                                                          "schedule": "x"}}}})


def test_outage_periods_are_tcplabs():
    # Exponential lengths (mean 1 s, capped at the 5-s period) from the schedule's own stream:
    # the translator plays the periods tcplab's run of the same seed reports, a different
    # seed gives others. A second schedule sorted before it moves it to stream index 1
    # (docs/scenarios.md): other periods, still tcplab's.
    from tcplab.runner import run

    sc = outage_path({"mss": 1000, "header": 40, "ack_size": 40}, duration="30s")
    sc["outages"] = {"h": {"type": "periodic", "period": "5s", "mean": "1s"}}
    got = ns2.translate(sc, seed=7).outages["h"]
    want = run(sc, seed=7, progress=False).summary["outages"]["h"]["periods"]
    assert got == want and len(got) == 5 and got[0][0] == 5.0 and got[0][1] > 5.0
    assert ns2.translate(sc, seed=8).outages["h"] != got
    sc["outages"]["a"] = {"type": "list", "intervals": [["1s", "2s"]]}
    got2 = ns2.translate(sc, seed=7).outages
    assert got2["a"] == [[1.0, 2.0]] and got2["h"] != got
    assert got2["h"] == run(sc, seed=7, progress=False).summary["outages"]["h"]["periods"]


@NEEDS_NS
def test_outage_in_ns2_stops_the_link(tmp_path):
    # A 4-Mb/s CBR stream across a link down in [2, 3): ns-2 delivers the same packets as
    # tcplab (whose rule is the transmission overlapping the down period), nothing in the
    # 0.5-s intervals inside the outage, the full rate outside it. A TCP flow: no goodput
    # while the link is down (both engines), goodput again after it.
    udp = outage_path({"transport": "udp", "app": {"type": "cbr", "rate": "4Mbps", "start": "0.0003s",
                                                   "packet_size": 1000}})
    a, b = ns2.run_both(udp, 3, tmp_path / "u")
    assert a["flows"]["f"]["data_packets"] == b["flows"]["f"]["data_packets"]
    # Datagrams leave s at 0.0003 + 0.002 k s; one takes 82.24 us + 1 ms to r, then r -> d
    # transmits it in [gen + 1.08224 ms, gen + 1.90464 ms) and it arrives 5 ms later. 2497
    # arrive before 5 s (k <= 2496); the transmission overlaps [2, 3) for k = 999 ... 1499.
    assert a["flows"]["f"]["data_packets"] == 2497 - 501
    res = ns2.run_ns2_result(udp, 3, tmp_path / "u2")
    g = {round(t, 1): x for t, x in res.intervals.select("t_start", "goodput_bps").iter_rows()}
    assert g[2.5] == 0 and g[1.5] == g[3.5] == 4e6
    assert res.summary["outages"] == {"h": {"periods": [[2.0, 3.0]], "truncated": False}}
    tcp = ns2.run_ns2_result(outage_path({"mss": 1000, "header": 40, "ack_size": 40}), 3, tmp_path / "t")
    g = {round(t, 1): x for t, x in tcp.intervals.select("t_start", "goodput_bps").iter_rows()}
    assert g[2.0] == g[2.5] == 0 and g[1.0] > 5e6 and g[4.5] > 5e6


@NEEDS_NS
def test_ns2_result_has_fast_retransmits_and_srtt(tmp_path):
    # Two NewReno flows on a 10 Mb/s bottleneck with a 50-packet buffer: drop-tail losses
    # give fast retransmits (ncwndcuts1_ - nrexmit_ - necnresponses_), and the interval srtt
    # sits between the base RTT (44 ms) and the base RTT plus a full buffer (44 + 40 ms).
    res = ns2.run_ns2_result(dumbbell(), seed=1, out_dir=tmp_path)
    flows = res.summary["flows"]
    assert all(f["fast_retransmits"] >= 1 for f in flows), flows
    raw = json.loads((tmp_path / "ns2_result.json").read_text())["flows"]
    assert all(f["fast_retransmits"] == raw[str(i)]["cuts1"] - raw[str(i)]["timeouts"] - raw[str(i)]["ecn_cuts"]
               for i, f in enumerate(flows))
    s = res.intervals.filter(pl.col("t_start") >= 4)["srtt_s"]
    assert s.null_count() == 0 and not s.is_nan().any()
    assert 0.044 <= s.min() and s.max() <= 0.044 + 0.041, (s.min(), s.max())
    mean = res.intervals.filter(pl.col("t_start") >= 3.999)
    for f in flows:
        want = mean.filter(pl.col("flow") == f["name"])["srtt_s"].mean()
        assert f["mean_rtt_s"] == pytest.approx(want, rel=1e-12), f
    # Agents that do not cut through slowdown() (Vegas) report none.
    v = ns2.run_ns2_result(dumbbell(flows=[{"cc": "vegas"}]), seed=1)
    assert "fast_retransmits" not in v.summary["flows"][0]

"""`profile = "ns2"` and the ns-2 behaviour keys (docs/tcp.md, "The `ns2` profile")."""

from __future__ import annotations

from typing import Any

import pytest

import tcplab
from tcplab import Scenario


def _lossy(flow: dict[str, Any], duration: str = "20s", loss: float = 0.01) -> dict[str, Any]:
    """One flow over 10 Mb/s, 50 ms, Bernoulli loss on the forward link; tcplab's
    ``classic`` keys where the flow names no profile."""
    return {
        "duration": duration,
        "profile": "classic",
        "nodes": {"a": "host", "b": "host"},
        "links": {
            "ab": {
                "from": "a",
                "to": "b",
                "rate": "10Mbps",
                "delay": "25ms",
                "queue": {"type": "droptail", "limit": 100},
                "loss": loss,
            },
            "ba": {"from": "b", "to": "a", "rate": "10Mbps", "delay": "25ms"},
        },
        "flows": {"f": {"from": "a", "to": "b", "max_window": "100KiB", **flow}},
        "metrics": {"steady_start": "0.5s"},
    }


def test_ns2_profile_expands_to_ns2_defaults() -> None:
    sc = Scenario.from_dict(_lossy({"profile": "ns2", "cc": "reno"})).expand().to_dict()
    f = sc["flows"]["f"]
    assert "profile" not in f
    want = {
        "mss": 1000, "header": 40, "ack_size": 40, "init_cwnd": 2, "rto_initial": "3s",
        "rto_min": "200ms", "rto_tick": "10ms", "syn": True, "bugfix": True,
        "ssthresh_basis": "window", "rto_restart_on_fast_retransmit": True,
        "partial_ack_timer": "first", "limited_transmit": True,
        "sack": False, "ece_increase": False,
    }  # fmt: skip
    assert {k: f[k] for k in want} == want
    # ns-2's sinks echo the segment that triggers an ack; Agent/TCP/Linux runs with RFC
    # 1323 echoes (tcplab's default, earliest).
    assert f["delack_echo"] == "latest"
    cubic = Scenario.from_dict(_lossy({"profile": "ns2", "cc": "cubic", "sack": True})).expand().to_dict()
    assert "delack_echo" not in cubic["flows"]["f"]
    # ns-2's Vegas agent sends packetSize_ bytes on the wire, no header added.
    vegas = Scenario.from_dict(_lossy({"profile": "ns2", "cc": "vegas"})).expand().to_dict()["flows"]["f"]
    assert vegas["header"] == 0 and vegas["delack_echo"] == "latest"
    # Reno's agent has no recovery cap; NewReno's sends at most 2 segments per ack.
    assert "recovery_burst" not in f
    nr = Scenario.from_dict(_lossy({"profile": "ns2", "cc": "newreno"})).expand().to_dict()["flows"]["f"]
    assert nr["recovery_burst"] == 2
    # The scenario's own keys win.
    assert f["cc"] == "reno" and f["max_window"] == "100KiB"


def test_sack_over_the_ns2_profile_drops_reno_recovery_keys() -> None:
    sc = Scenario.from_dict(_lossy({"profile": "ns2", "sack": True})).expand().to_dict()
    f = sc["flows"]["f"]
    for k in ("bugfix", "limited_transmit", "recovery_burst"):
        assert k not in f
    assert f["syn"] is True
    # ns-2's Sack1: RFC 6675-style recovery without PRR, which the translator maps to it.
    assert (f["recovery"], f["prr"]) == ("rfc6675", "off")
    tcplab.run(Scenario.from_dict(sc), progress=False)  # builds and runs
    from tcplab import ns2

    assert "Agent/TCP/Sack1" in ns2.to_otcl(sc)


@pytest.mark.parametrize("cc", ["cubic", "scalable", {"algorithm": "westwood", "estimator": "plus"}])
def test_ns2_profile_gives_linux_agent_flows_its_scoreboard_and_timer(cc: Any) -> None:
    """CUBIC, Scalable and Westwood+ run on ns-2's Agent/TCP/Linux: FACK with lost
    retransmissions found (tcp/scoreboard1.cc) and the timer re-armed on every ack; the
    other agents keep duplicate-ack detection and RFC 6298's timer."""
    sc = Scenario.from_dict(_lossy({"profile": "ns2", "sack": True, "cc": cc}))
    f = sc.expand().to_dict()["flows"]["f"]
    assert f["loss_detection"] == "fack" and f["rto_restart_on_dupack"] is True
    # LinuxTcpAgent::send_much rate-halves (next_pkts_in_flight_).
    assert f["prr"] == "rate_halving"
    # ...and tcp_fastretrans_alert clears the scoreboard when the ack reaches recover_.
    assert f["sack_clear_at_exit"] is True
    if cc == "scalable":
        assert f["cc"]["linux_count"] is True and f["cc"]["linux_min_cwnd"] is True
    tcplab.run(sc, progress=False)  # builds and runs
    from tcplab import ns2

    script = ns2.translate(sc, ns2_defaults=True)
    assert script.agents["f"] == "Agent/TCP/Linux"
    assert not any(k in n for n in script.notes
                   for k in ("loss_detection", "rto_restart_on_dupack", ".prr", "linux_min_cwnd",
                             "sack_clear_at_exit"))
    # A flow that writes prr = "off" keeps it, with a note naming what ns-2 does instead.
    off = Scenario.from_dict(_lossy({"profile": "ns2", "sack": True, "prr": "off", "cc": cc}))
    assert off.expand().to_dict()["flows"]["f"]["prr"] == "off"
    assert any("flows.f.prr" in n and "rate_halving" in n for n in ns2.translate(off, ns2_defaults=True).notes)
    other = Scenario.from_dict(_lossy({"profile": "ns2", "sack": True, "cc": "newreno"})).expand().to_dict()
    assert other["flows"]["f"]["loss_detection"] == "dupack"
    assert "rto_restart_on_dupack" not in other["flows"]["f"]
    assert "sack_clear_at_exit" not in other["flows"]["f"]


def test_ns2_profile_gives_vegas_ns2s_window_rules() -> None:
    """A Vegas flow under ``ns2`` runs VegasTcpAgent::recv's window rules (tcp-vegas.cc); the
    paper's rules translate with a note, and the 7/8 cut at slow-start exit, which ns-2.35
    has, is no longer refused."""
    from tcplab import ns2

    sc = Scenario.from_dict(_lossy({"profile": "ns2", "cc": "vegas"}))
    f = sc.expand().to_dict()["flows"]["f"]
    assert f["cc"]["rules"] == "ns2"
    res = tcplab.run(sc, progress=False)
    assert res.summary["flows"][0]["goodput_bps"] > 0
    assert not any(".cc.rules" in n for n in ns2.translate(sc, ns2_defaults=True).notes)
    paper = Scenario.from_dict(_lossy({"profile": "ns2", "cc": {"algorithm": "vegas", "rules": "paper",
                                                                "ss_exit_cut": True}}))
    assert any("flows.f.cc.rules" in n for n in ns2.translate(paper, ns2_defaults=True).notes)
    # A flow that asks for what ns-2's rules exclude keeps the paper's, under the profile too.
    alt = Scenario.from_dict(_lossy({"profile": "ns2", "cc": {"algorithm": "vegas", "alt": True}}))
    assert alt.expand().to_dict()["flows"]["f"]["cc"].get("rules", "paper") == "paper"
    tcplab.run(alt, progress=False)
    with pytest.raises(Exception, match="flows.f.cc.ss_exit_cut"):
        tcplab.run(Scenario.from_dict(_lossy({"profile": "ns2", "cc": {"algorithm": "vegas", "rules": "ns2",
                                                                       "ss_exit_cut": True}})), progress=False)


def test_fack_and_the_dupack_timer_are_refused_on_other_ns2_agents() -> None:
    from tcplab import ns2

    for key, value in (("loss_detection", "fack"), ("rto_restart_on_dupack", True), ("sack_clear_at_exit", True)):
        sc = Scenario.from_dict(_lossy({"profile": "ns2", "sack": True, "cc": "newreno", key: value}))
        tcplab.run(sc, progress=False)  # tcplab runs it
        with pytest.raises(ns2.Ns2Unsupported) as e:
            ns2.translate(sc)
        assert key in str(e.value) and "Agent/TCP/Linux" in str(e.value)


@pytest.mark.parametrize(
    ("flow", "field", "says"),
    [
        ({"sack": True, "bugfix": True}, "flows.f.bugfix", "Reno/NewReno recovery only"),
        ({"sack": True, "limited_transmit": True}, "flows.f.limited_transmit", "Reno/NewReno"),
        ({"sack": True, "recovery_burst": 2}, "flows.f.recovery_burst", "Reno/NewReno"),
        ({"sack": True, "loss_detection": "rack", "syn": True}, "flows.f.syn", "rack"),
        ({"sack": True, "loss_detection": "rack", "rto_restart_on_fast_retransmit": True}, "flows.f.rto_restart_on_fast_retransmit", "rack"),
        ({"sack": True, "loss_detection": "rack", "syn": False, "rto_restart_on_fast_retransmit": False,
          "rto_restart_on_dupack": True}, "flows.f.rto_restart_on_dupack", "rack"),
        ({"sack": False, "loss_detection": "fack"}, "flows.f.loss_detection", "needs SACK recovery"),
        ({"sack": True, "loss_detection": "rack", "prr": "rate_halving"}, "flows.f.prr", "not with loss_detection"),
        ({"sack": False, "prr": "rate_halving"}, "flows.f.prr", "SACK recovery only"),
        ({"sack": False, "sack_clear_at_exit": True}, "flows.f.sack_clear_at_exit", "SACK recovery only"),
        ({"sack": True, "loss_detection": "rack", "sack_clear_at_exit": True}, "flows.f.sack_clear_at_exit", "rack"),
        ({"rto_tick": "0s"}, "flows.f.rto_tick", "above 0"),
        ({"rto_tick": "2s"}, "flows.f.rto_tick", "at most 1 s"),
        ({"ssthresh_basis": "half"}, "flows.f.ssthresh_basis", "flightsize"),
        ({"cc": "cubic", "ece_increase": False}, "flows.f.ece_increase", "reno, newreno, gaimd and highspeed"),
        ({"cc": "vegas", "ece_increase": False}, "flows.f.ece_increase", "reno, newreno, gaimd and highspeed"),
    ],
)  # fmt: skip
def test_bad_ns2_keys_name_the_field(flow: dict[str, Any], field: str, says: str) -> None:
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(Scenario.from_dict(_lossy(flow, "1s")), progress=False)
    assert e.value.field == field, str(e.value)
    assert says in e.value.reason


def test_syn_puts_a_header_sized_packet_first_and_delays_data_one_round_trip() -> None:
    plain = tcplab.run(Scenario.from_dict(_lossy({}, "1s", 0.0)), progress=False)
    syn = tcplab.run(Scenario.from_dict(_lossy({"syn": True}, "1s", 0.0)), progress=False)
    lp = plain.links.filter(plain.links["name"] == "ab").row(0, named=True)
    ls = syn.links.filter(syn.links["name"] == "ab").row(0, named=True)
    fp, fs = plain.flows.row(0, named=True), syn.flows.row(0, named=True)
    # Full 1500-byte segments only, plus one 40-byte SYN.
    assert lp["tx_data_bytes"] % 1500 == 0
    assert ls["tx_data_bytes"] % 1500 == 40
    # Data start one round trip (50 ms) later: less sent in a second of slow start.
    assert fs["segments_sent"] < fp["segments_sent"]
    assert fs["timeouts"] == 0 and fs["retransmits"] == 0


def test_reno_bugfix_trades_second_fast_retransmits_for_timeouts() -> None:
    """ns-2's Agent/TCP/Reno (`bugFix_ true`): a second loss in one window waits for the
    timer instead of a second fast retransmit and halving (issue 28: 56 against 12 timeouts
    per flow in ns-2's runs)."""
    runs = {}
    for bugfix in (False, True):
        res = tcplab.run(Scenario.from_dict(_lossy({"cc": "reno", "bugfix": bugfix}, "30s", 0.02)), progress=False)
        runs[bugfix] = res.flows.row(0, named=True)
    assert runs[True]["timeouts"] > runs[False]["timeouts"]
    assert runs[True]["fast_retransmits"] < runs[False]["fast_retransmits"]


@pytest.mark.parametrize(
    ("flow", "old", "key"),
    [
        ({"cc": {"algorithm": "westwood", "estimator": "plus"}}, {"plus_rules": "ns2"}, "cc"),
        ({"cc": {"algorithm": "gaimd", "alpha": 0.31, "beta": 0.875}}, {"ns2_compat": True, "ns2_window": True}, "cc"),
        ({"cc": {"algorithm": "highspeed"}}, {"ns2_compat": True}, "cc"),
        (
            {"transport": "udp", "app": {"type": "onoff", "rate": "3Mbps", "on": "0.5s", "off": "0.5s"}},
            {"semantics": "ns2"},
            "app",
        ),
    ],
)
def test_compat_ns2_is_the_old_keys_rule_set(flow: dict[str, Any], old: dict[str, Any], key: str) -> None:
    """`compat = "ns2"` (the one spelling the ns2 profile writes) runs exactly as the keys it
    stands for, and differs from neither being set."""

    def goodputs(extra: dict[str, Any]) -> list[float]:
        f = {**flow, key: {**flow[key], **extra}}
        res = tcplab.run(Scenario.from_dict(_lossy(f, duration="15s", loss=0.02)), progress=False)
        return [fl["goodput_bps"] for fl in res.summary["flows"]]

    compat = goodputs({"compat": "ns2"})
    assert compat == goodputs(old)
    assert compat != goodputs({})

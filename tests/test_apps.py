"""UDP flows, active sources and flow schedules through the Python API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

import tcplab
from tcplab import Scenario

MIXED: dict[str, Any] = {
    "duration": "10s",
    "nodes": {"a": "host", "b": "host"},
    "links": {
        "ab": {"from": "a", "to": "b", "rate": "10Mbps", "delay": "10ms"},
        "ba": {"from": "b", "to": "a", "rate": "10Mbps", "delay": "10ms"},
    },
    "flows": {
        "tcp": {"from": "a", "to": "b", "app": {"type": "cbr", "rate": "1Mbps", "packet_size": 1000}},
        "u0": {"from": "b", "to": "a", "transport": "udp", "app": {"type": "cbr", "rate": "1Mbps"}},
        "u1": {"from": "b", "to": "a", "transport": "udp", "app": {"type": "cbr", "rate": "1Mbps"}},
    },
    "schedules": {"g": {"flows": ["u0", "u1"], "active": [["0s", 1], ["4s", 2], ["6s", 0]]}},
}


def test_udp_and_tcp_flows_in_one_frame() -> None:
    res = tcplab.run(Scenario.from_dict(MIXED), progress=False)
    f = res.flows.sort("name")
    assert f["name"].to_list() == ["tcp", "u0", "u1"]
    assert f["transport"].to_list() == [None, "udp", "udp"]
    assert f["cc"].to_list() == ["cubic", None, None]  # a TCP flow that names no cc: the default profile's
    # u0 runs 0-6 s, u1 4-6 s: one 1000-B datagram per 8 ms.
    assert f["packets_sent"].to_list() == [None, 750, 250]
    assert f["loss_fraction"].to_list()[1:] == [0.0, 0.0]
    assert f["retransmits"].to_list()[0] == 0
    sched = res.schedules
    assert sched.schema["active"] == pl.Int64
    assert sched["t_s"].to_list() == [0.0, 4.0, 6.0]
    assert sched["active"].to_list() == [1, 2, 0]


def test_bad_transport_names_the_field() -> None:
    bad = {**MIXED, "flows": {**MIXED["flows"], "tcp": {**MIXED["flows"]["tcp"], "transport": "quic"}}}
    try:
        tcplab.run(Scenario.from_dict(bad), progress=False)
    except tcplab.ScenarioError as e:
        assert "flows.tcp.transport" in str(e)
    else:
        raise AssertionError("accepted transport = 'quic'")


def test_vbr_background_example_runs() -> None:
    from conftest import REPO

    sc = Scenario.from_toml(REPO / "examples" / "vbr_background.toml").with_overrides({"duration": "20s"})
    res = tcplab.run(sc, progress=False)
    udp = res.flows.filter(pl.col("transport") == "udp")
    assert udp["name"].to_list() == ["vbr1", "vbr2", "vbr3"]
    # Each source draws its own periods: the three send different amounts.
    assert len(set(udp["packets_sent"].to_list())) == 3
    # The playback flow (1 Mb/s from 20 s) has not started in a 20-s run.
    assert res.flows.filter(pl.col("name") == "playback")["bytes_delivered"].item() == 0


def test_udp_datagrams_in_pcap_are_udp(tmp_path: Path) -> None:
    scapy_all = pytest.importorskip("scapy.all")
    d = {**MIXED, "links": {**MIXED["links"], "ba": {**MIXED["links"]["ba"], "pcap": "ba.pcap"}}}
    res = tcplab.run(Scenario.from_dict(d), progress=False, pcap_dir=tmp_path)
    pkts = scapy_all.rdpcap(str(tmp_path / "ba.pcap"))
    udp = [p for p in pkts if p.haslayer(scapy_all.UDP)]
    tcp = [p for p in pkts if p.haslayer(scapy_all.TCP)]
    sent = res.flows.filter(pl.col("transport") == "udp")["packets_sent"].sum()
    # Every datagram of u0/u1 left on b->a (all before the end); the rest are the TCP acks.
    assert len(udp) == sent == 1000
    assert len(tcp) == len(pkts) - len(udp) > 0
    p = udp[0]
    assert p[scapy_all.IP].proto == 17 and p[scapy_all.IP].len == 1028
    assert p[scapy_all.UDP].dport == 5001 and p[scapy_all.UDP].len == 1008

"""UDP flows, active sources and flow schedules through the Python API."""

from __future__ import annotations

from typing import Any

import polars as pl

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
    assert f["cc"].to_list() == ["newreno", None, None]
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

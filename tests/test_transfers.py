"""Transfers that end (``fin``): the last segment of a finite transfer carries a FIN, which
the receiver acknowledges at once, so that no completion waits for the delayed-ack timer;
and the ``ns3`` profile's NextSeg rule 3."""

from __future__ import annotations

from typing import Any

import pytest

import tcplab
from tcplab import Scenario


def _transfer(profile: str, nbytes: int, **flow: Any) -> Scenario:
    return Scenario.from_dict({
        "profile": profile, "duration": "2s",
        "nodes": {"a": "host", "b": "host"},
        "links": {"ab": {"from": "a", "to": "b", "rate": "10Mbps", "delay": "2ms", "duplex": True}},
        "flows": {"x": {"from": "a", "to": "b", "app": {"type": "transfer", "bytes": nbytes}, **flow}},
    })  # fmt: skip


SIZES = [7123, 30000, 60123, 100000, 100500]


@pytest.mark.parametrize("profile", ["linux", "ns3", "rfc"])
def test_profiles_of_todays_stacks_end_transfers_with_a_fin(profile: str) -> None:
    """Without the FIN, a transfer whose last segment is the odd one (after quick-ack mode,
    under linux) waits for the delayed-ack timer (40 ms under linux, 200 ms under ns3 and
    rfc); with it, no size does: each completes about when its bytes and a round trip
    allow (10 Mb/s, 4-ms base round trip; ns3 adds its SYN's round trip)."""
    timer = {"linux": 0.040, "ns3": 0.200, "rfc": 0.200}[profile]
    waited = 0
    for n in SIZES:
        sc = _transfer(profile, n, syn=(profile == "ns3"))
        assert sc.expand().to_dict()["flows"]["x"]["fin"] is True
        with_fin = tcplab.run(sc, progress=False).summary["flows"][0]["completed_at_s"]
        without = tcplab.run(sc.with_overrides({"flows.x.fin": False}), progress=False).summary["flows"][0]
        gap = without["completed_at_s"] - with_fin
        assert gap > -1e-9, (n, with_fin, without)
        assert gap < 1e-9 or gap > 0.9 * timer, (n, gap)
        waited += gap > 0.9 * timer
        # Slow start over a 4-ms round trip: at most a few round trips beyond the bytes' time.
        assert with_fin < n * 8 / 10e6 * 1.2 + 0.03, (n, with_fin)
    assert waited >= 1, "no size ended on an odd segment: the case needs one"


@pytest.mark.parametrize("profile", ["classic", "ns2"])
def test_the_papers_profiles_send_no_fin(profile: str) -> None:
    assert _transfer(profile, 5000).expand().to_dict()["flows"]["x"]["fin"] is False


def test_ns3_profile_has_nextseg_rule3_unless_the_flow_rules_it_out() -> None:
    def flow(**kw: Any) -> dict[str, Any]:
        return _transfer("ns3", 5000, **kw).expand().to_dict()["flows"]["x"]

    assert flow()["nextseg_rule3"] is True  # ns-3's TcpTxBuffer::NextSeg keeps a rule-3 candidate
    assert "nextseg_rule3" not in flow(sack=False)
    assert "nextseg_rule3" not in flow(recovery="newreno")
    assert "nextseg_rule3" not in flow(loss_detection="rack")
    for kw in ({"sack": False}, {"recovery": "newreno"}, {"loss_detection": "rack"}):
        tcplab.run(_transfer("ns3", 5000, **kw), progress=False)  # each builds and runs
    assert "nextseg_rule3" not in _transfer("linux", 5000).expand().to_dict()["flows"]["x"]


def test_a_fin_shows_in_the_pcap(tmp_path: Any) -> None:
    scapy = pytest.importorskip("scapy.all")
    sc = _transfer("linux", 2500).with_overrides({"links.ab.pcap": "ab.pcap"})
    tcplab.run(sc, progress=False, pcap_dir=tmp_path)
    # Direction a -> b carries the data segments only (headers are captured, not payloads).
    data = [p for p in scapy.rdpcap(str(tmp_path / "ab.pcap")) if p.haslayer("TCP")]
    assert len(data) == 2
    fins = [bool(p["TCP"].flags & 0x01) for p in data]
    assert fins[-1] and not any(fins[:-1]), fins

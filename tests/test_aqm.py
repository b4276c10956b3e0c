"""Queues that mark (RED, RED-I, step marking), ECN, and the tagged registries' errors,
through the Python API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import tcplab
from conftest import REPO, CliRunner
from tcplab import Scenario


def _two_hosts(queue: dict[str, Any], flow: dict[str, Any], duration: str = "30s") -> dict[str, Any]:
    return {
        "duration": duration,
        "nodes": {"a": "host", "b": "host"},
        "links": {
            "ab": {"from": "a", "to": "b", "rate": "10Mbps", "delay": "20ms", "queue": queue},
            "ba": {"from": "b", "to": "a", "rate": "10Mbps", "delay": "20ms"},
        },
        "flows": {"f": {"from": "a", "to": "b", "init_cwnd": 10, **flow}},
        "metrics": {"steady_start": "5s"},
    }


RED_I = {"type": "red_i", "min_th": 20, "max_th": 60, "limit": 300}


def test_ecn_flow_over_red_i_is_marked_not_dropped() -> None:
    res = tcplab.run(Scenario.from_dict(_two_hosts(RED_I, {"ecn": True})), progress=False)
    link = res.links.filter(res.links["name"] == "ab").row(0, named=True)
    flow = res.flows.row(0, named=True)
    assert link["queue"] == "red_i"
    assert link["drops"] == 0 and link["marks"] > 0
    assert flow["ce_marks"] == link["marks"]
    assert flow["ecn_reductions"] > 0 and flow["retransmits"] == 0
    assert flow["efficiency"] >= 0.95
    assert res.summary["warnings"] == []


def test_same_flow_without_ecn_is_dropped_early() -> None:
    res = tcplab.run(Scenario.from_dict(_two_hosts(RED_I, {})), progress=False)
    link = res.links.filter(res.links["name"] == "ab").row(0, named=True)
    assert link["marks"] == 0
    assert link["drops"] == link["drops_early"] + link["drops_forced"] + link["drops_overflow"]
    assert link["drops_early"] > 0


def test_marks_and_drops_in_event_trace() -> None:
    sc = _two_hosts(RED_I, {"ecn": True}, duration="10s")
    sc["metrics"]["events"] = ["mark"]
    res = tcplab.run(Scenario.from_dict(sc), progress=False)
    ev = res.events
    marks = ev.filter(ev["event"] == "mark")
    assert marks.height == res.links.filter(res.links["name"] == "ab")["marks"][0]
    assert set(marks["reason"].to_list()) <= {"early", "forced"}
    assert set(marks["phase"].to_list()) == {"enqueue"}, "RED decides at arrival"


def test_ecn_without_a_marking_queue_warns() -> None:
    res = tcplab.run(Scenario.from_dict(_two_hosts({"type": "droptail"}, {"ecn": True}, "10s")), progress=False)
    assert any("'f' has ecn = true" in w for w in res.summary["warnings"])


@pytest.mark.parametrize(
    ("queue", "flow", "field", "says"),
    [
        ({"type": "red_i", "min_th": 20, "max_th": 10}, {}, "links.ab.queue.max_th", "greater than min_th"),
        ({"type": "red", "min_th": 2, "max_th": 10, "w_q": "slow"}, {}, "links.ab.queue.w_q", "(0, 1], \"auto\""),
        ({"type": "red", "min_th": 2, "max_th": 10, "mark_threshold": 3}, {}, "links.ab.queue.mark_threshold", "not a parameter of 'red'"),
        ({"type": "redd"}, {}, "links.ab.queue.type", "unknown type 'redd'"),
        ({"type": "droptail", "limit": 1.5}, {}, "links.ab.queue.limit", "floating point"),
        ({"type": "droptail"}, {"cc": {"algorithm": "reno", "alpha": 2}}, "flows.f.cc.alpha", "not a parameter of 'reno'"),
        ({"type": "droptail"}, {"cc": {"algorithm": "gaimd", "gamma": 2}}, "flows.f.cc.gamma", "not a parameter of 'gaimd'"),
        ({"type": "droptail"}, {"ecn_echo": "per_mark"}, "flows.f.ecn_echo", "needs ecn = true"),
        ({"type": "droptail"}, {"ecn": True, "ecn_echo": "sometimes"}, "flows.f.ecn_echo", "unknown variant"),
    ],
)  # fmt: skip
def test_bad_queue_and_cc_parameters_name_the_leaf(
    queue: dict[str, Any], flow: dict[str, Any], field: str, says: str
) -> None:
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(Scenario.from_dict(_two_hosts(queue, flow, "1s")), progress=False)
    assert e.value.field == field, str(e.value)
    assert says in e.value.reason
    assert "\n" not in str(e.value)


def test_cli_set_reaches_a_queue_leaf(cli: CliRunner, tmp_path: Path) -> None:
    ex = REPO / "examples" / "red_ecn.toml"
    r = cli("validate", ex, "--set", "links.bn.queue.max_th=10")
    assert r.returncode == 2
    assert "links.bn.queue.max_th: must be greater than min_th (20)" in r.stderr
    r = cli("run", ex, "--out", tmp_path, "--set", "duration=15s", "--set", "metrics.steady_start=5s", "--quiet")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "summary.json").read_text())
    bn = next(link for link in s["links"] if link["name"] == "bn")
    assert bn["marks"] > 0 and bn["drops_overflow"] == 0
    flows = {f["name"]: f for f in s["flows"]}
    assert flows["plain"]["ce_marks"] == 0 and flows["ecn1"]["ce_marks"] > 0
    assert (tmp_path / "events.parquet").exists()


def test_ecn_marks_and_echoes_are_visible_in_pcap(tmp_path: Path) -> None:
    """CE on the marked data packets after the bottleneck, ECE on the acks, CWR on the
    sender's next segment: read back from the pcap files with scapy."""
    scapy_inet = pytest.importorskip("scapy.layers.inet")
    from scapy.utils import rdpcap

    sc = _two_hosts(RED_I, {"ecn": True}, duration="10s")
    sc["links"]["ab"]["pcap"] = "ab.pcap"
    sc["links"]["ba"]["pcap"] = "ba.pcap"
    res = tcplab.run(Scenario.from_dict(sc), pcap_dir=tmp_path, progress=False)
    ab = res.links.filter(res.links["name"] == "ab").row(0, named=True)
    flow = res.flows.row(0, named=True)
    IP, TCP = scapy_inet.IP, scapy_inet.TCP
    data = [p for p in rdpcap(str(tmp_path / "ab.pcap")) if IP in p]
    acks = [p for p in rdpcap(str(tmp_path / "ba.pcap")) if IP in p]
    ce = sum(1 for p in data if p[IP].tos & 0b11 == 0b11)
    ect = sum(1 for p in data if p[IP].tos & 0b11 == 0b10)
    # The queue marks at admission and every admitted packet of a 10-s run starts its
    # transmission before the end except those still queued then (at most the limit).
    assert 0 < ce <= ab["marks"] and ab["marks"] - ce <= 300
    assert ect + ce == len(data), "every data packet of an ECN flow is ECN-capable"
    ece = sum(1 for p in acks if p[TCP].flags & 0x40)
    cwr = sum(1 for p in data if p[TCP].flags & 0x80)
    # Acks are captured as they leave the receiver: those still on the way at the end are
    # in the file but not yet counted by the sender.
    assert flow["ece_acks"] > 0 and 0 <= ece - flow["ece_acks"] <= 50
    # One CWR per reduction, on the next new segment (the last one may not be sent yet).
    assert flow["ecn_reductions"] - 1 <= cwr <= flow["ecn_reductions"]

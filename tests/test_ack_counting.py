"""`ack_counting` and `quickack`: errors naming the field, the linux profile, the example."""

from __future__ import annotations

import pytest

import tcplab
from conftest import REPO
from tcplab import Scenario, ScenarioError

EXAMPLE = REPO / "examples" / "ack_counting.toml"


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"flows.seg.ack_counting": "bytes"}, "flows.seg.ack_counting"),
        ({"flows.ack.quickack": -1}, "flows.ack.quickack"),
    ],
)
def test_bad_values_name_the_field(overrides: dict[str, object], field: str) -> None:
    with pytest.raises(ScenarioError) as ei:
        Scenario.from_toml(EXAMPLE).with_overrides(overrides).validate()
    assert field in str(ei.value)


def test_linux_profile_counts_segments_with_quick_acks() -> None:
    sc = Scenario.from_dict({
        "duration": "1s",
        "nodes": {"a": "host", "b": "host"},
        "links": {"ab": {"from": "a", "to": "b", "rate": "10Mbps", "delay": "10ms", "duplex": True}},
        "flows": {"l": {"from": "a", "to": "b", "profile": "linux"},
                  "n": {"from": "a", "to": "b", "profile": "ns3"},
                  "own": {"from": "a", "to": "b", "profile": "linux", "ack_counting": "acks"}},
    })  # fmt: skip
    flows = sc.expand().to_dict()["flows"]
    assert (flows["l"]["ack_counting"], flows["l"]["quickack"]) == ("segments", 16)
    # ns-3 (cubic, its TcpCubic as the profile's algorithm): per ack; the first data acked at once.
    assert (flows["n"]["ack_counting"], flows["n"]["quickack"], flows["n"]["quickack_after_idle"]) == ("acks", 1, False)
    assert flows["own"]["ack_counting"] == "acks"      # the flow's own key wins


def test_example_segment_counting_grows_faster_with_delayed_acks() -> None:
    res = tcplab.run(Scenario.from_toml(EXAMPLE).with_overrides({"duration": "12s", "metrics.steady_start": "4s"}))
    flows = {f["name"]: f for f in res.summary["flows"]}
    # One segment per round trip against half a segment: "seg" takes the larger share.
    assert flows["seg"]["goodput_bps"] > 1.2 * flows["ack"]["goodput_bps"]

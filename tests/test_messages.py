"""Messages that read right (issue 46, "Messages almost right"): each warning's advice
applies to the scenario it is given for."""

from __future__ import annotations

import tcplab
from tcplab import Scenario


def _warnings(d: dict) -> list[str]:
    r = tcplab.run(Scenario.from_dict(d), progress=False)
    return list(r.summary["warnings"])


def test_ties_in_a_fabric_of_one_rate_are_one_warning_without_advice_it_cannot_take() -> None:
    w = _warnings({
        "profile": "classic", "duration": "0.1s", "metrics": {"interval": "50ms", "steady_start": "0.05s"},
        "defaults": {"flows": {"cc": "newreno", "init_cwnd": 10, "rto_min": "10ms"}},
        "fat_tree": {"k": 4, "link": {"rate": "1Gbps", "delay": "5us", "buffer": 20}, "traffic": "all_to_all"},
    })  # fmt: skip
    ties = [x for x in w if "tie order" in x]
    fabric = [x for x in ties if "between switches tie by design" in x]
    assert len(fabric) == 1, ties
    assert fabric[0].split(" ")[1] == "links" and "more" in fabric[0]  # "N links dropped ... and K more"
    assert len(ties) <= 2, ties  # one per kind, however many links tie
    assert not any("make the feeding links faster" in x for x in w)


def test_ties_fed_by_access_links_keep_the_advice_to_make_them_faster() -> None:
    w = _warnings({
        "profile": "classic", "duration": "5s",
        "dumbbell": {"bottleneck": {"rate": "10Mbps", "delay": "10ms", "buffer": 10},
                     "access": {"rate": "10Mbps", "delay": "1ms"}, "pairs": 2, "flows": ["newreno", "newreno"]},
    })  # fmt: skip
    ties = [x for x in w if "tie order" in x]
    assert len(ties) == 1, w
    assert ties[0].startswith("links.bn: dropped ") and "faster host links avoid the ties" in ties[0], ties[0]


def _chain(profile: str | None, **flow: object) -> dict:
    """A host on a 10 Mb/s access link behind which a 5 Mb/s link is the bottleneck (issue 46:
    the efficiency was 28.7 % + 20.4 % of the access link while the bottleneck was full)."""
    d = {
        "duration": "4s", "metrics": {"steady_start": "2s"},
        "nodes": {"a": "host", "r": "router", "b": "host"},
        "links": {"ar": {"from": "a", "to": "r", "rate": "10Mbps", "delay": "5ms", "duplex": True},
                  "rb": {"from": "r", "to": "b", "rate": "5Mbps", "delay": "5ms", "duplex": True}},
        "flows": {"f": {"from": "a", "to": "b", **flow}},
    }  # fmt: skip
    if profile:
        d["profile"] = profile
    return d


def test_efficiency_defaults_to_the_slowest_link_and_the_papers_profiles_keep_the_first_hop() -> None:
    for profile, link in ((None, "rb"), ("linux", "rb"), ("ns3", "rb"), ("classic", "ar"), ("ns2", "ar")):
        s = tcplab.run(Scenario.from_dict(_chain(profile)), progress=False).summary
        f = s["flows"][0]
        assert f["efficiency_link"] == link, (profile, f["efficiency_link"])
    s = tcplab.run(Scenario.from_dict(_chain(None)), progress=False).summary
    assert s["flows"][0]["efficiency"] > 0.9  # the bottleneck is full
    for word, link in (("first_hop", "ar"), ("slowest", "rb"), ("rb", "rb")):
        s = tcplab.run(Scenario.from_dict(_chain("classic", efficiency_link=word)), progress=False).summary
        assert s["flows"][0]["efficiency_link"] == link, word

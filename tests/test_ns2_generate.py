"""tcplab.ns2.generate: random scenarios for the ns-2.35 cross-check are deterministic, valid,
translatable, inside their documented ranges, and cover every feature they draw."""

from __future__ import annotations

import hashlib
import tomllib
from collections import deque
from typing import Any

import pytest

from tcplab.ns2 import translate
from tcplab.ns2.common import _bytes, _rate_bps, _seconds
from tcplab.ns2.generate import AGENTS, BUDGET, RANGES, WIRE_BYTES, generate, main, to_toml, write
from tcplab.scenario import Scenario, ScenarioError

# SHA-256 of to_toml(generate(1, i)), i = 0, 1, 2: the generator's output may not drift
# (between machines, Python versions or edits; an intended change updates them).
PINNED = {
    0: "aa9c48d9c4215cd41c9a971a22717f5bd4a7b8b120c7453607388287a60d242e",
    1: "dcffdee9f09eb8a1c670ae16b2def6678b09a7ed32440fc168d08061977fb564",
    2: "d0a6c3bf7bf96b62b1e3ffc8b9235df07344acf11b52b1c98d80a19feb451c47",
}


def _red_auto_supported() -> bool:
    """Whether the core takes a RED queue without min_th/max_th (ns-2.35's automatic
    thresholds); until it does, the generator's ns-2-default RED scenarios cannot validate."""
    probe = {"duration": "1s", "nodes": {"a": "host", "b": "host"},
             "links": {"ab": {"from": "a", "to": "b", "rate": "1Mbps", "queue": {"type": "red", "limit": 20}}}}
    try:
        Scenario(probe).validate()
    except ScenarioError:
        return False
    return True


def _bottlenecks(d: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n: lk for n, lk in d["links"].items() if lk["from"].startswith("r") and lk["to"].startswith("r")}


def _red_ns2_defaults(d: dict[str, Any]) -> bool:
    return any(lk["queue"]["type"] == "red" and "min_th" not in lk["queue"] for lk in _bottlenecks(d).values())


def _directions(d: dict[str, Any]) -> dict[tuple[str, str], tuple[float, float]]:
    """(from, to) -> (rate b/s, delay s) of every link direction (duplex entries both ways)."""
    out = {}
    for lk in d["links"].values():
        rate, delay = _rate_bps(lk["rate"]), _seconds(lk.get("delay", 0))
        out[(lk["from"], lk["to"])] = (rate, delay)
        if lk.get("duplex"):
            rev = lk.get("reverse", {})
            out[(lk["to"], lk["from"])] = (_rate_bps(rev["rate"]) if "rate" in rev else rate, delay)
    return out


def _path(d: dict[str, Any], a: str, b: str) -> list[tuple[str, str]]:
    """The link directions from a to b (breadth-first; the topology is a tree)."""
    dirs = _directions(d)
    prev: dict[str, str] = {a: a}
    todo = deque([a])
    while todo:
        n = todo.popleft()
        for (x, y) in dirs:
            if x == n and y not in prev:
                prev[y] = n
                todo.append(y)
    hops = []
    while b != a:
        hops.append((prev[b], b))
        b = prev[b]
    return hops[::-1]


def _rtt_s(d: dict[str, Any], flow: dict[str, Any]) -> float:
    dirs = _directions(d)
    return sum(dirs[h][1] for h in _path(d, flow["from"], flow["to"])) * 2


def _is_tree(d: dict[str, Any]) -> bool:
    pairs = {frozenset((x, y)) for x, y in _directions(d)}
    seen: set[str] = set()
    todo = [next(iter(d["nodes"]))]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo += [y for p in pairs if n in p for y in p if y != n]
    return len(pairs) == len(d["nodes"]) - 1 and seen == set(d["nodes"])


def _facts(d: dict[str, Any]) -> set[str]:
    """The features a scenario has, as words (for the coverage test)."""
    bn = _bottlenecks(d)
    facts = set()
    facts.add("parking_lot" if "h2" in bn else "two_way" if "reverse" in bn["bn"] else "dumbbell")
    for lk in bn.values():
        q = lk["queue"]
        facts.add(f"queue:{q['type']}")
        if q["type"] == "red":
            facts.add("red:ns2-defaults" if "min_th" not in q else "red:explicit")
            if q.get("ecn"):
                facts.add("red:ecn")
        if "error" in lk:
            facts.add(f"loss:{lk['error']['placement']}")
    for f in d["flows"].values():
        if f.get("transport") == "udp":
            facts.add(f"udp:{f['app']['type']}")
        else:
            facts.add("agent:" + f["group"].rsplit("-", 1)[0])
            facts.add("delayed_ack" if "delayed_ack" in f else "immediate_ack")
            if f.get("ecn"):
                facts.add("ecn_flow")
    return facts


def test_pinned_hashes() -> None:
    got = {i: hashlib.sha256(to_toml(generate(1, i)).encode()).hexdigest() for i in PINNED}
    assert got == PINNED


def test_deterministic_and_distinct() -> None:
    for s, i in ((1, 0), (1, 7), (2, 3), (12345, 199)):
        assert generate(s, i) == generate(s, i)
    texts = {to_toml(generate(1, i)) for i in range(20)}
    assert len(texts) == 20
    assert generate(1, 5) != generate(2, 5)


def test_toml_round_trip() -> None:
    for i in range(10):
        d = generate(3, i)
        assert tomllib.loads(to_toml(d)) == d


@pytest.mark.parametrize("index", range(40))
def test_validates_and_translates(index: int) -> None:
    d = generate(1, index)
    if _red_ns2_defaults(d) and not _red_auto_supported():
        pytest.skip("RED without min_th/max_th (ns-2.35's automatic thresholds) is not accepted by this build yet")
    Scenario(d).validate()
    script = translate(d)
    assert set(script.flows) == set(d["flows"])


@pytest.mark.parametrize("index", range(40))
def test_ranges(index: int) -> None:
    d = generate(1, index)
    assert d["profile"] == "ns2"
    assert d["name"] == f"gen1/{index:03d}"
    assert _is_tree(d)
    tcp = {n: f for n, f in d["flows"].items() if f.get("transport", "tcp") == "tcp"}
    assert 1 <= len(tcp) <= 16
    classes = {f["group"].rsplit("-", 1)[1] for f in tcp.values()}
    assert classes <= {"r1", "r2", "r3"}
    agents = {f["group"].rsplit("-", 1)[0] for f in tcp.values()}
    assert agents <= set(AGENTS) and 1 <= len(agents) <= 3
    rtts = {n: _rtt_s(d, f) for n, f in tcp.items()}
    for n, f in tcp.items():
        assert 0.002 - 1e-9 <= rtts[n] <= 0.4 + 1e-9
        same = [rtts[m] for m, g in tcp.items() if g["group"] == f["group"]]
        assert max(same) - min(same) < 1e-9, "one RTT per group"
        assert set(f) <= {"from", "to", "group", "cc", "sack", "prr", "ecn", "ecn_retransmits", "delayed_ack",
                          "mss", "max_window", "app"}
        assert f["mss"] == 1000
        assert f["app"]["type"] == "bulk"
    # rates: the bottleneck(s) in range and under the packet budget; access links 10x
    duration = _seconds(d["duration"])
    bn = _bottlenecks(d)
    rate = _rate_bps(next(iter(bn.values()))["rate"])
    assert RANGES["bottleneck_rate_bps"][0] <= rate <= RANGES["bottleneck_rate_bps"][1]
    assert rate * duration / (8 * WIRE_BYTES) <= BUDGET
    for name, lk in bn.items():
        assert _rate_bps(lk["rate"]) == rate
        rev = lk.get("reverse", {})
        if "rate" in rev:
            assert 0.1 * rate - 1e3 <= _rate_bps(rev["rate"]) <= 0.5 * rate + 1e3
        assert lk["queue"]["limit"] >= 2
    for name, lk in d["links"].items():
        if name not in bn:
            assert _rate_bps(lk["rate"]) == 10 * rate
    # duration: 100 round trips of the longest class, at least 20 s; warm-up 20 %, at least 5 s
    assert duration >= max(20.0, 100 * max(rtts.values()) - 1e-9)
    assert _seconds(d["metrics"]["steady_start"]) == pytest.approx(max(5.0, 0.2 * duration))
    for n, f in tcp.items():
        assert 0 <= _seconds(f["app"]["start"]) <= 0.1 * duration + 1e-9
        path_rate = min(_directions(d)[h][0] for h in _path(d, f["from"], f["to"]))
        assert _bytes(f["max_window"]) >= 2 * path_rate * rtts[n] / 8
    for f in d["flows"].values():
        if f.get("transport") == "udp":
            path_rate = min(_directions(d)[h][0] for h in _path(d, f["from"], f["to"]))
            mean = _rate_bps(f["app"].get("mean_rate", f["app"]["rate"]))
            assert 0.05 * path_rate - 1e3 <= mean <= 0.3 * path_rate + 1e3


def test_coverage() -> None:
    """Over the first 200 scenarios of seed 1 every topology, agent, queue kind, RED variant,
    loss placement, sink kind and background source occurs."""
    seen: set[str] = set()
    for i in range(200):
        seen |= _facts(generate(1, i))
    want = {"dumbbell", "parking_lot", "two_way", "queue:droptail", "queue:red", "queue:xcp",
            "red:ns2-defaults", "red:explicit", "red:ecn", "ecn_flow", "loss:before_queue", "loss:after_link",
            "delayed_ack", "immediate_ack", "udp:cbr", "udp:onoff"}
    want |= {f"agent:{a}" for a in AGENTS}
    assert want - seen == set()


def test_write_and_main(tmp_path, capsys) -> None:
    paths = write(4, 3, tmp_path / "a")
    assert [p.name for p in paths] == ["gen4_000.toml", "gen4_001.toml", "gen4_002.toml"]
    assert paths[1].read_text() == to_toml(generate(4, 1))
    main(["--seed", "4", "--count", "2", "--out", str(tmp_path / "b")])
    printed = capsys.readouterr().out.split()
    assert [p.rsplit("/", 1)[1] for p in printed] == ["gen4_000.toml", "gen4_001.toml"]
    assert (tmp_path / "b" / "gen4_001.toml").read_text() == paths[1].read_text()

"""Topology builders, duplex links and defaults: ``tcplab expand``, ``Scenario.expand()``,
the Python builders, and the byte-for-byte equality of a builder's output with the same
scenario written by hand (expanded documents and run results)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import tomli_w

import tcplab
from conftest import FIG2_3, REPO, CliRunner

EXAMPLES = REPO / "examples"
DATA = REPO / "tests" / "data"
PAIRS = [("dumbbell.toml", "dumbbell_by_hand.toml"), ("parking_lot.toml", "parking_lot_by_hand.toml")]
SHORT = {"duration": "8s", "metrics.steady_start": "2s"}


def canonical_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    return value


@pytest.mark.parametrize(("builder", "by_hand"), PAIRS)
def test_expand_prints_the_hand_written_scenario(cli: CliRunner, builder: str, by_hand: str, tmp_path: Path) -> None:
    """The builder's file and the same scenario written by hand (under the same profile)
    expand to the same document, byte for byte, as JSON and as TOML; and an expanded
    scenario expands to itself."""
    r = cli("expand", DATA / by_hand, "--json")
    assert r.returncode == 0, r.stderr
    hand = json.loads(r.stdout)
    assert "profile" not in hand and hand["flows"]
    r = cli("expand", EXAMPLES / builder, "--json")
    assert r.returncode == 0, r.stderr
    assert r.stdout == canonical_json(hand)
    r = cli("expand", EXAMPLES / builder)
    assert r.returncode == 0, r.stderr
    assert r.stdout == tomli_w.dumps(_sorted(hand))
    # A plain scenario expands to itself.
    plain = tmp_path / "plain.toml"
    plain.write_text(r.stdout)
    r = cli("expand", plain, "--json")
    assert r.stdout == canonical_json(hand)


@pytest.mark.parametrize(("builder", "by_hand"), PAIRS)
def test_builder_and_hand_written_runs_are_identical(builder: str, by_hand: str) -> None:
    a = tcplab.run(tcplab.Scenario.from_toml(EXAMPLES / builder).with_overrides(SHORT), seed=4)
    b = tcplab.run(tcplab.Scenario.from_toml(DATA / by_hand).with_overrides(SHORT), seed=4)
    for s in (a.summary, b.summary):
        s["run"].pop("wall_seconds")
    assert json.dumps(a.summary, sort_keys=True) == json.dumps(b.summary, sort_keys=True)
    assert a.intervals.equals(b.intervals)
    # Every flow moved data through its bottleneck.
    assert all(f["goodput_bps"] > 0 for f in a.summary["flows"])


def test_dumbbell_example_is_short_with_mixed_cc() -> None:
    text = (EXAMPLES / "dumbbell.toml").read_text()
    assert len(text.splitlines()) <= 15
    plain = tcplab.Scenario.from_toml(EXAMPLES / "dumbbell.toml").expand().to_dict()
    assert len(plain["flows"]) == 4 and len(plain["links"]) == 18
    ccs = {f["cc"] for f in plain["flows"].values()}
    assert ccs == {"newreno", "reno", "vegas", "highspeed"}


def test_python_builder_equals_the_file() -> None:
    sc = tcplab.dumbbell(
        name="dumbbell: newreno, reno, vegas, highspeed",
        profile="classic",
        duration="30s",
        metrics={"steady_start": "10s"},
        defaults={"flows": {"init_cwnd": 2, "delayed_ack": "40ms"}},
        bottleneck={"rate": "10Mbps", "delay": "20ms", "buffer": "1bdp"},
        access={"rate": "100Mbps", "delay": "1ms"},
        rtt=["44ms", "44ms", "84ms", "124ms"],
        flows=["newreno", "reno", "vegas", {"cc": "highspeed", "name": "hs"}],
    )
    assert sc == tcplab.Scenario.from_toml(EXAMPLES / "dumbbell.toml")
    assert sc.expand() == tcplab.Scenario.from_toml(DATA / "dumbbell_by_hand.toml").expand()
    pl = tcplab.parking_lot(
        name="parking lot: 3 hops",
        profile="classic",
        duration="30s",
        metrics={"steady_start": "10s"},
        hops=3,
        link={"rate": "10Mbps", "delay": "10ms", "buffer": 100},
        access={"rate": "100Mbps", "delay": "1ms"},
        flows=["newreno"],
        cross=["newreno"],
    )
    assert pl.expand() == tcplab.Scenario.from_toml(DATA / "parking_lot_by_hand.toml").expand()


def test_overrides_reach_builder_keys_and_generated_entries() -> None:
    sc = tcplab.dumbbell(
        bottleneck={"rate": "10Mbps", "delay": "20ms"},
        access={"rate": "100Mbps"},
        flows=[{"cc": "reno", "count": 2}],
    )
    plain = sc.with_overrides({"dumbbell.bottleneck.rate": "5Mbps", "links.bn_rev.rate": "1Mbps", "flows.f2.cc": "vegas"})
    d = plain.expand().to_dict()
    assert d["links"]["bn"]["rate"] == "5Mbps" and d["links"]["bn"]["delay"] == "20ms"
    assert d["links"]["bn_rev"]["rate"] == "1Mbps"
    assert d["flows"]["f1"]["cc"] == "reno" and d["flows"]["f2"]["cc"] == "vegas"
    with pytest.raises(tcplab.ScenarioError) as e:
        sc.with_overrides({"links.bn.to": "s1"}).expand()
    assert e.value.field == "links.bn.to"


def test_cli_set_on_generated_link(cli: CliRunner, tmp_path: Path) -> None:
    r = cli("run", EXAMPLES / "dumbbell.toml", "--out", tmp_path, "-q",
            "--set", "duration=4s", "--set", "metrics.steady_start=1s", "--set", "links.bn.rate=2Mbps")  # fmt: skip
    assert r.returncode == 0, r.stderr
    links = {ln["name"]: ln for ln in json.loads((tmp_path / "summary.json").read_text())["links"]}
    assert links["bn"]["rate_bps"] == 2_000_000
    assert links["bn_rev"]["rate_bps"] == 10_000_000


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('[dumbbell]\nbottleneck = { rate = "10Mbps" }\naccess = { rate = "1Gbps" }\nflows = ["cubicle"]', "dumbbell.flows[0]"),
        ('[dumbbell]\nbottleneck = { rate = "10Mbps", buffer = "100" }\naccess = { rate = "1Gbps" }\nflows = ["reno"]', "dumbbell.bottleneck.buffer"),
        ('[defaults.flows]\nmss = "big"\n[dumbbell]\nbottleneck = { rate = "10Mbps" }\naccess = { rate = "1Gbps" }\nflows = ["reno"]', "defaults.flows.mss"),
        ('[parking_lot]\nhops = 2\nlink = { rate = "10Mbps", delay = ["1ms"] }\naccess = { rate = "1Gbps" }', "parking_lot.link.delay"),
        ('[fat_tree]\nk = 5\nlink = { rate = "1Gbps" }', "fat_tree.k"),
        ('[fat_tree]\nk = 4\nlink = { rate = "1Gbps" }\ntraffic = "ring"', "fat_tree.traffic"),
        ('[fat_tree]\nk = 4\nlink = { rate = "1Gbps" }\ncore = { delay = "5" }', "fat_tree.core.delay"),
    ],
)
def test_expand_errors_name_the_written_field(cli: CliRunner, tmp_path: Path, body: str, field: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(f'duration = "5s"\n{body}\n')
    for cmd in ("expand", "validate"):
        r = cli(cmd, path)
        assert r.returncode == 2
        assert r.stderr.startswith(f"error: {path}: {field}: "), r.stderr
        assert len(r.stderr.strip().splitlines()) == 1


def test_seed000_two_host_link_as_one_duplex_entry() -> None:
    """Seed 000's asymmetric two-host link: one duplex entry and defaults give fig2_3."""
    hand = tcplab.Scenario.from_toml(FIG2_3).to_dict()
    flow = {k: v for k, v in hand["flows"]["slow"].items() if k not in ("from", "to")}
    short = {k: v for k, v in hand.items() if k not in ("links", "flows")}
    short["defaults"] = {"flows": flow}
    short["links"] = {
        "up": {**hand["links"]["up"], "duplex": True, "reverse": {"name": "down", "rate": hand["links"]["down"]["rate"]}}
    }
    short["flows"] = {"slow": {"from": "slow", "to": "fast"}, "fast": {"from": "fast", "to": "slow"}}
    assert tcplab.Scenario(short).expand() == tcplab.Scenario(hand).expand()


def test_schema_has_the_builder_keys(cli: CliRunner) -> None:
    schema = json.loads(cli("schema").stdout)
    assert {"defaults", "dumbbell", "parking_lot", "fat_tree", "routing"} <= schema["properties"].keys()
    assert schema["required"] == ["duration"]
    assert {"duplex", "reverse", "reverse_rate"} <= schema["$defs"]["LinkSpec"]["properties"].keys()


def test_sweep_over_builder_keys(tmp_path: Path) -> None:
    """Sweeps see the same expansion: a grid over a builder key and a generated link."""
    base = tcplab.dumbbell(
        duration="4s",
        metrics={"steady_start": "1s"},
        bottleneck={"rate": "10Mbps", "delay": "10ms", "buffer": "1bdp"},
        access={"rate": "100Mbps", "delay": "1ms"},
        flows=[{"cc": "newreno", "count": 2}],
    )
    grid = {"dumbbell.bottleneck.rate": ["2Mbps", "8Mbps"], "links.bn_rev.delay": ["10ms", "30ms"]}
    res = tcplab.sweep({"base": base, "grid": grid}, tmp_path / "sw", jobs=1, progress=False)
    assert res.failed == 0 and res.runs.height == 4
    s = res.summary
    assert sorted(set(s["flow"].to_list())) == ["f1", "f2"]
    total = s.group_by("dumbbell.bottleneck.rate").agg(pl.col("goodput_bps").sum()).sort("dumbbell.bottleneck.rate")
    low, high = total["goodput_bps"].to_list()  # "2Mbps" sorts before "8Mbps"; two points each
    assert low < 2 * 2e6 and high > 2 * low


def test_fat_tree_expands_runs_and_spreads_routes() -> None:
    """A k = 4 fat-tree with permutation traffic: 16 hosts, 20 switches, 16 flows (a
    permutation without fixed points), D-mod-k routes; every flow's path is 2, 4 or 6 hops
    as the hosts share an edge switch, a pod, or neither (seen in its minimum RTT: each hop
    adds 5 us + 12 us (1500 B at 1 Gb/s) out and 5 us + 0.32 us (40 B ack) back); it runs
    and delivers data."""
    sc = tcplab.fat_tree(
        k=4,
        link={"rate": "1Gbps", "delay": "5us", "buffer": 50},
        traffic="permutation",
        duration="20ms",
        profile="classic",
        defaults={"flows": {"rto_min": "5ms"}},
        metrics={"interval": "5ms"},
    )
    doc = sc.expand().to_dict()
    assert len([n for n, kind in doc["nodes"].items() if kind == "host"]) == 16
    assert len([n for n, kind in doc["nodes"].items() if kind == "router"]) == 20
    assert doc["routing"] == {"ecmp": "destination"}
    flows = doc["flows"]
    assert sorted(f["to"] for f in flows.values()) == [f"h{i:02}" for i in range(16)]
    assert all(f["from"] != f["to"] for f in flows.values())
    res = tcplab.run(sc)
    summary = {f["name"]: f for f in res.summary["flows"]}
    assert len(summary) == 16
    for name, f in flows.items():
        a, b = int(f["from"][1:]), int(f["to"][1:])
        want = 2 if a // 2 == b // 2 else 4 if a // 4 == b // 4 else 6
        hops = summary[name]["min_rtt_s"] / 22.32e-6
        assert want - 1e-6 <= hops < want + 2, (name, want, hops)
        assert summary[name]["goodput_bps"] > 0
    # Another permutation seed gives another permutation.
    other = tcplab.fat_tree(k=4, link={"rate": "1Gbps"}, traffic="permutation", permutation_seed=9).expand().to_dict()
    assert {n: f["to"] for n, f in other["flows"].items()} != {n: f["to"] for n, f in flows.items()}


def test_fat_tree_example_expands(cli: CliRunner) -> None:
    r = cli("expand", EXAMPLES / "fat_tree.toml")
    assert r.returncode == 0, r.stderr
    doc = tomllib.loads(r.stdout)
    assert len(doc["nodes"]) == 208 and len(doc["links"]) == 768 and len(doc["flows"]) == 128

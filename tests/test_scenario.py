"""Scenario loading, overrides, TOML round trips and errors through the Python API."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tcplab
from conftest import FIG2_3, SHORT_OVERRIDES
from tcplab import Scenario, ScenarioError
from tcplab.scenario import parse_override, parse_value


def test_public_api() -> None:
    for name in ("Scenario", "ScenarioError", "run", "Result", "load", "json_schema", "__version__"):
        assert hasattr(tcplab, name), name
    assert issubclass(tcplab.ScenarioError, ValueError)
    assert tcplab.ScenarioError is tcplab._core.ScenarioError
    schema = json.loads(tcplab.json_schema())
    assert "links" in schema["properties"]


def test_from_toml_matches_tomllib() -> None:
    sc = Scenario.from_toml(FIG2_3)
    with FIG2_3.open("rb") as f:
        assert sc.to_dict() == tomllib.load(f)
    assert sc.source == str(FIG2_3)
    assert sc.name == sc.to_dict()["name"]
    sc.validate()


def test_name_falls_back_to_file_stem(tmp_path: Path) -> None:
    d = Scenario.from_toml(FIG2_3).to_dict()
    del d["name"]
    assert Scenario.from_dict(d).name == "scenario"
    p = tmp_path / "my_case.toml"
    p.write_text(Scenario.from_dict(d).to_toml())
    assert Scenario.from_toml(p).name == "my_case"


def test_with_overrides_returns_new_scenario() -> None:
    sc = Scenario.from_toml(FIG2_3)
    before = sc.to_dict()
    sc2 = sc.with_overrides({"links.up.rate": "200kbps", "metrics.trace": "0.5s", **SHORT_OVERRIDES})
    assert sc.to_dict() == before  # untouched
    d = sc2.to_dict()
    assert d["links"]["up"]["rate"] == "200kbps"
    assert d["metrics"]["trace"] == "0.5s"
    assert d["duration"] == "60s"
    assert d["metrics"]["steady_start"] == "10s"
    assert d["links"]["down"] == before["links"]["down"]
    sc2.validate()


def test_with_overrides_creates_intermediate_tables() -> None:
    sc = Scenario.from_toml(FIG2_3).with_overrides({"flows.slow.app.type": "bulk", "flows.slow.app.start": "1s"})
    assert sc.to_dict()["flows"]["slow"]["app"] == {"type": "bulk", "start": "1s"}
    sc.validate()
    # Quoted keys (TOML syntax) reach names containing dots.
    sc3 = Scenario.from_dict({"a": {}}).with_overrides({'a."b.c".d': 1})
    assert sc3.to_dict() == {"a": {"b.c": {"d": 1}}}


def test_with_overrides_through_non_table_names_path() -> None:
    sc = Scenario.from_toml(FIG2_3)
    with pytest.raises(ScenarioError) as ei:
        sc.with_overrides({"duration.seconds": 5})
    assert ei.value.args[1] == "duration.seconds"
    assert "not a table" in ei.value.args[2]
    with pytest.raises(ScenarioError) as ei:
        sc.with_overrides({"links.up.rate.value": 5})
    assert ei.value.args[1] == "links.up.rate.value"


def test_bad_override_key() -> None:
    with pytest.raises(ScenarioError) as ei:
        Scenario.from_toml(FIG2_3).with_overrides({"links..rate": "1Mbps"})
    assert ei.value.args[1] == "links..rate"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("duration=60s", ("duration", "60s")),
        ("links.up.rate=200kbps", ("links.up.rate", "200kbps")),
        ("seed=5", ("seed", 5)),
        ("links.up.loss=0.05", ("links.up.loss", 0.05)),
        ("x=true", ("x", True)),
        ("x=[1, 2]", ("x", [1, 2])),
        ('links.up.queue={ type = "droptail", limit = 50 }', ("links.up.queue", {"type": "droptail", "limit": 50})),
        ('links.up.rate="100"', ("links.up.rate", "100")),
        ("name=a=b", ("name", "a=b")),
        (" duration = 60s ", ("duration", "60s")),
        ("x=1979-05-27", ("x", "1979-05-27")),
        ("x=", ("x", "")),
    ],
)
def test_parse_override(text: str, expected: tuple[str, Any]) -> None:
    assert parse_override(text) == expected


@pytest.mark.parametrize("text", ["duration", "=5", "", "  "])
def test_parse_override_malformed(text: str) -> None:
    with pytest.raises(ScenarioError) as ei:
        parse_override(text)
    assert ei.value.args[1] == "--set"


def test_parse_value_keeps_non_toml_text() -> None:
    assert parse_value("5Mbps") == "5Mbps"
    assert parse_value("-5Mbps") == "-5Mbps"
    assert parse_value("100") == 100


def test_to_toml_round_trip() -> None:
    sc = Scenario.from_toml(FIG2_3).with_overrides({"links.up.rate": "200kbps", "metrics.trace": "1s"})
    back = Scenario.from_toml_text(sc.to_toml())
    assert back == sc
    assert back.to_dict() == sc.to_dict()
    assert json.loads(back.to_json()) == sc.to_dict()


# TOML keys and values that tomli_w can write and tomllib reads back unchanged.
_keys = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=8)
_scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12),
)
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=3), max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(data=st.dictionaries(_keys, _values, max_size=4), overrides=st.dictionaries(st.sampled_from(["a", "a.b", "c.d.e", "links.up.rate"]), _scalars, max_size=3))
def test_toml_round_trip_property(data: dict[str, Any], overrides: dict[str, Any]) -> None:
    try:
        sc = Scenario.from_dict(data).with_overrides(overrides)
    except ScenarioError:
        return  # an override ran through a non-table: covered above
    assert Scenario.from_toml_text(sc.to_toml()).to_dict() == sc.to_dict()


# --- errors through the Python API ---------------------------------------------------------

BAD_OVERRIDES: list[tuple[str, dict[str, Any], str, str]] = [
    ("unknown field", {"links.up.rat": "5Mbps"}, "links.up.rat", "unknown field"),
    ("negative rate", {"links.up.rate": "-5Mbps"}, "links.up.rate", "negative"),
    ("unit-less rate (string)", {"links.up.rate": "100"}, "links.up.rate", "no unit"),
    ("unit-less rate (integer)", {"links.up.rate": 100}, "links.up.rate", "no unit"),
    ("unknown node", {"links.up.from": "nowhere"}, "links.up.from", "unknown node"),
    ("link to itself", {"links.up.to": "slow"}, "links.up", "itself"),
    ("unknown algorithm", {"flows.slow.cc": "no_such_cc"}, "flows.slow.cc.algorithm", "unknown algorithm"),
    ("zero duration", {"duration": "0s"}, "duration", "positive"),
    ("steady start after end", {"duration": "20s", "metrics.steady_start": "30s"}, "metrics.steady_start", "before the end"),
    ("unknown partial-ack timer", {"flows.slow.partial_ack_timer": "sometimes"}, "flows.slow.partial_ack_timer", "expected `every` or `first`"),
    ("unknown recovery exit", {"flows.slow.recovery_exit": "cwnd"}, "flows.slow.recovery_exit", "expected `ssthresh` or `flightsize`"),
]


@pytest.mark.parametrize(("what", "overrides", "field", "reason"), BAD_OVERRIDES, ids=[b[0] for b in BAD_OVERRIDES])
def test_invalid_scenarios_raise_with_field(what: str, overrides: dict[str, Any], field: str, reason: str) -> None:
    sc = Scenario.from_toml(FIG2_3).with_overrides({**SHORT_OVERRIDES, **overrides})
    with pytest.raises(ScenarioError) as ei:
        sc.validate()
    assert ei.value.args[1] == field
    assert reason in ei.value.args[2]
    assert str(ei.value).startswith(f"{field}: ")
    assert ei.value.file == str(FIG2_3)
    # run() reports the same error before simulating anything.
    with pytest.raises(ScenarioError) as ei2:
        tcplab.run(sc, progress=False)
    assert ei2.value.args[1] == field


def test_missing_file_names_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(ScenarioError) as ei:
        Scenario.from_toml(missing)
    assert str(missing) in ei.value.args[0]
    assert ei.value.file == str(missing)
    with pytest.raises(ScenarioError):
        tcplab.run(missing)
    with pytest.raises(ScenarioError):
        Scenario.from_toml(tmp_path)  # a directory


def test_toml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    p = tmp_path / "broken.toml"
    p.write_text('name = "x"\nduration = "10s"\n[nodes\na = "host"\n')
    with pytest.raises(ScenarioError) as ei:
        Scenario.from_toml(p)
    msg = ei.value.args[0]
    assert str(p) in msg
    assert "line 3" in msg
    assert ei.value.args[2].startswith("TOML syntax error at line 3")


def test_json_files_hold_the_same_schema(tmp_path: Path) -> None:
    sc = Scenario.from_toml(FIG2_3).with_overrides(SHORT_OVERRIDES)
    p = tmp_path / "fig.json"
    p.write_text(json.dumps(sc.to_dict()))
    back = Scenario.from_toml(p)
    assert back.to_dict() == sc.to_dict()
    a, b = (tcplab.run(x, progress=False).summary for x in (back, sc))
    assert a["flows"] == b["flows"] and a["links"] == b["links"]
    p.write_text('{"name": "x",\n "duration": }')
    with pytest.raises(ScenarioError) as ei:
        Scenario.from_toml(p)
    assert str(p) in ei.value.args[0]
    assert ei.value.args[2].startswith("JSON syntax error at line 2, column 14")
    p.write_text("[1, 2]")
    with pytest.raises(ScenarioError) as ei:
        Scenario.from_toml(p)
    assert "a JSON scenario is an object" in ei.value.args[2]


def test_run_rejects_bad_seed() -> None:
    sc = Scenario.from_toml(FIG2_3).with_overrides(SHORT_OVERRIDES)
    for seed in (-1, 2**64, 1.5):
        with pytest.raises(ScenarioError) as ei:
            tcplab.run(sc, seed=seed, progress=False)  # type: ignore[arg-type]
        assert ei.value.args[1] == "seed"


def test_to_toml_leaves_out_none() -> None:
    sc = Scenario.from_dict({"name": None, "metrics": {"trace": None, "interval": "1s"}})
    assert Scenario.from_toml_text(sc.to_toml()).to_dict() == {"metrics": {"interval": "1s"}}


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_non_finite_numbers_name_the_field(value: float) -> None:
    sc = Scenario.from_toml(FIG2_3).with_overrides({"links.up.loss": value})
    with pytest.raises(ScenarioError) as ei:
        sc.to_json()
    assert ei.value.args[1] == "links.up.loss"
    with pytest.raises(ScenarioError):
        sc.validate()


def test_str_of_error_is_the_message() -> None:
    with pytest.raises(ScenarioError) as ei:
        Scenario.from_toml(FIG2_3).with_overrides({"duration": "0s"}).validate()
    assert str(ei.value) == "duration: must be positive"
    assert type(ei.value).__name__ == "ScenarioError"


def test_poisson_time_loss_is_per_second_not_per_packet() -> None:
    # Seed 002's time-based link loss (error model poisson_time): a 1 Mb/s and an 8 Mb/s
    # constant-rate source over links with the same mean_interval (0.5 s, 60 s: about 120
    # events) lose about as many packets each, where a per-packet probability would give the
    # slow one an eighth of the fast one's losses.
    import tcplab

    links, flows = {}, {}
    for name, rate in (("slow", "1Mbps"), ("fast", "8Mbps")):
        links[f"{name}_ab"] = {"from": f"{name}_a", "to": f"{name}_b", "rate": "10Mbps", "delay": "10ms",
                               "error": {"model": "poisson_time", "mean_interval": "0.5s"}}
        flows[name] = {"from": f"{name}_a", "to": f"{name}_b", "transport": "udp",
                       "app": {"type": "cbr", "rate": rate, "packet_size": 1000}}
    sc = tcplab.Scenario.from_dict({
        "duration": "60s",
        "nodes": {n: "host" for k in ("slow", "fast") for n in (f"{k}_a", f"{k}_b")},
        "links": links, "flows": flows,
    })
    res = tcplab.run(sc, progress=False)
    assert res.summary["run"]["stochastic"] is True
    lost = {lk["name"]: lk["lost"] for lk in res.summary["links"]}
    assert 80 <= lost["slow_ab"] <= 160 and 80 <= lost["fast_ab"] <= 160, lost
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.Scenario.from_dict({
            "duration": "1s", "nodes": {"a": "host", "b": "host"},
            "links": {"ab": {"from": "a", "to": "b", "rate": "10Mbps",
                             "error": {"model": "poisson_time", "mean_interval": "0s"}}},
        }).validate()
    assert "links.ab.error.mean_interval" in str(e.value)

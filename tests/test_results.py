"""Result save/load, byte-determinism of outputs, and seeds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import tcplab
from conftest import FIG2_3, SHORT, SHORT_OVERRIDES, CliRunner
from tcplab import Result, Scenario


@pytest.fixture(scope="module")
def short_result() -> Result:
    sc = Scenario.from_toml(FIG2_3).with_overrides({**SHORT_OVERRIDES, "metrics.trace": "0.5s"})
    return tcplab.run(sc, progress=False)


def test_result_frames(short_result: Result) -> None:
    r = short_result
    assert r.flows.height == len(r.summary["flows"]) == 2
    assert r.links.height == len(r.summary["links"]) == 2
    assert {"name", "efficiency", "goodput_bps"} <= set(r.flows.columns)
    assert r.intervals.schema["cwnd_bytes"] == pl.UInt64
    assert r.intervals.schema["efficiency"] == pl.Float64
    # 60 s in 3-s intervals, two flows.
    assert r.intervals.height == 2 * 20
    assert set(r.traces) == {"cwnd", "queue"}
    assert r.traces["cwnd"].height > 0 and r.traces["queue"].height > 0
    assert r.analysis is not None and r.analysis["rows"]
    assert isinstance(r.warnings, list)
    assert "seed=1" in repr(r)


def test_no_traces_unless_asked() -> None:
    r = tcplab.run(Scenario.from_toml(FIG2_3).with_overrides(SHORT_OVERRIDES), progress=False)
    assert r.traces == {}


def test_save_load_round_trip(short_result: Result, tmp_path: Path) -> None:
    d = short_result.save(tmp_path / "res")
    assert {p.name for p in d.iterdir()} == {"summary.json", "intervals.parquet", "cwnd_trace.parquet", "queue_trace.parquet"}
    text = (d / "summary.json").read_text()
    assert text == json.dumps(short_result.summary, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    back = tcplab.load(d)
    assert back == short_result
    assert back.intervals.schema == short_result.intervals.schema
    for k in back.traces:
        assert back.traces[k].schema == short_result.traces[k].schema
    # Saving what was loaded gives the same bytes.
    d2 = back.save(tmp_path / "again")
    for name in ("summary.json", "intervals.parquet", "cwnd_trace.parquet", "queue_trace.parquet"):
        assert (d / name).read_bytes() == (d2 / name).read_bytes(), name


def test_parquet_writes_are_byte_identical(short_result: Result, tmp_path: Path) -> None:
    a = short_result.save(tmp_path / "a")
    b = short_result.save(tmp_path / "b")
    for name in ("intervals.parquet", "cwnd_trace.parquet", "queue_trace.parquet"):
        assert (a / name).read_bytes() == (b / name).read_bytes()


def test_result_equality_detects_changes(short_result: Result) -> None:
    other = Result(dict(short_result.summary, seed=99), short_result.intervals, short_result.traces)
    assert other != short_result
    other = Result(short_result.summary, short_result.intervals.head(3), short_result.traces)
    assert other != short_result


def _summary_without_wall(path: Path) -> dict[str, Any]:
    s = json.loads(path.read_text())
    del s["run"]["wall_seconds"]
    return s


def test_cli_runs_are_deterministic(cli: CliRunner, tmp_path: Path) -> None:
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        r = cli("run", FIG2_3, "--out", out, *SHORT, "--seed", "3", "--quiet")
        assert r.returncode == 0, r.stderr
    a, b = outs
    assert (a / "intervals.parquet").read_bytes() == (b / "intervals.parquet").read_bytes()
    assert _summary_without_wall(a / "summary.json") == _summary_without_wall(b / "summary.json")
    # wall_seconds is the only key allowed to differ: everything else is byte-identical.
    strip = lambda p: "\n".join(ln for ln in p.read_text().splitlines() if '"wall_seconds"' not in ln)  # noqa: E731
    assert strip(a / "summary.json") == strip(b / "summary.json")


def test_api_runs_are_deterministic(lossy: dict[str, Any]) -> None:
    r1 = tcplab.run(lossy, progress=False)
    r2 = tcplab.run(lossy, progress=False)
    for r in (r1, r2):
        del r.summary["run"]["wall_seconds"]
    assert r1 == r2


def test_seed_changes_lossy_run(lossy: dict[str, Any]) -> None:
    a = tcplab.run(lossy, progress=False)
    b = tcplab.run(lossy, seed=8, progress=False)
    assert a.summary["seed"] == 7 and b.summary["seed"] == 8
    fa, fb = a.summary["flows"][0], b.summary["flows"][0]
    assert fa["retransmits"] > 0 and fb["retransmits"] > 0
    assert a.summary["run"]["packets_dropped"] > 0
    assert fa["bytes_delivered"] != fb["bytes_delivered"]
    assert not a.intervals.equals(b.intervals)
    # The same seed passed explicitly is the scenario's own.
    c = tcplab.run(lossy, seed=7, progress=False)
    assert c.summary["flows"] == a.summary["flows"]


def test_seed_changes_lossy_run_via_cli(cli: CliRunner, lossy: dict[str, Any], tmp_path: Path) -> None:
    p = tmp_path / "lossy.toml"
    p.write_text(Scenario.from_dict(lossy).to_toml())
    for seed in ("1", "2"):
        r = cli("run", p, "--out", tmp_path / seed, "--seed", seed, "--quiet")
        assert r.returncode == 0, r.stderr
    assert _summary_without_wall(tmp_path / "1" / "summary.json") != _summary_without_wall(tmp_path / "2" / "summary.json")
    assert (tmp_path / "1" / "intervals.parquet").read_bytes() != (tmp_path / "2" / "intervals.parquet").read_bytes()


def test_link_conservation(lossy: dict[str, Any], short_result: Result) -> None:
    """docs/outputs.md: offered = delivered + lost + drops + in_flight, per link direction."""
    lossy["links"]["ab"]["queue"] = {"type": "droptail", "limit": 5}  # queue drops too
    for r in (tcplab.run(lossy, progress=False), short_result):
        for ln in r.summary["links"]:
            assert ln["offered"] == ln["delivered"] + ln["lost"] + ln["drops"] + ln["in_flight"], ln
        assert r.summary["run"]["packets_dropped"] == sum(ln["drops"] + ln["lost"] for ln in r.summary["links"])
    lossy_links = {ln["name"]: ln for ln in tcplab.run(lossy, progress=False).summary["links"]}
    assert lossy_links["ab"]["lost"] > 0 and lossy_links["ab"]["drops"] > 0


def test_run_accepts_path_dict_and_str(tmp_path: Path) -> None:
    sc = Scenario.from_toml(FIG2_3).with_overrides(SHORT_OVERRIDES)
    p = tmp_path / "s.toml"
    p.write_text(sc.to_toml())
    r1 = tcplab.run(p, progress=False)
    r2 = tcplab.run(str(p), progress=False)
    r3 = tcplab.run(sc.to_dict(), progress=False)
    for r in (r1, r2, r3):
        del r.summary["run"]["wall_seconds"]
    assert r1 == r2 == r3
    with pytest.raises(TypeError):
        tcplab.run(42)  # type: ignore[arg-type]

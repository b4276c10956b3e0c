"""Workloads (`[workloads.NAME]`) and flow completion times (`fct.parquet`): flows at a load
and incast rounds, their FCT, ideal FCT and slowdown, bit-identical at any thread count."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import tcplab
from conftest import REPO, CliRunner
from tcplab import Scenario


def _fat_tree(**workloads: Any) -> dict[str, Any]:
    return {
        "duration": "30ms", "routing": {"ecmp": "flow"},
        "fat_tree": {"k": 4, "link": {"rate": "10Gbps", "delay": "1us", "buffer": 250,
                                      "queue": {"type": "droptail", "mark_threshold": 65}}},
        "workloads": workloads,
    }  # fmt: skip


WEB = {"type": "load", "sizes": "web_search", "load": 0.5, "stop": "20ms",
       "flow": {"cc": "dctcp", "ecn": True, "rto_min": "5ms"}}  # fmt: skip


def test_fct_rows_and_their_definitions() -> None:
    sc = Scenario.from_dict(_fat_tree(web=WEB))
    # The template gets the default profile's keys, as a flow does.
    tmpl = sc.expand().to_dict()["workloads"]["web"]["flow"]
    mss, header = tmpl["mss"], tmpl["header"]
    assert tmpl["cc"] == "dctcp" and tmpl["sack"] is True
    res = tcplab.run(sc, progress=False)
    fct = res.fct
    assert fct.height > 50
    assert set(fct["workload"].unique()) == {"web"}
    # Workload flows have no summary entry or interval rows; fct.parquet has them.
    assert res.summary["flows"] == [] and res.intervals.height == 0
    done = fct.filter(pl.col("completed") == 1)
    assert done.height >= 0.9 * fct.height
    # FCT = end - start; slowdown = FCT / ideal, at least 1.
    assert ((done["end_s"] - done["start_s"] - done["fct_s"]).abs() < 1e-12).all()
    assert ((done["fct_s"] / done["ideal_fct_s"] - done["slowdown"]).abs() < 1e-9).all()
    assert done["slowdown"].min() >= 1.0
    # Ideal: wire bytes at 10 Gb/s plus the base round trip (6 hops out and back at most,
    # 1 us each; 2 hops within a rack), no SYN.
    wire = fct["bytes"] + header * ((fct["bytes"] + mss - 1) // mss)
    base = fct["ideal_fct_s"] - wire * 8 / 10e9
    assert base.min() > 3.9e-6 and base.max() < 12.1e-6, (base.min(), base.max())
    # Not completed: no end, no slowdown.
    left = fct.filter(pl.col("completed") == 0)
    assert left["end_s"].is_nan().all() and left["slowdown"].is_nan().all()
    # Flow names are the identity; rows in identity order within the workload.
    assert fct["flow"].str.count_matches("/").eq(2).all()
    s = res.summary["fct"]
    assert s["flows"] == fct.height and s["completed"] == done.height
    b = s["workloads"]["web"]["buckets"]
    assert [x["bucket"] for x in b] == ["<10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB", ">=10MB"]
    assert sum(x["flows"] for x in b) == fct.height
    small = done.filter(pl.col("bytes") < 10_000)["slowdown"].sort()
    assert b[0]["slowdown_p50"] == pytest.approx(small.quantile(0.5, "linear"))
    assert res.summary["run"]["stochastic"] is True


def test_workloads_are_bit_identical_across_threads_and_change_with_the_seed() -> None:
    doc = _fat_tree(web=WEB, incast={"type": "incast", "senders": 8, "bytes": "20KB", "period": "2ms",
                                     "stop": "20ms", "flow": {"cc": "dctcp", "ecn": True}})  # fmt: skip
    one = tcplab.run(Scenario.from_dict(doc), progress=False)
    two = tcplab.run(Scenario.from_dict({**doc, "threads": 2}), progress=False)
    assert one.fct.equals(two.fct)
    assert one.summary["fct"] == two.summary["fct"]
    other = tcplab.run(Scenario.from_dict({**doc, "seed": 2}), progress=False)
    assert not other.fct.equals(one.fct)


def test_incast_rounds_and_per_round_senders() -> None:
    doc = _fat_tree(incast={"type": "incast", "senders": 15, "bytes": "20KB", "to": "h00",
                            "period": "1ms", "rounds": 10})  # fmt: skip
    fct = tcplab.run(Scenario.from_dict(doc), progress=False).fct
    assert fct.height == 150
    assert set(fct["to"]) == {"h00"} and "h00" not in set(fct["from"])
    per_round = fct.group_by("start_s").agg(pl.col("from").n_unique())
    assert per_round.height == 10 and (per_round["from"] == 15).all()
    assert (fct["bytes"] == 20_000).all() and (fct["completed"] == 1).all()


def test_schedules_record_every_round_of_a_transfer() -> None:
    """A transfer flow in a schedule gets one fct row per time it joins (issue: only the
    first round's completion was recorded)."""
    sc = Scenario.from_dict({
        "duration": "1s",
        "nodes": {"a": "host", "b": "host"},
        "links": {"ab": {"from": "a", "to": "b", "rate": "100Mbps", "delay": "1ms", "duplex": True}},
        "flows": {"x": {"from": "a", "to": "b", "app": {"type": "transfer", "bytes": 65536}}},
        "schedules": {"s": {"flows": ["x"], "active": [["0s", 1], ["0.2s", 0], ["0.4s", 1], ["0.6s", 0], ["0.8s", 1]]}},
    })  # fmt: skip
    fct = tcplab.run(sc, progress=False).fct
    assert fct["start_s"].to_list() == pytest.approx([0.0, 0.4, 0.8])
    assert (fct["completed"] == 1).all() and (fct["bytes"] == 65536).all()
    assert (fct["slowdown"] >= 1).all()


def test_lone_transfer_slowdown_is_its_slow_start() -> None:
    """One transfer alone on a path: its FCT against the ideal. 14 600 bytes in an initial
    window of 10 segments take one round trip and their serialisation (plus the per-hop
    store-and-forward of the first segment): slowdown just above 1."""
    sc = Scenario.from_dict({
        "duration": "1s",
        "nodes": {"a": "host", "b": "host"},
        "links": {"ab": {"from": "a", "to": "b", "rate": "100Mbps", "delay": "10ms", "duplex": True}},
        "flows": {"x": {"from": "a", "to": "b", "app": {"type": "transfer", "bytes": 14600}, "syn": True,
                        "mss": 1460, "header": 40, "init_cwnd": 10}},
    })  # fmt: skip
    row = tcplab.run(sc, progress=False).fct.row(0, named=True)
    wire = 14600 + 10 * 40
    assert row["ideal_fct_s"] == pytest.approx(wire * 8 / 100e6 + 2 * 0.020)
    assert 1.0 <= row["slowdown"] < 1.01, row


@pytest.mark.parametrize(("workload", "field", "why"), [
    ({**WEB, "sizes": "hadoop"}, "workloads.web.sizes", "unknown size distribution 'hadoop'"),
    ({**WEB, "load": 1.5}, "workloads.web.load", "not a fraction"),
    ({**WEB, "flow": {"app": {"type": "bulk"}}}, "workloads.web.flow.app", "decided by the workload"),
    ({**WEB, "arrivals": "lognormal"}, "workloads.web.sigma", "need a shape"),
    ({**WEB, "sizes": {"cdf": [[0, 0], [100, 0.5]]}}, "workloads.web.sizes", "not 1"),
    ({**WEB, "from": ["nosuch"]}, "workloads.web.from[0]", "not a host"),
    ({"type": "incast", "senders": 16, "bytes": "1KB", "period": "1ms"}, "workloads.web.senders", "15 hosts"),
    ({"type": "incast", "senders": 2, "bytes": "1KB"}, "workloads.web.period", "give period"),
])  # fmt: skip
def test_bad_workloads_name_the_field(tmp_path: Path, workload: dict[str, Any], field: str, why: str) -> None:
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(Scenario.from_dict(_fat_tree(web=workload)), progress=False)
    assert e.value.args[1] == field and why in e.value.args[2], e.value.args


def test_cli_writes_fct_parquet_and_prints_the_slowdown_table(tmp_path: Path, cli: CliRunner) -> None:
    r = cli("run", REPO / "examples" / "websearch_fattree.toml", "--out", tmp_path, "--plot",
            "--set", "duration=25ms", "--set", "workloads.web.stop=15ms", "--set", "workloads.incast.stop=15ms")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "Flow completion times" in r.stdout and "10KB-100KB" in r.stdout
    # The FCT figure; no efficiency figure (workload flows have no interval rows).
    assert (tmp_path / "fct.png").stat().st_size > 10_000 and not (tmp_path / "efficiency.png").exists()
    fct = pl.read_parquet(tmp_path / "fct.parquet")
    assert set(fct["workload"]) == {"web", "incast"}
    again = tcplab.load(tmp_path)
    assert again.fct.equals(fct)


def test_incast_example_runs() -> None:
    res = tcplab.run(Scenario.from_toml(REPO / "examples" / "incast.toml"), progress=False)
    assert res.fct.height == 15 * 20


def test_sweep_runs_carry_fct_columns_and_the_table_shows_slowdowns(tmp_path: Path) -> None:
    """A datacenter sweep reads its result from the runs table: overall and per-bucket
    slowdowns per run, as summary.json's fct has them."""
    from tcplab.sweeps.tables import sweep_table

    spec = {"name": "incast-k", "base": str(REPO / "examples" / "incast.toml"), "seeds": 2,
            "set": {"duration": "0.05s"}, "grid": {"workloads.incast.senders": [4, 8]}}
    res = tcplab.sweep(spec, tmp_path / "sw", jobs=1, progress=False)
    assert res.ok == 4
    for rid, p50 in res.runs.select("run_id", "fct.slowdown_p50").iter_rows():
        s = json.loads((tmp_path / "sw" / "runs" / rid / "summary.json").read_text())
        assert p50 == s["fct"]["slowdown_p50"]
        b = s["fct"]["buckets"][0]
        assert res.runs.filter(pl.col("run_id") == rid)[f"fct.{b['bucket']}.slowdown_p99"][0] == b["slowdown_p99"]
    # More senders, more queueing: the slowdown grows with the fan-in.
    by_k = res.runs.group_by("workloads.incast.senders").agg(pl.col("fct.slowdown_p50").mean()).sort("workloads.incast.senders")
    assert by_k["fct.slowdown_p50"][0] < by_k["fct.slowdown_p50"][1]
    headers = [c.header for c in sweep_table(res).columns]
    assert "FCT slowdown p50" in headers and "FCT slowdown p99" in headers


def test_sizes_from_a_cdf_file_beside_the_scenario(tmp_path: Path) -> None:
    """`sizes = { file = "x.cdf" }` is read relative to the scenario file, and its text
    travels with the scenario (to_dict, the JSON the core gets, a sweep point)."""
    (tmp_path / "mine.cdf").write_text("# bytes probability\n0 0\n1000 0.5\n20000 1\n")
    sc_dict = _fat_tree(web={**WEB, "sizes": {"file": "mine.cdf"}})
    sc_dict["workloads"]["web"]["flow"] = {"cc": "dctcp", "ecn": True, "rto_min": "5ms"}
    import tomli_w

    path = tmp_path / "sc.toml"
    path.write_text(tomli_w.dumps(sc_dict))
    sc = Scenario.from_toml(path)
    assert sc.to_dict()["workloads"]["web"]["sizes"]["text"].startswith("# bytes probability")
    fct = tcplab.run(sc, progress=False).fct
    assert fct.height > 100
    assert fct["bytes"].min() >= 1 and fct["bytes"].max() <= 20000
    # Half the flows are at most 1000 B (the CDF's median), within sampling error.
    share = (fct["bytes"] <= 1000).mean()
    assert 0.4 < share < 0.6, share
    # A scenario moved away from the file still runs: it carries the text.
    moved = Scenario.from_dict(sc.to_dict())
    assert tcplab.run(moved, progress=False).fct["bytes"].to_list() == fct["bytes"].to_list()
    # Overriding the file reads the new one.
    (tmp_path / "big.cdf").write_text("0 0\n50000 0.5\n50001 1\n")
    big = sc.with_overrides({"workloads.web.sizes.file": "big.cdf"})
    assert "50000" in big.to_dict()["workloads"]["web"]["sizes"]["text"]


@pytest.mark.parametrize(("text", "why"), [
    (None, "no such file 'mine.cdf'"),
    ("0 0\n100 0.5\n", "'mine.cdf': the last point's probability is 0.5, not 1"),
    ("0 0\n100 x\n", "'mine.cdf': line 2: expected 'bytes probability'"),
])  # fmt: skip
def test_bad_cdf_files_name_the_field_and_the_file(tmp_path: Path, text: str | None, why: str) -> None:
    if text is not None:
        (tmp_path / "mine.cdf").write_text(text)
    import tomli_w

    path = tmp_path / "sc.toml"
    path.write_text(tomli_w.dumps(_fat_tree(web={**WEB, "sizes": {"file": "mine.cdf"}})))
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(Scenario.from_toml(path), progress=False)
    assert e.value.field == "workloads.web.sizes.file", e.value
    assert why in e.value.reason, e.value.reason

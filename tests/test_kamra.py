"""Seed 002 (kamra): the manifest, the run-level grid metrics it needs (links.NAME.KEY,
fairness.KEY, a list of flows), the min/max claim kinds, shared runs between figures, and a
shortened, scaled-down reproduction (the full one is `tcplab reproduce kamra`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

import tcplab
from tcplab.repro.claims import Claim, Curve, Grid, evaluate_claims, metric_value
from tcplab.repro.reproduce import load_manifest, paper_dir, reproduce
from tcplab.scenario import ScenarioError

KAMRA = paper_dir("kamra")

# OC-48 scaled down 10x for CI: 240 Mb/s, the RED-I/CHOKe thresholds and the buffer / 10
# (40/120/400 packets); everything else (60 ms, 1000-B packets, access 10 Gb/s) unchanged.
SCALED = {"dumbbell.bottleneck.rate": "240Mbps", "dumbbell.bottleneck.queue.min_th": 40,
          "dumbbell.bottleneck.queue.max_th": 120, "dumbbell.bottleneck.queue.limit": 400}


def _values(rows: list[tuple[str, str, float, float]]) -> pl.DataFrame:
    return pl.DataFrame(
        [{"figure": f, "curve": c, "label": c, "x": x, "n": 1, "mean": m, "std": None, "ci95": None} for f, c, x, m in rows],
        schema={"figure": pl.String, "curve": pl.String, "label": pl.String, "x": pl.Float64, "n": pl.Int64,
                "mean": pl.Float64, "std": pl.Float64, "ci95": pl.Float64},
    )


def test_min_max_claims() -> None:
    v = _values([("f", "a", 20, 0.97), ("f", "a", 60, 0.91), ("f", "a", 200, 0.99)])
    df = evaluate_claims([
        Claim("lo", "min", "min", {"figure": "f", "curve": "a"}, None, 0.95, None),
        Claim("hi", "max", "max", {"figure": "f", "curve": "a"}, None, None, 0.99),
        Claim("lo40", "min from 40", "min", {"figure": "f", "curve": "a", "x": [20, 200]}, None, 0.95, None),
    ], v)
    got = {r["claim"]: r for r in df.iter_rows(named=True)}
    assert got["lo"]["simulated"] == 0.91 and not got["lo"]["met"] and "x = 60" in got["lo"]["detail"]
    assert got["hi"]["simulated"] == 0.99 and got["hi"]["met"]
    assert got["lo40"]["simulated"] == 0.97 and got["lo40"]["met"]


def test_run_level_and_summed_metrics() -> None:
    summary = {"flows": [{"name": "f1", "goodput_bps": 1e9}, {"name": "f2", "goodput_bps": 5e8}],
               "links": [{"name": "bn", "steady_utilization": 0.9}, {"name": "bn_rev", "steady_utilization": 0.01}],
               "fairness": {"jain": 0.9, "flows": 2, "groups": {"g": {"jain": 0.5}}}}

    def g(metric: str, flow: str | list[str] = "") -> Grid:
        return Grid(flow=flow, metric=metric, curves=[Curve("c", "c")])

    assert metric_value("x", g("links.bn.steady_utilization"), summary) == 0.9
    assert metric_value("x", g("fairness.jain"), summary) == 0.9
    assert metric_value("x", g("fairness.groups.g.jain"), summary) == 0.5
    assert metric_value("x", g("goodput_bps", ["f1", "f2"]), summary) == 1.5e9
    assert metric_value("x", g("goodput_bps", "f2"), summary) == 5e8
    with pytest.raises(ScenarioError, match="no link 'nb'"):
        metric_value("x", g("links.nb.steady_utilization"), summary)
    with pytest.raises(ScenarioError, match="fairness.groups"):
        metric_value("x", g("fairness.groups"), summary)


def _paper(tmp_path: Path, body: str) -> Path:
    d = tmp_path / "p"
    d.mkdir(parents=True)
    shutil.copy(KAMRA / "dumbbell.toml", d / "dumbbell.toml")
    (d / "reproduce.toml").write_text(body)
    return d


FIG = """
[[figure]]
id = "{id}"
title = "t"
kind = "grid"
scenario = "dumbbell.toml"
vary = ["dumbbell.rtt"]
unit = "ms"
x = [60]
metric = "{metric}"
curves = [{{ id = "e", label = "TCP/E" }}]
"""


def test_bad_run_level_metric_names_the_field(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as e:
        load_manifest(_paper(tmp_path, FIG.format(id="a", metric="links.bn")))
    assert e.value.field == "figure[0].metric" and "links.NAME.KEY" in e.value.reason
    with pytest.raises(ScenarioError) as e:  # a per-flow metric still needs its flow
        load_manifest(_paper(tmp_path / "b", FIG.format(id="a", metric="goodput_bps")))
    assert e.value.field == "figure[0].flow"
    body = FIG.format(id="a", metric="fairness.jain").replace('metric =', 'plot = "series"\nmetric =')
    with pytest.raises(ScenarioError) as e:
        load_manifest(_paper(tmp_path / "c", body))
    assert e.value.field == "figure[0].plot"


def test_figures_share_identical_runs(tmp_path: Path) -> None:
    """Two figures plotting different metrics of the same runs: each run is made once and
    both figures get its output."""
    d = _paper(tmp_path, FIG.format(id="util", metric="links.bn.steady_utilization")
               + FIG.format(id="jain", metric="fairness.jain"))
    seen: list[tuple[int, int, str]] = []
    out = tmp_path / "out"
    reproduce(str(d), out, jobs=1, on_progress=lambda i, n, what: seen.append((i, n, what)),
              overrides={"duration": "35s", **SCALED})
    assert [n for _, n, _ in seen] == [1]
    a = json.loads((out / "util" / "e" / "x60" / "s1" / "summary.json").read_text())
    b = json.loads((out / "jain" / "e" / "x60" / "s1" / "summary.json").read_text())
    assert a == b
    vals = pl.read_parquet(out / "report.parquet")
    assert set(vals["figure"]) == {"util", "jain"}


def test_kamra_manifest_covers_every_figure() -> None:
    _, figs = load_manifest(KAMRA)
    ids = [f.id for f in figs]
    assert [f"fig{i}" for i in range(1, 14)] == [i for i in ids if i[3:].isdigit()]
    jobs = [j for f in figs for j in f.jobs()]
    # Figs 3-6 and 10-13 share their runs (same AQM, losses, delay, variant): 81 distinct runs
    # for the 13 figures, 3 more for the 15,000-packet buffer variant of Fig 1, 3 + 18 for
    # the SACK-less NewReno variants of Figs 1 and 3, and 6 + 6 for Fig 3's TCP/E with the
    # 15,000-packet and the 1.2-BDP buffer.
    distinct = {json.dumps([str(j.scenario), j.overrides], sort_keys=True) for j in jobs}
    assert len(distinct) == 117
    fig4 = next(f for f in figs if f.id == "fig4")
    j = next(j for j in fig4.jobs() if j.variant == "hstcp/x20/s1")
    assert j.overrides["dumbbell.rtt"] == "20ms" and j.overrides["links.bn.loss"] == 3.33e-7
    assert {j.overrides[f"flows.{f}.cc"] for f in ("f1", "f2", "f3")} == {"highspeed"}
    # Every run of the manifest is a valid scenario; the OC-48 path is what the paper states.
    for jb in jobs:
        tcplab.Scenario.from_toml(jb.scenario).with_overrides(jb.overrides).validate()
    sc = tcplab.Scenario.from_toml(KAMRA / "dumbbell.toml").with_overrides({"dumbbell.rtt": "200ms"})
    ex = sc.expand()
    links = ex.to_dict()["links"]
    one_way = sum(float(str(links[n]["delay"]).removesuffix("ms")) for n in ("s1", "bn", "d1"))
    assert one_way == pytest.approx(100.0)


def test_kamra_shortened_reproduction(tmp_path: Path) -> None:
    """Fig 1 of seed 002 on a fresh checkout, 40 s and scaled down 10x (SCALED); the full
    500-s OC-48 runs are `tcplab reproduce kamra`. The report lists the Fig 1 claim. With the
    manifest's SACK base, TCP/E's first slow start still overflows the buffer, but every
    hole is repaired once and without a timeout, and one TCP/E flow fills the link; with
    SACK-less NewReno (fig1_newreno) the same overflow leaves it far below the link rate,
    while HSTCP, which never overflows, is the same under both."""
    out = tmp_path / "k"
    df = reproduce("kamra", out, only=["fig1", "fig1_newreno"], jobs=2,
                   overrides={"duration": "40s", **SCALED})
    assert df["claim"].to_list() == ["f1_tcpe_capacity"]
    v = pl.read_parquet(out / "report.parquet")
    mean = {(r["figure"], r["curve"]): r["mean"] for r in v.iter_rows(named=True)}
    cap = 0.24 * 0.98  # Gb/s, TCP header+payload
    assert mean["fig1", "tcpe"] > 0.95 * cap and mean["fig1", "tcpe"] > mean["fig1", "hstcp"]
    assert mean["fig1_newreno", "tcpe"] < 0.25 * cap
    assert mean["fig1_newreno", "hstcp"] == mean["fig1", "hstcp"]

    def run(fig: str) -> tuple[dict, dict]:
        s = json.loads((out / fig / "tcpe" / "x60" / "s1" / "summary.json").read_text())
        return next(lk for lk in s["links"] if lk["name"] == "bn"), s["flows"][0]

    bn, f = run("fig1")
    assert bn["drops_overflow"] > 100
    assert f["retransmits"] == bn["drops"] and f["timeouts"] == 0
    bn, f = run("fig1_newreno")
    assert bn["drops_overflow"] > 100 and f["retransmits"] < bn["drops_overflow"]
    assert (out / "fig1.png").is_file() and "Shortened or modified run" in (out / "report.md").read_text()


def _scaled_cycle_run(rtt: str, bdp_buffer: bool) -> tuple[dict, pl.DataFrame, pl.DataFrame]:
    ov: dict = {"dumbbell.rtt": rtt, "duration": "60s", "metrics.trace": "10ms", **SCALED}
    if bdp_buffer:  # fig3_buffer_bdp, scaled: 1.2 BDP of buffer, a 200,000-packet max window
        del ov["dumbbell.bottleneck.queue.limit"], ov["dumbbell.bottleneck.queue.min_th"], ov["dumbbell.bottleneck.queue.max_th"]
        ov["dumbbell.bottleneck.queue"] = {"type": "choke_red_i", "min_th": 40, "max_th": 120}
        ov["dumbbell.bottleneck.buffer"] = "1.2bdp"
        ov.update({f"flows.f{i}.max_window": 192_000_000 for i in (1, 2, 3)})
    res = tcplab.run(tcplab.Scenario.from_toml(KAMRA / "dumbbell.toml").with_overrides(ov), progress=False)
    bn = next(lk for lk in res.summary["links"] if lk["name"] == "bn")
    return bn, res.traces["cwnd"].filter(pl.col("t") >= 30), res.traces["queue"].filter((pl.col("link") == "bn") & (pl.col("t") >= 30))


def test_kamra_tcpe_slow_start_cycle_with_a_buffer_below_the_bdp() -> None:
    """The cause of Fig 3's fall at long delays (the f3 claim's explain), scaled 10x down: with
    the paper's buffer (0.067 BDP at 200 ms) the halved windows cannot keep the queue busy, the
    queue empties, every TCP/E flow returns to slow start after an RTT without a mark and
    overflows the buffer again; with 1.2 BDP of buffer the same flows keep the link busy."""
    bn, cwnd, queue = _scaled_cycle_run("200ms", bdp_buffer=False)
    empty = queue.filter(pl.col("packets") <= 1).height / queue.height
    starts = []
    for f in ("f1", "f2", "f3"):
        ss = cwnd.filter(pl.col("flow") == f)["cc_slow_start"].to_list()
        starts.append(sum(1 for a, b in zip(ss, ss[1:]) if a == 0 and b == 1))
    assert bn["steady_utilization"] < 0.7 and bn["drops_overflow"] > 10_000
    assert empty > 0.5 and min(starts) >= 20  # 30 s = 75 round trips
    bn2, _, queue2 = _scaled_cycle_run("200ms", bdp_buffer=True)
    assert bn2["drops_overflow"] == 0 and bn2["steady_utilization"] > 0.95
    assert queue2.filter(pl.col("packets") <= 1).height / queue2.height < empty / 2

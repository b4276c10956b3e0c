"""Grid figures and claims in reproduce manifests (python/tcplab/claims.py), and the seed-001
(ho2011) manifest and dumbbell."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

import tcplab
from tcplab.claims import Claim, evaluate_claims
from tcplab.reproduce import load_manifest, paper_dir, reproduce
from tcplab.scenario import ScenarioError

HO = paper_dir("ho2011")


def _values(rows: list[tuple[str, str, float, float]]) -> pl.DataFrame:
    return pl.DataFrame(
        [{"figure": f, "curve": c, "label": c, "x": x, "n": 1, "mean": m, "std": None, "ci95": None} for f, c, x, m in rows],
        schema={"figure": pl.String, "curve": pl.String, "label": pl.String, "x": pl.Float64, "n": pl.Int64,
                "mean": pl.Float64, "std": pl.Float64, "ci95": pl.Float64},
    )


def test_claim_kinds_compute_what_they_say() -> None:
    v = _values([("f", "a", 1, 8.0), ("f", "a", 2, 4.0), ("f", "a", 4, 4.5),
                 ("f", "b", 1, 4.0), ("f", "b", 2, 4.0), ("f", "b", 4, 1.5)])
    claims = [
        Claim("r", "ratio", "ratio", {"figure": "f", "curve": "a", "x": 4}, {"figure": "f", "curve": "b", "x": 4}, 2.9, 3.1),
        Claim("v", "value", "value", {"figure": "f", "curve": "a", "x": 2}, None, 5.0, None),
        Claim("g", "ge", "ge", {"figure": "f", "curve": "a"}, {"figure": "f", "curve": "b"}, 1.01, None),
        Claim("g2", "ge from 4", "ge", {"figure": "f", "curve": "a"}, {"figure": "f", "curve": "b"}, 1.01, None, x_min=4),
        Claim("d", "decreasing", "decreasing", {"figure": "f", "curve": "a"}, None, None, 1.0, explain="because"),
    ]
    df = evaluate_claims(claims, v)
    got = {r["claim"]: r for r in df.iter_rows(named=True)}
    assert got["r"]["simulated"] == pytest.approx(3.0) and got["r"]["met"]
    assert got["v"]["simulated"] == 4.0 and not got["v"]["met"]
    assert got["g"]["simulated"] == 1.0 and not got["g"]["met"]  # equal at x = 2 is not "more"
    assert got["g2"]["simulated"] == 3.0 and got["g2"]["met"]
    assert got["d"]["simulated"] == pytest.approx(4.5 / 4.0) and not got["d"]["met"]
    assert got["d"]["note"] == "because"
    assert got["v"]["note"].startswith("Unexplained")


def _manifest(tmp_path: Path, body: str) -> Path:
    d = tmp_path / "paper"
    d.mkdir(parents=True)
    shutil.copy(HO / "dumbbell.toml", d / "dumbbell.toml")
    (d / "reproduce.toml").write_text(body)
    return d


GRID = """
[[figure]]
id = "k"
title = "t"
kind = "grid"
scenario = "dumbbell.toml"
vary = ["links.r2r1.rate.asym_k"]
x = [2, 8]
flow = "tcp"
metric = "throughput_bps"
y_scale = 1e-6
curves = [{ id = "vegas", label = "Vegas" }, { id = "fast", set = { "flows.tcp.cc" = { algorithm = "fast" } } }]
"""


@pytest.mark.parametrize(
    "claim, field, reason",
    [
        ('id = "c"\ntext = "t"\nkind = "ratio"\na = { figure = "k", curve = "vegas", x = 2 }', "claim[0].b", "compares a with b"),
        ('id = "c"\ntext = "t"\nkind = "value"\na = { figure = "k", curve = "reno", x = 2 }', "claim[0].a.curve", "no curve 'reno'"),
        ('id = "c"\ntext = "t"\nkind = "value"\na = { figure = "k", curve = "vegas", x = 3 }', "claim[0].a.x", "no x = 3"),
        ('id = "c"\ntext = "t"\nkind = "value"\na = { figure = "z", curve = "vegas", x = 2 }', "claim[0].a.figure", "no grid figure"),
        ('id = "c"\ntext = "t"\nkind = "bigger"\na = { figure = "k", curve = "vegas", x = 2 }', "claim[0].kind", "must be one of"),
        ('id = "c"\ntext = "t"\nkind = "value"\na = { figure = "k", curve = "vegas" }', "claim[0].a.x", "one x value"),
        ('id = "c"\ntext = "t"\nkind = "value"\na = { figure = "k", curve = "vegas", x = 2 }\nfoo = 1', "claim[0].foo", "unknown"),
    ],
)
def test_bad_claims_name_the_field(tmp_path: Path, claim: str, field: str, reason: str) -> None:
    d = _manifest(tmp_path, GRID + "\n[[claim]]\n" + claim + "\n")
    with pytest.raises(ScenarioError) as e:
        load_manifest(d)
    assert e.value.field == field and reason in e.value.reason


def test_bad_grid_fields(tmp_path: Path) -> None:
    d = _manifest(tmp_path, GRID.replace('flow = "tcp"\n', ""))
    with pytest.raises(ScenarioError) as e:
        load_manifest(d)
    assert e.value.field == "figure[0].flow"
    d2 = _manifest(tmp_path / "b", GRID.replace('x = [2, 8]', 'x = [2, 8]\nseeds = 0'))
    with pytest.raises(ScenarioError) as e:
        load_manifest(d2)
    assert e.value.field == "figure[0].seeds"


def test_grid_runs_plots_and_reports(tmp_path: Path) -> None:
    claims = """
[[claim]]
id = "ack_clock"
text = "Vegas at k = 8 is held at the ack clock's bound, 16/k = 2 Mb/s"
kind = "value"
a = { figure = "k", curve = "vegas", x = 8 }
paper = 2
lo = 1.9
hi = 2.02

[[claim]]
id = "falls"
text = "falls with k"
kind = "decreasing"
a = { figure = "k", curve = "fast" }
hi = 1.0
"""
    d = _manifest(tmp_path, GRID + claims)
    out = tmp_path / "out"
    df = reproduce(str(d), out, jobs=2, overrides={"duration": "20s", "metrics.steady_start": "10s"})
    assert df["claim"].to_list() == ["ack_clock", "falls"]
    assert df["met"].all(), df
    for f in ("report.md", "report.html", "report.parquet", "claims.parquet", "k.png"):
        assert (out / f).is_file(), f
    md = (out / "report.md").read_text()
    assert "Shortened or modified run" in md and "2 of 2 claims met" in md
    vals = pl.read_parquet(out / "report.parquet")
    assert vals.height == 4 and set(vals["curve"]) == {"vegas", "fast"}
    s = json.loads((out / "k" / "vegas" / "x8" / "s1" / "summary.json").read_text())
    assert s["run"]["sim_seconds"] == 20.0
    assert s["links"][[lk["name"] for lk in s["links"]].index("r2r1")]["rate_bps"] == 80_000


def test_ho2011_manifest_and_jobs() -> None:
    title, figs = load_manifest(HO)
    assert "seed 001" in title
    jobs = {f.id: f.jobs() for f in figs}
    assert len(jobs["fig2_3"]) == 4 * 5 and len(jobs["fig4"]) == 4 * 11 * 5
    j = next(j for j in jobs["fig4"] if j.variant == "fast_alt/x0.9/s3")
    assert j.overrides["flows.vbr.app.mean_rate"] == "14.4Mbps" and j.overrides["seed"] == 3
    assert j.overrides["links.r2r1.rate"] == "16Mbps"
    k0 = next(j for j in jobs["fig4"] if j.variant == "vegas/x0/s1")
    assert k0.overrides["flows.vbr.app.mean_rate"] == "0Mbps"


def test_ho2011_vbr_load_is_the_mean_rate() -> None:
    """The VBR source at load 0.5 of 16 Mb/s sends 8 Mb/s on average (1000-B datagrams); with
    constant periods the wiring is exact (the exponential long-run mean is a unit test)."""
    sc = tcplab.Scenario.from_toml(HO / "dumbbell.toml").with_overrides(
        {"links.r2r1.rate": "16Mbps", "flows.vbr.app.mean_rate": "8Mbps", "flows.vbr.app.distribution": "constant",
         "duration": "400s", "metrics.steady_start": "0s"})
    res = tcplab.run(sc, progress=False)
    vbr = next(f for f in res.summary["flows"] if f["name"] == "vbr")
    rate = vbr["packets_sent"] * 8000 / 400
    assert rate == pytest.approx(8e6, rel=0.005)


def test_ho2011_shortened_reproduction(tmp_path: Path) -> None:
    """Figs 2-3 of seed 001 on a fresh checkout, shortened to 60 s (the full runs are
    `make reproduce PAPER=ho2011`): every curve runs, the report lists the Figs 2-3 claims,
    and the physics the report's explanations rest on holds: plain Vegas and FAST sit at the
    ack clock 16/k Mb/s, the -ALT variants above it."""
    out = tmp_path / "ho"
    df = reproduce("ho2011", out, only=["fig2_3_mean"], jobs=2,
                   overrides={"duration": "60s", "metrics.steady_start": "30s"})
    assert set(df["claim"]) >= {"vegas_falls_with_k", "ratio_k2", "fast_alt_ge_fast_k"}
    v = pl.read_parquet(out / "report.parquet")
    mean = {(r["curve"], r["x"]): r["mean"] for r in v.iter_rows(named=True)}
    for k in (2, 4, 8, 16, 32):
        for plain in ("vegas", "fast"):
            assert mean[(plain, k)] == pytest.approx(16 / k, rel=0.01), (plain, k)
        assert mean[("vegas_alt", k)] > 1.05 * mean[("vegas", k)], k  # k = 8: 2.23 vs 2.0 at 60 s (slow climb)
        assert mean[("fast_alt", k)] > 1.2 * mean[("fast", k)], k
    assert "Shortened or modified run" in (out / "report.md").read_text()

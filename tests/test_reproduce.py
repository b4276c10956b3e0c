"""`tcplab reproduce`: every seed-000 experiment runs, every figure and the report are written,
and every row of the report agrees with its closed form and the paper or carries an explanation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from tcplab.repro.reproduce import AGREE_PT, load_manifest, paper_dir, reproduce
from tcplab.scenario import ScenarioError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pl.DataFrame]:
    out = tmp_path_factory.mktemp("k97")
    return out, reproduce("kalampoukas97", out, jobs=2)


def test_every_figure_and_report_is_written(full: tuple[Path, pl.DataFrame]) -> None:
    out, df = full
    _, figs = load_manifest(paper_dir("kalampoukas97"))
    assert {f.id for f in figs} >= {"fig2_3", "fig3_2", "fig4_2", "fig4_3", "fig4_4", "fig5_3", "fig5_4", "fig5_5",
                                    "fig5_6", "fig6_2", "fig6_3", "fig6_4", "fig6_5", "x5_3_a28", "x5_3_b"}
    for f in figs:
        assert (out / f"{f.id}.png").stat().st_size > 10_000, f.id
    assert (out / "fig5_5_aggregate.png").is_file()
    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    assert md.count("![") == html.count("data:image/png;base64,") == len(figs) + 1
    assert set(df["figure"].unique()) == {f.id for f in figs}
    assert pl.read_parquet(out / "report.parquet").equals(df)


def test_every_row_agrees_or_is_explained(full: tuple[Path, pl.DataFrame]) -> None:
    _, df = full
    assert df.height >= 15
    for r in df.iter_rows(named=True):
        within = abs(r["difference_pt"]) <= AGREE_PT and (
            r["paper"] is None or abs(100 * (r["simulated"] - r["paper"])) <= AGREE_PT)
        assert r["agrees"] == within, r
        if not within:
            assert r["note"] and "Unexplained" not in r["note"], r


def test_headline_numbers(full: tuple[Path, pl.DataFrame]) -> None:
    """The paper's central claims, read from the simulated column (not the closed form)."""
    _, df = full

    def sim(fig: str, role: str, variant: str = "run") -> float:
        row = df.filter((pl.col("figure") == fig) & (pl.col("variant") == variant) & pl.col("role").str.starts_with(role))
        return float(row["simulated"][0])

    assert sim("fig2_3", "fast") < 0.025            # "under 2%" without control
    assert 0.88 <= sim("fig4_2", "fast") <= 0.95    # "close to 92%" with ack priority
    assert sim("fig4_4", "slow") < 0.01             # slow connection starved
    assert 0.50 <= sim("fig5_3", "slow") <= 0.60    # backpressure 56 %/48 %
    assert 0.14 <= sim("fig5_4", "slow") <= 0.22
    assert 0.45 <= sim("fig6_3", "slow") <= 0.55    # allocation keeps the slow connection at f
    assert 0.15 <= sim("fig6_5", "slow") <= 0.21
    # Fig 3.2: fast throughput doubles with the fast buffer (Theorem 1, case 3).
    ratio = sim("fig3_2", "fast", "x8") / sim("fig3_2", "fast", "x4")
    assert 1.9 <= ratio <= 2.1


def test_cli_one_figure_and_errors(tmp_path: Path) -> None:
    exe = [str(Path(sys.executable).parent / "tcplab")]
    r = subprocess.run([*exe, "reproduce", "kalampoukas97", "--only", "fig6_5", "--out", str(tmp_path / "o")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "fig6_5" in r.stdout and (tmp_path / "o" / "report.html").is_file()
    r = subprocess.run([*exe, "reproduce", "kalampoukas97", "--only", "fig99"], capture_output=True, text=True)
    assert r.returncode == 2 and "--only: unknown figure 'fig99'" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([*exe, "reproduce", "nosuchpaper"], capture_output=True, text=True)
    assert r.returncode == 2 and "no reproduce.toml" in r.stderr


def test_bad_manifest_names_the_field(tmp_path: Path) -> None:
    (tmp_path / "reproduce.toml").write_text('[[figure]]\nid = "a"\ntitle = "t"\nkind = "movie"\nscenario = "x.toml"\n')
    with pytest.raises(ScenarioError, match="kind"):
        load_manifest(tmp_path)
    (tmp_path / "reproduce.toml").write_text('[[figure]]\nid = "a"\ntitle = "t"\nkind = "timeseries"\nscenario = "x.toml"\n')
    with pytest.raises(ScenarioError, match="no such file"):
        load_manifest(tmp_path)


def test_resume_runs_only_what_is_missing_or_stale(tmp_path: Path) -> None:
    """`resume`: complete runs of the same job are kept, a run whose summary is missing (a
    killed reproduction) or whose overrides differ is run again, and the report is the same."""
    out = tmp_path / "k"
    opts = {"only": ["fig3_2", "fig4_2"], "jobs": 1, "overrides": {"duration": "200s"}}
    first = reproduce("kalampoukas97", out, **opts)
    runs = sorted(p.parent for p in out.glob("*/**/summary.json"))
    assert len(runs) > 2 and all((r / "job.json").is_file() for r in runs)
    (runs[0] / "summary.json").unlink()  # as if killed before this run was complete
    stamp = {r: (r / "summary.json").stat().st_mtime_ns for r in runs[1:]}
    seen: list[tuple[int, int, str]] = []
    again = reproduce("kalampoukas97", out, resume=True, on_progress=lambda *a: seen.append(a), **opts)
    assert again.equals(first)
    assert (runs[0] / "summary.json").is_file()
    assert all((r / "summary.json").stat().st_mtime_ns == t for r, t in stamp.items())
    assert seen[0][0] == len(runs) - 1 and seen[-1][:2] == (len(runs), len(runs))
    # Other overrides: every run is made again.
    seen.clear()
    reproduce("kalampoukas97", out, resume=True, on_progress=lambda *a: seen.append(a), **{**opts, "overrides": {"duration": "201s"}})
    assert [s[0] for s in seen] == list(range(1, len(runs) + 1))


def test_n_jobs_counts_every_papers_runs_without_building_them() -> None:
    """`tcplab list` counts runs with Figure.n_jobs(); it must equal the runs jobs() builds."""
    from tcplab.repro.reproduce import _load, papers

    seen = 0
    for name in papers():
        _, figs, _ = _load(paper_dir(name))
        for f in figs:
            assert f.n_jobs() == len(f.jobs()), (name, f.id)
            seen += 1
    assert seen > 50

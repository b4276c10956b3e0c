"""Sweeps: spec checking, parallel runs, the combined table, resume, failures, worker
death, SIGKILL, Dask, the CLI and plot_sweep."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import polars as pl
import pytest

import tcplab
from conftest import LOSSY, REPO, TCPLAB, CliRunner
from sweep_hooks import Counting, Crash
from tcplab.reporting.plots import plot_sweep, sweep_stats
from tcplab.sweeps import SweepSpec, run_id

GRID_SPEC = """
base = "lossy.toml"
seeds = 3

[grid]
"links.ab.loss" = [0.01, 0.05]
flows.bulk.cc = ["reno", "newreno"]
"""


@pytest.fixture
def spec_dir(tmp_path: Path) -> Path:
    """A directory with the small lossy scenario as lossy.toml and GRID_SPEC as grid.toml."""
    (tmp_path / "lossy.toml").write_text(tcplab.Scenario.from_dict(LOSSY).to_toml())
    (tmp_path / "grid.toml").write_text(GRID_SPEC)
    return tmp_path


def _snapshot(out: Path) -> dict[str, tuple[int, int]]:
    """(inode, mtime) of every run directory's run.json: unchanged means not run again."""
    snap = {}
    for d in (out / "runs").iterdir():
        st = (d / "run.json").stat()
        snap[d.name] = (st.st_ino, st.st_mtime_ns)
    return snap


# -- the spec ---------------------------------------------------------------------------------


def test_spec_expands_grid_in_order(spec_dir: Path) -> None:
    spec = SweepSpec.from_toml(spec_dir / "grid.toml")
    assert spec.name == "grid"
    assert spec.params == ["links.ab.loss", "flows.bulk.cc"]
    assert spec.seeds == [1, 2, 3]
    runs = spec.runs()
    assert len(runs) == 12
    assert [(r.overrides["links.ab.loss"], r.overrides["flows.bulk.cc"], r.seed) for r in runs[:4]] == [
        (0.01, "reno", 1), (0.01, "reno", 2), (0.01, "reno", 3), (0.01, "newreno", 1),
    ]  # fmt: skip
    assert len({r.id for r in runs}) == 12
    # Ids are a function of content: the same spec read again gives the same ids.
    assert [r.id for r in SweepSpec.from_toml(spec_dir / "grid.toml").runs()] == [r.id for r in runs]


def test_run_id_is_stable_and_content_based() -> None:
    base = {"duration": "20s", "links": {"up": {"rate": "1Mbps"}}}
    rid = run_id(base, {"links.up.rate": "2Mbps", "duration": "5s"}, 3)
    # A fixed value: the id must not depend on the process (no hash randomisation) or on
    # the order overrides are written in.
    assert rid == "40dbd9ce999751e6"
    assert run_id(base, {"duration": "5s", "links.up.rate": "2Mbps"}, 3) == rid
    assert run_id(base, {"links.up.rate": "2Mbps", "duration": "5s"}, 4) != rid
    assert run_id({**base, "duration": "21s"}, {"links.up.rate": "2Mbps", "duration": "5s"}, 3) != rid
    assert run_id(base, {"links.up.rate": "3Mbps", "duration": "5s"}, 3) != rid


def test_spec_list_set_and_seed_list(spec_dir: Path) -> None:
    spec = SweepSpec.from_dict(
        {
            "base": "lossy.toml",
            "seeds": [7, 3],
            "set": {"duration": "5s", "metrics": {"steady_start": "1s"}},
            "list": [{"links.ab.loss": 0.0}, {"links": {"ab": {"loss": 0.1}}, "flows.bulk.cc": "reno"}],
        },
        root=spec_dir,
    )
    assert spec.fixed == {"duration": "5s", "metrics.steady_start": "1s"}
    assert spec.base.to_dict()["metrics"]["steady_start"] == "1s"
    assert spec.params == ["links.ab.loss", "flows.bulk.cc"]
    assert spec.points == [{"links.ab.loss": 0.0}, {"links.ab.loss": 0.1, "flows.bulk.cc": "reno"}]
    assert [r.seed for r in spec.runs()] == [7, 3, 7, 3]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"grid": {"duration": ["5s"]}}, "base: missing"),
        ({"base": "nope.toml", "grid": {"duration": ["5s"]}}, "base: {dir}/nope.toml: no such file"),
        ({"base": "lossy.toml", "grid": {"duration": ["5s"]}, "grids": 1}, "grids: unknown field"),
        ({"base": "lossy.toml", "grid": {}}, "grid: is empty"),
        ({"base": "lossy.toml"}, "grid: missing"),
        ({"base": "lossy.toml", "grid": {"duration": []}}, "grid.duration: is an empty list"),
        ({"base": "lossy.toml", "grid": {"duration": "5s"}}, "grid.duration: must be a list of values"),
        ({"base": "lossy.toml", "grid": {"duration": ["5s", "5s"]}}, 'grid.duration: repeats the value "5s"'),
        ({"base": "lossy.toml", "grid": {"seed": [1, 2]}}, "grid.seed: vary the seed with `seeds`"),
        ({"base": "lossy.toml", "grid": {"a..b": [1]}}, "grid.a..b: is not a valid dotted key"),
        ({"base": "lossy.toml", "grid": {"x": [1]}, "list": [{}]}, "list: give either grid or list"),
        ({"base": "lossy.toml", "list": []}, "list: is empty"),
        ({"base": "lossy.toml", "list": [{"duration": "5s"}, {"duration": "5s"}]}, "list[1]: repeats list[0]"),
        ({"base": "lossy.toml", "list": [3]}, "list[0]: must be a table of overrides"),
        ({"base": "lossy.toml", "grid": {"duration": ["5s"]}, "seeds": 0}, "seeds: must be at least 1"),
        ({"base": "lossy.toml", "grid": {"duration": ["5s"]}, "seeds": [1, -1]}, "seeds[1]: must be an integer in [0, 2^64)"),
        ({"base": "lossy.toml", "grid": {"duration": ["5s"]}, "seeds": [2, 2]}, "seeds[1]: repeats seed 2"),
        ({"base": "lossy.toml", "grid": {"duration": ["5s"]}, "seeds": "3"}, "seeds: must be a count"),
        ({"base": "lossy.toml", "grid": {"duration": ["5s"]}, "set": {"links.ab.rate": "2"}}, "set.links.ab.rate: '2' has no unit"),
        ({"base": "lossy.toml", "grid": {"duration": ["5s"]}, "set": {"nodes.a.x": 1}}, "set.nodes.a.x: 'nodes.a' is a string"),
    ],
)  # fmt: skip
def test_spec_errors_name_the_field(spec_dir: Path, spec: dict[str, object], message: str) -> None:
    with pytest.raises(tcplab.ScenarioError) as info:
        SweepSpec.from_dict(spec, root=spec_dir, source="s.toml")
    assert str(info.value).startswith(f"s.toml: {message.format(dir=spec_dir)}"), str(info.value)
    assert info.value.file == "s.toml"


# -- running ---------------------------------------------------------------------------------------


def test_grid_sweep_combined_table_and_determinism(spec_dir: Path, tmp_path: Path) -> None:
    res = tcplab.sweep(spec_dir / "grid.toml", tmp_path / "a", jobs=2, progress=False)
    assert (res.ok, res.failed, res.executed, res.skipped) == (12, 0, 12, 0)
    s = res.summary
    assert s.columns[:5] == ["run_id", "seed", "links.ab.loss", "flows.bulk.cc", "flow"]
    assert {"efficiency", "goodput_bps", "retransmits"} <= set(s.columns)
    assert s.height == 12 and s["flow"].unique().to_list() == ["bulk"]
    assert s.schema["links.ab.loss"] == pl.Float64 and s.schema["flows.bulk.cc"] == pl.String
    assert s.schema["seed"] == pl.UInt64
    assert s.select("links.ab.loss", "flows.bulk.cc", "seed").rows()[:4] == [
        (0.01, "reno", 1), (0.01, "reno", 2), (0.01, "reno", 3), (0.01, "newreno", 1),
    ]  # fmt: skip
    assert s.equals(pl.read_parquet(tmp_path / "a" / "summary.parquet"))
    # Seeds matter: the 3 seeds of a point do not all give the same goodput.
    assert s.group_by("links.ab.loss", "flows.bulk.cc").agg(pl.col("goodput_bps").n_unique())["goodput_bps"].min() > 1
    # More loss, less goodput.
    by_loss = s.group_by("links.ab.loss").agg(pl.col("goodput_bps").mean()).sort("links.ab.loss")["goodput_bps"]
    assert by_loss[0] > by_loss[1]
    # Each run directory holds a loadable Result equal to running that scenario by hand.
    row = res.runs.row(5, named=True)
    sc = tcplab.Scenario.from_toml(spec_dir / "lossy.toml").with_overrides(
        {"links.ab.loss": row["links.ab.loss"], "flows.bulk.cc": row["flows.bulk.cc"]}
    )
    by_hand = tcplab.run(sc, seed=row["seed"], progress=False)
    stored = res.result(row["run_id"])
    assert stored.intervals.equals(by_hand.intervals)
    assert stored.summary["flows"] == by_hand.summary["flows"]
    assert tcplab.Scenario.from_toml(tmp_path / "a" / "runs" / row["run_id"] / "scenario.toml") == sc.with_overrides(
        {"seed": row["seed"]}
    )
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["counts"] == {"ok": 12, "failed": 0, "pending": 0}
    assert [r["id"] for r in manifest["runs"]] == res.runs["run_id"].to_list()
    assert not (tmp_path / "a" / "tmp").exists()
    # Same spec, other directory, one worker: byte-identical combined table.
    tcplab.sweep(spec_dir / "grid.toml", tmp_path / "b", jobs=1, progress=False)
    assert (tmp_path / "a" / "summary.parquet").read_bytes() == (tmp_path / "b" / "summary.parquet").read_bytes()
    again = tcplab.load_sweep(tmp_path / "a")
    assert again.summary.equals(s) and again.runs["status"].to_list() == ["ok"] * 12
    # Run-level columns (issue 31 §4): each equals the run's own summary.json.
    keys = ("steady_utilization", "steady_drop_rate", "steady_mark_rate", "steady_mean_queue_packets", "steady_mean_queue_delay_s")
    link_cols = [c for c in res.runs.columns if c.rsplit(".", 1)[-1] in keys]
    assert "jain" in res.runs.columns and {c.rsplit(".", 1)[-1] for c in link_cols} == set(keys)
    for r in res.runs.iter_rows(named=True):
        summary = res.result(r["run_id"]).summary
        assert r["jain"] == summary["fairness"]["jain"]
        links = {ln["name"]: ln for ln in summary["links"]}
        for c in link_cols:
            name, key = c.rsplit(".", 1)
            assert r[c] == links[name][key], (r["run_id"], c)
    assert again.runs.drop("executed").equals(res.runs.drop("executed"))


def test_resume_runs_nothing_twice(spec_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "executions.log"
    out = tmp_path / "out"
    first = tcplab.sweep(spec_dir / "grid.toml", out, jobs=2, progress=False, run_fn=Counting(log))
    assert first.executed == 12
    snap = _snapshot(out)
    again = tcplab.sweep(spec_dir / "grid.toml", out, jobs=2, progress=False, run_fn=Counting(log))
    assert (again.executed, again.skipped) == (0, 12)
    assert len(log.read_text().splitlines()) == 12  # nothing executed by the second call
    assert _snapshot(out) == snap
    assert again.summary.equals(first.summary)
    # Lose one run: only that one is run again.
    victim = first.runs["run_id"][4]
    import shutil

    shutil.rmtree(out / "runs" / victim)
    third = tcplab.sweep(spec_dir / "grid.toml", out, jobs=2, progress=False, run_fn=Counting(log))
    assert third.executed == 1 and third.runs.filter(pl.col("executed"))["run_id"].to_list() == [victim]
    assert len(log.read_text().splitlines()) == 13
    assert third.summary.equals(first.summary)
    # Widening the grid keeps the finished runs: only the new point's runs execute.
    (spec_dir / "grid.toml").write_text(GRID_SPEC.replace("[0.01, 0.05]", "[0.01, 0.05, 0.1]"))
    wider = tcplab.sweep(spec_dir / "grid.toml", out, jobs=2, progress=False, run_fn=Counting(log))
    assert (wider.executed, wider.skipped) == (6, 12)


def test_failing_runs_are_recorded_and_do_not_stop_the_sweep(spec_dir: Path, tmp_path: Path) -> None:
    (spec_dir / "list.toml").write_text(
        """
base = "lossy.toml"
seeds = 2
[[list]]
"links.ab.rate" = "1Mbps"
[[list]]
"links.ab.rate" = "fast"          # not a rate: the core rejects it
[[list]]
"nodes.a.kind" = "host"           # 'nodes.a' is a string: the override cannot apply
"""
    )
    out = tmp_path / "out"
    res = tcplab.sweep(spec_dir / "list.toml", out, jobs=2, progress=False)
    assert res.runs["status"].to_list() == ["ok", "ok", "failed", "failed", "failed", "failed"]
    errors = res.runs["error"].to_list()
    assert errors[2].startswith("links.ab.rate: 'fast'") and errors[2] == errors[3]
    assert errors[4].startswith("nodes.a.kind: 'nodes.a' is a string")
    assert res.summary.height == 2 and res.summary["links.ab.rate"].to_list() == ["1Mbps", "1Mbps"]
    assert res.summary["nodes.a.kind"].to_list() == [None, None]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"] == {"ok": 2, "failed": 4, "pending": 0}
    assert manifest["runs"][2]["status"] == "failed" and manifest["runs"][2]["error"] == errors[2]
    rec = json.loads((out / "runs" / res.runs["run_id"][2] / "run.json").read_text())
    assert rec["status"] == "failed" and rec["error"] == errors[2] and rec["overrides"] == {"links.ab.rate": "fast"}
    # Failed runs count as finished; retry_failed runs them again.
    assert tcplab.sweep(spec_dir / "list.toml", out, jobs=2, progress=False).executed == 0
    retried = tcplab.sweep(spec_dir / "list.toml", out, jobs=2, progress=False, retry_failed=True)
    assert retried.executed == 4 and retried.failed == 4


def test_dead_worker_is_retried(spec_dir: Path, tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    # Every seed-2 run kills its worker on the first attempt: all are retried and succeed.
    res = tcplab.sweep(spec_dir / "grid.toml", tmp_path / "a", jobs=2, progress=False, run_fn=Crash(markers, seed=2))
    assert res.failed == 0 and res.ok == 12
    attempts = dict(zip(res.runs["seed"].to_list(), res.runs["attempts"].to_list(), strict=False))
    assert res.runs.filter(pl.col("seed") == 2)["attempts"].to_list() == [2, 2, 2, 2]
    assert res.runs.filter(pl.col("seed") != 2)["attempts"].to_list() == [1] * 8, attempts
    reference = tcplab.sweep(spec_dir / "grid.toml", tmp_path / "b", jobs=2, progress=False)
    assert res.summary.equals(reference.summary)
    # A run that always kills its worker fails after 1 + retries attempts; the rest succeed.
    always = tcplab.sweep(
        {"base": str(spec_dir / "lossy.toml"), "seeds": [1, 2, 3], "list": [{}]},
        tmp_path / "c", jobs=2, retries=1, progress=False, run_fn=Crash(markers, seed=3, times=None),
    )  # fmt: skip
    assert always.runs["status"].to_list() == ["ok", "ok", "failed"]
    assert always.runs["attempts"].to_list() == [1, 1, 2]
    assert "worker process died" in always.runs["error"][2]


def test_progress_bar_shows_runs_failed_and_eta(spec_dir: Path, tmp_path: Path) -> None:
    import io

    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=120)
    res = tcplab.sweep(spec_dir / "grid.toml", tmp_path / "out", jobs=2, console=console)
    text = buf.getvalue()
    assert "/12 runs" in text and "failed" in text and "eta" in text
    table = io.StringIO()
    Console(file=table, width=150).print(res.table())
    assert "links.ab.loss" in table.getvalue() and "bulk efficiency" in table.getvalue() and "3/3" in table.getvalue()


def test_out_is_locked_while_a_sweep_runs(spec_dir: Path, tmp_path: Path) -> None:
    fcntl = pytest.importorskip("fcntl")
    out = tmp_path / "out"
    out.mkdir()
    fd = os.open(out / ".lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(tcplab.ScenarioError, match="in use by another tcplab sweep"):
            tcplab.sweep(spec_dir / "grid.toml", out, progress=False)
    finally:
        os.close(fd)


# -- the command line ---------------------------------------------------------------------------


def test_cli_sweep_then_resume(cli: CliRunner, spec_dir: Path) -> None:
    out = spec_dir / "out"
    r = cli("sweep", spec_dir / "grid.toml", "--out", out, "--jobs", "2")
    assert r.returncode == 0, r.stderr
    assert "12 runs: 12 run now, 0 done earlier, 0 failed" in r.stdout
    assert "links.ab.loss" in r.stdout and "bulk efficiency" in r.stdout
    r = cli("sweep", spec_dir / "grid.toml", "--out", out, "-q")
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""
    assert pl.read_parquet(out / "summary.parquet").height == 12


def test_cli_failed_runs_exit_1(cli: CliRunner, spec_dir: Path) -> None:
    (spec_dir / "bad.toml").write_text('base = "lossy.toml"\n[grid]\n"links.ab.rate" = ["1Mbps", "fast"]\n')
    r = cli("sweep", spec_dir / "bad.toml", "--out", spec_dir / "out", "-j", "1")
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "failed" in r.stdout and "links.ab.rate: 'fast'" in r.stdout
    assert r.stderr.strip().splitlines()[-1].startswith("error: 1 of 2 runs failed")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('base = "missing.toml"\n[grid]\nduration = ["5s"]\n', "base: {dir}/missing.toml: no such file"),
        ('base = "lossy.toml"\nbogus = 1\n[grid]\nduration = ["5s"]\n', "bogus: unknown field (a sweep spec has base,"),
        ('base = "lossy.toml"\n[grid]\n', "grid: is empty: give at least one key = [values]"),
        ('base = "lossy.toml"\n[grid]\nduration = ["5s"\n', "TOML syntax error at end of document"),
    ],
)
def test_cli_bad_spec_one_line_exit_2(cli: CliRunner, spec_dir: Path, text: str, expected: str) -> None:
    spec = spec_dir / "spec.toml"
    spec.write_text(text)
    r = cli("sweep", spec, "--out", spec_dir / "out")
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"error: {spec}: " + expected.format(dir=spec_dir)), r.stderr


def test_cli_missing_spec_file(cli: CliRunner, tmp_path: Path) -> None:
    r = cli("sweep", tmp_path / "nope.toml")
    assert r.returncode == 2 and r.stderr == f"error: {tmp_path / 'nope.toml'}: no such file\n"


def test_sigkill_mid_sweep_resumes_without_loss_or_repeats(spec_dir: Path, tmp_path: Path) -> None:
    # Runs of ~0.3 s each, so the sweep is certainly killed half-way.
    (spec_dir / "slow.toml").write_text(
        """
base = "lossy.toml"
seeds = 4
[set]
duration = "12000s"
"metrics.interval" = "60s"
[grid]
"links.ab.loss" = [0.01, 0.02]
"""
    )
    out = tmp_path / "killed"
    env = {**os.environ, "NO_COLOR": "1"}
    cmd = [str(TCPLAB), "sweep", str(spec_dir / "slow.toml"), "--out", str(out), "--jobs", "2", "--quiet"]
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    try:
        while not (out / "runs").is_dir() or not any((d / "run.json").exists() for d in (out / "runs").iterdir()):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.005)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    before = _snapshot(out)
    assert 1 <= len(before) < 8, "the sweep was not interrupted half-way"
    # Runs being written when it died are left as temp dirs; no partial run directory exists.
    for d in (out / "runs").iterdir():
        assert {"run.json", "summary.json", "intervals.parquet", "scenario.toml"} <= {p.name for p in d.iterdir()}
    time.sleep(0.6)  # orphaned workers notice their parent is gone (they must not write)
    r = subprocess.run(cmd[:-1], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"8 runs: {8 - len(before)} run now, {len(before)} done earlier, 0 failed" in r.stdout
    after = _snapshot(out)
    assert {k: after[k] for k in before} == before  # finished runs were not run again
    assert len(after) == 8 and not (out / "tmp").exists()
    ref = tcplab.sweep(spec_dir / "slow.toml", tmp_path / "uninterrupted", jobs=2, progress=False)
    assert pl.read_parquet(out / "summary.parquet").equals(ref.summary)
    assert (out / "summary.parquet").read_bytes() == (tmp_path / "uninterrupted" / "summary.parquet").read_bytes()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"] == {"ok": 8, "failed": 0, "pending": 0}
    assert all(json.loads((out / "runs" / k / "run.json").read_text())["attempts"] == 1 for k in after)


def test_ctrl_c_stops_workers_and_keeps_finished_runs(spec_dir: Path, tmp_path: Path) -> None:
    (spec_dir / "slow.toml").write_text(
        'base = "lossy.toml"\nseeds = 4\n[set]\nduration = "12000s"\n"metrics.interval" = "60s"\n'
        '[grid]\n"links.ab.loss" = [0.01, 0.02]\n'
    )
    out = tmp_path / "out"
    cmd = [str(TCPLAB), "sweep", str(spec_dir / "slow.toml"), "--out", str(out), "--jobs", "2"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while not (out / "runs").is_dir() or not any((out / "runs").iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole process group
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err == "interrupted: finished runs are kept; run the same command again to resume\n"
    done = _snapshot(out)
    assert 1 <= len(done) < 8
    res = tcplab.sweep(spec_dir / "slow.toml", out, jobs=2, progress=False)
    assert (res.skipped, res.executed, res.failed) == (len(done), 8 - len(done), 0)


# -- Dask ------------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_dask_local_cluster_end_to_end(spec_dir: Path, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    local = tcplab.sweep(spec_dir / "grid.toml", tmp_path / "local", jobs=2, progress=False)
    markers = tmp_path / "markers"
    markers.mkdir()
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None, silence_logs=50
    ) as cluster:
        res = tcplab.sweep(spec_dir / "grid.toml", tmp_path / "dask", dask=cluster.scheduler_address, progress=False)
        assert (res.ok, res.failed, res.executed) == (12, 0, 12)
        assert res.summary.equals(local.summary)
        assert (tmp_path / "dask" / "summary.parquet").read_bytes() == (tmp_path / "local" / "summary.parquet").read_bytes()
        again = tcplab.sweep(spec_dir / "grid.toml", tmp_path / "dask", dask=cluster.scheduler_address, progress=False)
        assert again.executed == 0
        # A worker that dies mid-run: the scheduler runs its task again elsewhere.
        crashy = tcplab.sweep(
            {"base": str(spec_dir / "lossy.toml"), "seeds": [1, 2], "list": [{}]},
            tmp_path / "crashy", dask=cluster.scheduler_address, progress=False, run_fn=Crash(markers, seed=2),
        )  # fmt: skip
        assert crashy.runs["status"].to_list() == ["ok", "ok"]
        assert len(list(markers.iterdir())) == 1  # seed 2 did kill a worker once


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_dask_worker_killed_mid_run_loses_and_duplicates_nothing(spec_dir: Path, tmp_path: Path) -> None:
    """Issue 32: SIGKILL from outside (the OOM killer, a preempted node) on a Dask worker
    while it runs: the scheduler runs that task again on the restarted worker; every run is
    stored exactly once and the results equal a local sweep's."""
    distributed = pytest.importorskip("distributed")
    import threading

    from sweep_hooks import KillableCounting

    local = tcplab.sweep(spec_dir / "grid.toml", tmp_path / "local", jobs=2, progress=False)
    log, pids = tmp_path / "log", tmp_path / "pids"
    pids.mkdir()
    killed: list[str] = []
    killed_pid: list[str] = []

    def killer() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            for f in pids.iterdir():
                pid, key = f.name.split("-", 1)
                os.kill(int(pid), signal.SIGKILL)
                killed.append(key)
                killed_pid.append(pid)
                return
            time.sleep(0.01)

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None, silence_logs=50
    ) as cluster:
        # Seed 2's runs wait 2 s in the worker first: the first of them is killed there.
        hook = KillableCounting(log, pids, seed=2, seconds=2.0)
        res = tcplab.sweep(spec_dir / "grid.toml", tmp_path / "dask", dask=cluster.scheduler_address, progress=False, run_fn=hook)
    t.join(timeout=5)
    assert len(killed) == 1, "no worker was killed"
    assert (res.ok, res.failed) == (12, 0)
    manifest = json.loads((tmp_path / "dask" / "manifest.json").read_text())
    assert manifest["counts"] == {"ok": 12, "failed": 0, "pending": 0}
    assert len(list((tmp_path / "dask" / "runs").iterdir())) == 12 and not (tmp_path / "dask" / "tmp").exists()
    assert res.summary.equals(local.summary)
    lines = [line.split() for line in log.read_text().splitlines()]
    keys = [key for key, _, _ in lines]
    # Every run executed, none stored twice (above). The killed run executed again; so may a
    # run that had finished on the killed worker but whose result the client had not yet
    # gathered: Dask recomputes results lost with a worker's memory ("Removing worker ...
    # caused the cluster to lose already computed task(s)"). Any other re-execution is a bug.
    assert len(set(keys)) == 12
    assert keys.count(killed[0]) >= 2
    for k in set(keys):
        if keys.count(k) > 1 and k != killed[0]:
            first_pid = next(pid for key, _, pid in lines if key == k)
            assert first_pid == killed_pid[0], f"{k} ran twice though its first run was not on the killed worker"


def test_dask_bad_address_is_a_clear_error(spec_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    env = {**os.environ, "NO_COLOR": "1", "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}
    cmd = [str(TCPLAB), "sweep", str(spec_dir / "grid.toml"), "--out", str(tmp_path / "o"), "--dask", "tcp://127.0.0.1:9"]
    r = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("error: dask: cannot connect to tcp://127.0.0.1:9")


# -- plot_sweep ------------------------------------------------------------------------------------


def test_plot_sweep_mean_and_ci(spec_dir: Path, tmp_path: Path) -> None:
    res = tcplab.sweep(spec_dir / "grid.toml", tmp_path / "out", jobs=2, progress=False)
    s = res.summary
    st = sweep_stats(s, x="links.ab.loss", y="goodput_bps", hue="flows.bulk.cc")
    assert st.columns == ["flows.bulk.cc", "links.ab.loss", "n", "mean", "std", "ci95"]
    assert st["n"].to_list() == [3, 3, 3, 3]
    g = s.filter((pl.col("links.ab.loss") == 0.05) & (pl.col("flows.bulk.cc") == "newreno"))["goodput_bps"]
    row = st.filter((pl.col("links.ab.loss") == 0.05) & (pl.col("flows.bulk.cc") == "newreno")).row(0, named=True)
    assert row["mean"] == pytest.approx(g.mean())
    assert row["ci95"] == pytest.approx(4.302653 * g.std() / 3**0.5, rel=1e-5)  # t(0.975, 2)
    fig = plot_sweep(s, x="links.ab.loss", y="efficiency", hue="flows.bulk.cc", path=tmp_path / "sweep.png")
    assert (tmp_path / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ax = fig.axes[0]
    assert ax.get_xlabel() == "links.ab.loss" and "95% CI over 3 seeds" in ax.get_ylabel()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["flows.bulk.cc = reno", "flows.bulk.cc = newreno"]
    # Text parameters keep the table's order; pandas frames work too.
    fig = plot_sweep(s.to_pandas(), x="flows.bulk.cc", y="efficiency", hue="links.ab.loss")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["reno", "newreno"]
    # So do pyarrow tables (any frame with the Arrow stream protocol), with the same numbers.
    assert sweep_stats(s.to_arrow(), x="links.ab.loss", y="goodput_bps", hue="flows.bulk.cc").equals(st)
    with pytest.raises(TypeError, match="not list"):
        sweep_stats([1, 2], x="a", y="b")
    # Averaging over another varying key is refused, naming it.
    with pytest.raises(ValueError, match="flows.bulk.cc"):
        plot_sweep(s, x="links.ab.loss", y="efficiency")


def test_pandas_is_no_dependency_of_tcplab() -> None:
    """plot_sweep/sweep_stats read other frames through their own protocols: pandas is needed
    only by the tests (`.to_pandas()`), so it is a test extra, not a dependency."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["dependencies"] and not [d for d in project["dependencies"] if d.startswith("pandas")]
    assert [d for d in project["optional-dependencies"]["test"] if d.startswith("pandas")]
    src = "\n".join(p.read_text() for p in sorted((REPO / "python" / "tcplab").rglob("*.py")))
    assert "import pandas" not in src and "from_pandas" not in src


def test_t_quantiles() -> None:
    from tcplab.analysis import t975 as _t975

    assert _t975(1) == pytest.approx(12.7062, abs=1e-4)
    assert _t975(2) == pytest.approx(4.302653, abs=1e-6)
    assert _t975(30) == pytest.approx(2.042272, abs=1e-6)
    assert _t975(40) == pytest.approx(2.0211, abs=2e-4)
    assert _t975(120) == pytest.approx(1.9799, abs=2e-4)
    assert _t975(10**6) == pytest.approx(1.96, abs=1e-3)


def test_sweep_exports() -> None:
    # tcplab.sweep is the function; its subpackage is tcplab.sweeps.
    import tcplab.sweeps as mod

    assert tcplab.sweep is mod.sweep and tcplab.load_sweep is mod.load_sweep
    assert tcplab.SweepSpec is mod.SweepSpec and tcplab.SweepResult is mod.SweepResult


# -- docs -------------------------------------------------------------------------------------------


def test_sweeps_doc_python_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ```python blocks of docs/sweeps.md run, in order, in one namespace."""
    import re

    text = (REPO / "docs" / "sweeps.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    monkeypatch.chdir(tmp_path)
    ns: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, "docs/sweeps.md", "exec"), ns)  # noqa: S102
    assert (tmp_path / "out" / "sweep_doc" / "fast.png").exists()
    assert repr(ns["sw"]) == "SweepResult(out='out/sweep_doc', runs=8, ok=8, failed=0, executed=8)"


def test_example_spec_is_valid_and_documented() -> None:
    spec = SweepSpec.from_toml(REPO / "examples" / "sweep_fig23.toml")
    assert spec.name == "fig23-uplink-loss" and len(spec.runs()) == 18
    doc = (REPO / "docs" / "sweeps.md").read_text()
    assert len(sweep_mod_fields()) >= 5
    for field in sweep_mod_fields():
        assert f"| `{field}` |" in doc, field


def sweep_mod_fields() -> tuple[str, ...]:
    import tcplab.sweeps

    return tcplab.sweeps.SPEC_FIELDS


def test_seeds_that_cannot_differ_are_flagged(spec_dir: Path, cli: CliRunner) -> None:
    """Issue 17: several seeds of a scenario without any random component give identical
    results; the sweep says so (and stays silent when a component is random)."""
    (spec_dir / "det.toml").write_text(
        'base = "lossy.toml"\nseeds = 2\n[set]\n"links.ba.loss" = 0.0\n[grid]\n"links.ab.loss" = [0.0]\n'
    )
    res = tcplab.sweep(spec_dir / "det.toml", out=spec_dir / "det", progress=False, jobs=1)
    assert len(res.warnings) == 1 and "2 seeds" in res.warnings[0]
    lossy = tcplab.sweep(spec_dir / "grid.toml", out=spec_dir / "grid", progress=False, jobs=1)
    assert lossy.warnings == []
    r = cli("sweep", spec_dir / "det.toml", "--out", spec_dir / "det", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "warning: 2 seeds but no component" in r.stderr


def test_script_without_main_guard_is_explained(tmp_path: Path) -> None:
    """A script that starts a sweep at top level: the workers re-import it; each says why
    (not a lock error), the parent's result warns about the main guard, and a second call
    says the failed runs were skipped and how to retry them."""
    base = Path(__file__).resolve().parents[1] / "examples" / "vegas_fast.toml"
    script = tmp_path / "noguard.py"
    script.write_text(
        "import tcplab\n"
        f"res = tcplab.sweep({{'base': {str(base)!r}, 'set': {{'duration': '30s'}}, 'grid': {{'flows.fast.cc.alpha': [50]}}, 'seeds': [1]}}, "
        f"out={str(tmp_path / 'out')!r}, progress=False, retries=0, jobs=1)\n"
        "print('WARN', res.failed, res.warnings)\n"
    )
    import subprocess
    import sys as _sys

    r = subprocess.run([_sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert "was called while a worker process was importing your script" in r.stderr
    assert "WARN 1" in r.stdout and 'if __name__ == "__main__":' in r.stdout
    r2 = subprocess.run([_sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert "1 run recorded as failed" in r2.stdout and "retry_failed=True" in r2.stdout


def test_sweep_package_has_no_private_cross_imports() -> None:
    """Issue 17: tcplab.sweeps is a package whose modules import only each other's public
    names (and no private name of another tcplab module; the extension `_core` aside)."""
    import ast

    pkg = REPO / "python" / "tcplab" / "sweeps"
    files = sorted(pkg.glob("*.py"))
    assert len(files) >= 6
    bad = []
    for f in files:
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if a.name.startswith("_") and not (node.module == "tcplab" and a.name == "_core"):
                        bad.append(f"{f.name}: from {'.' * node.level}{node.module or ''} import {a.name}")
            elif isinstance(node, ast.Import):
                bad += [f"{f.name}: import {a.name}" for a in node.names if a.name.startswith("tcplab.") and "._" in a.name]
    assert bad == []
    # Every name the module had before the split is still reachable from tcplab.sweeps.
    import tcplab.sweeps as mod

    for name in mod.__all__ + ["SPEC_FIELDS", "RUNS_DIR", "SUMMARY_FILE", "MANIFEST_FILE", "ID_COLUMNS"]:
        assert hasattr(mod, name), name


def test_the_sweeps_look_up_bases_in_the_papers_folder_reproduce_uses() -> None:
    """spec.PAPERS repeats repro.PAPERS_DIR (the sweeps sit below repro and cannot import it)."""
    import tcplab.repro
    import tcplab.sweeps.spec

    assert tcplab.sweeps.spec.PAPERS == tcplab.repro.PAPERS_DIR

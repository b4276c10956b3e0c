"""Issue 30: one simulation on several threads, bit-identical to one thread (docs/scaling.md)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import warnings
from pathlib import Path
from typing import Any

import pytest

import tcplab
from conftest import TCPLAB
from tcplab import ScenarioError

# The equality tests use up to 4 threads whatever the machine; the warning for more threads
# than cores has its own test below.
pytestmark = pytest.mark.filterwarnings("ignore::tcplab.runner.ThreadsWarning")

FAT_TREE: dict[str, Any] = {
    "duration": "15ms",
    "metrics": {"interval": "3ms", "steady_start": "5ms", "trace": "1ms", "events": ["drop"]},
    "defaults": {"flows": {"cc": "newreno", "init_cwnd": 10, "rto_min": "10ms", "delayed_ack": "1ms"}},
    "fat_tree": {"k": 4, "link": {"rate": "1Gbps", "delay": "5us", "buffer": 20}, "traffic": "permutation"},
}

DUMBBELL: dict[str, Any] = {
    "duration": "2s",
    "metrics": {"interval": "250ms", "steady_start": "500ms", "events": ["drop", "loss"]},
    "dumbbell": {
        "bottleneck": {"rate": "10Mbps", "delay": "20ms", "buffer": "1bdp", "loss": 0.002},
        "access": {"rate": "100Mbps", "delay": "1ms"},
        "rtt": ["44ms", "84ms", "124ms"],
        "flows": ["newreno", "cubic", {"cc": "vegas", "name": "v"}],
    },
}


def _same(a: tcplab.Result, b: tcplab.Result) -> None:
    sa, sb = copy.deepcopy(a.summary), copy.deepcopy(b.summary)
    sa["run"].pop("wall_seconds")
    sb["run"].pop("wall_seconds")
    assert json.dumps(sa, sort_keys=True) == json.dumps(sb, sort_keys=True)
    for name in ("intervals", "cwnd_trace", "queue_trace", "events"):
        x, y = getattr(a, name, None), getattr(b, name, None)
        if x is None or y is None:
            assert x is None and y is None, name
        else:
            assert x.equals(y, null_equal=True), name


# Per-flow ECMP: each switch hashes the flow with a salt from the seed.
FAT_TREE_FLOW_ECMP: dict[str, Any] = {**FAT_TREE, "routing": {"ecmp": "flow"}}


@pytest.mark.parametrize("scenario", [FAT_TREE, FAT_TREE_FLOW_ECMP, DUMBBELL],
                         ids=["fat_tree", "fat_tree_flow_ecmp", "dumbbell"])
def test_every_thread_count_gives_the_same_result(scenario: dict[str, Any]) -> None:
    one = tcplab.run(scenario, progress=False)
    assert one.summary["run"]["events"] > 0
    for n in (2, 3):
        _same(one, tcplab.run(scenario, progress=False, threads=n))


def test_the_scenario_key_and_the_cli_flag(tmp_path: Path) -> None:
    sc = {**FAT_TREE, "threads": 2}
    _same(tcplab.run(FAT_TREE, progress=False), tcplab.run(sc, progress=False))
    path = tmp_path / "ft.toml"
    path.write_text(tcplab.Scenario.from_dict(FAT_TREE).to_toml())
    outs = []
    for n in (1, 4):
        out = tmp_path / f"o{n}"
        subprocess.run([str(TCPLAB), "run", str(path), "--out", str(out), "--threads", str(n), "-q"], check=True)
        outs.append(out)
    for f in ("intervals.parquet", "cwnd_trace.parquet", "queue_trace.parquet"):
        assert (outs[0] / f).read_bytes() == (outs[1] / f).read_bytes(), f


def test_pcap_files_are_identical(tmp_path: Path) -> None:
    sc = copy.deepcopy(DUMBBELL)
    sc["dumbbell"]["bottleneck"]["pcap"] = "bn.pcap"
    for n in (1, 2):
        (tmp_path / str(n)).mkdir()
        tcplab.run(sc, progress=False, threads=n, pcap_dir=tmp_path / str(n))
    files = sorted(p.name for p in (tmp_path / "1").iterdir())
    assert files and files == sorted(p.name for p in (tmp_path / "2").iterdir())
    for f in files:
        assert (tmp_path / "1" / f).read_bytes() == (tmp_path / "2" / f).read_bytes(), f


@pytest.mark.parametrize(
    ("change", "threads", "needle"),
    [
        ({}, 0, "between 1 and 1024"),
        ({}, 5, "at most one thread per pod"),
        ({"metrics": {"events": ["cwnd"]}}, 2, "one thread only"),
    ],
)
def test_refusals_name_threads(change: dict[str, Any], threads: int, needle: str) -> None:
    sc = {**copy.deepcopy(FAT_TREE), **change}
    with pytest.raises(ScenarioError) as e:
        tcplab.run(sc, progress=False, threads=threads)
    assert e.value.args[1] == "threads" and needle in str(e.value), str(e.value)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
def test_more_threads_than_cores_warn(tmp_path: Path) -> None:
    """Two threads on one core: pinned to one CPU, whatever the machine has."""
    from tcplab.runner import available_cores

    before = os.sched_getaffinity(0)
    one = {min(before)}
    os.sched_setaffinity(0, one)
    try:
        assert available_cores() == 1
        with pytest.warns(tcplab.ThreadsWarning, match=r"threads = 2 on 1 available core: "):
            two = tcplab.run(FAT_TREE, progress=False, threads=2)
        with warnings.catch_warnings():
            warnings.simplefilter("error", tcplab.ThreadsWarning)
            _same(tcplab.run(FAT_TREE, progress=False), two)
    finally:
        os.sched_setaffinity(0, before)
    # The command line says it in one line on stderr, and still writes the result.
    path = tmp_path / "ft.toml"
    path.write_text(tcplab.Scenario.from_dict(FAT_TREE).to_toml())
    p = subprocess.run(
        [str(TCPLAB), "run", str(path), "--out", str(tmp_path / "o"), "--threads", "2", "-q"],
        capture_output=True, text=True, check=True, preexec_fn=lambda: os.sched_setaffinity(0, one),
    )
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("warning: threads = 2 on 1 available core: "), p.stderr
    assert (tmp_path / "o" / "summary.json").exists()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
def test_a_sweep_fits_its_jobs_to_the_runs_threads(tmp_path: Path) -> None:
    """On one core, a sweep with a 2-thread run warns once (its default jobs leave no room)."""
    spec = {"name": "thr", "base": FAT_TREE, "seeds": 1, "grid": {"threads": [1, 2]}}
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    try:
        with pytest.warns(tcplab.ThreadsWarning) as caught:
            res = tcplab.sweep(spec, tmp_path / "two", progress=False)
        with warnings.catch_warnings():
            warnings.simplefilter("error", tcplab.ThreadsWarning)
            one = tcplab.sweep({**spec, "grid": {"threads": [1]}}, tmp_path / "one", progress=False)
    finally:
        os.sched_setaffinity(0, before)
    assert [str(w.message) for w in caught] == [
        "jobs = 1 with threads = 2 per run: up to 2 threads on 1 available core; the runs' partitions take turns "
        "on the cores and wait at every barrier, so the sweep is slower than with jobs = 1 (the results are the same)"
    ]
    assert res.runs["status"].to_list() == ["ok", "ok"] and one.runs["status"].to_list() == ["ok"]


def _cores_into_pod3(res: tcplab.Result) -> set[str]:
    """The core switches whose links down into pod 3 carried packets."""
    return {ln["name"].split("-")[1].removesuffix("_rev") for ln in res.summary["links"]
            if ln["name"].startswith("agg3_") and ln["name"].endswith("_rev") and ln["tx_packets"] > 0}


def test_per_flow_ecmp_spreads_flows_to_one_host_over_the_cores() -> None:
    """Eight hosts of pods 0 and 1 send to h15 (pod 3). By destination every flow to h15
    takes one core (D-mod-k); by flow they spread over the four, and each flow keeps one
    path (no reordering: no duplicate acks without losses)."""
    flows = {f"f{i}": {"from": f"h{i:02d}", "to": "h15", "app": {"type": "transfer", "bytes": 30000}} for i in range(8)}
    base = {**FAT_TREE, "fat_tree": {**FAT_TREE["fat_tree"], "traffic": "none", "link": {
        "rate": "1Gbps", "delay": "5us", "buffer": 1000}}, "flows": flows}
    by_dst = tcplab.run(base, progress=False)
    assert len(_cores_into_pod3(by_dst)) == 1
    by_flow = {seed: tcplab.run({**base, "routing": {"ecmp": "flow"}}, progress=False, seed=seed) for seed in (1, 2)}
    for res in by_flow.values():
        assert len(_cores_into_pod3(res)) >= 3, _cores_into_pod3(res)
        for f in res.summary["flows"]:
            assert f["completed_at_s"] is not None and f["retransmits"] == 0, f
    # The salt comes from the seed: another seed, other paths.
    assert [ln["tx_packets"] for ln in by_flow[1].summary["links"]] != [
        ln["tx_packets"] for ln in by_flow[2].summary["links"]]

"""Issue 19, "determinism across front ends": one scenario and seed through the CLI
(`tcplab run`), the Python API on the file, a scenario dict, and sweeps (local pool with 1
and 2 workers, Dask) give byte-identical summary.json (``run.wall_seconds`` aside) and
byte-identical parquet files. The scenarios draw random numbers (RED, Bernoulli errors,
exponential on/off sources, start_jitter), so a seed that went astray would show."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tcplab
from conftest import CliRunner
from tcplab import Scenario

SEED = 11

# A dumbbell with a RED bottleneck, a lossy access link, jittered starts and an on/off
# UDP source; traces and events on, so every parquet file exists.
RANDOM_DUMBBELL: dict[str, Any] = {
    "name": "frontends",
    "duration": "8s",
    "seed": 3,
    "metrics": {"interval": "500ms", "steady_start": "2s", "trace": "50ms", "events": ["cwnd", "drop", "loss"]},
    "dumbbell": {
        "bottleneck": {"rate": "8Mbps", "delay": "15ms",
                       "queue": {"type": "red", "limit": 60, "min_th": 5, "max_th": 25, "max_p": 0.1}},
        "access": {"rate": "100Mbps", "delay": "2ms"},
        "right": {"error": [{"model": "bernoulli", "p": 0.002}, "none", "none"]},
        "flows": [
            {"cc": "newreno", "start_jitter": "1s"},
            {"cc": "reno", "start_jitter": "500ms"},
            {"transport": "udp", "app": {"type": "onoff", "rate": "4Mbps", "on": "200ms", "off": "300ms"}},
        ],
    },
}

# Two hosts: Bernoulli loss both ways and a jittered start, no builder.
RANDOM_PAIR: dict[str, Any] = {
    "name": "frontends pair",
    "duration": "6s",
    "seed": 1,
    "metrics": {"interval": "1s", "trace": "100ms"},
    "nodes": {"a": "host", "b": "host"},
    "links": {
        "ab": {"from": "a", "to": "b", "rate": "5Mbps", "delay": "20ms", "loss": 0.01},
        "ba": {"from": "b", "to": "a", "rate": "5Mbps", "delay": "20ms", "error": {"model": "bernoulli", "p": 0.005}},
    },
    "flows": {
        "x": {"from": "a", "to": "b", "start_jitter": "300ms"},
        "y": {"from": "a", "to": "b", "cc": "vegas", "app": {"type": "bulk", "start": "1s"}},
    },
}

SCENARIOS = {"dumbbell": RANDOM_DUMBBELL, "pair": RANDOM_PAIR}


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[str]:
    """A one-worker local Dask cluster (processes) shared by the tests here."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None, silence_logs=50
    ) as cluster:
        yield cluster.scheduler_address


def _files(d: Path) -> dict[str, bytes]:
    """summary.json (parsed, wall clock removed, re-serialised) and every parquet file's bytes."""
    out: dict[str, bytes] = {}
    s = json.loads((d / "summary.json").read_text())
    assert s["run"].pop("wall_seconds") >= 0
    out["summary.json"] = json.dumps(s, sort_keys=True).encode()
    for p in sorted(d.glob("*.parquet")):
        out[p.name] = p.read_bytes()
    return out


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_cli_api_dict_and_sweeps_give_identical_files(name: str, tmp_path: Path, cli: CliRunner, dask_cluster: str) -> None:
    data = copy.deepcopy(SCENARIOS[name])
    sc = Scenario.from_dict(data)
    toml = tmp_path / "s.toml"
    toml.write_text(sc.to_toml())
    got: dict[str, dict[str, bytes]] = {}

    r = cli("run", toml, "--out", tmp_path / "cli", "--seed", str(SEED), "-q")
    assert r.returncode == 0, r.stderr
    got["cli"] = _files(tmp_path / "cli")

    tcplab.run(toml, seed=SEED, progress=False).save(tmp_path / "api")
    got["api (file)"] = _files(tmp_path / "api")

    tcplab.run(copy.deepcopy(data), seed=SEED, progress=False).save(tmp_path / "dict")
    got["api (dict)"] = _files(tmp_path / "dict")

    tcplab.run(data | {"seed": SEED}, progress=False).save(tmp_path / "dict-seed")
    got["api (dict, seed in the scenario)"] = _files(tmp_path / "dict-seed")

    # Sweeps: the base scenario with a one-value grid (the duration it has), seeds SEED and
    # another, so the 2-worker pool really runs two at once.
    spec = {"base": str(toml), "seeds": [SEED, SEED + 1], "grid": {"duration": [data["duration"]]}}
    for label, kw in (("sweep, 1 worker", {"jobs": 1}), ("sweep, 2 workers", {"jobs": 2})):
        res = tcplab.sweep(spec, tmp_path / label.replace(" ", "_").replace(",", ""), progress=False, **kw)
        assert res.ok == 2, res.runs
        rid = res.runs.filter(res.runs["seed"] == SEED)["run_id"][0]
        got[label] = _files(res.out / "runs" / rid)

    res = tcplab.sweep(spec, tmp_path / "dask", dask=dask_cluster, progress=False)
    assert res.ok == 2, res.runs
    rid = res.runs.filter(res.runs["seed"] == SEED)["run_id"][0]
    got["sweep, dask"] = _files(res.out / "runs" / rid)

    ref = got["cli"]
    assert len(ref) >= 3 and "intervals.parquet" in ref and "cwnd_trace.parquet" in ref
    summary = json.loads(ref["summary.json"])
    assert summary["seed"] == SEED and summary["run"]["stochastic"] is True
    if name == "dumbbell":
        assert {"events.parquet", "queue_trace.parquet"} <= ref.keys()
    for label, files in got.items():
        assert files.keys() == ref.keys(), label
        for f in ref:
            assert files[f] == ref[f], f"{label}: {f} differs from the CLI's"
    # The seed matters: another one gives other results.
    other = tcplab.run(toml, seed=SEED + 1, progress=False)
    other.save(tmp_path / "other")
    assert _files(tmp_path / "other")["intervals.parquet"] != ref["intervals.parquet"]

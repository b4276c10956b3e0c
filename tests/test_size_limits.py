"""Issue 32: a scenario's size is bounded before anything is built: every count a builder
expands has a ceiling, and the built scenario's estimated memory is compared with a limit
(docs/scenarios.md, "Size limits"). Each refusal is one line naming the key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import tcplab
from conftest import CliRunner
from tcplab import Scenario

LINK = {"rate": "10Mbps", "delay": "10ms"}


def _refused(d: dict[str, Any], **kw: Any) -> tcplab.ScenarioError:
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(Scenario.from_dict({"duration": "1s", **d}), progress=False, **kw)
    return e.value


@pytest.mark.parametrize(
    ("d", "field", "says"),
    [
        ({"dumbbell": {"pairs": 100_001, "bottleneck": LINK}}, "dumbbell.pairs", "100001 host pairs is too many: at most 100000"),
        ({"dumbbell": {"bottleneck": LINK, "flows": [{"count": 100_001}]}}, "dumbbell.flows[0].count", "at most 100000"),
        ({"dumbbell": {"bottleneck": LINK, "flows": [{"count": 60_000}, {"count": 60_000}]}}, "dumbbell.flows", "120000 flows is too many"),
        ({"dumbbell": {"bottleneck": LINK, "flows": [{"pair": 4_000_000_000}]}}, "dumbbell.flows[0].pair", "host pairs (the highest pair a flow names)"),
        ({"parking_lot": {"hops": 10_001, "link": LINK}}, "parking_lot.hops", "at most 10000"),
        ({"parking_lot": {"hops": 1000, "link": LINK, "cross": [{"count": 101}]}}, "parking_lot.cross", "101000 cross flows (per hop × hops) is too many"),
        ({"fat_tree": {"k": 34}}, "fat_tree.k", "at most 32"),
    ],
)  # fmt: skip
def test_each_bounded_count_is_refused_with_one_line(d: dict[str, Any], field: str, says: str) -> None:
    e = _refused(d)
    assert e.field == field, str(e)
    assert says in e.reason and "\n" not in str(e)


def test_estimated_memory_above_the_limit_names_the_largest_contributor(cli: CliRunner, tmp_path: Path) -> None:
    d = {"dumbbell": {"pairs": 2000, "bottleneck": LINK, "access": {"rate": "100Mbps", "delay": "1ms"}}}
    # 2 000 pairs: 8 002 link directions (16.4 MB) dominate 4 002 nodes and 2 routers' tables.
    # Refused before expansion writes them out, naming the builder key (issue 32's
    # sizes_bounded fuzz target: a 65,536-pair dumbbell took 5.5 s to expand before).
    e = _refused(d, max_memory="10MB")
    assert e.field == "dumbbell.pairs"
    assert "8002 link directions × 2 KiB = 16.4 MB" in e.reason and "above 10.0 MB" in e.reason
    assert "--max-memory" in e.reason
    # Within the limit it builds (and runs).
    tcplab.run(Scenario.from_dict({"duration": "1s", **d}), progress=False, max_memory="1GB")
    bad = _refused(d, max_memory="lots")
    assert bad.field == "max_memory" and "16GB" in bad.reason
    f = tmp_path / "big.toml"
    f.write_text(Scenario.from_dict({"duration": "1s", **d}).to_toml())
    r = cli("run", f, "--out", tmp_path / "o", "--max-memory", "10MB", "--quiet")
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(f"error: {f}: dumbbell.pairs: the built scenario would need about")
    # Explicit nodes and links (no builder) are estimated once written: the built scenario's
    # largest part names its table.
    plain = Scenario.from_dict({"duration": "1s", **d}).expand()
    with pytest.raises(tcplab.ScenarioError) as e2:
        tcplab.run(plain, progress=False, max_memory="10MB")
    assert e2.value.field == "links" and "8002 link directions" in e2.value.reason


@pytest.mark.parametrize(
    ("d", "field", "what"),
    [
        ({"dumbbell": {"pairs": 65_536, "bottleneck": LINK}}, "dumbbell.pairs", "262146 link directions"),
        # 5 001 routers' tables of 15 003 entries (600 MB) outweigh the 100 000 cross flows.
        ({"parking_lot": {"hops": 5_000, "link": LINK, "cross": [{"count": 20}]}}, "parking_lot.hops", "15003 nodes × 512 B, route tables of 5001 nodes"),
        # 1 280 switches' tables of 9 472 entries (101.8 MB) just outweigh 49 152 link directions.
        ({"fat_tree": {"k": 32, "traffic": "permutation"}}, "fat_tree.k", "route tables of 1280 nodes"),
    ],
)  # fmt: skip
def test_builders_are_estimated_before_they_expand(d: dict[str, Any], field: str, what: str) -> None:
    e = _refused(d, max_memory="8MB")
    assert e.field == field and what in e.reason and "\n" not in str(e), str(e)


def test_ten_million_pairs_are_refused_before_any_allocation(tmp_path: Path) -> None:
    """The issue's three-line file (it used to grow to 6.9 GB and die with a backtrace)."""
    f = tmp_path / "huge.toml"
    f.write_text('[dumbbell]\npairs = 10000000\nbottleneck = { rate = "10Mbps", delay = "10ms" }\nflows = [{ count = 10000000 }]\n')
    tcplab_bin = Path(sys.executable).parent / "tcplab"
    probe = (
        "import resource, subprocess, sys\n"
        f"r = subprocess.run([{str(tcplab_bin)!r}, 'validate', {str(f)!r}], capture_output=True, text=True)\n"
        "print(r.returncode); print(r.stderr.strip()); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "2"
    assert out[1] == f"error: {f}: dumbbell.flows[0].count: 10000000 flows is too many: at most 100000 (a bound on the scenario's size, checked before it is built; docs/scenarios.md, \"Size limits\")"
    assert "Traceback" not in out[1] and "panicked" not in out[1]
    assert int(out[2]) < 200 * 1024, f"peak RSS {int(out[2]) // 1024} MB"


def _million_flow_file(path: Path, flows: int) -> None:
    """Explicit ``[flows.NAME]`` tables, as a script would write them (issue 46: 10⁶ of them
    took 131 s and 7.2 GB to validate, then passed)."""
    head = ('duration = "1s"\n[nodes.a]\n[nodes.b]\n'
            '[links.ab]\nfrom = "a"\nto = "b"\nrate = "10Mbps"\ndelay = "1ms"\n'
            '[links.ba]\nfrom = "b"\nto = "a"\nrate = "10Mbps"\ndelay = "1ms"\n')
    with path.open("w") as f:
        f.write(head)
        for i in range(flows):
            f.write(f'[flows.f{i}]\nfrom = "a"\nto = "b"\ncc = "reno"\n')


@pytest.mark.parametrize("command", ["validate", "run", "expand"])
def test_a_million_flow_tables_are_refused_before_parsing(tmp_path: Path, command: str) -> None:
    f = tmp_path / "million.toml"
    _million_flow_file(f, 1_000_000)
    tcplab_bin = Path(sys.executable).parent / "tcplab"
    args = [command, str(f)] + (["--out", str(tmp_path / "o")] if command == "run" else [])
    probe = (
        "import resource, subprocess, sys\n"
        f"r = subprocess.run([{str(tcplab_bin)!r}, *{args!r}], capture_output=True, text=True)\n"
        "print(r.returncode); print(r.stderr.strip()); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "2", out
    assert out[1].startswith(f"error: {f}: the file is ") and "scenario files are limited to 8.0 MiB" in out[1], out[1]
    assert int(out[2]) < 200 * 1024, f"peak RSS {int(out[2]) // 1024} MB"
    assert not (tmp_path / "o").exists()  # refused before an output directory was made


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("".join(f"[nodes.n{i}]\n" for i in range(100_001)), "100001 tables; scenario files are limited to 100000"),
        ("x = [" + ",".join(["{}"] * 100_001) + "]\n", "100001 tables"),
        ("x = [" + ",".join(["1"] * 1_000_001) + "]\n", "1000001 keys and list items; scenario files are limited to 1000000"),
    ],
)  # fmt: skip
def test_tables_and_entries_are_counted_before_parsing(text: str, says: str) -> None:
    assert len(text) < tcplab.scenario.INPUT_LIMITS["bytes"]
    with pytest.raises(tcplab.ScenarioError) as e:
        Scenario.from_toml_text(text, source="gen.toml")
    assert str(e.value).startswith("gen.toml: ") and says in str(e.value), str(e.value)


def test_json_scenarios_and_sweep_specs_are_bounded_too(tmp_path: Path) -> None:
    j = tmp_path / "big.json"
    j.write_text('{"x": [' + ",".join(["{}"] * 100_001) + "]}")
    with pytest.raises(tcplab.ScenarioError, match="100002 tables; scenario files are limited"):
        Scenario.from_toml(j)
    spec = tmp_path / "sweep.toml"
    spec.write_text("# padding\n" * 1_000_000)
    with pytest.raises(tcplab.ScenarioError, match="sweep specs are limited to 8.0 MiB"):
        tcplab.SweepSpec.from_toml(spec)


def test_the_largest_shipped_file_is_far_below_the_limits() -> None:
    """The limits leave room: every TOML file in the repository passes them many times over."""
    root = Path(__file__).resolve().parents[1]
    files = [p for p in root.rglob("*.toml") if not {".venv", "target", "out"} & set(p.parts)]
    assert files
    for p in files:
        text = p.read_text()
        assert len(text) * 20 < tcplab.scenario.INPUT_LIMITS["bytes"], p
        tcplab.scenario.check_input_size(text, p)


def test_result_rows_that_grow_with_duration_are_estimated_before_running(cli: CliRunner, tmp_path: Path) -> None:
    """Issue 46: `--set duration=1e6s` ran 356 s to 630 MB without a word; the interval rows
    (a row per flow and interval) and trace rows are now part of the estimate."""
    d = {"duration": "1e6s", "dumbbell": {"pairs": 4, "bottleneck": LINK, "access": {"rate": "100Mbps", "delay": "1ms"},
                                          "flows": ["reno"] * 4}}
    e = _refused(d, max_memory="200MB")
    assert e.field == "metrics.interval", str(e)
    assert "4000000 interval rows (4 flows × 1000000 intervals)" in e.reason and "write a longer metrics.interval" in e.reason
    e = _refused({**d, "duration": "1000s", "metrics": {"trace": "1ms"}}, max_memory="1GB")
    assert e.field == "metrics.trace" and "trace rows" in e.reason, str(e)
    # A longer interval brings the same run under the limit (it is not run here: 10 s).
    sc = Scenario.from_dict({**d, "duration": "10s", "metrics": {"interval": "1s"}})
    assert tcplab.run(sc, progress=False, max_memory="200MB").summary["run"]["sim_seconds"] == 10.0

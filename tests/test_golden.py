"""The golden test: every golden scenario's results are what fingerprints.json pins.

A failure here means a change moved results. If that was meant, update the fingerprints
with `make golden-update` and add a CHANGELOG.md line saying what moved and why; if not,
the change has a bug (tests/golden/golden.py prints which table moved).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _golden():
    spec = importlib.util.spec_from_file_location("golden", HERE / "golden" / "golden.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("golden", mod)
    spec.loader.exec_module(mod)
    return mod


golden = _golden()
FILES = golden.scenario_files()


def test_there_are_golden_scenarios_and_each_is_pinned():
    assert len(FILES) >= 15
    stored = golden.load_store()
    assert sorted(stored) == sorted(p.stem for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden(path):
    got = golden.fingerprint(path)
    diff = golden.differences(path.stem, got, golden.load_store().get(path.stem))
    assert not diff, "results moved:\n" + "\n".join(diff)


def test_a_changed_result_moves_the_fingerprint(tmp_path):
    """The check can fail: another seed of a stochastic golden scenario moves the summary
    and the interval rows, while a field that is not a result (wall time) moves nothing."""
    src = (golden.SCENARIOS / "03_rfc_profile.toml").read_text()
    p = tmp_path / "reseeded.toml"
    p.write_text("seed = 7\n" + src)
    base = golden.load_store()["03_rfc_profile"]
    got = golden.fingerprint(p)
    assert got["summary"] != base["summary"]
    assert got["intervals"] != base["intervals"]
    summary = {"run": {"wall_seconds": 1.0, "events": 5}, "warnings": ["x"], "version": "0"}
    same = {"run": {"wall_seconds": 2.0, "events": 5}, "warnings": [], "version": "1"}
    assert golden._digest(summary) == golden._digest(same)
    assert golden._digest({"x": 0.1}) != golden._digest({"x": 0.1 + 2**-55})


def test_the_parallel_golden_scenario_is_thread_count_independent(tmp_path):
    src = (golden.SCENARIOS / "15_fat_tree_2threads.toml").read_text()
    assert "threads = 2" in src
    p = tmp_path / "one_thread.toml"
    p.write_text(src.replace("threads = 2", "threads = 1"))
    one = golden.fingerprint(p)
    one.pop("rows")
    two = dict(golden.load_store()["15_fat_tree_2threads"])
    two.pop("rows")
    # The scenario text differs only in `threads`, which is echoed nowhere in the results.
    assert one == two

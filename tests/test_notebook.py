"""examples/tour.ipynb runs top to bottom."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import REPO


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_tour_notebook_executes(tmp_path: Path) -> None:
    nb = nbformat.read(REPO / "examples" / "tour.ipynb", as_version=4)
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")  # the notebook writes under ./out
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    # The work it does, not the time it takes (the kernel's 120-s timeout only stops a hung
    # cell): a sweep of 8 runs of 120 simulated seconds, ~35,000 events in all today.
    runs = sorted((tmp_path / "out" / "tour" / "sweep" / "runs").glob("*/summary.json"))
    assert len(runs) == 8
    summaries = [json.loads(p.read_text()) for p in runs]
    assert [s["run"]["sim_seconds"] for s in summaries] == [120] * 8
    assert sum(s["run"]["events"] for s in summaries) <= 100_000
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    assert (tmp_path / "out" / "tour" / "efficiency.png").exists()
    assert (tmp_path / "out" / "tour" / "sweep_fast.png").exists()
    assert (tmp_path / "out" / "tour" / "sweep" / "summary.parquet").exists()
    text = "\n".join(
        str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
        for c in nb.cells if c.cell_type == "code" for o in c.outputs
    )  # fmt: skip
    assert "runs=8, ok=8, failed=0, executed=8" in text
    assert "links.up.rate" in text and "ci95" in text
    images = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(images) == 2

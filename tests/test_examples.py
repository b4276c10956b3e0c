"""The examples run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO


def test_quickstart(tmp_path: Path) -> None:
    env = {**os.environ, "TCPLAB_QUICKSTART_DURATION": "30s"}
    r = subprocess.run(
        [sys.executable, str(REPO / "examples" / "quickstart.py"), "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "efficiency" in r.stdout and "Theorem 1 predicts" in r.stdout
    assert (tmp_path / "efficiency.png").exists()
    assert (tmp_path / "summary.json").exists()


def test_python_guide_snippets_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ```python blocks of docs/python.md run, in order, in one namespace."""
    text = (REPO / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 3
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    monkeypatch.chdir(tmp_path)
    ns: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, "docs/python.md", "exec"), ns)  # noqa: S102
    assert (tmp_path / "out" / "fig2_3_short" / "efficiency.png").exists()
    assert ns["again"] == ns["res"]

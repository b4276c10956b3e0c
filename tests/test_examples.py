"""The examples run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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

"""Shared fixtures: paths, a CLI runner, small scenarios."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
FIG2_3 = REPO / "scenarios" / "kalampoukas97" / "fig2_3.toml"
TCPLAB = Path(sys.executable).parent / "tcplab"

# Keeps every run of the flagship scenario short (the file itself may say 900 s).
SHORT = ["--set", "duration=60s", "--set", "metrics.steady_start=10s"]
SHORT_OVERRIDES = {"duration": "60s", "metrics.steady_start": "10s"}

LOSSY: dict[str, Any] = {
    "name": "lossy pair",
    "duration": "20s",
    "seed": 7,
    "nodes": {"a": "host", "b": "host"},
    "links": {
        "ab": {"from": "a", "to": "b", "rate": "2Mbps", "delay": "10ms", "loss": 0.05},
        "ba": {"from": "b", "to": "a", "rate": "2Mbps", "delay": "10ms", "loss": 0.05},
    },
    "flows": {"bulk": {"from": "a", "to": "b", "cc": "newreno"}},
    "metrics": {"interval": "1s", "steady_start": "2s"},
}


@pytest.fixture
def lossy() -> dict[str, Any]:
    """A small lossy scenario (2 hosts, 5 % loss each way, one NewReno bulk flow, 20 s)."""
    return copy.deepcopy(LOSSY)


@pytest.fixture(scope="session")
def tcplab_exe() -> Path:
    if not TCPLAB.exists():
        pytest.fail(f"{TCPLAB} is missing; run `make develop`")
    return TCPLAB


CliRunner = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli(tcplab_exe: Path) -> CliRunner:
    """Run the installed ``tcplab`` console script; returns the CompletedProcess."""

    def run(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(tcplab_exe), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=REPO,
            env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1"},
        )

    return run

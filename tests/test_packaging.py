"""The built wheel carries the papers: `pip install` of it, then `tcplab reproduce PAPER` and
`tcplab list` work from any directory (no checkout needed)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_ships_the_papers_and_reproduces_outside_the_checkout(tmp_path: Path) -> None:
    maturin = Path(sys.executable).parent / "maturin"
    if not maturin.exists():
        pytest.skip("maturin is not installed in this environment")
    r = subprocess.run([str(maturin), "build", "--release", "-q", "-o", str(tmp_path / "dist")], cwd=ROOT,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    wheel = next((tmp_path / "dist").glob("tcplab-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for paper in ("kalampoukas97", "ho2011", "kamra", "zhang"):
        assert f"tcplab/papers/{paper}/reproduce.toml" in names, paper
    # Install the wheel alone into its own directory (its dependencies come from this
    # environment) and run it from a directory that is not the checkout.
    site = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    code = "import tcplab, sys; from tcplab.cli import main; print(tcplab.__file__, file=sys.stderr); sys.argv[0] = 'tcplab'; main()"
    r = subprocess.run([sys.executable, "-c", code, "list"], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert str(site) in r.stderr.splitlines()[0], "the installed wheel, not the checkout, must be imported"
    assert "kalampoukas97:" in r.stdout and "ho2011:" in r.stdout
    r = subprocess.run([sys.executable, "-c", code, "reproduce", "kalampoukas97", "--only", "fig6_5", "--out", "o", "-q"],
                       cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert (work / "o" / "report.md").is_file() and (work / "o" / "fig6_5.png").is_file()

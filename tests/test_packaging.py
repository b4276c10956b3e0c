"""The built wheel carries the papers: `pip install` of it into a fresh virtualenv, then
`tcplab list` and `tcplab reproduce PAPER` work from any directory (no checkout needed).

The wheel is built once (``maturin build --release``, reusing ``target/``); the virtualenv
gets the wheel's dependencies from the package index (pip's cache makes this ~30 s)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    maturin = Path(sys.executable).parent / "maturin"
    if not maturin.exists():
        pytest.skip("maturin is not installed in this environment")
    dist = tmp_path_factory.mktemp("dist")
    r = subprocess.run([str(maturin), "build", "--release", "-q", "-o", str(dist)], cwd=ROOT,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    return next(dist.glob("tcplab-*.whl"))


def test_wheel_ships_the_papers(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    for paper in ("kalampoukas97", "ho2011", "kamra", "zhang"):
        assert f"tcplab/repro/papers/{paper}/reproduce.toml" in names, paper
    assert not [n for n in names if n.startswith("tests/") or "/.venv/" in n]
    for example in ("dumbbell.toml", "quickstart.py", "tour.ipynb", "websearch_fattree.toml"):
        assert f"tcplab/examples/{example}" in names, example


@pytest.mark.slow
def test_fresh_virtualenv_installs_the_wheel_and_reproduces_outside_the_checkout(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    r = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    # Nothing of this environment leaks into the new one.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join([str(venv / "bin"), "/usr/bin", "/bin"])
    r = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)],
                       capture_output=True, text=True, timeout=900, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    work = tmp_path / "elsewhere"
    work.mkdir()
    r = subprocess.run([str(venv / "bin" / "python"), "-c", "import tcplab; print(tcplab.__file__)"],
                       cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().startswith(str(venv)), "the installed wheel, not the checkout, must be imported"
    tcplab = str(venv / "bin" / "tcplab")
    r = subprocess.run([tcplab, "list"], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "kalampoukas97:" in r.stdout and "ho2011:" in r.stdout and "fig2_3" in r.stdout
    # One simulated figure, shortened, and one closed-form figure.
    r = subprocess.run([tcplab, "reproduce", "kalampoukas97", "--only", "fig2_3", "--only", "fig6_5",
                        "--set", "duration=30s", "--set", "metrics.steady_start=5s", "--out", "o", "-q"],
                       cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    for f in ("report.md", "report.html", "fig2_3.png", "fig6_5.png"):
        assert (work / "o" / f).is_file(), f
    assert "fig2_3" in (work / "o" / "report.md").read_text()
    # The docs' example commands work once `tcplab examples` wrote the examples out.
    r = subprocess.run([tcplab, "examples", "examples"], cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "wrote" in r.stdout, r.stderr
    r = subprocess.run([tcplab, "run", "examples/dumbbell.toml", "--out", "d", "-q", "--set", "duration=2s",
                        "--set", "metrics.steady_start=1s"], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (work / "d" / "summary.json").is_file()

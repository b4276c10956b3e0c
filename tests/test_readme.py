"""README.md: short, its first run prints what the page shows, and its links resolve."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
WALL = re.compile(r"in \d+(\.\d+)? wall s")


def _console_block(text: str) -> tuple[str, list[str]]:
    """The first ```console block: its command (after `$ `) and its output lines."""
    m = re.search(r"```console\n\$ (.+?)\n(.*?)```", text, re.S)
    assert m, "README.md has no ```console block"
    return m.group(1), m.group(2).rstrip("\n").splitlines()


def test_readme_is_at_most_80_lines() -> None:
    assert len(README.read_text().splitlines()) <= 80


def test_first_run_prints_what_the_readme_shows(tmp_path: Path) -> None:
    cmd, shown = _console_block(README.read_text())
    argv = cmd.split()
    assert argv[:2] == [".venv/bin/tcplab", "run"], cmd
    # The scenario from the checkout, the outputs into a scratch folder named as shown.
    argv = [sys.executable, "-m", "tcplab.cli", *argv[1:]]
    argv = [str(REPO / a) if a.endswith(".toml") else a for a in argv]
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1", TERM="dumb")
    got = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    lines = [line.rstrip() for line in (got.stdout + got.stderr).rstrip("\n").splitlines()]
    # Only the wall-clock time may differ.
    assert [WALL.sub("in _ wall s", x) for x in lines] == [WALL.sub("in _ wall s", x) for x in shown]
    assert (tmp_path / "out" / "first_run" / "goodput.png").stat().st_size > 0


def test_readme_links_resolve() -> None:
    text = README.read_text()
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    assert len(targets) > 10
    missing = [t for t in targets if not t.startswith("http") and not (REPO / t).exists()]
    assert missing == []

"""Issue 31 §5, start-up: the command line imports polars, matplotlib and Dask only in the
commands that use them, and `tcplab run` draws only when asked (`--plot`). Each check runs
in a fresh interpreter and looks at ``sys.modules`` (what was imported), not at the clock.

`tcplab` exports some names of modules that import polars (``run``, ``Result``, ``load``,
``sweep``...) lazily (PEP 562); ``tcplab.sweep`` is the function, its subpackage is
``tcplab.sweeps``, and neither replaces the other whichever is imported first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIG2_3, REPO, SHORT

# pydantic: typer 0.29 imports it (0.2 s) to coerce every parameter of the command it runs;
# pyproject.toml keeps typer below 0.29 (docs/performance.md, issue 31 §5).
HEAVY = ("polars", "pyarrow", "pandas", "matplotlib", "distributed", "dask", "pydantic")


def _loaded_after(code: str, *, cwd: Path = REPO) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter; returns the JSON object it prints last, plus
    which of :data:`HEAVY` it left imported (``"heavy"``)."""
    probe = (
        code
        + "\nimport json, sys\n"
        + f"print(json.dumps({{**globals().get('out', {{}}), 'heavy': sorted(m for m in {HEAVY!r} if m in sys.modules)}}))\n"
    )
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


def _cli(*argv: str | Path) -> str:
    """Code that runs the console script's entry point with ``argv`` in this interpreter."""
    args = ["tcplab", *map(str, argv)]
    return (
        "import sys, contextlib, io\n"
        f"sys.argv = {args!r}\n"
        "from tcplab.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit as e:\n"
        "        assert e.code in (0, None), e.code\n"
    )


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["run", "--help"], ["validate", FIG2_3], ["expand", FIG2_3], ["list"], ["list", "westwood"], ["schema"], ["version"]],
    ids=lambda a: " ".join(str(x) if not isinstance(x, Path) else x.name for x in a),
)
def test_commands_that_read_no_frames_import_no_polars_matplotlib_or_dask(argv: list[str | Path]) -> None:
    assert _loaded_after(_cli(*argv))["heavy"] == []


def test_import_tcplab_leaves_polars_until_a_lazy_name_is_used() -> None:
    out = _loaded_after(
        "import sys, tcplab\n"
        "out = {'before': 'polars' in sys.modules}\n"
        "out['names'] = [n for n in tcplab.__all__ if n not in dir(tcplab)]\n"
        "from tcplab import Result, run, load\n"
        "out['same'] = run is tcplab.run and Result is tcplab.Result and load is tcplab.load\n"
        "out['module'] = run.__module__\n"
    )
    assert out["before"] is False
    assert out["names"] == []  # dir() lists the lazy names too
    assert out["same"] is True and out["module"] == "tcplab.runner"
    # Not even they import polars now: a Result parses its Parquet bytes on first use.
    assert out["heavy"] == []
    got = _loaded_after(
        f"import tcplab\nr = tcplab.run({str(FIG2_3)!r}, progress=False)\n"
        "import sys\nout = {'after_run': 'polars' in sys.modules, 'names': r.trace_names}\n"
        "out['rows'] = r.intervals.height\n"
    )
    assert got["after_run"] is False and got["rows"] > 0 and "polars" in got["heavy"]


def test_run_imports_matplotlib_only_with_plot(tmp_path: Path) -> None:
    plain = _loaded_after(_cli("run", FIG2_3, "--out", tmp_path / "a", *SHORT, "-q"))
    # The Parquet files come from the core as bytes (crates/tcplab-py/src/parquet_out.rs).
    assert plain["heavy"] == []
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["intervals.parquet", "summary.json"]
    reported = _loaded_after(_cli("run", FIG2_3, "--out", tmp_path / "r", *SHORT))
    assert reported["heavy"] == [], "the report reads summary.json only"
    drawn = _loaded_after(_cli("run", FIG2_3, "--out", tmp_path / "b", *SHORT, "-q", "--plot"))
    assert "matplotlib" in drawn["heavy"]
    assert (tmp_path / "b" / "efficiency.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "first",
    ["tcplab.sweep", "import tcplab.sweeps.spec", "from tcplab.sweeps import run_id", "from tcplab import sweep"],
)
def test_tcplab_sweep_is_the_function_and_tcplab_sweeps_the_subpackage(first: str) -> None:
    """Whichever comes first: using the function, or importing the subpackage (which Python
    binds to its parent's attribute ``sweeps``, not ``sweep``)."""
    setup = "import sys, tcplab\n" + ("tcplab.sweep\n" if first == "tcplab.sweep" else first + "\n")
    out = _loaded_after(
        setup
        + "import types\n"
        + "import tcplab.sweeps.spec, tcplab.sweeps.store\n"
        + "from tcplab.sweeps import SPEC_FIELDS, SweepSpec, load_sweep, run_id\n"
        + "from tcplab import sweep as fn\n"
        + "mod = sys.modules['tcplab.sweeps']\n"
        + "out = {'function': callable(tcplab.sweep) and tcplab.sweep is mod.sweep is fn,\n"
        + "       'package': isinstance(tcplab.sweeps, types.ModuleType) and tcplab.sweeps is mod,\n"
        + "       'old': 'tcplab.sweep' in sys.modules,\n"
        + "       'name': tcplab.sweep.__module__, 'same': SweepSpec is tcplab.SweepSpec is mod.spec.SweepSpec,\n"
        + "       'load_sweep': load_sweep is tcplab.load_sweep, 'fields': 'base' in SPEC_FIELDS and callable(run_id)}\n"
    )
    assert out["function"] is True and out["name"] == "tcplab.sweeps.api"
    assert out["package"] is True and out["old"] is False
    assert out["same"] is True and out["load_sweep"] is True and out["fields"] is True


def test_sweep_runs_through_the_lazy_name(tmp_path: Path) -> None:
    """`tcplab.sweep(...)` called after the subpackage was imported by a submodule import."""
    spec = {"base": str(FIG2_3), "set": {"duration": "20s", "metrics.steady_start": "5s"}, "grid": {"links.up.rate": ["100kbps"]}}
    out = _loaded_after(
        "import tcplab.sweeps.spec, tcplab\n"
        f"res = tcplab.sweep({spec!r}, out={str(tmp_path / 'sw')!r}, jobs=1, progress=False)\n"
        "out = {'ok': res.runs.height, 'failed': res.failed}\n"
    )
    assert out["ok"] == 1 and out["failed"] == 0
    assert "distributed" not in out["heavy"] and "matplotlib" not in out["heavy"]

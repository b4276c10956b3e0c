"""Reproduce a paper's experiments: ``tcplab reproduce kalampoukas97``.

A paper folder under ``scenarios/`` holds one scenario per experiment and a manifest,
``reproduce.toml``, listing the figures: which scenario(s) each runs, what kind of figure it
draws, and, where simulation and closed form (or the paper) differ, the explanation. This
module runs every listed run (in parallel, one process per core), writes each run's results
(``<out>/<figure>/<variant>/``: summary.json, intervals.parquet), one PNG per figure with
the closed form drawn next to the simulated values, and a report:

* ``report.md`` and ``report.html`` (figures inline): per figure and connection, the paper's
  stated number, the closed form and which equation/branch it is, the simulated
  steady-state mean, the difference, and a sentence where they disagree;
* ``report.parquet``: the same table as data.

Nothing in the report is typed in by hand except the paper's stated numbers (in the
scenarios) and the explanations (in the manifest); every closed-form value is computed by the
core from the simulated configuration.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
import math
import multiprocessing
import os
import shutil
import tomllib
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab.fileio import write_parquet, write_text
from tcplab.reporting.plots import _colour, _figure, _percent_axis, _save, plot_efficiency
from tcplab.repro import PAPERS_DIR as _PAPERS_DIR
from tcplab.repro import claims as _claims
from tcplab.repro.claims import Grid, job_overrides, job_variant, parse_grid
from tcplab.scenario import Scenario, scenario_error

if TYPE_CHECKING:
    import polars as pl

    from tcplab.results import Result

# polars, tcplab.results and tcplab.runner (which import polars) are imported where runs are
# made or read: `tcplab list` loads the manifests only.

__all__ = ["Figure", "Job", "load_manifest", "reproduce", "paper_dir", "AGREE_PT"]

#: Simulated and closed form "agree" within this many percentage points (the issue's bar).
AGREE_PT = 3.0
KINDS = ("timeseries", "sweep", "grid")


@dataclass
class Figure:
    id: str
    title: str
    kind: str
    scenarios: list[Path]
    x: list[float] = field(default_factory=list)
    x_label: str = ""
    vary: list[str] = field(default_factory=list)
    unit: str = ""
    metric: str = "efficiency"
    aggregate: bool = False
    explain: str | None = None
    grid: Grid | None = None

    def n_jobs(self) -> int:
        """``len(self.jobs())`` without building the runs' overrides (a grid's vary functions
        can draw thousands of start times: `tcplab list` counted runs that way in 1.6 s)."""
        if self.grid is not None:
            return len(self.grid.curves) * len(self.x) * self.grid.seeds
        if self.kind == "timeseries":
            return 1
        if len(self.scenarios) > 1:
            return min(len(self.x), len(self.scenarios))
        return len(self.x)

    def jobs(self) -> list[Job]:
        if self.grid is not None:
            g = self.grid
            return [
                Job(self.id, job_variant(c.id, x, s), self.scenarios[0], job_overrides(g, c, self.vary, self.unit, x, s), c.id)
                for c in g.curves for x in self.x for s in range(1, g.seeds + 1)
            ]
        if self.kind == "timeseries":
            return [Job(self.id, "run", self.scenarios[0], {})]
        if len(self.scenarios) > 1:
            return [Job(self.id, f"x{_fmt_x(x)}", s, {}) for x, s in zip(self.x, self.scenarios)]
        return [
            Job(self.id, f"x{_fmt_x(x)}", self.scenarios[0], {k: f"{_fmt_x(x)}{self.unit}" for k in self.vary})
            for x in self.x
        ]


@dataclass
class Job:
    figure: str
    variant: str
    scenario: Path
    overrides: dict[str, Any]
    #: the grid curve the run belongs to (None outside grids)
    curve: str | None = None


def _fmt_x(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


#: The papers' scenarios and manifests ship inside the package (``tcplab/repro/papers/<paper>/``;
#: ``scenarios/`` in a checkout is a link to it), so ``tcplab reproduce PAPER`` works from
#: any directory after ``pip install``.
PAPERS_DIR = _PAPERS_DIR


def papers(root: str | Path | None = None) -> list[str]:
    """The papers with a manifest (folder names under ``root``, default the package's)."""
    base = Path(root) if root else PAPERS_DIR
    return sorted(d.name for d in base.iterdir() if (d / "reproduce.toml").is_file()) if base.is_dir() else []


def paper_dir(paper: str, root: str | Path | None = None) -> Path:
    """The folder of ``paper`` among the shipped papers (``paper`` may also be a folder path
    holding a ``reproduce.toml``)."""
    p = Path(paper)
    if (p / "reproduce.toml").is_file():
        return p
    base = Path(root) if root else PAPERS_DIR
    cand = base / paper
    if (cand / "reproduce.toml").is_file():
        return cand
    known = papers(base)
    raise scenario_error("paper", f"no reproduce.toml for '{paper}' (known: {', '.join(known) or 'none'})")


def load_manifest(folder: Path) -> tuple[str, list[Figure]]:
    """Read and check ``folder/reproduce.toml``; errors name the field."""
    title, figs, _ = _load(folder)
    return title, figs


def _load(folder: Path) -> tuple[str, list[Figure], list[_claims.Claim]]:
    path = folder / "reproduce.toml"
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise scenario_error("", str(e), path) from None
    figs: list[Figure] = []
    seen: set[str] = set()
    allowed = {"id", "title", "kind", "scenario", "x", "x_label", "vary", "unit", "metric", "aggregate", "explain"}
    grid_keys = _claims.GRID_KEYS
    for i, raw in enumerate(data.get("figure") or []):
        where = f"figure[{i}]"
        extra = set(raw) - allowed - (grid_keys if raw.get("kind") == "grid" else set())
        if extra:
            raise scenario_error(f"{where}.{sorted(extra)[0]}", "unknown field", path)
        for key in ("id", "title", "kind", "scenario"):
            if key not in raw:
                raise scenario_error(f"{where}.{key}", "missing", path)
        if raw["id"] in seen:
            raise scenario_error(f"{where}.id", f"duplicate id '{raw['id']}'", path)
        seen.add(raw["id"])
        if raw["kind"] not in KINDS:
            raise scenario_error(f"{where}.kind", f"must be one of {', '.join(KINDS)}", path)
        scen = raw["scenario"] if isinstance(raw["scenario"], list) else [raw["scenario"]]
        files = [folder / s for s in scen]
        for s in files:
            if not s.is_file():
                raise scenario_error(f"{where}.scenario", f"no such file: {s}", path)
        fig = Figure(
            id=raw["id"], title=raw["title"], kind=raw["kind"], scenarios=files,
            x=[float(v) for v in raw.get("x", [])], x_label=raw.get("x_label", ""),
            vary=list(raw.get("vary", [])), unit=raw.get("unit", ""),
            metric=raw.get("metric", "efficiency"), aggregate=bool(raw.get("aggregate", False)),
            explain=raw.get("explain"),
        )
        if fig.kind == "grid":
            fig.grid = parse_grid(raw, where, path)
            if not fig.x or not (fig.vary or fig.grid.vary_fn):
                raise scenario_error(f"{where}.x", "a grid needs x values and the fields to vary (vary or vary_fn)", path)
            figs.append(fig)
            continue
        if fig.kind == "sweep":
            if not fig.x:
                raise scenario_error(f"{where}.x", "a sweep needs x values", path)
            if len(files) > 1 and len(files) != len(fig.x):
                raise scenario_error(f"{where}.scenario", "one scenario per x value, or one scenario with 'vary'", path)
            if len(files) == 1 and not fig.vary:
                raise scenario_error(f"{where}.vary", "a one-scenario sweep needs the fields to vary", path)
        if fig.metric not in ("efficiency", "throughput_bps"):
            raise scenario_error(f"{where}.metric", "must be efficiency or throughput_bps", path)
        figs.append(fig)
    if not figs:
        raise scenario_error("figure", "the manifest lists no figure", path)
    claims = _claims.parse_claims(data, {f.id: f for f in figs}, path)
    return str(data.get("paper", folder.name)), figs, claims


#: Beside each run's summary.json: what the run was (see :func:`_job_key`), for ``resume``.
JOB_FILE = "job.json"


@functools.cache
def _engine_id() -> str:
    """A hash of the compiled core this process runs (a rebuilt engine can give other
    results under the same version number)."""
    from tcplab import _core

    return hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:16]


def _provenance() -> str:
    """The report's first line: tcplab's version, the compiled engine and the command."""
    import shlex
    import sys

    from tcplab import __version__

    argv0 = Path(sys.argv[0]).name if sys.argv else ""
    how = (f"`{shlex.join(['tcplab', *sys.argv[1:]])}`" if argv0 == "tcplab"
           else "`tcplab.repro.reproduce.reproduce(...)` from Python")
    return f"Made by tcplab {__version__} (engine build {_engine_id()}) with {how}."


def _job_key(job: Job) -> dict[str, Any]:
    """What identifies a run for ``resume``: the scenario file's content, the overrides, the
    tcplab version and the compiled engine (a result of another engine is run again)."""
    from tcplab import __version__

    text = Path(job.scenario).read_bytes()
    return {"scenario": str(job.scenario), "sha256": hashlib.sha256(text).hexdigest(),
            "overrides": json.loads(json.dumps(job.overrides, sort_keys=True, default=str)),
            "tcplab": __version__, "engine": _engine_id()}


def _job_done(job: Job, out: Path, engine: str = "tcplab") -> bool:
    """The run's directory holds a complete result (summary.json is written last) of this
    very job."""
    d = out / job.figure / job.variant
    try:
        if not (d / "summary.json").is_file():
            return False
        return json.loads((d / JOB_FILE).read_text()) == _engine_key(job, engine)
    except (OSError, ValueError):
        return False


def _job_scenario(job: Job) -> Scenario:
    sc = Scenario.from_toml(job.scenario)
    return sc.with_overrides(job.overrides) if job.overrides else sc


def _engine_key(job: Job, engine: str) -> dict[str, Any]:
    """:func:`_job_key`; for ns-2 the engine is the OTcl script the run executes (same
    script, same ns-2 result) instead of the compiled core."""
    key = _job_key(job)
    if engine == "ns2":
        from tcplab import ns2

        script = ns2.translate(ns2.expanded(_job_scenario(job)), out_json="ns2_result.json", samples=False).otcl
        key["engine"] = "ns-2.35:" + hashlib.sha256(script.encode()).hexdigest()[:16]
    return key


def _run_job(job: Job, out: str, engine: str = "tcplab") -> str:
    """Worker: run one job and save it (runs in a child process)."""
    sc = _job_scenario(job)
    d = Path(out) / job.figure / job.variant
    if engine == "ns2":
        from tcplab import ns2

        res = ns2.run_ns2_result(sc, out_dir=d)
        (d / "ns2_result.json").unlink(missing_ok=True)  # ns-2's raw counters: summarised in the result
    else:
        from tcplab.runner import run

        res = run(sc, progress=False)
    key = json.dumps(_engine_key(job, engine), indent=1)
    res.save(d, before_summary=lambda dd: write_text(dd / JOB_FILE, key))
    return str(d)


#: Engines :func:`reproduce` runs; extra report columns (``columns``) and what they run.
ENGINES = ("tcplab", "ns2")
COLUMNS: dict[str, tuple[str, dict[str, Any], str]] = {
    "ns2": ("ns2", {}, "ns-2.35 itself, on the translated scenario (docs/crosscheck.md)"),
    "ns2_profile": ("tcplab", {"defaults.flows.profile": "ns2"}, 'tcplab with profile = "ns2" on every flow'),
}


def _pt(x: float | None) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f} %"


def _rows_for(fig: Figure, variant: str, x: float | None, res: Result) -> list[dict[str, Any]]:
    a = res.summary.get("analysis") or {}
    rows = []
    alts = {al["id"]: al for al in a.get("alternatives") or []}
    for r in a.get("rows") or []:
        alt_vals = {alts[k]["label"]: al_v for k, al_v in (r.get("alternatives") or {}).items() if k in alts}
        diff_pt = 100 * (r["simulated"] - r["analytic"])
        sentences = []
        if abs(diff_pt) > AGREE_PT:
            matches = [f"{lbl} ({_pt(v)})" for lbl, v in alt_vals.items() if abs(100 * (r["simulated"] - v)) <= AGREE_PT]
            if matches:
                sentences.append("Simulation agrees with " + "; ".join(matches) + ".")
        paper = r.get("paper")
        paper_off = paper is not None and abs(100 * (r["simulated"] - paper)) > AGREE_PT
        needs = abs(diff_pt) > AGREE_PT or paper_off
        if needs:
            sentences.append(fig.explain or "Unexplained: no explanation recorded in the manifest.")
        rows.append({
            "figure": fig.id, "variant": variant, "x": x, "flow": r["flow"], "role": r["role"],
            "paper": paper, "closed_form": r["analytic_label"], "analytic": r["analytic"],
            "simulated": r["simulated"], "difference_pt": diff_pt,
            "agrees": not needs, "note": " ".join(sentences),
            "alternatives": "; ".join(f"{k}: {_pt(v)}" for k, v in alt_vals.items()),
            "warnings": list(res.warnings),
        })
    return rows


def _plot_aggregate(res: Result, path: Path, title: str) -> None:
    import polars as pl

    fig = _figure()
    ax = fig.add_subplot()
    iv = res.intervals
    for i, r in enumerate((res.summary.get("analysis") or {}).get("rows") or []):
        names = r["flow"].split("+")
        d = iv.filter(pl.col("flow").is_in(names)).group_by("t_start", "t_end").agg(pl.col("efficiency").sum()).sort("t_start")
        mid = ((d["t_start"] + d["t_end"]) / 2).to_list()
        ax.plot(mid, d["efficiency"].to_list(), color=_colour(i), marker="o", ms=2.2, lw=1.3,
                label=f"{r['role']} aggregate (simulated mean {r['simulated']:.1%})")
        ax.axhline(r["analytic"], color=_colour(i), ls="--", lw=1.2, label=f"{r['role']} {r['analytic_label']}: {r['analytic']:.1%}")
        if r.get("paper") is not None:
            ax.axhline(r["paper"], color=_colour(i), ls=":", lw=1.2, label=f"{r['role']} paper: {r['paper']:.1%}")
    ax.set_ylim(0, 1.05)
    _percent_axis(ax)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("aggregate efficiency per interval")
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="center right")
    _save(fig, path)


def _plot_sweep(fig_spec: Figure, results: list[tuple[float, Result]], path: Path) -> None:
    fig = _figure()
    ax = fig.add_subplot()
    xs = [x for x, _ in results]
    throughput = fig_spec.metric == "throughput_bps"
    roles: dict[str, dict[str, list[float]]] = {}
    for _, res in results:
        a = res.summary.get("analysis") or {}
        alts = {al["id"]: al["label"] for al in a.get("alternatives") or []}
        for r in a.get("rows") or []:
            scale = 1.0
            if throughput:
                flow = next(f for f in res.summary["flows"] if f["name"] == r["flow"].split("+")[0])
                link = next(lk for lk in res.summary["links"] if lk["name"] == flow["efficiency_link"])
                scale = link["rate_bps"] / 1e3
            d = roles.setdefault(r["role"], {})
            d.setdefault("simulated", []).append(r["simulated"] * scale)
            d.setdefault(r["analytic_label"].split(" (")[0], []).append(r["analytic"] * scale)
            for k, v in (r.get("alternatives") or {}).items():
                d.setdefault(alts.get(k, k), []).append(v * scale)
    styles = ["--", ":", "-.", (0, (5, 1)), (0, (1, 3))]
    for i, (role, series) in enumerate(roles.items()):
        for j, (name, ys) in enumerate(series.items()):
            if len(ys) != len(xs):
                continue
            if name == "simulated":
                ax.plot(xs, ys, color=_colour(i), marker="o", lw=0, ms=6, label=f"{role}: simulated")
            else:
                ax.plot(xs, ys, color=_colour(i), ls=styles[(j - 1) % len(styles)], lw=1.2, label=f"{role}: {name}")
    ax.set_xlabel(fig_spec.x_label)
    if throughput:
        ax.set_ylabel("throughput (kb/s)")
        ax.set_yscale("log")
    else:
        ax.set_ylim(0, 1.05)
        _percent_axis(ax)
        ax.set_ylabel("steady-state efficiency")
    ax.set_title(fig_spec.title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    _save(fig, path)


def _markdown(paper: str, figs: list[Figure], table: list[dict[str, Any]], images: dict[str, list[str]]) -> str:
    n_agree = sum(r["agrees"] for r in table)
    out = [f"# Reproduction: {paper}", "", _provenance(), "",
           f"{len(table)} comparisons, {n_agree} within {AGREE_PT:g} points of the closed form and the paper's "
           f"number; the others are explained below each table row.", "",
           "Efficiencies are steady-state means (throughput / own link capacity). *closed form*: "
           "computed by `tcplab.analysis` from the simulated configuration (windows in packets, "
           "transmission times); *paper*: the number the paper states.", ""]
    for fig in figs:
        rows = [r for r in table if r["figure"] == fig.id]
        out += [f"## {fig.title}", ""]
        for img in images.get(fig.id, []):
            out += [f"![{fig.id}]({img})", ""]
        out += ["| variant | connection | paper | closed form | value | simulated | difference | alternatives |",
                "|---|---|---|---|---|---|---|---|"]
        for r in rows:
            var = "" if r["x"] is None else f"{fig.x_label.split(' (')[0]} = {_fmt_x(r['x'])}"
            mark = "" if r["agrees"] else " ⚠"
            out.append(f"| {var} | {r['role']} {r['flow']} | {_pt(r['paper'])} | {r['closed_form']} | {_pt(r['analytic'])} | "
                       f"{_pt(r['simulated'])} | {r['difference_pt']:+.1f} pt{mark} | {r['alternatives'] or '–'} |")
        notes = []
        for r in rows:
            if r["note"] and r["note"] not in notes:
                notes.append(r["note"])
        for n in notes:
            out += ["", f"> {n}"]
        warns = sorted({w for r in rows for w in r.get("warnings", [])})
        for w in warns:
            out += ["", f"*warning:* {w}"]
        out.append("")
    return "\n".join(out)


def _grid_markdown(paper: str, figs: list[Figure], values: pl.DataFrame, claim_df: pl.DataFrame,
                   images: dict[str, list[str]], overrides: dict[str, Any] | None, engine: str = "tcplab",
                   extra: Sequence[tuple[str, str]] = ()) -> str:
    out = [f"# Reproduction: {paper}", "", _provenance(), ""]
    if engine == "ns2":
        out += ["**Engine: ns-2.35.** Every run below is the manifest's scenario translated to OTcl by "
                "`tcplab.ns2` and run by ns-2 (the simulator the paper used); 'simulated' means ns-2's value. "
                "Curves ns-2 cannot express are left out, and their claims say why.", ""]
    if extra:
        out += ["Columns beside tcplab's own value: " + "; ".join(f"**{c}**: {lbl} (runs in `{c}/`)" for c, lbl in extra)
                + ".", ""]
    if overrides:
        out += ["**Shortened or modified run**: every run was changed by "
                + ", ".join(f"`{k} = {v}`" for k, v in overrides.items())
                + "; the paper's set-up is the manifest's alone.", ""]
    out += [
           "Each point is the steady-state mean of the listed seeds with its 95 % confidence interval "
           "(Student's t). The claims table compares the paper's statements with the simulation; "
           "the accepted ranges and the explanations come from the manifest (reproduce.toml), "
           "every simulated number from the runs.", ""]
    out += _claims.markdown(values, claim_df, figs, [c for c, _ in extra])
    for fig in figs:
        out += [f"## {fig.title}", ""]
        for img in images.get(fig.id, []):
            out += [f"![{fig.id}]({img})", ""]
        same = _same_table(fig, figs, values) if fig.grid is not None else None
        if same is not None:  # a series figure whose means another figure tabulates
            out += [f"Its steady-state means are the table of \"{same.title}\".", ""]
        elif fig.grid is not None:
            out += _claims.figure_table(fig, values)
        if fig.explain:
            out += ["", f"> {fig.explain}"]
        out.append("")
    return "\n".join(out)


def _same_table(fig: Figure, figs: list[Figure], values: pl.DataFrame) -> Figure | None:
    """For a series figure: another (not series) figure whose table holds the same rows
    (curve, x, seeds, mean, interval), so the report shows it once."""
    import polars as pl

    if fig.grid is None or fig.grid.plot != "series":
        return None
    cols = ["curve", "x", "n", "mean", "ci95"]

    def rows(f: Figure) -> pl.DataFrame:
        d = values.filter(pl.col("figure") == f.id)
        if "window" in d.columns:
            d = d.filter(pl.col("window").is_null())
        return d.select(cols).sort("curve", "x")

    mine = rows(fig)
    for other in figs:
        if other is fig or other.grid is None or other.grid.plot == "series":
            continue
        theirs = rows(other)
        if mine.height and mine.equals(theirs):
            return other
    return None


def _html(md_text: str, folder: Path) -> str:
    """A self-contained HTML page from the Markdown report (images inline)."""
    body: list[str] = []
    in_table = False
    for line in md_text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if set("".join(cells)) <= set("-"):
                continue
            tag = "th" if not in_table else "td"
            if not in_table:
                body.append("<table>")
                in_table = True
            body.append("<tr>" + "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in cells) + "</tr>")
            continue
        if in_table:
            body.append("</table>")
            in_table = False
        if line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("!["):
            src = line[line.index("(") + 1 : -1]
            data = base64.b64encode((folder / src).read_bytes()).decode()
            body.append(f'<img src="data:image/png;base64,{data}" style="max-width:900px">')
        elif line.startswith("> "):
            body.append(f"<blockquote>{html.escape(line[2:])}</blockquote>")
        elif line.startswith("*warning:*"):
            body.append(f'<p class="warn">{html.escape(line)}</p>')
        elif line.strip():
            body.append(f"<p>{html.escape(line)}</p>")
    if in_table:
        body.append("</table>")
    style = ("body{font-family:sans-serif;max-width:1000px;margin:2em auto}table{border-collapse:collapse;font-size:90%}"
             "td,th{border:1px solid #ccc;padding:3px 6px}blockquote{color:#333;border-left:4px solid #d90;margin:0.5em 0;"
             "padding-left:0.8em}.warn{color:#a60;font-size:85%}")
    return f"<!doctype html><html><head><meta charset='utf-8'><title>tcplab reproduction</title><style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"


def reproduce(
    paper: str,
    out: str | Path,
    only: Sequence[str] = (),
    jobs: int | None = None,
    on_progress: Callable[[int, int, str], None] | None = None,
    overrides: dict[str, Any] | None = None,
    resume: bool = False,
    engine: str = "tcplab",
    columns: Sequence[str] = (),
) -> pl.DataFrame:
    """Run the experiments of ``paper`` (a folder name under ``scenarios/``), write the
    figures and the report under ``out``, and return the comparison table (for papers
    whose manifest states claims: the claims table).

    ``overrides`` (``{"duration": "60s"}``, the CLI's ``--set``) apply to every run after
    the manifest's own, e.g. for a shortened check; the report then says so. ``resume``:
    runs whose directory under ``out`` already holds a complete result of the same job (same
    scenario file content, overrides, tcplab version and compiled engine; ``job.json`` beside
    its summary) are
    not run again, so an interrupted reproduction goes on where it stopped.

    ``engine = "ns2"`` runs every run in ns-2.35 instead (each scenario translated by
    :mod:`tcplab.ns2`; a curve whose scenario ns-2 cannot express is left out with the
    translator's reason, and the claims on it get no value). ``columns`` (keys of
    :data:`COLUMNS`: ``"ns2"``, ``"ns2_profile"``) run the same experiments again into
    ``out/<column>/`` and add each column's value and verdict to the claims table
    (``<column>_simulated``, ``<column>_met``, ``<column>_note``)."""
    import polars as pl

    from tcplab.results import load

    if engine not in ENGINES:
        raise scenario_error("engine", f"must be one of {', '.join(ENGINES)}, got '{engine}'")
    for c in columns:
        if c not in COLUMNS:
            raise scenario_error("columns", f"unknown column '{c}' (known: {', '.join(COLUMNS)})")
    folder = paper_dir(paper)
    title, figs, claim_list = _load(folder)
    if only:
        unknown = [o for o in only if o not in {f.id for f in figs}]
        if unknown:
            raise scenario_error("only", f"unknown figure '{unknown[0]}' (known: {', '.join(f.id for f in figs)})")
        figs = [f for f in figs if f.id in only]
        ids = {f.id for f in figs}
        claim_list = [c for c in claim_list if c.a["figure"] in ids and (c.b is None or c.b["figure"] in ids)]
    if (engine != "tcplab" or columns) and any(f.grid is None for f in figs):
        bad = next(f for f in figs if f.grid is None)
        raise scenario_error("engine" if engine != "tcplab" else "columns",
                             f"figure {bad.id} compares closed forms, not claims: other engines and columns are for "
                             "manifests whose figures are grids with claims (select grid figures with --only)")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    todo = [j for f in figs for j in f.jobs()]
    if overrides:
        todo = [Job(j.figure, j.variant, j.scenario, {**j.overrides, **overrides}, j.curve) for j in todo]
    # Validate every run before starting any.
    refused: dict[tuple[str, str | None], str] = {}
    for j in todo:
        sc = _job_scenario(j)
        sc.validate()
        if engine == "ns2" and (j.figure, j.curve) not in refused:
            from tcplab import ns2

            try:
                ns2.translate(ns2.expanded(sc), samples=False)
            except ns2.Ns2Unsupported as e:
                refused[(j.figure, j.curve)] = str(e)
    if engine == "ns2":
        from tcplab import ns2

        if ns2.ns2_available() is None and len(refused) < len({(j.figure, j.curve) for j in todo}):
            raise scenario_error("engine", "ns-2 is not installed: `apt-get install -y ns2` (Debian/Ubuntu) gives /usr/bin/ns")
        todo = [j for j in todo if (j.figure, j.curve) not in refused]
    # Figures that plot different metrics of the same runs (same scenario, same overrides)
    # share them: each distinct run is made once, its output copied to the other figures.
    copies: dict[str, list[Job]] = {}
    unique: list[Job] = []
    for j in todo:
        key = json.dumps([str(j.scenario), j.overrides], sort_keys=True, default=str)
        if key in copies:
            copies[key].append(j)
        else:
            copies[key] = []
            unique.append(j)
    dup_of = {id(u): copies[json.dumps([str(u.scenario), u.overrides], sort_keys=True, default=str)] for u in unique}
    todo = unique
    done = 0
    if resume:
        left = [j for j in todo if not _job_done(j, out, engine)]
        done = len(todo) - len(left)
        if on_progress and done:
            on_progress(done, len(todo), f"{done} runs already complete")
        total = len(todo)
        todo = left
    else:
        total = len(todo)
    workers = max(1, min(jobs or os.cpu_count() or 1, len(todo)))
    if workers == 1:
        for j in todo:
            _run_job(j, str(out), engine)
            done += 1
            if on_progress:
                on_progress(done, total, f"{j.figure}/{j.variant}")
    else:
        # spawn, not fork: forking a process that runs threads (notebooks, Dask, pytest
        # plugins) can deadlock the children.
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futs = {pool.submit(_run_job, j, str(out), engine): j for j in todo}
            for fut in as_completed(futs):
                fut.result()
                done += 1
                if on_progress:
                    j = futs[fut]
                    on_progress(done, total, f"{j.figure}/{j.variant}")
    for u in unique:
        for j in dup_of[id(u)]:
            dst = out / j.figure / j.variant
            if dst.exists():
                shutil.rmtree(dst)
            shutil.copytree(out / u.figure / u.variant, dst)
    table: list[dict[str, Any]] = []
    images: dict[str, list[str]] = {}
    grid_frames: list[pl.DataFrame] = []
    for fig in figs:
        if fig.grid is not None:
            g = _claims.without_curves(fig.grid, {c for (f, c) in refused if f == fig.id})
            if not g.curves:
                continue
            results = {(c.id, x, sd): load(out / fig.id / job_variant(c.id, x, sd))
                       for c in g.curves for x in fig.x for sd in range(1, g.seeds + 1)}
            try:
                vals = _claims.grid_values(fig.id, g, fig.x, results)
            except (KeyError, TypeError, ValueError, IndexError, pl.exceptions.PolarsError) as e:
                if engine == "tcplab":
                    raise
                for c in g.curves:
                    refused[(fig.id, c.id)] = f"{fig.id}: the metric needs what ns-2's results lack ({e})"
                continue
            grid_frames.append(vals)
            png = f"{fig.id}.png"
            _claims.plot_grid(fig.title, fig.x_label or "x", g, vals, results, fig.x, out / png, fig.id)
            images[fig.id] = [png]
            continue
        if fig.kind == "timeseries":
            res = load(out / fig.id / "run")
            png = f"{fig.id}.png"
            plot_efficiency(res, out / png, title=fig.title)
            images[fig.id] = [png]
            if fig.aggregate:
                agg = f"{fig.id}_aggregate.png"
                _plot_aggregate(res, out / agg, fig.title + " (aggregate per direction)")
                images[fig.id].append(agg)
            table += _rows_for(fig, "run", None, res)
        else:
            results = [(x, load(out / fig.id / j.variant)) for x, j in zip(fig.x, fig.jobs())]
            png = f"{fig.id}.png"
            _plot_sweep(fig, results, out / png)
            images[fig.id] = [png]
            for (x, res), j in zip(results, fig.jobs()):
                table += _rows_for(fig, j.variant, x, res)
    if any(f.grid is not None for f in figs):
        values = pl.concat(grid_frames) if grid_frames else _claims.empty_values()
        claim_df = _claims.evaluate_claims(claim_list, values, figs, refused)
        extra: list[tuple[str, str]] = []
        for col in columns:
            col_engine, col_over, label = COLUMNS[col]
            sub = reproduce(paper, out / col, only=only, jobs=jobs, on_progress=on_progress,
                            overrides={**(overrides or {}), **col_over} or None, resume=resume, engine=col_engine)
            claim_df = claim_df.join(
                sub.select("claim", pl.col("simulated").alias(f"{col}_simulated"), pl.col("met").alias(f"{col}_met"),
                           pl.col("note").alias(f"{col}_note")), on="claim", how="left", maintain_order="left")
            extra.append((col, label))
        md = _grid_markdown(title, figs, values, claim_df, images, overrides, engine, extra)
        write_text(out / "report.md", md)
        write_text(out / "report.html", _html(md, out))
        write_parquet(values, out / "report.parquet")
        write_parquet(claim_df, out / "claims.parquet")
        return claim_df
    md = _markdown(title, figs, table, images)
    write_text(out / "report.md", md)
    write_text(out / "report.html", _html(md, out))
    df = pl.DataFrame(
        [{k: v for k, v in r.items() if k != "warnings"} for r in table],
        schema={"figure": pl.String, "variant": pl.String, "x": pl.Float64, "flow": pl.String, "role": pl.String,
                "paper": pl.Float64, "closed_form": pl.String, "analytic": pl.Float64, "simulated": pl.Float64,
                "difference_pt": pl.Float64, "agrees": pl.Boolean, "note": pl.String, "alternatives": pl.String},
    )
    write_parquet(df, out / "report.parquet")
    return df

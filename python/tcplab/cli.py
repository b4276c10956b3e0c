"""The ``tcplab`` command line.

::

    tcplab run SCENARIO.toml --out DIR [--set KEY=VALUE]... [--seed N] [--quiet] [--plot]
    tcplab validate SCENARIO.toml...
    tcplab expand SCENARIO.toml [--set KEY=VALUE]... [--json]
    tcplab sweep SPEC.toml [--out DIR] [--jobs N] [--dask ADDRESS]
    tcplab reproduce PAPER [--out DIR] [--only FIGURE]... [--jobs N] [--resume]
    tcplab examples DIR [--force]
    tcplab schema

Bad input (missing file, TOML syntax, bad ``--set``, invalid field) prints one line,
``error: <file>: <field>: <reason>``, on stderr and exits with status 2.

Start-up: this module imports typer and the scenario code only. polars (about 0.3 s), rich's
console, matplotlib (about 1 s) and Dask are imported inside the commands that use them, so
``--help``, ``validate``, ``expand`` and ``list`` load none of them, and ``run`` draws (and
imports matplotlib) only with ``--plot`` (tests/test_startup.py).
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from tcplab import _core
from tcplab.scenario import Scenario, ScenarioError, parse_override

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["app", "main", "format_error"]

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

# Help is plain text: docstrings mention TOML tables such as [defaults], which rich markup
# would take for style tags and drop, and flags would show a `<bool>` placeholder.
app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    help="tcplab: a fast, deterministic packet-level simulator for TCP congestion control research.",
)


def format_error(err: BaseException, file: str | Path | None = None) -> str:
    """One line: ``error: <file>: <field>: <reason>`` (empty parts left out)."""
    file = getattr(err, "file", None) or file
    if isinstance(err, ScenarioError) and len(err.args) == 3:
        field, reason = str(err.args[1] or ""), str(err.args[2] or "")
    else:
        field, reason = "", str(err)
    parts = [str(p) for p in (file, field, reason) if p]
    return " ".join(("error: " + ": ".join(parts)).split())


def _fail(err: BaseException, file: str | Path | None = None) -> NoReturn:
    print(format_error(err, file), file=sys.stderr)
    raise typer.Exit(EXIT_BAD_INPUT)


def _plain_usage_names() -> None:
    """Usage lines name arguments as click does (``SCENARIO``, ``[PAPER]``): some typer
    versions write a required argument as ``{scenario}``, which reads as a placeholder to
    fill in with braces."""
    from typer.core import TyperArgument

    def usage(self: TyperArgument) -> str:
        name = self.metavar or str(self.name or "").upper()
        if not self.required:
            name = f"[{name}]"
        return name + ("..." if self.nargs != 1 else "")

    # typer 0.29 names the piece in `_usage_display_name`; earlier ones in
    # `make_metavar(usage=True)`, called from `get_usage_pieces`.
    if hasattr(TyperArgument, "_usage_display_name"):
        TyperArgument._usage_display_name = usage  # type: ignore[method-assign]
    else:
        TyperArgument.get_usage_pieces = lambda self, ctx: [usage(self)]  # type: ignore[method-assign]


_plain_usage_names()


def _err_console() -> Console:
    """Standard error, for run warnings: apart from the report, so that a piped report holds
    only the tables (and a warning is seen even when stdout goes to a file)."""
    from rich.console import Console

    if sys.stderr.isatty():
        return Console(stderr=True)
    return Console(stderr=True, width=1000, soft_wrap=True)


def _out_console() -> Console:
    """Standard output: the terminal's width, or, when piped, wide enough that no table is
    cut or wrapped (a rich console would otherwise assume 80 columns)."""
    from rich.console import Console

    if sys.stdout.isatty():
        return Console()
    return Console(width=1000, soft_wrap=True)


def _load(path: Path, overrides: list[str]) -> Scenario:
    sc = Scenario.from_toml(path)
    if overrides:
        sc = sc.with_overrides(dict(parse_override(o) for o in overrides))
    return sc


def _writable_dir(out: Path, option: str = "--out") -> bool:
    """Make sure ``out`` is a directory this process can write into, before anything is
    simulated: create it if missing; otherwise one ``error:`` line naming it and the reason,
    exit 1 (a run that found this at the end would lose its results). Returns whether the
    directory was created here (:func:`_drop_if_empty` removes it again if nothing came)."""
    import tempfile

    created = not out.exists()
    if out.exists() and not out.is_dir():
        print(f"error: {option} {out}: is a file, not a directory", file=sys.stderr)
        raise typer.Exit(1)
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".tcplab-write-check-"):
            pass
    except OSError as e:
        print(f"error: {option} {e.filename or out}: cannot write: {e.strerror or e}", file=sys.stderr)
        raise typer.Exit(1) from None
    return created


def _drop_if_empty(out: Path, created: bool) -> None:
    """Remove ``out`` if :func:`_writable_dir` created it and nothing was written there (an
    interrupted or refused run leaves no empty result directory behind)."""
    if created:
        with contextlib.suppress(OSError):
            out.rmdir()


@contextlib.contextmanager
def _threads_warnings() -> Iterator[None]:
    """Print each :class:`tcplab.ThreadsWarning` raised inside as one ``warning:`` line on
    stderr (not Python's two-line format); other warnings pass through."""
    from tcplab.runner import ThreadsWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ThreadsWarning)
        try:
            yield
        finally:
            for w in caught:
                if issubclass(w.category, ThreadsWarning):
                    print(f"warning: {w.message}", file=sys.stderr)
                else:
                    warnings.showwarning(w.message, w.category, w.filename, w.lineno)


@app.command()
def run(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for summary.json, parquet files and plots.")],
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", "-s", metavar="KEY=VALUE", help="Override a field, e.g. --set links.up.rate=200kbps (repeatable).", show_default=False),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed (overrides the scenario's).", min=0, max=2**64 - 1)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no report.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print summary.json to standard output instead of the tables.")] = False,
    audit: Annotated[bool, typer.Option("--audit", help="Check the engine's invariants while running (docs/reliability.md); results are identical.")] = False,
    max_memory: Annotated[
        str | None,
        typer.Option("--max-memory", help="Refuse scenarios whose estimated memory exceeds this size, e.g. 32GB (default: half the available memory).", show_default=False),
    ] = None,
    threads: Annotated[
        int | None,
        typer.Option("--threads", min=1, max=1024, help="Threads for this one simulation (default: the scenario's `threads`, else 1); results are bit-identical (docs/scaling.md).", show_default=False),
    ] = None,
    plot: Annotated[
        bool,
        typer.Option("--plot", help="Also draw efficiency.png (and cwnd.png / queue.png when metrics.trace is set, delay.png when a flow echoes, fct.png when transfers completed); about 1-2 s more.")
    ] = False,
    plot_mbps: Annotated[bool, typer.Option("--plot-mbps", help="Also draw goodput.png: each flow's goodput in Mb/s per interval (implies --plot).")] = False,
    seeds: Annotated[
        int | None,
        typer.Option("--seeds", min=1, max=10_000, help="Run N seeds (--seed or the scenario's, then the next N-1) as a sweep: one run folder per seed under --out/runs/, and mean ± 95 % interval per flow and link (seeds.parquet).", show_default=False),
    ] = None,
) -> None:
    """Run a scenario; write results to --out (plots with --plot) and print the report."""
    plot = plot or plot_mbps
    if seeds is not None and seeds > 1:
        for flag, given in (("--plot", plot), ("--audit", audit), ("--max-memory", max_memory is not None)):
            if given:
                print(f"error: {flag}: not with --seeds (it applies to one run; run that seed alone)", file=sys.stderr)
                raise typer.Exit(EXIT_BAD_INPUT)
        _run_seeds(scenario, out, set_ or [], seed, seeds, quiet=quiet, json_=json_, threads=threads)
        return
    try:
        # Imported here, inside the try: a Ctrl-C while they load (seconds on a busy
        # machine) is an interruption like any other.
        if plot:
            from tcplab.reporting.plots import plot_cwnd, plot_delay, plot_efficiency, plot_fct, plot_queue
        from tcplab.reporting.report import print_run
        from tcplab.results import pcap_files
        from tcplab.runner import run as run_scenario

        created = False
        sc = _load(scenario, set_ or [])
        links = sc.expand().to_dict().get("links")  # validates; builders may generate pcap keys
        pcap = isinstance(links, dict) and any(isinstance(v, dict) and "pcap" in v for v in links.values())
        created = _writable_dir(out)  # before simulating: the results must have somewhere to go
        earlier_pcaps = None
        if pcap:  # the pcap files are written into --out while the run goes
            try:
                out.mkdir(parents=True, exist_ok=True)
                # The run replaces pcap files in --out as it ends: from now on an earlier
                # result there is no longer complete.
                earlier_pcaps = pcap_files(out)
                (out / "summary.json").unlink(missing_ok=True)
            except OSError as e:
                print(f"error: {e.filename or out}: cannot write: {e.strerror or e}", file=sys.stderr)
                raise typer.Exit(1) from None
        with _threads_warnings():
            result = run_scenario(
                sc, seed=seed, progress=not (quiet or json_), pcap_dir=out, audit=audit, max_memory=max_memory,
                threads=threads,
            )
    except ScenarioError as e:
        _drop_if_empty(out, created)
        _fail(e, scenario)
    except KeyboardInterrupt:
        _drop_if_empty(out, created)
        print("interrupted", file=sys.stderr)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    traced = set(result.trace_names) if plot else set()
    has_flows = bool(result.summary.get("flows"))  # workload flows alone have no interval rows
    has_fct = bool((result.summary.get("fct") or {}).get("completed"))

    def plots(d: Path) -> None:
        # An earlier run's plots that this run does not draw would be stale.
        for png, drawn in (("efficiency.png", plot and has_flows), ("goodput.png", plot_mbps and has_flows),
                           ("cwnd.png", "cwnd" in traced), ("queue.png", "queue" in traced), ("delay.png", "probe" in traced),
                           ("fct.png", plot and has_fct)):
            if not drawn:
                (d / png).unlink(missing_ok=True)
        if not plot:
            return
        if has_flows:
            plot_efficiency(result, d / "efficiency.png")
        if plot_mbps and has_flows:
            plot_efficiency(result, d / "goodput.png", mbps=True)
        if has_fct:
            plot_fct(result, d / "fct.png")
        if "cwnd" in traced:
            plot_cwnd(result, d / "cwnd.png")
        if "queue" in traced:
            plot_queue(result, d / "queue.png")
        if "probe" in traced:
            plot_delay(result, d / "delay.png")

    # Every file complete or absent; summary.json (removed first, written last) says the
    # directory holds a complete result (Result.save).
    try:
        result.save(out, before_summary=plots, earlier_pcaps=earlier_pcaps)
    except OSError as e:
        print(f"error: {e.filename or out}: cannot write: {e.strerror or e}", file=sys.stderr)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if json_:
        import json

        print(json.dumps(result.summary, indent=1, sort_keys=True))
    elif not quiet:
        console = _out_console()
        print_run(result.summary, console, warnings_to=_err_console())
        if (result.summary.get("run") or {}).get("stochastic"):
            console.print(f"one sample: seed {result.summary.get('seed')} of a scenario that draws random numbers; "
                          "--seeds 5 gives the mean and 95 % interval over 5 seeds", highlight=False)
        console.print(f"results in {out}/", highlight=False)
        if not plot:
            pngs = ["efficiency.png"] if has_flows else []
            pngs += [f"{t}.png" for t in ("cwnd", "queue") if t in result.trace_names]
            pngs += ["delay.png"] if "probe" in result.trace_names else []
            pngs += ["fct.png"] if has_fct else []
            if pngs:
                console.print(f"plots not drawn: add --plot for {', '.join(pngs)}", highlight=False)
    failed = [f for f in (result.summary.get("pcap") or {}).get("files") or [] if f.get("error")]
    for f in failed:
        print(f"error: links.{f['link']}.pcap: {f['error']}", file=sys.stderr)
    if failed:
        raise typer.Exit(1)


def _run_seeds(scenario: Path, out: Path, overrides: list[str], seed: int | None, n: int, *, quiet: bool,
               json_: bool, threads: int | None) -> None:
    """``tcplab run --seeds N``: the scenario as a sweep over N consecutive seeds (docs/sweeps.md:
    runs/<id>/ per seed, summary.parquet, resumable), then seeds.parquet with the mean and 95 %
    interval of each flow's and link's results, and their tables."""
    import json

    from tcplab.fileio import atomic_path
    from tcplab.reporting.seeds import print_seeds, seed_stats
    from tcplab.sweeps import RUNS_DIR, sweep

    created = False
    try:
        sc = _load(scenario, overrides)
        sc.validate()
        first = seed if seed is not None else sc.to_dict().get("seed", 1)
        if not isinstance(first, int) or first + n > 2**64:
            print(f"error: --seeds: seeds {first} to {first}+{n - 1} do not fit in [0, 2^64)", file=sys.stderr)
            raise typer.Exit(EXIT_BAD_INPUT)
        created = _writable_dir(out)
        spec = {"name": sc.name, "base": sc, "seeds": [first + i for i in range(n)], "list": [{}],
                **({"set": {"threads": threads}} if threads else {})}
        with _threads_warnings():
            res = sweep(spec, out, progress=not (quiet or json_), console=_err_console())
    except ScenarioError as e:
        _drop_if_empty(out, created)
        _fail(e, scenario)
    except KeyboardInterrupt:
        print("interrupted (finished seeds are kept: the same command runs only the others)", file=sys.stderr)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    ok = res.runs.filter(res.runs["status"] == "ok")
    summaries = [json.loads((out / RUNS_DIR / rid / "summary.json").read_text(encoding="utf-8"))
                 for rid in ok["run_id"].to_list()]
    stats = seed_stats(summaries)
    try:
        with atomic_path(out / "seeds.parquet") as tmp:
            stats.write_parquet(tmp)
    except OSError as e:
        print(f"error: {e.filename or out}: cannot write: {e.strerror or e}", file=sys.stderr)
        raise typer.Exit(1) from None
    if json_:
        print(json.dumps({"seeds": ok["seed"].to_list(), "stats": stats.to_dicts()}, indent=1, sort_keys=True))
    elif not quiet:
        console = _out_console()
        print_seeds(stats, ok["seed"].to_list(), console)
        console.print(f"results in {out}/ (seeds.parquet; each seed's run in {out / RUNS_DIR}/<id>/)", highlight=False)
    for w in res.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if res.failed:
        bad = res.runs.filter(res.runs["status"] == "failed").row(0, named=True)
        print(f"error: {res.failed} of {res.runs.height} seeds failed; seed {bad['seed']}: {bad['error']}", file=sys.stderr)
        raise typer.Exit(1)


@app.command()
def validate(
    scenarios: Annotated[list[Path], typer.Argument(help="Scenario TOML files.", show_default=False)],
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", "-s", metavar="KEY=VALUE", help="Apply this override before checking (repeatable).", show_default=False),
    ] = None,
) -> None:
    """Check scenario files: prints "<file>: ok" or the error for each; exit 2 on any error."""
    bad = False
    for path in scenarios:
        try:
            _load(path, set_ or []).validate()
        except ScenarioError as e:
            print(format_error(e, path), file=sys.stderr)
            bad = True
        else:
            print(f"{path}: ok")
    if bad:
        raise typer.Exit(EXIT_BAD_INPUT)


@app.command()
def expand(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.", show_default=False)],
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", "-s", metavar="KEY=VALUE", help="Apply this override before expanding (repeatable).", show_default=False),
    ] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print JSON instead of TOML.")] = False,
) -> None:
    """Print the plain scenario a file expands to: topology builders, duplex links and
    [defaults] replaced by the nodes, link directions and flows they generate (keys sorted;
    validated). Running the printed scenario gives the same results as the file."""
    import json

    try:
        sc = _load(scenario, set_ or []).expand()
    except ScenarioError as e:
        _fail(e, scenario)
    if json_:
        print(json.dumps(sc.to_dict(), indent=2, sort_keys=True, ensure_ascii=False))
    else:
        print(sc.to_toml(), end="")


@app.command()
def sweep(
    spec: Annotated[Path, typer.Argument(help="Sweep spec TOML file (see docs/sweeps.md).", show_default=False)],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Output directory (default out/<sweep name>); finished runs there are not run again.", show_default=False),
    ] = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", help="Worker processes (default: all cores).", min=1, show_default=False)
    ] = None,
    dask: Annotated[
        str | None,
        typer.Option("--dask", help="Run on this Dask scheduler (e.g. tcp://host:8786) instead of local processes.", show_default=False),
    ] = None,
    retries: Annotated[int, typer.Option(help="Retries of a run whose worker dies.", min=0)] = 2,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Run again the runs recorded as failed.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no table.")] = False,
) -> None:
    """Run a parameter sweep: every grid point x seed, in parallel, resumable.

    Each finished run is written to OUT/runs/<id>/ at once; running the same command
    again skips finished runs. Writes OUT/manifest.json and OUT/summary.parquet. Exit
    status 1 when some run failed, 2 for a bad spec.
    """
    from tcplab.sweeps import sweep as run_sweep

    try:
        with _threads_warnings():
            res = run_sweep(
                spec, out, jobs=jobs, dask=dask, retries=retries, retry_failed=retry_failed, progress=not quiet
            )
    except ScenarioError as e:
        _fail(e)
    except KeyboardInterrupt:
        print("interrupted: finished runs are kept; run the same command again to resume", file=sys.stderr)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except OSError as e:
        print(f"error: {e.filename or out or 'output directory'}: {e.strerror or e}", file=sys.stderr)
        raise typer.Exit(1) from None
    if not quiet:
        console = _out_console()
        console.print(res.table())
        for row in res.runs.filter(res.runs["status"] == "failed").head(10).iter_rows(named=True):
            point = ", ".join(f"{k}={row[k]}" for k in res.spec.params if row[k] is not None)
            console.print(f"[red]failed[/red] {row['run_id']} ({point}, seed {row['seed']}): {row['error']}", highlight=False, markup=True, soft_wrap=True)
        console.print(
            f"{res.runs.height} runs: {res.executed} run now, {res.skipped} done earlier, {res.failed} failed "
            f"({res.wall_seconds:.1f} s); summary in {res.out / 'summary.parquet'}",
            highlight=False,
            soft_wrap=True,
        )
    for w in res.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if res.failed:
        print(f"error: {res.failed} of {res.runs.height} runs failed (see {res.out / 'manifest.json'})", file=sys.stderr)
        raise typer.Exit(1)


@app.command()
def reproduce(
    paper: Annotated[str, typer.Argument(help="A shipped paper (see `tcplab list`, e.g. kalampoukas97) or a folder with a reproduce.toml.", show_default=False)],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output directory [default: out/PAPER].", show_default=False)] = None,
    only: Annotated[
        list[str] | None, typer.Option("--only", help="Only this figure id, e.g. fig5_3 (repeatable).", show_default=False)
    ] = None,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", help="Parallel runs [default: all cores].", min=1, show_default=False)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no table.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the comparison (or claims) table as JSON records instead.")] = False,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="KEY=VALUE applied to every run, e.g. duration=60s for a shortened check (repeatable).",
                     show_default=False),
    ] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Keep the runs already complete in --out (same scenario, overrides, tcplab version and compiled engine) and run only the others.")] = False,
    engine: Annotated[str, typer.Option("--engine", help="tcplab, or ns2: run every run in ns-2.35 (translated scenarios; curves ns-2 cannot express are left out, with the reason).")] = "tcplab",
    column: Annotated[
        list[str] | None,
        typer.Option("--column", help="Add a column to the claims table: ns2 (ns-2.35 itself) or ns2_profile (tcplab with profile = \"ns2\"); runs go to OUT/COLUMN/ (repeatable).",
                     show_default=False),
    ] = None,
) -> None:
    """Reproduce a paper's experiments: every figure, its closed forms or the paper's claims, and a report (Markdown + HTML)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from tcplab.repro.reproduce import AGREE_PT, load_manifest, paper_dir
    from tcplab.repro.reproduce import reproduce as run_reproduction
    from tcplab.scenario import scenario_error

    target = out or Path("out") / Path(paper).name
    created = False
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("[bold]reproduce[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TextColumn("{task.description}"), console=console, disable=quiet or json_,
    )
    try:
        folder = paper_dir(paper)
        overrides = dict(parse_override(o) for o in set_ or [])
        known = [f.id for f in load_manifest(folder)[1]]
        bad = [o for o in only or () if o not in known]
        if bad:
            raise scenario_error("--only", f"unknown figure '{bad[0]}' (known: {', '.join(known)})")
        created = _writable_dir(target)  # before the runs: their results need somewhere to go
        with progress:
            task = progress.add_task("", total=None)
            df = run_reproduction(
                paper, target, only=only or (), jobs=jobs,
                on_progress=lambda done, total, what: progress.update(task, completed=done, total=total, description=what),
                overrides=overrides or None, resume=resume, engine=engine, columns=column or (),
            )
    except ScenarioError as e:
        _drop_if_empty(target, created)
        _fail(e)
    except KeyboardInterrupt:
        _drop_if_empty(target, created)
        print("interrupted", file=sys.stderr)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except OSError as e:
        print(f"error: {e.filename or target}: {e.strerror or e}", file=sys.stderr)
        raise typer.Exit(1) from None
    if json_:
        import json

        print(json.dumps(df.to_dicts(), indent=1, default=str))
        return
    if quiet:
        return
    if "claim" in df.columns:
        table = Table(title="the paper's claims vs simulation (accepted ranges: see the manifest and the report)", title_justify="left")
        cols = [c for c in column or []]
        verdict = lambda m: "not run" if m is None else ("met" if m else "not met")  # noqa: E731
        for col in ("claim", "paper", "simulated", "95 % interval", *cols, "accepted", "verdict"):
            table.add_column(col, justify="left" if col in ("claim", "verdict") else "right", no_wrap=col != "claim")
        styles = {"met": None, "inconclusive": "yellow", "one sample, in range": "yellow"}
        for r in df.iter_rows(named=True):
            lo = "" if r["lo"] is None else f"{r['lo']:g}"
            hi = "" if r["hi"] is None else f"{r['hi']:g}"
            cells = ["–" if r[f"{c}_met"] is None else f"{r[f'{c}_simulated']:.3g} ({verdict(r[f'{c}_met'])})" for c in cols]
            ci = "–" if r["ci_lo"] is None else f"[{r['ci_lo']:.3g}, {r['ci_hi']:.3g}]"
            table.add_row(r["claim"], "–" if r["paper"] is None else f"{r['paper']:g}",
                          "–" if r["met"] is None else f"{r['simulated']:.3g}", ci, *cells,
                          f"[{lo}, {hi}]", r["verdict"], style=styles.get(r["verdict"], "red"))
        out_console = _out_console()
        out_console.print(table)
        from tcplab.repro.claims import verdict_counts

        out_console.print(verdict_counts(df)
                          + "".join(f"; {c}: {int(df[f'{c}_met'].sum())} met of {int(df[f'{c}_met'].is_not_null().sum())} run"
                                    for c in cols)
                          + f"; each one not met is explained in {target / 'report.md'} (and report.html)", highlight=False)
        return
    table = Table(title=f"closed form vs simulation (agreement: within {AGREE_PT:g} points; which closed form: see the report)",
                  title_justify="left")
    for col in ("figure", "connection", "paper", "closed form", "simulated", "diff (pt)"):
        table.add_column(col, justify="left" if col in ("figure", "connection") else "right", no_wrap=True)
    pct = lambda v: "–" if v is None else f"{100 * v:.1f}%"  # noqa: E731
    for r in df.iter_rows(named=True):
        fig = r["figure"] + ("" if r["x"] is None else f" @{r['x']:g}")
        style = None if r["agrees"] else "red"
        table.add_row(fig, r["role"].split(" ")[0], pct(r["paper"]), pct(r["analytic"]), pct(r["simulated"]),
                      f"{r['difference_pt']:+.1f}", style=style)
    out_console = _out_console()
    out_console.print(table)
    n_bad = int((~df["agrees"]).sum())
    out_console.print(f"{df.height - n_bad}/{df.height} agree; the {n_bad} others are explained in {target / 'report.md'} "
                      f"(and report.html)", highlight=False)


@app.command("list")
def list_papers(
    paper: Annotated[str | None, typer.Argument(help="Show this paper's figures only.", show_default=False)] = None,
) -> None:
    """The papers `tcplab reproduce` knows (shipped with the package) and their figures."""
    from tcplab.repro.reproduce import _load, paper_dir, papers

    try:
        names = [paper_dir(paper).name] if paper else papers()
        for name in names:
            title, figs, claims = _load(paper_dir(name))
            runs = sum(f.n_jobs() for f in figs)
            print(f"{name}: {title}")
            print(f"  {len(figs)} figures, {runs} runs" + (f", {len(claims)} claims" if claims else ""))
            for f in figs:
                print(f"  {f.id:<22} {f.title}")
    except ScenarioError as e:
        _fail(e)


@app.command("examples")
def write_examples(
    dest: Annotated[Path, typer.Argument(help="Directory to write them into (created if missing).", show_default=False)],
    force: Annotated[bool, typer.Option("--force", help="Replace files of the same names already in DEST.")] = False,
) -> None:
    """Write the example scenarios, scripts and notebook (shipped with the package) into DEST,
    so the docs' `tcplab run examples/...` commands work without a checkout."""
    from importlib.resources import files

    src = files("tcplab") / "examples"
    items = sorted((p for p in src.iterdir() if p.is_file() and not p.name.startswith((".", "__"))),
                   key=lambda p: p.name)
    if dest.exists() and not dest.is_dir():
        print(f"error: {dest}: is a file, not a directory", file=sys.stderr)
        raise typer.Exit(1)
    clash = [p.name for p in items if (dest / p.name).exists()]
    if clash and not force:
        more = f" and {len(clash) - 1} more" if len(clash) > 1 else ""
        print(f"error: {dest / clash[0]}{more}: already exist(s); nothing written (--force replaces them)",
              file=sys.stderr)
        raise typer.Exit(1)
    try:
        dest.mkdir(parents=True, exist_ok=True)
        for p in items:
            (dest / p.name).write_bytes(p.read_bytes())
    except OSError as e:
        print(f"error: {e.filename or dest}: cannot write: {e.strerror or e}", file=sys.stderr)
        raise typer.Exit(1) from None
    print(f"wrote {len(items)} files to {dest}/ (try: tcplab run {dest / 'dumbbell.toml'} --out out/dumbbell)")


@app.command()
def schema() -> None:
    """Print the JSON Schema of scenario files (for editors)."""
    print(_core.json_schema())


@app.command()
def version() -> None:
    """Print the tcplab version."""
    print(_core.__version__)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()

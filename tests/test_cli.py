"""The ``tcplab`` console script: run, validate, schema, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from conftest import FIG2_3, SHORT, CliRunner

FLOW_KEYS = {
    "name", "from", "to", "cc", "goodput_bps", "throughput_bps", "efficiency", "efficiency_link",
    "bytes_delivered", "segments_sent", "retransmits", "fast_retransmits", "timeouts", "acks_sent",
    "duplicate_segments", "final_cwnd_bytes", "srtt_s", "min_rtt_s", "completed_at_s",
}  # fmt: skip
LINK_KEYS = {
    "name", "from", "to", "rate_bps", "delay_s", "queue", "utilization", "offered", "delivered", "drops",
    "lost", "in_flight", "max_queue", "max_queue_bytes", "tx_packets", "tx_data_bytes", "tx_ack_bytes",
}  # fmt: skip
ROW_KEYS = {"flow", "role", "paper", "analytic", "simulated", "difference", "max_queue", "q_max_bound"}


def test_run_writes_documented_outputs(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = cli("run", FIG2_3, "--out", out, *SHORT)
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text())
    # The run's warnings, and nothing else, on stderr; none in the report on stdout.
    assert r.stderr.splitlines() == [f"warning: {w}" for w in s["warnings"]]
    assert "warning:" not in r.stdout
    # Issue 31 §5: no plot unless asked for (--plot); the last line says how to get it.
    assert {p.name for p in out.iterdir()} == {"summary.json", "intervals.parquet"}
    assert r.stdout.splitlines()[-1] == "plots not drawn: add --plot for efficiency.png"
    s = json.loads((out / "summary.json").read_text())
    assert {"scenario", "seed", "run", "flows", "links", "analysis", "warnings"} <= s.keys()
    assert {"sim_seconds", "steady_start_s", "wall_seconds", "events", "packets_dropped"} <= s["run"].keys()
    assert s["run"]["sim_seconds"] == 60.0 and s["run"]["steady_start_s"] == 10.0
    assert {f["name"] for f in s["flows"]} == {"slow", "fast"}
    for f in s["flows"]:
        assert FLOW_KEYS <= f.keys()
        assert 0.0 <= f["efficiency"] <= 1.0
    assert len(s["links"]) >= 2 and s["analysis"]["rows"]
    for ln in s["links"]:
        assert LINK_KEYS <= ln.keys()
    assert {"model", "reference", "params", "prediction", "rows", "paper_note"} <= s["analysis"].keys()
    for row in s["analysis"]["rows"]:
        assert ROW_KEYS <= row.keys()
    iv = pl.read_parquet(out / "intervals.parquet")
    assert iv.columns[:8] == ["flow", "t_start", "t_end", "goodput_bps", "throughput_bps", "efficiency", "cwnd_bytes", "srtt_s"]
    assert iv.height > 0 and set(iv["flow"]) == {"slow", "fast"}
    # The report names the flows and compares with the closed form.
    assert "Theorem" in r.stdout and "slow" in r.stdout and "fast" in r.stdout


def test_run_draws_plots_only_with_plot(cli: CliRunner, tmp_path: Path) -> None:
    """`--plot` draws efficiency.png (same data files as without); a later run without it
    removes the earlier plot, which would no longer describe the directory's result."""
    r = cli("run", FIG2_3, "--out", tmp_path, *SHORT, "--plot")
    assert r.returncode == 0, r.stderr
    assert {p.name for p in tmp_path.iterdir()} == {"summary.json", "intervals.parquet", "efficiency.png"}
    assert (tmp_path / "efficiency.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert r.stdout.splitlines()[-1] == f"results in {tmp_path}/"
    r = cli("run", FIG2_3, "--out", tmp_path, *SHORT, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["scenario"]  # the hint goes with the report only
    assert {p.name for p in tmp_path.iterdir()} == {"summary.json", "intervals.parquet"}


def test_run_with_traces_writes_trace_files_and_plots(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = cli("run", FIG2_3, "--out", out, *SHORT, "--set", "metrics.trace=0.5s", "--quiet", "--plot")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and r.stderr == ""
    names = {p.name for p in out.iterdir()}
    assert {"cwnd_trace.parquet", "queue_trace.parquet", "cwnd.png", "queue.png"} <= names
    cw = pl.read_parquet(out / "cwnd_trace.parquet")
    assert cw.columns == ["flow", "t", "cwnd_bytes", "ssthresh_bytes", "in_flight_bytes", "pacing_rate_bps"]
    q = pl.read_parquet(out / "queue_trace.parquet")
    assert q.columns == ["link", "t", "packets", "bytes"]
    # Re-running without traces into the same directory removes the stale trace files.
    r = cli("run", FIG2_3, "--out", out, *SHORT, "--quiet", "--plot")
    assert r.returncode == 0, r.stderr
    assert {p.name for p in out.iterdir()} == {"summary.json", "intervals.parquet", "efficiency.png"}
    # With traces but without --plot: the trace files, no plot; the hint names the plots.
    r = cli("run", FIG2_3, "--out", out, *SHORT, "--set", "metrics.trace=0.5s")
    assert r.returncode == 0, r.stderr
    assert {p.name for p in out.iterdir()} == {"summary.json", "intervals.parquet", "cwnd_trace.parquet", "queue_trace.parquet"}
    assert r.stdout.splitlines()[-1] == "plots not drawn: add --plot for efficiency.png, cwnd.png, queue.png"


def test_plot_mbps_writes_goodput_png_and_a_later_run_removes_it(cli: CliRunner, tmp_path: Path) -> None:
    r = cli("run", FIG2_3, "--out", tmp_path, *SHORT, "--quiet", "--plot-mbps")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "goodput.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "efficiency.png").exists()
    r = cli("run", FIG2_3, "--out", tmp_path, *SHORT, "--quiet", "--plot")
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "goodput.png").exists()
    assert (tmp_path / "efficiency.png").exists()


def test_seed_option_is_recorded(cli: CliRunner, tmp_path: Path) -> None:
    r = cli("run", FIG2_3, "--out", tmp_path, *SHORT, "--seed", "42", "--quiet")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "summary.json").read_text())["seed"] == 42


def test_validate_ok(cli: CliRunner) -> None:
    r = cli("validate", FIG2_3)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"{FIG2_3}: ok"


def test_validate_reports_each_file(cli: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(FIG2_3.read_text().replace('rate = "100kbps"', 'rate = "100"'))
    r = cli("validate", FIG2_3, bad)
    assert r.returncode == 2
    assert r.stdout.strip() == f"{FIG2_3}: ok"
    assert r.stderr.strip() == f"error: {bad}: links.up.rate: '100' has no unit; write e.g. '100kbps', '5Mbps' or '2.4Gbps'"


def test_validate_with_overrides(cli: CliRunner) -> None:
    r = cli("validate", FIG2_3, "--set", "links.up.rate=-1kbps")
    assert r.returncode == 2
    assert r.stderr.strip() == f"error: {FIG2_3}: links.up.rate: '-1kbps' is negative"


def test_unwritable_out(cli: CliRunner, tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("")
    r = cli("run", FIG2_3, "--out", f, *SHORT, "--quiet")
    assert r.returncode == 1
    _assert_one_line_error(r.stderr, "is a file, not a directory")
    assert f.read_text() == ""


def test_out_is_checked_before_the_run(cli: CliRunner, tmp_path: Path) -> None:
    # A long run whose --out cannot hold results fails at once, not after simulating:
    # 10^4 simulated seconds would take minutes, the check milliseconds.
    f = tmp_path / "afile"
    f.write_text("hi")
    r = cli("run", FIG2_3, "--out", f, "--set", "duration=10000s", "--quiet")
    assert r.returncode == 1
    _assert_one_line_error(r.stderr, f"--out {f}: is a file, not a directory")
    sub = f / "below"  # a directory that cannot be made: its parent is a file
    r = cli("run", FIG2_3, "--out", sub, "--set", "duration=10000s", "--quiet")
    assert r.returncode == 1
    _assert_one_line_error(r.stderr, "cannot write")
    r = cli("reproduce", "kalampoukas97", "--out", f, "--quiet")
    assert r.returncode == 1
    _assert_one_line_error(r.stderr, "is a file, not a directory")


def test_schema(cli: CliRunner) -> None:
    r = cli("schema")
    assert r.returncode == 0
    schema = json.loads(r.stdout)
    assert {"duration", "nodes", "links", "flows"} <= schema["properties"].keys()


def test_version(cli: CliRunner) -> None:
    import tcplab

    r = cli("version")
    assert r.returncode == 0 and r.stdout.strip() == tcplab.__version__


# --- bad input: exit 2, one line on stderr naming the field, no traceback -------------------

BAD_SETS: list[tuple[str, list[str], str]] = [
    ("unknown field", ["links.up.rat=5Mbps"], "links.up.rat"),
    ("negative rate", ["links.up.rate=-5Mbps"], "links.up.rate"),
    ("unit-less rate", ["links.up.rate=100"], "links.up.rate"),
    ("unit-less rate string", ['links.up.rate="100"'], "links.up.rate"),
    ("unknown node", ["links.up.from=nowhere"], "links.up.from"),
    ("link to itself", ["links.up.to=slow"], "links.up"),
    ("unknown algorithm", ["flows.slow.cc=no_such_cc"], "flows.slow.cc.algorithm"),
    ("zero duration", ["duration=0s"], "duration"),
    ("malformed --set", ["duration"], "--set"),
    ("override through a value", ["duration.x=1"], "duration.x"),
    ("non-finite number", ["links.up.loss=nan"], "links.up.loss"),
    ("loss out of range", ["links.up.loss=1.5"], "links.up.loss"),
    ("loss and error", ["links.up.loss=0.1", 'links.up.error={model="bernoulli", p=0.1}'], "links.up.error"),
    ("unknown error model", ['links.up.error={model="gilbert", p=0.1}'], "links.up.error.model"),
    ("bad error probability", ['links.up.error={model="gilbert_elliott", p_gb=2, p_bg=0.5}'], "links.up.error.p_gb"),
    ("unknown outage schedule", ['links.up.error={model="outage", schedule="handoff"}'], "links.up.error.schedule"),
    ("outage without length", ['outages.h={type="periodic", period="5s"}'], "outages.h"),
]


def _assert_one_line_error(stderr: str, *needles: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    line = lines[0]
    assert line.startswith("error:"), line
    assert "Traceback" not in stderr and "panicked" not in stderr
    for n in needles:
        assert n in line, (n, line)
    return line


@pytest.mark.parametrize(("what", "sets", "field"), BAD_SETS, ids=[b[0] for b in BAD_SETS])
def test_run_bad_override(cli: CliRunner, tmp_path: Path, what: str, sets: list[str], field: str) -> None:
    args: list[str | Path] = ["run", FIG2_3, "--out", tmp_path / "out", *SHORT]
    for s in sets:
        args += ["--set", s]
    r = cli(*args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    line = _assert_one_line_error(r.stderr, f"{FIG2_3}: {field}: ")
    assert r.stdout == ""
    assert not (tmp_path / "out").exists()
    assert line.replace(f"{field}: ", "", 1).count("error:") == 1  # (a field may end in "error")


def test_run_missing_file(cli: CliRunner, tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    r = cli("run", missing, "--out", tmp_path / "out")
    assert r.returncode == 2
    _assert_one_line_error(r.stderr, str(missing), "no such file")


def test_run_toml_syntax_error(cli: CliRunner, tmp_path: Path) -> None:
    p = tmp_path / "broken.toml"
    p.write_text(FIG2_3.read_text().replace("[links.up]", "[links.up", 1))
    r = cli("run", p, "--out", tmp_path / "out")
    assert r.returncode == 2
    line = _assert_one_line_error(r.stderr, str(p), "TOML syntax error at line")
    lineno = next(i for i, t in enumerate(p.read_text().splitlines(), 1) if t.startswith("[links.up"))
    assert f"line {lineno}," in line


def test_run_unknown_field_in_file(cli: CliRunner, tmp_path: Path) -> None:
    p = tmp_path / "typo.toml"
    p.write_text(FIG2_3.read_text().replace('rate = "5Mbps"', 'rat = "5Mbps"'))
    r = cli("run", p, "--out", tmp_path / "out")
    assert r.returncode == 2
    _assert_one_line_error(r.stderr, f"error: {p}: links.down.rat: unknown field `rat`")


def test_validate_bad_files(cli: CliRunner, tmp_path: Path) -> None:
    p = tmp_path / "broken.toml"
    p.write_text("duration = \n")
    missing = tmp_path / "missing.toml"
    r = cli("validate", p, missing)
    assert r.returncode == 2
    lines = r.stderr.splitlines()
    assert len(lines) == 2 and all(ln.startswith("error:") for ln in lines)
    assert str(p) in lines[0] and "line 1" in lines[0]
    assert str(missing) in lines[1]
    assert "Traceback" not in r.stderr


def test_negative_seed_is_a_usage_error(cli: CliRunner, tmp_path: Path) -> None:
    r = cli("run", FIG2_3, "--out", tmp_path, "--seed", "-1")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_ctrl_c_stops_cleanly(tcplab_exe: Path, tmp_path: Path) -> None:
    """SIGINT during a long run: exit 130, "interrupted", no traceback, no partial results."""
    import signal
    import subprocess
    import time

    from tcplab import Scenario

    big = {
        "name": "long",
        "duration": "3600s",
        "nodes": {"a": "host", "b": "host"},
        "links": {
            "ab": {"from": "a", "to": "b", "rate": "1Gbps", "delay": "5ms", "queue": {"type": "droptail", "limit": 100}},
            "ba": {"from": "b", "to": "a", "rate": "1Gbps", "delay": "5ms"},
        },
        "flows": {"f": {"from": "a", "to": "b"}},
    }
    p = tmp_path / "long.toml"
    p.write_text(Scenario.from_dict(big).to_toml())
    proc = subprocess.Popen(
        [str(tcplab_exe), "run", str(p), "--out", str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # background jobs may inherit SIG_IGN
    )
    time.sleep(3.0)  # past the 2-s progress-bar threshold: the bar must be closed too
    assert proc.poll() is None, "the run finished before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == "interrupted"
    assert "Traceback" not in err and "panicked" not in err
    assert not (tmp_path / "out").exists()


def test_every_summary_key_is_documented(cli: CliRunner, tmp_path: Path) -> None:
    """docs/outputs.md names every key the core writes into summary.json."""
    from conftest import REPO

    r = cli("run", FIG2_3, "--out", tmp_path, *SHORT, "--set", "metrics.trace=1s", "--quiet")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "summary.json").read_text())
    doc = (REPO / "docs" / "outputs.md").read_text()
    keys = set(s) | set(s["run"]) | {k for f in s["flows"] for k in f} | {k for ln in s["links"] for k in ln}
    keys |= set(s["analysis"]) | set(s["analysis"]["params"]) | set(s["analysis"]["prediction"])
    keys |= {k for row in s["analysis"]["rows"] for k in row}
    undocumented = sorted(k for k in keys if f"`{k}`" not in doc)
    assert undocumented == [], f"add these summary.json keys to docs/outputs.md: {undocumented}"


def test_json_output_and_full_width_tables_when_piped(tcplab_exe: Path, tmp_path: Path) -> None:
    """`--json` prints summary.json (run) or the comparison records (reproduce) on stdout;
    piped tables are not squeezed into 80 columns (each flow's row stays on one line)."""
    import subprocess

    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([str(tcplab_exe), "run", str(root / "examples" / "parking_lot.toml"), "--out", str(tmp_path / "o"),
                        "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s == json.loads((tmp_path / "o" / "summary.json").read_text()) and "fairness" in s
    r = subprocess.run([str(tcplab_exe), "run", str(root / "examples" / "parking_lot.toml"), "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=300)
    lines = r.stdout.splitlines()
    for f in s["flows"]:
        row = [ln for ln in lines if ln.strip().startswith(f["name"] + " ")]
        assert row and row[0].count("b/s") >= 2, (f["name"], r.stdout)
    r = subprocess.run([str(tcplab_exe), "reproduce", "kalampoukas97", "--only", "fig6_5", "--out", str(tmp_path / "k"),
                        "--json"], capture_output=True, text=True, timeout=300)
    rows = json.loads(r.stdout)
    assert {x["figure"] for x in rows} == {"fig6_5"} and all("agrees" in x for x in rows)


def test_a_size_read_as_a_float_says_so(cli: CliRunner, tmp_path: Path) -> None:
    # Sizes take plain integers; 1e6 is a float in TOML, and the error names that cause
    # (it said "has no unit", which an integer would not need either).
    p = tmp_path / "float.toml"
    p.write_text(
        'duration = "1s"\n[nodes]\na = "host"\nb = "host"\n'
        '[links.ab]\nfrom = "a"\nto = "b"\nrate = "1Mbps"\ndelay = "1ms"\n'
        '[links.ba]\nfrom = "b"\nto = "a"\nrate = "1Mbps"\ndelay = "1ms"\n'
        '[flows.f]\nfrom = "a"\nto = "b"\nmax_window = 1e6\n'
    )
    r = cli("validate", p)
    assert r.returncode == 2
    line = _assert_one_line_error(r.stderr, "flows.f.max_window: '1000000' is a floating-point number")
    assert "write an integer" in line and "has no unit" not in line
    r = cli("validate", p, "--set", "flows.f.max_window=1000000")
    assert r.returncode == 0, r.stderr


def test_a_default_no_entry_takes_is_still_checked(cli: CliRunner) -> None:
    # Every flow of fig2_3 names its own cc: the default's is never used, and a mistake
    # in it was accepted (rc 0). Unused scalar defaults are checked as if a flow took them.
    r = cli("validate", FIG2_3, "--set", "defaults.flows.cc=nosuch")
    assert r.returncode == 2
    _assert_one_line_error(r.stderr, "defaults.flows.cc", "unknown algorithm 'nosuch'")
    r = cli("validate", FIG2_3, "--set", "defaults.links.delay=5")
    assert r.returncode == 2
    _assert_one_line_error(r.stderr, "defaults.links.delay", "has no unit")
    r = cli("validate", FIG2_3, "--set", "defaults.flows.cc=cubic")
    assert r.returncode == 0, r.stderr


def test_examples_writes_the_shipped_examples_and_refuses_to_overwrite(cli: CliRunner, tmp_path: Path) -> None:
    """A pip-installed user has no checkout: `tcplab examples DIR` writes what the docs run."""
    dest = tmp_path / "ex"
    r = cli("examples", dest)
    assert r.returncode == 0, r.stderr
    root = Path(__file__).resolve().parents[1] / "examples"
    shipped = {p.name for p in root.iterdir() if p.is_file() and not p.name.startswith((".", "__"))}
    assert {p.name for p in dest.iterdir()} == shipped
    assert (dest / "dumbbell.toml").read_bytes() == (root / "dumbbell.toml").read_bytes()
    (dest / "dumbbell.toml").write_text("# mine\n")
    r = cli("examples", dest)
    assert r.returncode == 1 and "already exist" in r.stderr and "nothing written" in r.stderr
    assert (dest / "dumbbell.toml").read_text() == "# mine\n"
    assert cli("examples", dest, "--force").returncode == 0
    assert (dest / "dumbbell.toml").read_bytes() == (root / "dumbbell.toml").read_bytes()


def test_seeds_runs_a_sweep_over_consecutive_seeds_with_intervals(cli: CliRunner, tmp_path: Path) -> None:
    """`tcplab run --seeds N`: one run folder per seed, seeds.parquet with mean and 95 %
    interval per flow and link, and the tables say over which seeds (issue 46: one run is one sample)."""
    out = tmp_path / "s"
    args = ("run", "examples/dumbbell.toml", "--out", out, "--seed", "7", "--seeds", "3", "--set", "duration=6s",
            "--set", "metrics.steady_start=3s", "--set", "defaults.flows.start_jitter=1s")
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    assert "mean ± 95 % interval over 3 seeds (7, 8, 9)" in r.stdout
    runs = sorted((out / "runs").glob("*/summary.json"))
    per_seed = [json.loads(p.read_text()) for p in runs]
    assert sorted(s["seed"] for s in per_seed) == [7, 8, 9]
    st = pl.read_parquet(out / "seeds.parquet")
    row = st.filter((pl.col("kind") == "flow") & (pl.col("name") == "f1") & (pl.col("metric") == "goodput_bps")).row(0, named=True)
    vals = [next(f["goodput_bps"] for f in s["flows"] if f["name"] == "f1") for s in per_seed]
    mean = sum(vals) / 3
    sd = (sum((v - mean) ** 2 for v in vals) / 2) ** 0.5
    assert row["n"] == 3 and row["mean"] == pytest.approx(mean) and row["std"] == pytest.approx(sd)
    assert row["ci95"] == pytest.approx(4.302653 * sd / 3**0.5, rel=1e-6)  # t(0.975, 2)
    assert row["min"] == min(vals) and row["max"] == max(vals)
    assert set(st.filter(pl.col("kind") == "link")["name"]) >= {"bn"}
    # The same command again finds every seed finished and gives the same table.
    again = cli(*args)
    assert again.returncode == 0 and pl.read_parquet(out / "seeds.parquet").equals(st)


def test_seeds_refuses_options_that_belong_to_one_run(cli: CliRunner, tmp_path: Path) -> None:
    r = cli("run", "examples/dumbbell.toml", "--out", tmp_path / "s", "--seeds", "3", "--plot")
    assert r.returncode == 2 and r.stderr.strip() == "error: --plot: not with --seeds (it applies to one run; run that seed alone)"
    assert not (tmp_path / "s").exists()


def test_a_one_seed_report_says_it_is_one_sample(cli: CliRunner, tmp_path: Path) -> None:
    r = cli("run", "examples/bbr.toml", "--out", tmp_path / "b", "--set", "duration=2s", "--set", "metrics.steady_start=1s")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "b" / "summary.json").read_text())
    said = "one sample: seed" in r.stdout
    assert said == bool(s["run"]["stochastic"]), (s["run"], r.stdout[-400:])

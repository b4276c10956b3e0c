"""What a new user trips on (issue 31, sections 1-3): warnings about defaults that today's
algorithms do not expect, BDP buffers for every queue, `run.stochastic` from the draws a
run made, goodput never above throughput, examples that take a shorter duration, and
error lines that name the field and suggest the close key."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

import tcplab
from conftest import REPO, CliRunner
from tcplab import _core

# The three-flow dumbbell of the issue (written from docs/coming-from-ns3.md).
THREE: dict[str, Any] = {
    "duration": "20s",
    "metrics": {"steady_start": "5s"},
    "dumbbell": {
        "bottleneck": {"rate": "50Mbps", "delay": "18ms", "buffer": "1bdp"},
        "access": {"rate": "500Mbps", "delay": "1ms"},
        "flows": ["cubic", "bbr", "newreno"],
    },
}


def _three(top: str | None = "classic", **defaults: Any) -> tcplab.Scenario:
    """THREE under the top-level profile ``top`` (``classic``: the old defaults the warnings
    are about; None: the file names none, so the default, linux) with ``defaults`` in
    ``[defaults.flows]``."""
    d = copy.deepcopy(THREE)
    if top is not None:
        d["profile"] = top
    if defaults:
        d["defaults"] = {"flows": defaults}
    return tcplab.Scenario.from_dict(d)


def _defaults_warnings(res: tcplab.Result) -> list[str]:
    return [w for w in res.warnings if "written for today's stacks" in w]


# ---- section 1: defaults ---------------------------------------------------------------


def _shares(sc: tcplab.Scenario) -> tuple[list[tuple[str, float]], list[str]]:
    """(cc, goodput / 50 Mb/s) per flow over 100 s of steady state, and the defaults warnings."""
    res = tcplab.run(sc.with_overrides({"duration": "120s", "metrics.steady_start": "20s"}), progress=False)
    flows = res.summary["flows"]
    assert len(flows) == 3
    return [(f["cc"], f["goodput_bps"] / 50e6) for f in flows], _defaults_warnings(res)


SETTINGS = [(d, b) for d in ("2ms", "18ms", "48ms") for b in ("0.5bdp", "1bdp", "3bdp")]


@pytest.mark.parametrize(("delay", "buffer"), SETTINGS)
@pytest.mark.parametrize("cc", ["cubic", "bbr", "newreno"])
def test_the_default_profile_shares_a_dumbbell_among_flows_of_one_algorithm(cc: str, delay: str, buffer: str) -> None:
    """No profile named (the default, linux): three flows of CUBIC, BBR or NewReno each
    get at least a sixth of the link, round trips 44-124 ms, buffers 0.5-3 BDP."""
    sc = _three(top=None).with_overrides(
        {"dumbbell.flows": [cc] * 3, "dumbbell.bottleneck.delay": delay, "dumbbell.bottleneck.buffer": buffer}
    )
    shares, warnings = _shares(sc)
    assert warnings == []
    assert all(share >= 1 / 6 for _, share in shares), shares


@pytest.mark.parametrize(("delay", "buffer"), SETTINGS)
def test_the_default_profile_does_not_starve_bbr_among_loss_based_flows(delay: str, buffer: str) -> None:
    """CUBIC, BBR and NewReno together: under ``classic`` BBR got about 1 % of the link
    (no SACK: one repair per round trip) and a warning says so; under the default BBR gets
    at least a sixth, and nothing warns. The loss-based flows' shares are not bounded here:
    BBR v1 takes most of a shallow buffer from them (docs/tcp.md, "Profiles")."""
    over = {"dumbbell.bottleneck.delay": delay, "dumbbell.bottleneck.buffer": buffer}
    shares, warnings = _shares(_three(top=None).with_overrides(over))
    assert warnings == []
    assert [cc for cc, _ in shares] == ["cubic", "bbr", "newreno"]
    assert shares[1][1] >= 1 / 6, shares
    assert len(_shares(_three().with_overrides(over))[1]) == 1


def test_sack_assuming_algorithms_on_the_old_defaults_warn_once_per_kind() -> None:
    res = tcplab.run(_three(), progress=False)
    w = _defaults_warnings(res)
    assert w == [
        "2 flow(s) of an algorithm written for today's stacks run without SACK, from an initial "
        "window of 1 segment (profile \"classic\": the papers' defaults): f1 (cubic), f2 (bbr); set "
        'profile = "linux" or "ns3" (on the flows or in [defaults.flows]), or sack = true, '
        "init_cwnd = 10; write sack = false / init_cwnd = 1 to keep it (docs/tcp.md#profiles)"
    ]
    # SACK alone leaves the initial window: one line of the other kind.
    w = _defaults_warnings(tcplab.run(_three(sack=True).with_overrides({"duration": "6s"}), progress=False))
    assert len(w) == 1 and w[0].startswith("2 flow(s) ") and "run from an initial window of 1 segment" in w[0]


@pytest.mark.parametrize(
    "defaults",
    [{"profile": "ns3"}, {"profile": "linux"}, {"sack": True, "init_cwnd": 10}, {"sack": False, "init_cwnd": 1}],
)
def test_a_written_value_or_a_profile_silences_it(defaults: dict[str, Any]) -> None:
    """Explicit is not the default: `sack = false` written on purpose acknowledges it."""
    res = tcplab.run(_three(**defaults).with_overrides({"duration": "6s"}), progress=False)
    assert _defaults_warnings(res) == []


def test_many_flows_give_one_line_with_a_count() -> None:
    d = copy.deepcopy(THREE)
    d["profile"] = "classic"
    d["duration"] = "2s"
    d["metrics"] = {"steady_start": "1s"}
    d["dumbbell"]["flows"] = [{"cc": "cubic", "count": 12}]
    res = tcplab.run(tcplab.Scenario.from_dict(d), progress=False)
    (w,) = _defaults_warnings(res)
    assert w.startswith("12 flow(s) ") and "f01 (cubic), f02 (cubic), f03 (cubic), f04 (cubic), f05 (cubic), and 7 more;" in w


def test_the_ns3_guide_first_example_shares_fairly() -> None:
    """docs/coming-from-ns3.md's first example (examples/ns3_dumbbell.toml): every flow
    within a factor 2 of its fair share, and no warning about defaults."""
    doc = (REPO / "docs" / "coming-from-ns3.md").read_text()
    first = re.search(r"```toml\n(.*?)```", doc, flags=re.S)
    assert first is not None and 'profile = "ns3"' in first.group(1)
    assert first.group(1) in (REPO / "examples" / "ns3_dumbbell.toml").read_text()
    sc = tcplab.Scenario.from_toml(REPO / "examples" / "ns3_dumbbell.toml")
    res = tcplab.run(sc, progress=False)
    assert _defaults_warnings(res) == []
    # Congestion control acts: no flow sits at its window cap (the warning is absent) and
    # every flow sees losses (with ns-3's 128-KiB buffers none did, issue 46).
    assert not [w for w in res.summary["warnings"] if "max_window" in w], res.summary["warnings"]
    fair = 50e6 / 3
    assert len(res.summary["flows"]) == 3
    for f in res.summary["flows"]:
        assert fair / 2 < f["goodput_bps"] < 2 * fair, f
        assert f["fast_retransmits"] + f["timeouts"] > 0, f


def test_a_window_capped_by_its_profile_warns() -> None:
    """ns-3's 128-KiB buffers on the guide's dumbbell: every flow's window sits at it, no
    packet is lost, and the run says that the receive window set the rates; a max_window
    written by the user is taken as meant."""
    sc = tcplab.Scenario.from_toml(REPO / "examples" / "ns3_dumbbell.toml")
    capped = sc.with_overrides({"defaults.flows": {"profile": "ns3"}, "duration": "15s", "metrics.steady_start": "5s"})
    res = tcplab.run(capped, progress=False)
    (w,) = [w for w in res.summary["warnings"] if "max_window" in w]
    assert w.startswith("3 TCP flow(s) had their window at the max_window their profile sets")
    assert "'f1' (131072 B, 100 %)" in w
    written = capped.with_overrides({"defaults.flows.max_window": "128KiB"})
    res = tcplab.run(written, progress=False)
    assert not [w for w in res.summary["warnings"] if "max_window" in w]


# ---- section 2: bugs -------------------------------------------------------------------


@pytest.mark.parametrize("queue", ["droptail", "codel", "fq_codel", "pie", "red"])
def test_bdp_buffer_with_every_queue(queue: str) -> None:
    q: dict[str, Any] = {"type": queue}
    if queue == "red":
        q |= {"min_th": 5, "max_th": 15}
    sc = _three(profile="ns3").with_overrides({"duration": "3s", "metrics.steady_start": "1s", "dumbbell.bottleneck.queue": q})
    plain = sc.expand().to_dict()["links"]["bn"]["queue"]
    if queue == "fq_codel":
        assert plain["memory_limit"] == "250000B" and "limit" not in plain
    else:
        assert plain["limit"] == "250000B"
    res = tcplab.run(sc, progress=False)
    assert next(ln for ln in res.summary["links"] if ln["name"] == "bn")["queue"] == queue


def _stochastic(sc: tcplab.Scenario, seed: int = 1) -> bool:
    return bool(tcplab.run(sc, seed=seed, progress=False).summary["run"]["stochastic"])


def test_stochastic_follows_the_draws() -> None:
    """BBR draws its gain-cycle phase: the seeds differ, and `stochastic` says so; a run
    whose RED queue never reaches min_th draws nothing."""
    bbr = _three(sack=True, init_cwnd=10).with_overrides({"duration": "6s", "metrics.steady_start": "2s"})
    a = tcplab.run(bbr, seed=1, progress=False).summary
    b = tcplab.run(bbr, seed=2, progress=False).summary
    assert a["run"]["stochastic"] and b["run"]["stochastic"]
    assert [f["goodput_bps"] for f in a["flows"]] != [f["goodput_bps"] for f in b["flows"]]
    newreno = {
        "duration": "3s",
        "nodes": {"a": "host", "b": "host"},
        "links": {
            "ab": {"from": "a", "to": "b", "rate": "10Mbps", "delay": "5ms",
                   "queue": {"type": "red", "min_th": 500, "max_th": 900, "limit": 1000}},
            "ba": {"from": "b", "to": "a", "rate": "10Mbps", "delay": "5ms"},
        },
        "flows": {"f": {"from": "a", "to": "b", "max_window": "20KB"}},
    }  # fmt: skip
    assert not _stochastic(tcplab.Scenario.from_dict(newreno)), "RED below min_th draws nothing"
    newreno["links"]["ab"]["queue"] = {"type": "red", "min_th": 1, "max_th": 3, "limit": 1000}
    assert _stochastic(tcplab.Scenario.from_dict(newreno)), "RED above min_th draws"


def test_goodput_never_above_throughput_or_capacity() -> None:
    """Data held out of order at the window's start and delivered in it is not the window's
    goodput (it was counted above throughput, the issue's FQ-CoDel BBR case)."""
    sc = _three().with_overrides({"dumbbell.bottleneck.queue": {"type": "fq_codel"}})
    s = tcplab.run(sc, seed=1, progress=False).summary
    carried = 0
    for f in s["flows"]:
        assert f["goodput_bps"] <= f["throughput_bps"], f["name"]
        assert f["goodput_bps"] <= 50e6
        carried += f["steady_carried_bytes"]
    assert carried > 0, "the case needs data held at the window's start"
    assert sum(f["goodput_bps"] for f in s["flows"]) <= 50e6


def test_modern_aqm_prints_goodput_and_warnings() -> None:
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, str(REPO / "examples" / "modern_aqm.py"), "--duration", "8s"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "goodput Mb/s" in r.stdout.splitlines()[0]
    assert "throughput" not in r.stdout


def test_example_comments_name_the_out_they_need() -> None:
    examples = sorted((REPO / "examples").glob("*.toml"))
    assert len(examples) >= 20
    for p in examples:
        for line in p.read_text().splitlines():
            if line.startswith("#") and "tcplab run " in line:
                assert "--out" in line, f"{p.name}: {line}"


SCENARIO_EXAMPLES = sorted(p for p in (REPO / "examples").glob("*.toml") if p.name != "sweep_fig23.toml")


def test_there_are_scenario_examples() -> None:
    """The parametrized test below would be skipped, not failed, on an empty glob."""
    assert len(SCENARIO_EXAMPLES) >= 20 and (REPO / "examples" / "dumbbell.toml") in SCENARIO_EXAMPLES


@pytest.mark.parametrize("example", SCENARIO_EXAMPLES, ids=lambda p: p.name)
def test_examples_take_duration_5s(example: Path) -> None:
    """Every example runs with `--set duration=5s`, plus at most the one key the error line
    names (as `--set KEY=VALUE`); then it runs briefly (the first 0.3 simulated seconds)."""
    sc = tcplab.Scenario.from_toml(example)
    over = {"duration": "5s"}
    try:
        sc.with_overrides(over).validate()
    except tcplab.ScenarioError as e:
        m = re.search(r"--set ([\w.]+)=(\S+)", e.reason)
        assert m, f"{example.name}: {e.field}: {e.reason}"
        over[m[1]] = m[2]
        sc.with_overrides(over).validate()
    sim = _core.Simulation(sc.with_overrides(over).to_json(), None)
    sim.advance(0.3)
    assert sim.events > 0


def test_steady_start_error_says_the_fix(cli: CliRunner) -> None:
    r = cli("validate", REPO / "examples" / "dumbbell.toml", "--set", "duration=5s")
    assert r.returncode == 2
    assert r.stderr.strip() == (
        f"error: {REPO / 'examples' / 'dumbbell.toml'}: metrics.steady_start: 10s is not before the end of "
        "the run (duration 5s): set it below the duration too, e.g. --set metrics.steady_start=2.5s"
    )
    r = cli("validate", REPO / "examples" / "dumbbell.toml", "--set", "duration=5s", "--set", "metrics.steady_start=2.5s")
    assert r.returncode == 0, r.stderr


# ---- section 3: errors that are almost right -------------------------------------------


def _error(cli: CliRunner, tmp_path: Path, text: str) -> str:
    p = tmp_path / "s.toml"
    p.write_text(text)
    r = cli("validate", p)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0].removeprefix(f"error: {p}: ")


TWO = '[nodes]\na = "host"\nb = "host"\n'


def test_top_level_typo_lists_the_builders(cli: CliRunner, tmp_path: Path) -> None:
    e = _error(cli, tmp_path, 'duration = "2s"\n[dumbell]\npairs = 1\n')
    assert e == (
        "dumbell: unknown field `dumbell` (did you mean `dumbbell`?); known: name, description, duration, "
        "seed, profile, threads, nodes, links, flows, schedules, workloads, metrics, analysis, outages, agents, routing, dumbbell, "
        "parking_lot, fat_tree, defaults"
    )


def test_buffer_on_a_plain_link_points_to_queue_limit(cli: CliRunner, tmp_path: Path) -> None:
    e = _error(cli, tmp_path, f'duration = "2s"\n{TWO}[links.ab]\nfrom = "a"\nto = "b"\nrate = "1Mbps"\nbuffer = 100\n')
    assert e.startswith("links.ab.buffer: unknown field `buffer` (a link's buffer is its queue's `limit`: queue = { limit = 100 }")
    assert e.endswith("known: from, to, rate, delay, queue, loss, error, backpressure, pcap, duplex, reverse_rate, reverse")


def test_bdp_limit_says_where_bdp_is_accepted(cli: CliRunner, tmp_path: Path) -> None:
    link = f'duration = "2s"\n{TWO}[links.ab]\nfrom = "a"\nto = "b"\nrate = "1Mbps"\n'
    bdp = (
        "'1.5bdp': BDP sizes are accepted only as a topology builder's `buffer` (dumbbell.bottleneck.buffer, "
        "parking_lot.link.buffer, fat_tree.link.buffer), which knows the round trip; a queue's `limit` takes "
        'packets (100) or bytes ("150KB")'
    )
    # Without `type`: the BDP first, and the missing type in the same line.
    e = _error(cli, tmp_path, link + 'queue = { limit = "1.5bdp" }\n')
    assert e.startswith(f"links.ab.queue.limit: {bdp}; the table also needs `type` (one of: droptail,")
    e = _error(cli, tmp_path, link + 'queue = { type = "red", limit = "1.5bdp" }\n')
    assert e == f"links.ab.queue.limit: {bdp}"


def test_misspelt_rate_is_named_not_missing(cli: CliRunner, tmp_path: Path) -> None:
    e = _error(cli, tmp_path, f'duration = "2s"\n{TWO}[links.ab]\nfrom = "a"\nto = "b"\nrat = "1Mbps"\n')
    assert e.startswith("links.ab.rat: unknown field `rat` (did you mean `rate`?); known: from, to, rate,")
    db = 'duration = "2s"\n[dumbbell]\npairs = 1\nbottleneck = { rat = "5Mbps" }\naccess = { rate = "50Mbps" }\n'
    assert _error(cli, tmp_path, db) == "dumbbell.bottleneck.rat: unknown field `rat` (did you mean `rate`?)"
    # A variant's own parameters suggest too.
    e = _error(cli, tmp_path, f'duration = "2s"\n{TWO}[flows.f]\nfrom = "a"\nto = "b"\ncc = {{ algorithm = "cubic", bta = 0.5 }}\n')
    assert e.startswith("flows.f.cc.bta: 'bta' is not a parameter of 'cubic' (did you mean `beta`? its parameters:")


def test_too_long_says_the_limit(cli: CliRunner, tmp_path: Path) -> None:
    e = _error(cli, tmp_path, f'duration = "1000000000s"\n{TWO}')
    assert e == "duration: '1000000000s' is too long: durations must be below 2^63 ps (9223372s, about 106 days)"


def test_help_keeps_brackets_and_no_placeholders(cli: CliRunner) -> None:
    r = cli("expand", "--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    assert "duplex links and [defaults] replaced by" in text
    assert "{scenario}" not in r.stdout and "<bool>" not in r.stdout
    assert "Usage: tcplab expand [OPTIONS] SCENARIO" in text
    r = cli("run", "--help")
    assert "--set KEY=VALUE" in " ".join(r.stdout.split()) and "<bool>" not in r.stdout


def test_warnings_reach_the_cli(cli: CliRunner, tmp_path: Path) -> None:
    p = tmp_path / "three.toml"
    d = copy.deepcopy(THREE)
    d["profile"] = "classic"
    d["duration"] = "3s"
    d["metrics"] = {"steady_start": "1s"}
    p.write_text(tcplab.Scenario.from_dict(d).to_toml())
    r = cli("run", p, "--out", tmp_path / "o", "-q")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert any("written for today's stacks" in w for w in s["warnings"])


def test_commands_that_never_draw_do_not_import_matplotlib() -> None:
    """Issue 31 §5: matplotlib (about 1 s to import) loads only where a figure is made, so
    `tcplab list`, `validate` and `expand` do not pay for it."""
    import subprocess
    import sys

    code = (
        "import sys, tcplab, tcplab.cli, tcplab.repro.reproduce, tcplab.repro.claims, tcplab.reporting.plots\n"
        "from tcplab.repro.reproduce import _load, paper_dir, papers\n"
        "[_load(paper_dir(p)) for p in papers()]\n"
        "print('matplotlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"

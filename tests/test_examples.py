"""The examples run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, CliRunner


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


def test_python_guide_snippets_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ```python blocks of docs/python.md run, in order, in one namespace."""
    text = (REPO / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 3
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    monkeypatch.chdir(tmp_path)
    ns: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, "docs/python.md", "exec"), ns)  # noqa: S102
    assert (tmp_path / "out" / "fig2_3_short" / "efficiency.png").exists()
    assert ns["again"] == ns["res"]


def test_handoff_example_counts_shared_outages(tmp_path: Path) -> None:
    """examples/handoff.toml: one shared handoff schedule on four link directions."""
    import tcplab

    sc = tcplab.Scenario.from_toml(REPO / "examples" / "handoff.toml")
    res = tcplab.run(sc)
    links = {ln["name"]: ln for ln in res.summary["links"]}
    wireless = ["rw1", "w1r", "rw2", "w2r"]
    # Handoffs start at 5, 10, ..., 25 s in a 30 s run; all four directions share them.
    assert {links[n]["outages"] for n in wireless} == {5}
    assert len({links[n]["down_s"] for n in wireless}) == 1
    assert 0 < links["rw1"]["down_s"] <= 25
    assert links["rw1"]["lost"] > 0 and links["sr"]["error_model"] == "gilbert_elliott"
    assert "outages" not in links["rs"]
    # The links table has the added columns (null where absent).
    df = res.links
    assert {"error_model", "outages", "down_s"} <= set(df.columns)
    assert df.filter(df["name"] == "rs")["outages"].to_list() == [None]


@pytest.mark.parametrize(("example", "bottlenecks"), [("dumbbell.toml", ["bn"]), ("parking_lot.toml", ["h1", "h2", "h3"])])
def test_builder_examples_run(cli: CliRunner, tmp_path: Path, example: str, bottlenecks: list[str]) -> None:
    """examples/dumbbell.toml (4 flows, mixed cc) and examples/parking_lot.toml run as written."""
    import json

    r = cli("run", REPO / "examples" / example, "--out", tmp_path, "-q")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "summary.json").read_text())
    assert len(s["flows"]) == 4
    assert all(f["goodput_bps"] > 0 for f in s["flows"])
    links = {ln["name"]: ln for ln in s["links"]}
    # Greedy flows keep every bottleneck busy; the access links are 10x faster.
    assert all(links[b]["utilization"] > 0.8 for b in bottlenecks)
    assert all(links[n]["utilization"] < 0.2 for n in links if n[0] in "sd" and not n.endswith("_rev"))


def test_sack_example_beats_newreno_after_overshoot(cli: CliRunner, tmp_path: Path) -> None:
    """examples/sack_dumbbell.toml: SACK keeps the bottleneck busy, NewReno (the same run
    with `--set defaults.flows.sack=false`) does not, after the slow-start overshoot."""
    import json

    util = {}
    for sack in ("true", "false"):
        out = tmp_path / sack
        r = cli("run", REPO / "examples" / "sack_dumbbell.toml", "--out", out, "-q", "--set", f"defaults.flows.sack={sack}")
        assert r.returncode == 0, r.stderr
        s = json.loads((out / "summary.json").read_text())
        util[sack] = {ln["name"]: ln for ln in s["links"]}["bn"]["steady_utilization"]
        assert all(f["timeouts"] == 0 for f in s["flows"]), s["flows"]
    assert util["true"] > 0.95, util
    assert util["false"] < 0.5, util


def test_xcp_example_converges_to_equal_shares() -> None:
    """examples/xcp.toml: RTTs 20-200 ms get equal shares of an XCP bottleneck, queue near empty."""
    import tcplab

    res = tcplab.run(tcplab.Scenario.from_toml(REPO / "examples" / "xcp.toml"))
    s = res.summary
    goodput = [f["goodput_bps"] for f in s["flows"]]
    assert len(goodput) == 5 and all(f["cc"] == "xcp" for f in s["flows"])
    assert max(goodput) / min(goodput) < 1.15, goodput
    bn = next(ln for ln in s["links"] if ln["name"] == "bn")
    assert bn["queue"] == "xcp" and bn["steady_utilization"] >= 0.95
    assert bn["steady_max_queue"] <= 25 and bn["steady_drop_rate"] == 0.0


def test_snoop_example_beats_plain_newreno() -> None:
    """examples/snoop.toml: the same lossy wireless hop with and without a Snoop agent."""
    import tcplab

    res = tcplab.run(tcplab.Scenario.from_toml(REPO / "examples" / "snoop.toml").with_overrides({"duration": "30s"}))
    flows = {f["name"]: f for f in res.summary["flows"]}
    assert flows["snoop"]["goodput_bps"] > 1.5 * flows["plain"]["goodput_bps"]
    a = res.summary["agents"]["bs2_snoop"]
    assert a["type"] == "snoop" and a["local_retransmits"] > 0 and a["suppressed_dupacks"] > 0


def test_bbr_example_fills_the_link_with_a_short_queue() -> None:
    """examples/bbr.toml: one paced BBR flow keeps the 100 Mb/s link busy with a queue of a
    few ms, where CUBIC (the same run with `cc = "cubic"`) fills the one-BDP buffer."""
    import tcplab

    sc = tcplab.Scenario.from_toml(REPO / "examples" / "bbr.toml").with_overrides({"duration": "10s"})
    res = tcplab.run(sc)
    bn = {ln["name"]: ln for ln in res.summary["links"]}["bn"]
    assert bn["steady_utilization"] > 0.95, bn
    fl = res.summary["flows"][0]
    q_bbr = fl["mean_rtt_s"] - fl["min_rtt_s"]
    assert q_bbr < 0.01, fl
    cw = res.traces["cwnd"]
    assert {"pacing_rate_bps", "cc_bbr_mode", "cc_bbr_bw_bps", "cc_bbr_min_rtt_s"} <= set(cw.columns)
    # Startup, drain, then the gain cycle: the mode column goes 0 → 1 → 2.
    modes = cw["cc_bbr_mode"].to_list()
    assert modes[0] == 0 and 2 in modes and modes.index(2) > modes.index(1)
    # Paced at gain × BW × 0.99: in PROBE_BW with gain 1 the rate sits just below BW.
    late = cw.filter((cw["t"] > 6) & (cw["cc_bbr_mode"] == 2))
    ratio = (late["pacing_rate_bps"] / late["cc_bbr_bw_bps"]).to_list()
    assert min(ratio) >= 0.74 and max(ratio) <= 1.25, (min(ratio), max(ratio))
    cubic = tcplab.run(sc.with_overrides({"dumbbell.flows": [{"count": 1, "cc": "cubic"}]}))
    fc = cubic.summary["flows"][0]
    assert fc["mean_rtt_s"] - fc["min_rtt_s"] > 2 * q_bbr
    assert cubic.traces["cwnd"]["pacing_rate_bps"].is_nan().all()


def test_pacing_key_is_validated(cli: CliRunner, tmp_path: Path) -> None:
    """flows.NAME.pacing: "off", "cc", "linux" or a rate; anything else names the field."""
    r = cli("validate", REPO / "examples" / "bbr.toml", "--set", 'defaults.flows.pacing="soon"')
    assert r.returncode != 0
    assert "pacing" in r.stderr and "50Mbps" in r.stderr, r.stderr
    r = cli("validate", REPO / "examples" / "bbr.toml", "--set", 'defaults.flows.pacing="40Mbps"')
    assert r.returncode == 0, r.stderr


def test_latency_under_load_probe_and_delay_plot(cli: CliRunner, tmp_path: Path) -> None:
    """examples/latency_under_load.toml (issue 31 §4): a ping-like probe (UDP, echo = true)
    beside two CUBIC flows. Behind the 2-BDP drop-tail buffer its round trips are far above
    the 40 ms base; FQ-CoDel keeps them near it. `tcplab run --plot` draws delay.png, and
    probes.parquet reads back equal."""
    import tcplab
    from tcplab.reporting.plots import plot_delay

    base = tcplab.Scenario.from_toml(REPO / "examples" / "latency_under_load.toml").with_overrides({"duration": "12s"})
    medians = {}
    for q in ("droptail", "fq_codel"):
        res = tcplab.run(base.with_overrides({"dumbbell.bottleneck.queue": {"type": q}}), progress=False)
        pr = res.probes
        ping = next(f for f in res.summary["flows"] if f["name"] == "ping")
        assert pr.columns == ["flow", "t", "seq", "rtt_s", "forward_s"]
        assert pr.height == ping["echo_replies"] > 1000 and set(pr["flow"]) == {"ping"}
        assert pr["rtt_s"].min() >= 0.040 and (pr["forward_s"] < pr["rtt_s"]).all()
        steady = pr.filter(pr["t"] >= 5.0)
        assert abs(steady["rtt_s"].mean() - ping["mean_rtt_s"]) < 1e-9
        medians[q] = steady["rtt_s"].median()
        fig = plot_delay(res, tmp_path / f"{q}.png")
        cdf, box = fig.axes
        assert len(cdf.get_lines()) == 1 and "ping (median" in cdf.get_legend().get_texts()[0].get_text()
    assert medians["droptail"] > 0.08 and medians["fq_codel"] < 0.045, medians
    # The CLI: the plot only with --plot, and the probe table on disk.
    out = tmp_path / "cli"
    r = cli("run", REPO / "examples" / "latency_under_load.toml", "--out", out, "--set", "duration=8s", "--plot")
    assert r.returncode == 0, r.stderr
    assert (out / "delay.png").exists() and (out / "probes.parquet").exists()
    again = tcplab.load(out)
    assert again.probes.equals(tcplab.run(base.with_overrides({"duration": "8s"}), progress=False).probes)
    with pytest.raises(ValueError, match="echo = true"):
        plot_delay(tcplab.run(REPO / "examples" / "dumbbell.toml", progress=False), tmp_path / "none.png")


def test_playback_example() -> None:
    """examples/playback.toml: the slow reader's window holds its bulk flow to read/interval
    (50 kB/s = 400 kb/s, every read full, probes through the closed window); the 1 Mb/s
    video flow with both buffers is read in full and never blocks its writer for long."""
    import tcplab

    res = tcplab.run(tcplab.Scenario.from_toml(REPO / "examples" / "playback.toml"))
    flows = {f["name"]: f for f in res.summary["flows"]}
    slow, video = flows["slow"], flows["video"]
    assert slow["goodput_bps"] == pytest.approx(400_000, rel=0.01)
    assert slow["playback_reads"] == 30 and slow["playback_read_bytes"] == 30 * 50_000
    assert slow["window_probes"] > 0 and slow["timeouts"] == 0
    assert video["goodput_bps"] == pytest.approx(1_000_000, rel=0.01)
    assert video["playback_read_bytes"] >= 30 * 125_000 - 2 * 1000
    assert video["send_buffer_waiting_bytes"] == 0


def test_ns2_red_example_applies_one_profile_to_flows_and_queues() -> None:
    """examples/ns2_red.toml: the top-level `profile = "ns2"` reaches the flows and the RED
    bottleneck (ns-2's Queue/RED defaults: early drops, no marks), and a queue key written
    with its built-in default value still wins over the profile."""
    import tcplab

    sc = tcplab.Scenario.from_toml(REPO / "examples" / "ns2_red.toml")
    plain = sc.expand().to_dict()
    q = plain["links"]["bn"]["queue"]
    assert (q["min_waiting"], q["restart_count"], q["gentle"], q["ecn"]) == (2, True, True, False)
    flows = plain["flows"]
    assert flows and all(f["syn"] and f["mss"] == 1000 for f in flows.values())
    own = sc.with_overrides({"links.bn.queue.min_waiting": 0}).expand().to_dict()
    assert own["links"]["bn"]["queue"]["min_waiting"] == 0
    res = tcplab.run(sc.with_overrides({"duration": "10s"}))
    bn = {ln["name"]: ln for ln in res.summary["links"]}["bn"]
    assert bn["queue"] == "red" and bn["drops_early"] > 0 and bn["marks"] == 0, bn

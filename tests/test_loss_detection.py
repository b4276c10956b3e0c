"""RACK-TLP, F-RTO, D-SACK undo and profiles: the flow keys, their errors, the example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tcplab
from conftest import REPO, CliRunner
from tcplab import Scenario, ScenarioError

SACK_DUMBBELL = REPO / "examples" / "sack_dumbbell.toml"
PROFILES = REPO / "examples" / "profiles.toml"
FIG2_3 = REPO / "scenarios" / "kalampoukas97" / "fig2_3.toml"


def _error(overrides: dict[str, object]) -> tuple[str, str]:
    with pytest.raises(ScenarioError) as ei:
        Scenario.from_toml(SACK_DUMBBELL).with_overrides(overrides).validate()
    return ei.value.args[1], ei.value.args[2]


@pytest.mark.parametrize(
    ("overrides", "field", "words"),
    [
        ({"defaults.flows.sack": False, "flows.f1.loss_detection": "rack"}, "flows.f1.loss_detection", "sack = true"),
        ({"flows.f2.loss_detection": "tahoe"}, "flows.f2.loss_detection", "rack"),
        ({"flows.f1.tlp": False}, "flows.f1.tlp", "loss_detection"),
        ({"defaults.flows.sack": False, "flows.f3.dsack_undo": True}, "flows.f3.dsack_undo", "sack = true"),
        ({"flows.f1.loss_detection": "rack", "flows.f1.nextseg_rule3": True}, "flows.f1.nextseg_rule3", "RACK"),
        ({"flows.f4.profile": "bsd"}, "flows.f4.profile", "linux, ns3, rfc"),
        ({"defaults.flows.profile": "freebsd"}, "defaults.flows.profile", "unknown profile"),
    ],
)  # fmt: skip
def test_bad_keys_name_the_field(overrides: dict[str, object], field: str, words: str) -> None:
    f, reason = _error(overrides)
    assert f == field, (f, reason)
    assert words in reason, reason


def test_rack_keeps_the_bottleneck_busy_and_is_deterministic() -> None:
    """sack_dumbbell with RACK-TLP: every flow recovers from the slow-start overshoot
    without a timeout, like RFC 6675's duplicate-ack detection, and runs are identical."""
    sc = Scenario.from_toml(SACK_DUMBBELL).with_overrides(
        {"duration": "6s", "defaults.flows.loss_detection": "rack"}
    )
    a = tcplab.run(sc)
    b = tcplab.run(sc)
    assert a.summary["flows"] == b.summary["flows"]
    bn = {ln["name"]: ln for ln in a.summary["links"]}["bn"]
    assert bn["steady_utilization"] > 0.95, bn
    assert all(f["timeouts"] == 0 and f["retransmits"] > 0 for f in a.summary["flows"])


def test_frto_undoes_seed000_spurious_timeouts() -> None:
    """Seed 000's two-way link at 200 kb/s up, 10 Mb/s down: the fast connection's early
    timeouts are spurious. Without F-RTO go-back-N resends its window and it regrows for
    minutes; with F-RTO both are undone and it reaches its 52-segment window in seconds."""
    base = Scenario.from_toml(FIG2_3).with_overrides(
        {
            "links.up.rate": "200kbps",
            "links.down.rate": "10Mbps",
            "flows.fast.max_window": 52 * 1460,
            "flows.slow.max_window": 88 * 1460,
            "duration": "120s",
            "metrics.steady_start": "60s",
        }
    )
    plain = {f["name"]: f for f in tcplab.run(base).summary["flows"]}["fast"]
    frto = {f["name"]: f for f in tcplab.run(base.with_overrides({"flows.fast.frto": True})).summary["flows"]}["fast"]
    assert plain["timeouts"] >= 1 and plain["frto_spurious"] == 0
    assert plain["max_window_reached_s"] is None or plain["max_window_reached_s"] > 60
    assert frto["frto_spurious"] == frto["timeouts"] >= 1
    assert frto["retransmits"] < plain["retransmits"]
    assert frto["max_window_reached_s"] < 20


def test_profiles_example_expands_and_runs(cli: CliRunner, tmp_path: Path) -> None:
    r = cli("expand", PROFILES)
    assert r.returncode == 0, r.stderr
    text = r.stdout
    assert "profile" not in text.split("[flows.f1]")[1]
    f1 = text.split("[flows.f1]")[1].split("[flows.f2]")[0]
    assert 'loss_detection = "rack"' in f1 and "frto = true" in f1 and 'rto_min = "200ms"' in f1
    f2 = text.split("[flows.f2]")[1].split("[flows.f3]")[0]
    assert "mss = 536" in f2 and 'rto_min = "1s"' in f2
    out = tmp_path / "out"
    r = cli("run", PROFILES, "--out", out, "-q", "--set", "duration=8s", "--set", "metrics.steady_start=3s")
    assert r.returncode == 0, r.stderr
    flows = {f["name"]: f for f in json.loads((out / "summary.json").read_text())["flows"]}
    assert flows["f1"]["cc"] == "cubic" and flows["f3"]["cc"] == "newreno"
    # ns-3's 128 KiB buffers cap its window below the others' share.
    assert flows["f2"]["goodput_bps"] < flows["f1"]["goodput_bps"]
    for k in ("tlp_probes", "frto_spurious", "dsack_undos"):
        assert all(k in f for f in flows.values())

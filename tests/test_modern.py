"""Today's algorithms from Python and the CLI: CUBIC, DCTCP, CoDel, FQ-CoDel, PIE."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import tcplab
from conftest import REPO, CliRunner
from tcplab import Scenario
from test_aqm import _two_hosts


@pytest.mark.parametrize(
    ("queue", "flow", "field", "says"),
    [
        ({"type": "codel", "interval": "2ms"}, {}, "links.ab.queue.interval", "longer than target"),
        ({"type": "codel", "target": "5"}, {}, "links.ab.queue.target", "no unit"),
        ({"type": "fq_codel", "flows": 0}, {}, "links.ab.queue.flows", "1..=65536"),
        ({"type": "fq_codel", "quantum": 0}, {}, "links.ab.queue.quantum", "positive"),
        ({"type": "pie", "alpha": -1}, {}, "links.ab.queue.alpha", "non-negative"),
        ({"type": "pie", "gamma": 1}, {}, "links.ab.queue.gamma", "not a parameter of 'pie'"),
        ({"type": "droptail"}, {"cc": {"algorithm": "cubic", "beta": 1.2}}, "flows.f.cc.beta", "(0, 1)"),
        ({"type": "droptail"}, {"cc": {"algorithm": "cubic", "hystart": "yes"}}, "flows.f.cc.hystart", ""),
        ({"type": "droptail"}, {"cc": "dctcp"}, "flows.f.ecn", "needs ecn = true"),
        ({"type": "droptail"}, {"cc": {"algorithm": "dctcp", "g": 2}, "ecn": True}, "flows.f.cc.g", "(0, 1]"),
        ({"type": "droptail"}, {"cc": {"algorithm": "highspeed", "b_floor": "zero"}}, "flows.f.cc.b_floor", "a_peak"),
        ({"type": "droptail"}, {"cc": {"algorithm": "highspeed", "b_floor": 0.5}}, "flows.f.cc.b_floor", "(0, high_decrease = 0.1]"),
    ],
)  # fmt: skip
def test_bad_parameters_name_the_leaf(queue: dict[str, Any], flow: dict[str, Any], field: str, says: str) -> None:
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(Scenario.from_dict(_two_hosts(queue, flow, "1s")), progress=False)
    assert e.value.field == field, str(e.value)
    assert says in e.value.reason


@pytest.mark.parametrize("queue", ["codel", "fq_codel", "pie"])
def test_aqms_cut_the_standing_queue_of_a_cubic_flow(queue: str) -> None:
    """Against a 1000-packet drop-tail buffer, every AQM keeps the queueing delay small."""
    # With SACK, as these AQMs are used today. Without it, single-queue CoDel's drops during a
    # NewReno recovery add holes repaired one per round trip, ending in timeouts (measured on
    # this run: utilisation 0.62, queueing 12 and 47 ms; with SACK 0.95 and under 4 ms).
    sc = Scenario.from_toml(REPO / "examples" / "modern_aqm.toml").with_overrides(
        {"duration": "20s", "metrics.steady_start": "5s", "dumbbell.bottleneck.queue": {"type": queue},
         "defaults.flows.sack": True}
    )
    res = tcplab.run(sc, seed=1, progress=False)
    bn = next(ln for ln in res.summary["links"] if ln["name"] == "bn")
    assert bn["queue"] == queue
    assert bn["utilization"] > 0.9
    for fl in res.summary["flows"]:
        assert fl["mean_rtt_s"] - fl["min_rtt_s"] < 0.03, (queue, fl["name"])
    assert res.summary["flows"][0]["cc"] == "cubic"


def test_modern_aqm_example_runs() -> None:
    r = subprocess.run(
        [sys.executable, str(REPO / "examples" / "modern_aqm.py"), "--duration", "10s"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    for q in ["droptail", "codel", "fq_codel", "pie"]:
        assert q in r.stdout
    assert "cubic" in r.stdout and "newreno" in r.stdout


def test_prr_on_a_bbr_flow_warns_only_when_the_user_wrote_it(cli: CliRunner, tmp_path: Path) -> None:
    """BBR sets its recovery window itself (no PRR, as Linux): a `prr` the user wrote is
    ignored and warned about; the linux profile's own `prr` is not the user's."""

    def prr_warnings(flow: dict[str, Any], defaults: dict[str, Any] | None = None) -> list[str]:
        d = _two_hosts({"type": "droptail", "limit": 100}, flow, "6s")
        if defaults:
            d["defaults"] = {"flows": defaults}
        res = tcplab.run(Scenario.from_dict(d), progress=False)
        return [w for w in res.warnings if "prr" in w]

    assert len(prr_warnings({"cc": "bbr", "sack": True, "prr": "crb"})) == 1
    assert len(prr_warnings({"cc": "bbr"}, {"sack": True, "prr": "ssrb"})) == 1
    assert prr_warnings({"cc": "bbr", "profile": "linux"}) == []
    assert prr_warnings({"cc": "bbr"}, {"profile": "linux"}) == []
    assert prr_warnings({"cc": "cubic", "sack": True, "prr": "crb"}) == []
    # The CLI prints it.
    f = tmp_path / "bbr_prr.toml"
    f.write_text(Scenario.from_dict(_two_hosts({"type": "droptail"}, {"cc": "bbr", "sack": True, "prr": "ssrb"}, "6s")).to_toml())
    r = cli("run", f, "--out", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert "warning: flow 'f' sets prr" in " ".join(r.stderr.split())
    assert "warning:" not in r.stdout, "run warnings go to stderr, apart from the report"

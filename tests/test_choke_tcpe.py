"""Seed 002's mechanisms through the Python API and the CLI: CHOKe/RED-I, TCP/E and its
trace columns, Bernoulli drops inside the AQM, and their errors."""

from __future__ import annotations

from typing import Any

import pytest

import tcplab
from conftest import REPO, CliRunner
from tcplab import Scenario

EXAMPLE = REPO / "examples" / "choke_tcpe.toml"


def _shares(res: tcplab.Result) -> list[float]:
    return [row["efficiency"] for row in res.flows.iter_rows(named=True)]


def test_example_choke_red_i_shares_the_link_where_red_i_alone_does_not() -> None:
    sc = Scenario.from_toml(EXAMPLE)
    res = tcplab.run(sc, progress=False)
    bn = res.links.filter(res.links["name"] == "bn").row(0, named=True)
    assert bn["queue"] == "choke_red_i"
    assert bn["choke_checks"] > 0 and bn["drops_choke"] == bn["choke_matches"], "drop_both = false"
    assert bn["choke_checks"] <= 91, "one check per second at most"
    assert bn["drops"] == bn["drops_choke"], "the only drops are CHOKe's"
    shares = _shares(res)
    assert sum(shares) > 0.95
    assert min(shares) > 0.2, shares
    # Without CHOKe the first flow keeps the link (seed 002's temporal unfairness).
    alone = tcplab.run(sc.with_overrides({"links.bn.queue.type": "red_i"}), progress=False)
    first, *late = _shares(alone)
    assert first > 0.95 and max(late) < 0.05
    # TCP/E reacts per mark: no RFC 3168 reductions, one ECE per received mark.
    for row in res.flows.iter_rows(named=True):
        assert row["ecn_reductions"] == 0
        assert 0 <= row["ce_marks"] - row["ece_acks"] <= 1000


def test_tcpe_trace_columns() -> None:
    sc = Scenario.from_toml(EXAMPLE).with_overrides({"duration": "15s", "metrics.steady_start": "5s"})
    res = tcplab.run(sc, progress=False)
    tr = res.traces["cwnd"]
    assert {"cc_slow_start", "cc_frozen"} <= set(tr.columns)
    assert set(tr["cc_slow_start"].drop_nans().unique().to_list()) == {0.0, 1.0}
    assert set(tr["cc_frozen"].drop_nans().unique().to_list()) == {0.0, 1.0}


def _two_hosts(queue: dict[str, Any], flow: dict[str, Any]) -> dict[str, Any]:
    return {
        "duration": "20s",
        "nodes": {"a": "host", "b": "host"},
        "links": {
            "ab": {"from": "a", "to": "b", "rate": "10Mbps", "delay": "20ms", "queue": queue},
            "ba": {"from": "b", "to": "a", "rate": "10Mbps", "delay": "20ms"},
        },
        "flows": {"f": {"from": "a", "to": "b", "init_cwnd": 10, **flow}},
    }


def test_bernoulli_drops_inside_the_aqm_replace_marks() -> None:
    q = {"type": "red_i", "min_th": 20, "max_th": 60, "limit": 300, "mark_to_drop": 0.01}
    res = tcplab.run(Scenario.from_dict(_two_hosts(q, {"ecn": True, "cc": "tcpe"})), progress=False)
    ab = res.links.filter(res.links["name"] == "ab").row(0, named=True)
    decisions = ab["marks"] + ab["drops_mark_to_drop"]
    assert ab["drops_mark_to_drop"] > 0
    # Binomial(decisions, 0.01): within 5 standard deviations.
    sd = (decisions * 0.01 * 0.99) ** 0.5
    assert abs(ab["drops_mark_to_drop"] - 0.01 * decisions) < 5 * sd
    assert ab["drops"] == ab["drops_mark_to_drop"] + ab["drops_early"] + ab["drops_forced"] + ab["drops_overflow"]


@pytest.mark.parametrize(
    ("queue", "flow", "field", "says"),
    [
        ({"type": "red_i", "min_th": 20, "max_th": 60}, {"cc": "tcpe"}, "flows.f.ecn", "needs ecn = true"),
        ({"type": "red_i", "min_th": 20, "max_th": 60}, {"cc": "tcpe", "ecn": True, "ecn_echo": "rfc3168"}, "flows.f.ecn_echo", "per_mark"),
        ({"type": "red_i", "min_th": 20, "max_th": 60}, {"cc": {"algorithm": "tcpe", "rtt_basis": "rtt"}, "ecn": True}, "flows.f.cc.rtt_basis", ""),
        ({"type": "red_i", "min_th": 20, "max_th": 60}, {"ecn_retransmits": True}, "flows.f.ecn_retransmits", "needs ecn = true"),
        ({"type": "choke_red_i", "min_th": 20, "max_th": 60, "period": "0s"}, {}, "links.ab.queue.period", "positive"),
        ({"type": "choke", "min_th": 20, "max_th": 60, "check_from": "always"}, {}, "links.ab.queue.check_from", ""),
        ({"type": "choke", "min_th": 20, "max_th": 60, "w_q": 0}, {}, "links.ab.queue.w_q", "(0, 1]"),
        ({"type": "choke_red_i", "min_th": 20, "max_th": 60, "w_q": 0.1}, {}, "links.ab.queue.w_q", "not a parameter of 'choke_red_i'"),
    ],
)  # fmt: skip
def test_bad_choke_and_tcpe_parameters_name_the_leaf(
    queue: dict[str, Any], flow: dict[str, Any], field: str, says: str
) -> None:
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(Scenario.from_dict(_two_hosts(queue, flow)), progress=False)
    assert e.value.field == field, str(e.value)
    assert says in e.value.reason
    assert "\n" not in str(e.value)


def test_cli_set_switches_choke_variants(cli: CliRunner) -> None:
    r = cli("validate", EXAMPLE, "--set", "links.bn.queue.check=every")
    assert r.returncode == 2
    assert "links.bn.queue.check" in r.stderr
    r = cli("validate", EXAMPLE, "--set", "links.bn.queue.check=arrival", "--set", "links.bn.queue.drop_both=true")
    assert r.returncode == 0, r.stderr

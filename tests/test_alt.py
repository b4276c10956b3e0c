"""Seed 001's ALT timestamps (Vegas-ALT, FAST-ALT) through the Python API."""

from __future__ import annotations

import polars as pl
import pytest

import tcplab
from conftest import REPO
from tcplab import Scenario

EXAMPLE = REPO / "examples" / "vegas_alt.toml"


def test_vegas_alt_example_beats_vegas_under_backward_congestion() -> None:
    res = tcplab.run(Scenario.from_toml(EXAMPLE), progress=False)
    flows = {r["name"]: r for r in res.flows.to_dicts()}
    assert flows["vegas"]["cc"] == "vegas" and flows["vegas_alt"]["cc"] == "vegas-alt"
    # The example's comment: about 3.5 against 8.1 Mb/s.
    assert flows["vegas_alt"]["goodput_bps"] > 1.8 * flows["vegas"]["goodput_bps"]
    tr = res.traces["cwnd"]
    assert {"cc_diff", "cc_base_rtt_s", "cc_rtt_s", "cc_tf_min_s", "cc_tb_min_s"} <= set(tr.columns)
    late = tr.filter(pl.col("t") >= 50.0)
    alt = late.filter(pl.col("flow") == "vegas_alt")
    plain = late.filter(pl.col("flow") == "vegas")
    # ALT's TF_min and TB_min carry the receiver's -3.7 s clock offset, their sum does not;
    # the plain flow has no such columns (NaN).
    tf, tb, base = (alt[c].to_list()[-1] for c in ("cc_tf_min_s", "cc_tb_min_s", "cc_base_rtt_s"))
    assert tf == pytest.approx(-3.7, abs=0.1) and tb == pytest.approx(3.7, abs=0.1)
    assert tf + tb == pytest.approx(base, abs=1e-9)
    assert 0.040 < base < 0.045
    assert plain["cc_tf_min_s"].is_nan().all()
    # Plain Vegas' mean RTT holds the backward queueing, Vegas-ALT's does not.
    gap = {n: (d["cc_rtt_s"] - d["cc_base_rtt_s"]).mean() for n, d in (("alt", alt), ("plain", plain))}
    assert gap["plain"] > 3 * gap["alt"], gap


def test_clock_offset_changes_nothing_but_the_minima() -> None:
    base = Scenario.from_toml(EXAMPLE).with_overrides({"duration": "30s", "metrics.steady_start": "10s"})
    runs = [
        tcplab.run(base.with_overrides({"flows.vegas_alt.receiver_clock_offset": off}), progress=False)
        for off in ("0", "5s", "-5s")
    ]
    keep = ["flow", "t", "cwnd_bytes", "cc_diff", "cc_base_rtt_s", "cc_rtt_s"]
    first = runs[0].traces["cwnd"].select(keep)
    for r in runs[1:]:
        assert r.traces["cwnd"].select(keep).equals(first)
        assert r.summary["flows"] == runs[0].summary["flows"]


def test_bad_alt_keys_name_the_field() -> None:
    sc = Scenario.from_toml(EXAMPLE)
    for key, value, field in [
        ("flows.vegas_alt.cc.alt", "yes", "flows.vegas_alt.cc.alt"),
        ("flows.vegas_alt.receiver_clock_offset", "-3.7 parsecs", "flows.vegas_alt.receiver_clock_offset"),
    ]:
        with pytest.raises(tcplab.ScenarioError, match=field.replace(".", r"\.")):
            tcplab.run(sc.with_overrides({key: value}), progress=False)

"""bench/ns3_fct.py without ns-3: the flow list handed to ns-3, the size buckets and the
quantiles (checked against tcplab's own summary on a short run of the bench's scenario), and
the table. The ns-3 side itself runs only in `make bench-ns3-fct`."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("ns3_fct", ROOT / "bench" / "ns3_fct.py")
nf = importlib.util.module_from_spec(_spec)
sys.modules["ns3_fct"] = nf
_spec.loader.exec_module(nf)


def test_bucket_edges_are_half_open():
    assert [nf.bucket_of(b) for b in (1, 9_999, 10_000, 99_999, 100_000, 999_999, 1_000_000,
                                      9_999_999, 10_000_000, 30_000_000)] == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]  # fmt: skip
    assert nf.bucket_labels() == ["<10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB", ">=10MB"]


def test_quantile_is_linear_interpolation():
    assert nf.quantile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert nf.quantile([1.0, 2.0], 0.5) == 1.5
    assert nf.quantile([0.0, 10.0], 0.99) == pytest.approx(9.9)
    assert nf.quantile([5.0], 0.99) == 5.0
    assert math.isnan(nf.quantile([], 0.5))


def test_flow_list_keeps_order_and_rounds_to_nanoseconds():
    rows = [
        {"from": "s2", "to": "d", "bytes": 1000, "start_s": 0.0012345674},
        {"from": "s0", "to": "d", "bytes": 30_000_000, "start_s": 0.0},
        {"from": "s3", "to": "d", "bytes": 1, "start_s": 6.9999999996},
    ]
    assert nf.ns3_flow_list(rows) == {"src": [2, 0, 3], "bytes": [1000, 30_000_000, 1],
                                      "start_ns": [1_234_567, 0, 7_000_000_000]}  # fmt: skip


@pytest.mark.parametrize("row, why", [
    ({"from": "s4", "to": "d", "bytes": 1, "start_s": 0.0}, "not a sender host"),
    ({"from": "sw", "to": "d", "bytes": 1, "start_s": 0.0}, "not a sender host"),
    ({"from": "s0", "to": "s1", "bytes": 1, "start_s": 0.0}, "one receiver"),
    ({"from": "s0", "to": "d", "bytes": 0, "start_s": 0.0}, "bytes 0"),
])  # fmt: skip
def test_flow_list_refuses_what_the_ns3_side_cannot_run(row, why):
    with pytest.raises(ValueError, match=why):
        nf.ns3_flow_list([row])


def test_ns3_rows_take_tcplab_ideal_and_ns3_end():
    tl = [{"from": "s0", "to": "d", "bytes": 5000, "start_s": 1.0, "fct_s": 1e-4, "ideal_fct_s": 5e-5,
           "retransmits": 0, "timeouts": 0, "completed": 1},
          {"from": "s1", "to": "d", "bytes": 50_000, "start_s": 2.0, "fct_s": 1e-3, "ideal_fct_s": 1e-4,
           "retransmits": 0, "timeouts": 0, "completed": 1}]  # fmt: skip
    ns = {"end_s": [1.0002, math.nan], "retransmits": [0, 3], "timeouts": [0, 2]}
    a, b = nf.ns3_rows(tl, ns)
    assert a["fct_s"] == pytest.approx(2e-4) and a["completed"] == 1 and a["ideal_fct_s"] == 5e-5
    assert b["completed"] == 0 and math.isnan(b["fct_s"]) and (b["retransmits"], b["timeouts"]) == (3, 2)
    bk = nf.buckets([a, b])
    assert bk[0]["p50"] == pytest.approx(4.0) and bk[0]["completed"] == 1.0
    assert bk[1]["flows"] == 1 and bk[1]["completed"] == 0.0 and math.isnan(bk[1]["p50"])
    rows = nf.compare(tl, [a, b])
    assert rows[0]["p50_ratio"] == pytest.approx(0.5) and rows[0]["p50_ok"] is None  # 1 flow < 50
    assert "| <10KB | 1 |" in nf.table(rows)


def test_buckets_and_quantiles_match_tcplab_summary():
    """The bench's own scenario, 0.3 s of arrivals: per bucket the same flow counts and
    slowdown p50 / p99 as tcplab's summary (its buckets and quantiles)."""
    import tcplab

    res = tcplab.run(tcplab.Scenario.from_dict(nf.scenario(0.3, 0.4, 1, nf.TCP)), progress=False)
    rows = res.fct.select("from", "to", "bytes", "start_s", "fct_s", "ideal_fct_s", "retransmits",
                          "timeouts", "completed").to_dicts()  # fmt: skip
    mine = nf.buckets(rows)
    theirs = res.summary["fct"]["workloads"]["web"]["buckets"]
    assert [b["bucket"] for b in theirs] == [b["bucket"] for b in mine]
    assert sum(b["flows"] for b in mine) == len(rows) > 50
    for m, t in zip(mine, theirs):
        assert m["flows"] == t["flows"]
        if t["completed"]:
            assert m["p50"] == pytest.approx(t["slowdown_p50"], rel=1e-9)
            assert m["p99"] == pytest.approx(t["slowdown_p99"], rel=1e-9)
    # And every flow is one the ns-3 side can run.
    assert len(nf.ns3_flow_list(rows)["src"]) == len(rows)

"""tcplab.repro.metrics: seed 003's system/protocol goodput, allotted goodput and fairness per slot
(over active flows), application success percentage."""

from __future__ import annotations

import doctest
import tomllib

import pytest

import tcplab
import tcplab.repro.metrics as m

SC = """
profile = "classic"
duration = "10s"
[nodes]
a = "host"
b = "host"
[links.ab]
from = "a"
to = "b"
rate = "4Mbps"
delay = "5ms"
[links.ba]
from = "b"
to = "a"
rate = "4Mbps"
delay = "5ms"
[flows.c1]
from = "a"
to = "b"
app = { type = "cbr", rate = "1Mbps", packet_size = 1000 }
group = "cbr"
[flows.c2]
from = "a"
to = "b"
cc = { algorithm = "gaimd", alpha = 0.31, beta = 0.875 }
app = { type = "cbr", rate = "1Mbps", packet_size = 1000, start = "3s" }
group = "cbr"
[flows.c3]
from = "a"
to = "b"
app = { type = "cbr", rate = "0.5Mbps", packet_size = 1000 }
[metrics]
interval = "1s"
"""


@pytest.fixture(scope="module")
def res() -> tcplab.Result:
    return tcplab.run(tcplab.Scenario(tomllib.loads(SC)), progress=False)


def test_doctests() -> None:
    assert doctest.testmod(m).failed == 0


def test_allotted_counts_only_flows_active_for_the_whole_slot(res: tcplab.Result) -> None:
    a = m.allotted(res)
    assert a["active"].to_list() == [2, 2, 2, 3, 3, 3, 3, 3, 3, 3]
    # c2 joins at 3 s: before, c1 (1 Mb/s) and c3 (0.5) are compared: Jain = 2.25/(2·1.25) = 0.9.
    assert a["afair"][1] == pytest.approx(0.9, abs=0.01)
    # Later three flows 1, 1, 0.5: 6.25/(3·2.25) = 0.926.
    assert a["afair"][6] == pytest.approx(6.25 / 6.75, abs=0.01)
    assert a["asg_bps"][6] == pytest.approx(2.5e6, rel=0.02)


def test_app_success(res: tcplab.Result) -> None:
    s = m.app_success(res, target_bps=1e6, x=0.7)
    # c1 and c2 deliver about 1 Mb/s in every slot after the first (which includes the
    # first round trips); c3's 0.5 Mb/s never passes 70 %.
    assert s["per_flow"]["c3"] == 0.0
    assert s["per_flow"]["c1"] >= 80.0 and s["per_flow"]["c2"] >= 80.0
    assert s["attempts"] == 10 + 7 + 10
    assert m.app_success(res, x=0.4)["per_flow"]["c3"] >= 80.0


def test_goodput_sums_and_errors(res: tcplab.Result) -> None:
    assert m.system_goodput(res) == pytest.approx(sum(f["goodput_bps"] for f in res.summary["flows"]))
    by_cc = m.protocol_goodput(res)
    assert set(by_cc) == {"newreno", "gaimd"}
    assert m.protocol_goodput(res, by="group")["cbr"] == pytest.approx(
        sum(f["goodput_bps"] for f in res.summary["flows"] if f.get("group") == "cbr"))
    with pytest.raises(ValueError, match="^flows: no flow 'zz'"):
        m.allotted(res, flows=["zz"])
    with pytest.raises(ValueError, match="^x:"):
        m.app_success(res, x=2)
    with pytest.raises(ValueError, match="^by:"):
        m.protocol_goodput(res, by="rtt")
    assert res.summary["fairness"]["groups"]["cbr"]["flows"] == 2


def test_group_share(res: tcplab.Result) -> None:
    total = m.system_goodput(res)
    cbr = m.protocol_goodput(res, by="group")["cbr"]
    assert m.group_share(res, "cbr") == pytest.approx(cbr / total)
    assert 0 < m.group_share(res, "cbr") < 1
    assert m.group_share(res, "gaimd", by="cc") + m.group_share(res, "newreno", by="cc") == pytest.approx(1.0)
    with pytest.raises(ValueError, match="^key: no group 'std'"):
        m.group_share(res, "std")


OUT = """
duration = "12s"
[nodes]
a = "host"
b = "host"
[outages.h]
type = "periodic"
period = "4s"
duration = "1.5s"
[links.ab]
from = "a"
to = "b"
rate = "4Mbps"
delay = "5ms"
error = { model = "outage", schedule = "h" }
[links.ba]
from = "b"
to = "a"
rate = "4Mbps"
delay = "5ms"
[flows.c]
from = "a"
to = "b"
transport = "udp"
app = { type = "cbr", rate = "1Mbps", packet_size = 1000 }
[metrics]
interval = "1s"
"""


def test_post_outage_uses_whole_slots_after_each_outage() -> None:
    r = tcplab.run(tcplab.Scenario(tomllib.loads(OUT)), progress=False)
    # Down [4, 5.5) and [8, 9.5): slots [6, 7), [7, 8) and [10, 11), [11, 12) qualify.
    out = m.post_outage(r, "c")
    assert out["outages"] == 2 and out["n"] == 4
    import polars as pl

    iv = r.intervals.filter(pl.col("flow") == "c")
    want = [iv.filter(pl.col("t_start") == t)["goodput_bps"][0] for t in (6.0, 7.0, 10.0, 11.0)]
    assert out["mean_bps"] == pytest.approx(sum(want) / 4)
    # UDP CBR at 1 Mb/s recovers at once: every used slot carries the full rate.
    assert out["mean_bps"] == pytest.approx(1e6, rel=0.02) and out["cov"] < 0.02
    # Three slots after the first outage would run into the second: only the last one counts.
    assert m.post_outage(r, "c", slots=3)["outages"] == 0
    with pytest.raises(ValueError, match="schedule: no outage schedule 'x'"):
        m.post_outage(r, "c", schedule="x")
    with pytest.raises(ValueError, match="slots"):
        m.post_outage(r, "c", slots=0)


def test_playback_success_reads_backlog(res: tcplab.Result) -> None:
    import polars as pl

    # c1 sends 1 Mb/s throughout: every full slot reads 125,000 B (> 70 %).
    out = m.playback_success(res, flows=["c1"])
    assert out["pooled"] == pytest.approx(100.0)
    # A reader wanting 4x the rate gets 25 % each time: never more than 70 %.
    assert m.playback_success(res, read_bytes=500_000, flows=["c1"])["pooled"] == 0.0
    # Against per-second goodput (app_success), the buffer only adds: what a slot misses is
    # read later, so the reader never succeeds less often.
    for x in (0.3, 0.5, 0.9):
        assert m.playback_success(res, x=x)["pooled"] >= m.app_success(res, x=x)["pooled"] - 1e-9
    d = res.intervals.filter(pl.col("flow") == "c3")
    # c3 sends 0.5 Mb/s: a 62,500-B reader at x = 0.9 succeeds in every full slot.
    c3 = m.playback_success(res, read_bytes=62_500, x=0.9, flows=["c3"])
    assert c3["attempts"] == int((d["active"] >= 1).sum()) and c3["pooled"] == 100.0
    with pytest.raises(ValueError, match="read_bytes"):
        m.playback_success(res, read_bytes=0)

"""tcplab.metrics: seed 003's system/protocol goodput, allotted goodput and fairness per slot
(over active flows), application success percentage."""

from __future__ import annotations

import doctest
import tomllib

import pytest

import tcplab
import tcplab.metrics as m

SC = """
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

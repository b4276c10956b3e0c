"""Issue 19, extremes: inputs at the edges of what is valid either run (every number in the
summary finite, the expected warning when the result is likely not what was meant) or are
refused with a one-line error naming the field. One row of docs/reliability.md's
"Extremes" table per case (a test checks the table lists them all)."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest

import tcplab
from conftest import REPO
from tcplab import ScenarioError, _core


def _pair(**over: Any) -> dict[str, Any]:
    """Two hosts, 10 Mb/s and 10 ms each way, one NewReno bulk flow, 2 s (profile
    ``classic``: the 1-GiB window lets the extreme windows through to the checks)."""
    d: dict[str, Any] = {
        "name": "extreme",
        "profile": "classic",
        "duration": "2s",
        "metrics": {"interval": "500ms"},
        "nodes": {"a": "host", "b": "host"},
        "links": {
            "ab": {"from": "a", "to": "b", "rate": "10Mbps", "delay": "10ms"},
            "ba": {"from": "b", "to": "a", "rate": "10Mbps", "delay": "10ms"},
        },
        "flows": {"f": {"from": "a", "to": "b"}},
    }
    for key, value in over.items():
        node = d
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = value
    return d


def _flows(n: int, duration: str) -> dict[str, Any]:
    d = _pair(duration=duration)
    d["flows"] = {f"f{i:05d}": {"from": "a", "to": "b"} for i in range(n)}
    return d


OK = "ok"
#: Events a case that runs may take (each is a short run; docs/reliability.md, "Extremes").
EVENT_BUDGET = 1_000_000
STARVED = "delivered nothing for"

# id → (scenario, expected): ("ok", warning words or None) or ("error", field, reason words).
CASES: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "rate 1 bps": (_pair(**{"links.ab.rate": "1bps", "links.ba.rate": "1bps"}), (OK, STARVED)),
    "rate 1 Tbps": (_pair(**{"links.ab.rate": "1Tbps", "links.ba.rate": "1Tbps"}), (OK, None)),
    "rate 100 Tbps": (_pair(**{"links.ab.rate": "100Tbps", "links.ba.rate": "100Tbps"}), (OK, None)),
    "rate 1e20 bps": (_pair(**{"links.ab.rate": "1e20bps"}), ("error", "links.ab.rate", "too large")),
    "rate 0": (_pair(**{"links.ab.rate": "0bps"}), ("error", "links.ab.rate", "at least 1 bps")),
    "delay 0": (_pair(**{"links.ab.delay": 0, "links.ba.delay": 0}), (OK, None)),
    "delay 1 ps": (_pair(**{"links.ab.delay": "1ps", "links.ba.delay": "1ps"}), (OK, None)),
    "delay 1000 s": (_pair(**{"links.ab.delay": "1000s", "links.ba.delay": "1000s", "duration": "5000s"}), (OK, STARVED)),
    "delay 1e6 s (longer than the run)": (_pair(**{"links.ab.delay": "1e6s", "duration": "10s"}), (OK, STARVED)),
    "mss 1 byte": (_pair(**{"flows.f.mss": 1}), (OK, None)),
    "mss 64 KiB": (_pair(**{"flows.f.mss": 65536}), (OK, None)),
    "mss 0": (_pair(**{"flows.f.mss": 0}), ("error", "flows.f.mss", "must be positive")),
    "mss 2^32": (_pair(**{"flows.f.mss": 2**32}), ("error", "flows.f.mss", "u32")),
    "init_cwnd 2^31 segments": (_pair(**{"flows.f.init_cwnd": 2**31}), (OK, "its window reached")),
    "max_window 2^31 bytes, 100 Gb/s x 200 ms": (
        _pair(**{"flows.f.max_window": 2**31, "links.ab.rate": "100Gbps", "links.ba.rate": "100Gbps",
                 "links.ab.delay": "100ms", "links.ba.delay": "100ms"}),
        (OK, None),
    ),
    "10,000 flows": (_flows(10_000, "500ms"), (OK, "and 9")),
    "loss 1e-12": (_pair(**{"links.ab.loss": 1e-12}), (OK, None)),
    "loss 0.999": (_pair(**{"links.ab.loss": 0.999}), (OK, STARVED)),
    "loss 1": (_pair(**{"links.ab.loss": 1.0}), ("error", "links.ab.loss", "[0, 1)")),
    "buffer 1 packet": (_pair(**{"links.ab.queue": {"type": "droptail", "limit": 1}}), (OK, None)),
    "buffer 1 byte": (_pair(**{"links.ab.queue": {"type": "droptail", "limit": "1B"}}), (OK, STARVED)),
    "buffer 0": (_pair(**{"links.ab.queue": {"type": "droptail", "limit": 0}}), ("error", "links.ab.queue.limit", "positive")),
    "buffer 2^40 packets": (
        _pair(**{"links.ab.queue": {"type": "droptail", "limit": 2**40}}),
        ("error", "links.ab.queue.limit", "too large"),
    ),
    "duration 1 ps": (_pair(duration="1ps"), (OK, None)),
    "duration 2 ps": (_pair(duration="2ps"), (OK, None)),
    "duration 9.2e6 s (just below 2^63 ps)": (
        _pair(**{"duration": "9.2e6s", "metrics.interval": "1e6s", "flows.f.app": {"type": "transfer", "bytes": 100_000}}),
        (OK, None),
    ),
    "duration 1e7 s": (_pair(duration="1e7s"), ("error", "duration", "too long")),
    "duration 0": (_pair(duration=0), ("error", "duration", "positive")),
    "interval 1 ps over 1 ms": (
        _pair(**{"duration": "1ms", "metrics.interval": "1ps"}), ("error", "metrics.interval", "at most 10000000"),
    ),
    "trace 1 ps over 1 ms": (_pair(**{"duration": "1ms", "metrics.trace": "1ps"}), ("error", "metrics.trace", "at most 10000000")),
    "outage longer than the run": (
        _pair(**{"links.ab.error": {"model": "outage", "schedule": "o"},
                 "outages": {"o": {"type": "list", "intervals": [["1s", "1000s"]]}}}),
        (OK, None),
    ),
    "on/off source with 1-ps periods": (
        _pair(**{"flows.f.transport": "udp",
                 "flows.f.app": {"type": "onoff", "rate": "1Mbps", "on": "1ps", "off": "1ps"}}),
        ("error", "flows.f.app.on", "8000000000 times shorter than the spacing"),
    ),
    # A million periods per write was the bound until a fuzz campaign ran 6,250 such writes
    # in one run (docs/reliability.md, row 12): a thousand is the bound now.
    "on/off source with 8-ns periods (a million per write)": (
        _pair(**{"duration": "20ms", "flows.f.transport": "udp",
                 "flows.f.app": {"type": "onoff", "rate": "1Mbps", "on": "8ns", "off": "8ns"}}),
        ("error", "flows.f.app.on", "1000000 times shorter than the spacing"),
    ),
    "on/off source with 8-us periods (a thousand per write)": (
        _pair(**{"duration": "20ms", "flows.f.transport": "udp",
                 "flows.f.app": {"type": "onoff", "rate": "1Mbps", "on": "8us", "off": "8us"}}),
        (OK, None),
    ),
    "transfer done long before a 9.2e6-s end": (
        _pair(**{"duration": "9.2e6s", "metrics.interval": "1e6s", "flows.f.app": {"type": "transfer", "bytes": 1000}}),
        (OK, None),
    ),
    "UDP CBR at 100 Tbps": (
        _pair(**{"duration": "1us", "flows.f.transport": "udp", "flows.f.app": {"type": "cbr", "rate": "100Tbps"}}),
        (OK, None),
    ),
}


def _finite(x: Any, path: str = "") -> None:
    if isinstance(x, float):
        assert math.isfinite(x), path
    elif isinstance(x, dict):
        for k, v in x.items():
            _finite(v, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            _finite(v, f"{path}[{i}]")


@pytest.mark.parametrize("case", list(CASES))
def test_extreme_input_runs_or_is_refused_with_a_reason(case: str) -> None:
    data, expected = copy.deepcopy(CASES[case][0]), CASES[case][1]
    if expected[0] == "error":
        with pytest.raises(ScenarioError) as info:
            tcplab.run(data, progress=False)
        assert info.value.field == expected[1], str(info.value)
        assert expected[2] in info.value.reason and "\n" not in str(info.value), str(info.value)
        return
    res = tcplab.run(data, progress=False)
    # A budget in work, not time: none takes more than EVENT_BUDGET events (today at most
    # ~195,000, the 1-Tbps links).
    assert 0 < res.summary["run"]["events"] <= EVENT_BUDGET, res.summary["run"]
    _finite(json.loads(json.dumps(res.summary)))
    assert res.summary["run"]["sim_seconds"] == pytest.approx(_core.Simulation(json.dumps(data)).duration)
    warning = expected[1]
    if warning is None:
        assert not [w for w in res.warnings if STARVED in w or "window reached" in w], res.warnings
    else:
        assert any(warning in w for w in res.warnings), res.warnings
    assert all(len(w) < 2000 for w in res.warnings), "a warning must stay one readable line"


def test_reliability_doc_lists_every_case() -> None:
    doc = (REPO / "docs" / "reliability.md").read_text(encoding="utf-8")
    table = doc[doc.index("## Extremes"):]
    assert len(CASES) >= 30 and sum(e[0] == OK for _, e in CASES.values()) >= 20
    for case in CASES:
        assert f"| {case} |" in table, case


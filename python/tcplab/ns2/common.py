"""What the other modules of :mod:`tcplab.ns2` share: the errors, the metric names, tcplab's
flow defaults, the unit parsers and the expanded scenario's accessors.

Nothing here writes OTcl or runs a simulator. The package's modules import one way:
``common`` <- ``agents`` <- ``translate`` <- ``run`` <- ``compare``."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tcplab.scenario import Scenario

#: Period of the cwnd and queue samples on both sides (seconds).
SAMPLE_PERIOD_S = 0.01

#: Per-flow metrics, same definition on both sides (docs/crosscheck.md, "ns-2.35").
FLOW_METRICS = ("goodput_bps", "cwnd_mean", "data_packets", "retransmits", "timeouts")
#: Per-link-direction metrics.
LINK_METRICS = ("arrivals", "drops", "marks", "q_mean", "q_p5", "q_p95")

#: ns-2 ticks its RTO estimator in `tcpTick_` units; tcplab's estimator runs on the exact
#: clock unless the flow sets `rto_tick`. 1 ms is the closest ns-2.35 does reliably (the
#: estimator keeps integer ticks; the issue's authors checked 1 ms side by side).
EXACT_CLOCK_TICK_S = 0.001

# tcplab's flow defaults (crates/tcplab-core/src/scenario/mod.rs, FlowSpec), for keys the
# expanded scenario leaves out.
_FLOW_DEFAULTS: dict[str, Any] = {
    "cc": "newreno",
    "mss": 1460,
    "ack_size": 40,
    "max_window": 1 << 30,
    "init_cwnd": 1,
    "rto_initial": "1s",
    "rto_min": "200ms",
    "rto_max": "60s",
    "quickack": 0,
    "dupack_threshold": 3,
    "partial_ack_timer": "every",
    "recovery_exit": "ssthresh",
    "ack_counting": "acks",
    "sack": False,
    "nextseg_rule3": False,
    "frto": False,
    "dsack_undo": False,
    "rto_unsacked_flight": False,
    "ecn": False,
    "ecn_retransmits": False,
    "ece_increase": True,
    "rto_restart_on_retransmit": False,
    "fin": False,
    "transport": "tcp",
}


class Ns2Unsupported(ValueError):
    """A scenario element ns-2.35 cannot express; ``str()`` is one line naming the key,
    e.g. ``flows.f1.loss_detection: ns-2.35 has no RACK (refused)``."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason} (refused)")
        self.key = key
        self.reason = reason


class Ns2Error(RuntimeError):
    """ns-2 did not run to the end (missing binary, Tcl error, timeout); one line."""


# -- units -----------------------------------------------------------------------------------

_NUM = r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"


def _split(text: str) -> tuple[float, str]:
    m = re.fullmatch(rf"\s*{_NUM}\s*(.*?)\s*", str(text))
    if not m:
        raise ValueError(f"'{text}' is not a number with a unit")
    return float(m.group(1)), m.group(2)


def _rate_bps(value: Any) -> float:
    if isinstance(value, Mapping):  # seed 001's asymmetry factor (docs/scenarios.md)
        fwd = _rate_bps(value["forward"])
        return float(round(fwd * value.get("ack_size", 40) / (value["asym_k"] * value.get("data_size", 1000))))
    n, unit = _split(value)
    mult = {"bps": 1, "b/s": 1, "bit/s": 1, "kbps": 1e3, "kb/s": 1e3, "kbit/s": 1e3, "mbps": 1e6, "mb/s": 1e6,
            "mbit/s": 1e6, "gbps": 1e9, "gb/s": 1e9, "gbit/s": 1e9, "tbps": 1e12, "tb/s": 1e12, "tbit/s": 1e12}
    return n * mult[unit.lower()]


def _seconds(value: Any) -> float:
    if isinstance(value, (int, float)):
        return float(value)
    n, unit = _split(value)
    if unit == "" and n == 0:
        return 0.0
    return n * {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}[unit]


def _bytes(value: Any) -> int:
    if isinstance(value, int):
        return value
    n, unit = _split(value)
    return int(n * {"": 1, "B": 1, "bytes": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024,
                    "MiB": 1024**2, "GiB": 1024**3}[unit])


def _limit_packets(limit: Any, key: str) -> int | None:
    """A queue limit in packets (None = unlimited); byte limits are refused."""
    if limit is None:
        return 1000
    if isinstance(limit, int):
        return limit
    s = str(limit).strip()
    if s == "unlimited":
        return None
    m = re.fullmatch(r"(\d+)\s*(p|pkt|pkts|packets)", s)
    if m:
        return int(m.group(1))
    raise Ns2Unsupported(key, f"byte limit '{s}' is not translated (ns-2's byte mode counts mean_pktsize_ units)")


def _byte_limit(limit: Any) -> int | None:
    """A queue limit in bytes, or None when it counts packets (or is unlimited)."""
    if limit is None or isinstance(limit, int):
        return None
    s = str(limit).strip()
    if s == "unlimited" or re.fullmatch(r"\d+\s*(p|pkt|pkts|packets)", s):
        return None
    return _bytes(s)


def _num(x: float) -> str:
    """A Tcl number: integers without a point, floats with repr (exact round trip)."""
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


def expanded(scenario: Scenario | Mapping[str, Any] | str | Path) -> dict[str, Any]:
    """The plain dict ``tcplab expand`` prints (builders, duplex links, defaults and
    profiles replaced by what they generate)."""
    from tcplab.runner import as_scenario

    return as_scenario(scenario).expand().to_dict()


def _variant(value: Any, tag: str, default: str) -> tuple[str, dict[str, Any]]:
    """(`type`/`algorithm`/`model` name, parameters) of a variant table or bare name."""
    if value is None:
        return default, {}
    if isinstance(value, str):
        return value, {}
    params = dict(value)
    return str(params.pop(tag, default)), params


def _window(sc: Mapping[str, Any]) -> tuple[float, float]:
    """The measurement window: tcplab's steady-state window [steady_start, duration]."""
    duration = _seconds(sc["duration"])
    start = _seconds((sc.get("metrics") or {}).get("steady_start", 0))
    return start, duration


def _flow_value(flow: Mapping[str, Any], key: str) -> Any:
    return flow[key] if key in flow else _FLOW_DEFAULTS.get(key)


def _tcp_header(flow: Mapping[str, Any]) -> int:
    """A TCP flow's header bytes on every data packet: `header` plus XCP's congestion header
    (`cc.header_bytes`)."""
    algo, cc = _variant(flow.get("cc"), "algorithm", "newreno")
    return int(flow.get("header", 40)) + (int(cc.get("header_bytes", 0)) if algo == "xcp" else 0)


def _summary_stats(xs: list[float]) -> tuple[float, float, float]:
    """(mean, p5, p95) of samples (NaN when empty); percentiles by the nearest rank."""
    if not xs:
        return math.nan, math.nan, math.nan
    s = sorted(xs)

    def pct(p: float) -> float:
        return float(s[min(len(s) - 1, max(0, math.ceil(p / 100 * len(s)) - 1))])

    return sum(s) / len(s), pct(5), pct(95)

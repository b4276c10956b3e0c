"""Closed-form models from the seed papers, as plain functions (computed by the Rust core).

Seed 003 (Zhang & Tsaoussidis), §2, and the standard-TCP response functions it builds on.
Throughputs are in packets per second; ``p`` is the loss(-event) rate, ``rtt`` and ``t0``
(retransmission timeout) are seconds, ``b`` is packets acknowledged per ack, ``alpha`` the
segments added per round trip and ``beta`` the fraction of the window *kept* after a loss.
Bad arguments raise ``ValueError`` naming the argument.

>>> round(gaimd_throughput(p=1e-3, rtt=0.1, t0=0.4, alpha=0.31, beta=0.875))
477
>>> round(gaimd_throughput(p=1e-3, rtt=0.1, t0=0.4))  # TCP(1, 1/2) = Padhye et al.
384
>>> friendly_alpha(0.875), friendly_alpha(0.875, rule="first_term")
(0.3125, 0.2)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tcplab import _core

__all__ = [
    "GAIMD_PRESETS", "gaimd_throughput", "padhye_throughput", "mathis_throughput", "friendly_alpha",
    "epoch_rtts", "fair_window", "jain",
]

#: Seed 003's four protocols TCP(α, β), smoothest first: name -> (alpha, beta).
GAIMD_PRESETS: dict[str, tuple[float, float]] = {
    "TCP(0.31, 0.875)": (0.31, 0.875),
    "TCP(0.583, 0.75)": (0.583, 0.75),
    "TCP(1, 0.5)": (1.0, 0.5),
    "TCP(1.25, 0.25)": (1.25, 0.25),
}


def _check(name: str, v: float, lo: float, hi: float = math.inf, lo_open: bool = True, hi_open: bool = True) -> float:
    v = float(v)
    ok = math.isfinite(v) and (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)
    if not ok:
        lb, hb = "(" if lo_open else "[", ")" if hi_open else "]"
        raise ValueError(f"{name}: must be in {lb}{lo:g}, {hi:g}{hb}, got {v!r}")
    return v


def gaimd_throughput(p: float, rtt: float, t0: float, b: float = 1.0, alpha: float = 1.0, beta: float = 0.5) -> float:
    """Eq. (1): TCP(α, β) throughput in packets/s (Yang & Lam's GAIMD extension of Padhye)."""
    return _core.zhang_model("gaimd_throughput", [
        _check("p", p, 0, 1), _check("rtt", rtt, 0), _check("t0", t0, 0, lo_open=False), _check("b", b, 0),
        _check("alpha", alpha, 0), _check("beta", beta, 0, 1)])


def padhye_throughput(p: float, rtt: float, t0: float, b: float = 1.0) -> float:
    """Padhye et al. 1998 (no receiver-window limit), packets/s: eq. (1) at α = 1, β = 1/2."""
    return _core.zhang_model("padhye_throughput", [_check("p", p, 0, 1), _check("rtt", rtt, 0),
                                                   _check("t0", t0, 0, lo_open=False), _check("b", b, 0)])


def mathis_throughput(p: float, rtt: float, b: float = 1.0) -> float:
    """Mathis et al. 1997: sqrt(3/(2 b p)) / RTT packets/s."""
    return _core.zhang_model("mathis_throughput", [_check("p", p, 0, 1), _check("rtt", rtt, 0), _check("b", b, 0)])


def friendly_alpha(beta: float, rule: str = "timeout") -> float:
    """The α that makes TCP(α, β) TCP-friendly: ``rule="timeout"`` is the paper's eq. (3),
    4(1 − β²)/3 (equal timeout terms of eq. 1); ``"first_term"`` is 3(1 − β)/(1 + β) (equal
    first terms, the one that dominates at small p)."""
    if rule not in ("timeout", "first_term"):
        raise ValueError(f"rule: must be 'timeout' or 'first_term', got {rule!r}")
    return _core.zhang_model(f"friendly_alpha_{rule}", [_check("beta", beta, 0, 1)])


def epoch_rtts(w: float, alpha: float, beta: float) -> float:
    """Eq. (4): round trips of a congestion epoch from β·W to W: (1 − β)·W/α + 1."""
    return _core.zhang_model("epoch_rtts", [_check("w", w, 0), _check("alpha", alpha, 0), _check("beta", beta, 0, 1)])


def fair_window(b_pkts: float, rtt: float, n: float) -> float:
    """Eq. (5): W = B·RTT/N packets (B: bottleneck packets per second, N flows)."""
    return _core.zhang_model("fair_window", [_check("b_pkts", b_pkts, 0), _check("rtt", rtt, 0), _check("n", n, 0)])


def jain(x: Sequence[float]) -> float | None:
    """Jain's fairness index (Σx)²/(n·Σx²): 1 when equal, 1/n when one takes all; 1 when all
    are 0; None for no values.

    >>> jain([1.0, 1.0, 1.0]), jain([1.0, 0.0])
    (1.0, 0.5)
    """
    if not len(x):
        return None
    s, q = sum(x), sum(v * v for v in x)
    return 1.0 if q == 0 else s * s / (len(x) * q)


# Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom.
_T975 = (
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
    2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
    2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
)  # fmt: skip


def t975(df: int) -> float:
    """Student's t 0.975 quantile (Cornish-Fisher expansion beyond the table; error < 1e-4)."""
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959963984540054
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)

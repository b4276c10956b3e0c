"""Statistical verdicts for tcplab beside ns-2.35 over several seeds (docs/crosscheck.md,
"Generated scenarios").

Each scenario runs on both sides with the same seeds. Per flow group (the flows of one
``group`` key: one agent and RTT class in :mod:`tcplab.ns2.generate`'s scenarios) the
per-seed sums of goodput and of timeouts, and per link direction the per-seed drops, give a
ratio tcplab / ns-2 of the means with a 95 % confidence interval: the delta method on the log
of the ratio, ``se = sqrt(s_t²/(n·m_t²) + s_n²/(n·m_n²))``, Student's t at the
Welch-Satterthwaite degrees of freedom, ``[R·exp(−t·se), R·exp(t·se)]``. The interval
decides:

* **agree**: it lies within the band ``[1 − b, 1 + b]``;
* **disagree**: it lies wholly outside the band;
* **inconclusive**: otherwise (more seeds would decide).

``b`` is :data:`GOODPUT_BAND` (5 %) for goodput and :data:`COUNT_BAND` (15 %) for timeouts and
drops; for counts it widens to ``COUNT_SLACK / mean`` where that is larger (two timeouts of
difference on a handful are no evidence either way). Both sides at zero agree exactly; one
side at zero and the other not, with every seed so, disagrees.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from tcplab.analysis import t975

GOODPUT_BAND = 0.05
COUNT_BAND = 0.15
COUNT_SLACK = 2.0
#: Above this share of inconclusive groups the harness says to run more seeds.
MAX_INCONCLUSIVE = 0.15


def _mean_var(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    m = sum(xs) / n
    v = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else math.inf
    return m, v


def ratio_ci(tcplab: Sequence[float], ns2: Sequence[float]) -> tuple[float, float, float]:
    """(ratio of the means tcplab / ns-2, 95 % lower, upper) of two per-seed samples."""
    mt, vt = _mean_var(tcplab)
    mn, vn = _mean_var(ns2)
    if mt == 0 and mn == 0:
        return 1.0, 1.0, 1.0
    if mn == 0:
        return math.inf, (math.inf if vt == 0 else 0.0), math.inf
    if mt == 0:
        return 0.0, 0.0, (0.0 if vn == 0 else math.inf)
    r = mt / mn
    a, b = vt / (len(tcplab) * mt * mt), vn / (len(ns2) * mn * mn)
    se = math.sqrt(a + b)
    if se == 0:
        return r, r, r
    if math.isinf(se):
        return r, 0.0, math.inf
    # Welch-Satterthwaite on the two relative variances
    den = (a * a / (len(tcplab) - 1) if a else 0.0) + (b * b / (len(ns2) - 1) if b else 0.0)
    df = max(1, int((a + b) ** 2 / den)) if den > 0 else 1
    t = t975(df)
    return r, r * math.exp(-t * se), r * math.exp(t * se)


def classify(lo: float, hi: float, band: float) -> str:
    """"agree", "disagree" or "inconclusive" for the interval [lo, hi] and ±band."""
    if lo >= 1 - band and hi <= 1 + band:
        return "agree"
    if hi < 1 - band or lo > 1 + band:
        return "disagree"
    return "inconclusive"


def _row(kind: str, scenario: str, name: str, metric: str, t: list[float], n: list[float], band: float,
         slack: float = 0.0) -> dict[str, Any]:
    r, lo, hi = ratio_ci(t, n)
    mean_n = sum(n) / len(n)
    b = max(band, slack / mean_n) if slack and mean_n > 0 else band
    if slack and max(t) <= slack and max(n) <= slack:
        verdict = "agree"  # a couple of events on both sides, every seed
    else:
        verdict = classify(lo, hi, b)
    return {"scenario": scenario, "kind": kind, "name": name, "metric": metric, "ns2": mean_n,
            "tcplab": sum(t) / len(t), "ratio": r, "lo": lo, "hi": hi, "band": b, "verdict": verdict}


def scenario_verdicts(scenario: str, groups: Mapping[str, Sequence[str]],
                      runs: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """The verdict rows of one scenario: ``groups`` maps a group name to its TCP flows,
    ``runs`` holds (ns-2 metrics, tcplab metrics) per seed as :func:`tcplab.ns2.run_both`
    returns them. Rows: per group goodput and timeouts, per link direction that dropped on
    either side drops."""
    rows = []
    for g, flows in sorted(groups.items()):
        for metric, band, slack in (("goodput_bps", GOODPUT_BAND, 0.0), ("timeouts", COUNT_BAND, COUNT_SLACK)):
            t = [sum(float(b["flows"][f][metric]) for f in flows) for _, b in runs]
            n = [sum(float(a["flows"][f][metric]) for f in flows) for a, _ in runs]
            rows.append(_row("group", scenario, g, metric, t, n, band, slack))
    for ln in sorted(runs[0][0]["links"]):
        t = [float(b["links"][ln]["drops"]) for _, b in runs]
        n = [float(a["links"][ln]["drops"]) for a, _ in runs]
        if max(t + n) == 0:
            continue
        rows.append(_row("link", scenario, ln, "drops", t, n, COUNT_BAND, COUNT_SLACK))
    return rows


def summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Per metric, the count of each verdict."""
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        c = out.setdefault(str(r["metric"]), {"agree": 0, "disagree": 0, "inconclusive": 0})
        c[str(r["verdict"])] += 1
    return out


def share_agree(counts: Mapping[str, int]) -> float:
    """Agreeing share of the classified (agree + disagree) rows."""
    classified = counts["agree"] + counts["disagree"]
    return counts["agree"] / classified if classified else math.nan


def flow_groups(scenario: Mapping[str, Any]) -> dict[str, list[str]]:
    """Group name -> TCP flows of an expanded scenario (a flow without ``group`` is its own)."""
    out: dict[str, list[str]] = {}
    for name, f in sorted((scenario.get("flows") or {}).items()):
        if f.get("transport", "tcp") != "tcp":
            continue
        out.setdefault(str(f.get("group") or name), []).append(name)
    return out

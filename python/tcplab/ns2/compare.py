"""Comparing ns-2.35 with tcplab: :func:`run_tcplab` computes :func:`~tcplab.ns2.run_ns2`'s
metrics from a tcplab run of the same scenario, :func:`compare` puts both side by side, and
:func:`run_both` runs both simulators."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tcplab.scenario import Scenario

from .common import FLOW_METRICS, LINK_METRICS, SAMPLE_PERIOD_S, _flow_value, _summary_stats, _window, expanded
from .run import run_ns2


def run_tcplab(scenario: Scenario | Mapping[str, Any] | str | Path, seed: int | None = None) -> dict[str, Any]:
    """Run ``scenario`` in tcplab (cwnd and queue traces every 10 ms) and return the metrics
    of :func:`run_ns2` from its outputs: goodput = summary ``goodput_bps`` (steady-state
    window); cwnd mean = mean of ``cwnd_bytes``/mss over the trace samples in the window;
    data packets, retransmits, timeouts = ``segments_sent``, ``retransmits``, ``timeouts``
    (whole run); arrivals, drops, marks = ``offered`` (less ``lost`` where the error model
    acts before the queue), ``drops``, ``marks`` (whole run);
    queue = the queue trace's ``packets`` (waiting plus in transmission) in the window."""
    import time

    from tcplab.runner import run

    sc = Scenario(expanded(scenario))
    events = list((sc.to_dict().get("metrics") or {}).get("events") or [])
    sc = sc.with_overrides({"metrics.trace": f"{SAMPLE_PERIOD_S}s",
                            "metrics.events": events + (["cwnd"] if "cwnd" not in events else [])})
    w0 = time.perf_counter()
    res = run(sc, seed=seed, progress=False)
    wall = time.perf_counter() - w0
    d = sc.to_dict()
    t0, t1 = _window(d)
    eps = 1e-9
    flows: dict[str, dict[str, Any]] = {}
    cwnd = _uninflated(res.traces.get("cwnd"), res.events)
    for f in res.summary["flows"]:
        name = f["name"]
        spec = d["flows"][name]
        if f.get("transport") == "udp":
            flows[name] = {"goodput_bps": f["goodput_bps"], "cwnd_mean": math.nan, "data_packets": f["packets_delivered"],
                           "retransmits": 0, "timeouts": 0}
            continue
        mss = int(_flow_value(spec, "mss"))
        cm = math.nan
        if cwnd is not None:
            import polars as pl

            sel = cwnd.filter((pl.col("flow") == name) & (pl.col("t") >= t0 - eps) & (pl.col("t") <= t1 + eps))
            if sel.height:
                cm = float(sel["window"].mean()) / mss
        flows[name] = {"goodput_bps": f["goodput_bps"], "cwnd_mean": cm, "data_packets": f["segments_sent"],
                       "retransmits": f["retransmits"], "timeouts": f["timeouts"]}
    links: dict[str, dict[str, Any]] = {}
    queue = res.traces.get("queue")
    for ln in res.summary["links"]:
        name = ln["name"]
        xs: list[float] = []
        if queue is not None:
            import polars as pl

            sel = queue.filter((pl.col("link") == name) & (pl.col("t") >= t0 - eps) & (pl.col("t") <= t1 + eps))
            xs = [float(x) for x in sel["packets"].to_list()]
        mean, p5, p95 = _summary_stats(xs)
        # An error model before the queue loses packets before they reach it: ns-2's queue
        # monitor, behind the error module, does not see them arrive.
        err = (d.get("links", {}).get(name) or {}).get("error")
        before = isinstance(err, Mapping) and err.get("placement") == "before_queue"
        arrivals = ln["offered"] - (ln["lost"] if before else 0)
        links[name] = {"arrivals": arrivals, "drops": ln["drops"], "marks": ln["marks"],
                       "q_mean": mean, "q_p5": p5, "q_p95": p95}
    return {"window": [t0, t1], "flows": flows, "links": links, "wall_s": wall}


def _uninflated(trace: Any, events: Any) -> Any:
    """tcplab's cwnd trace with a ``window`` column comparable to ns-2's ``cwnd_``: the
    sender's window, except during fast recovery, where tcplab's ``cwnd_bytes`` is the
    recovery window inflated by the duplicate acks and ns-2 keeps that inflation apart
    (Reno/Newreno's ``dupwnd_``, not readable from Tcl): there the window is
    min(ssthresh, cwnd_bytes). The state at each sample comes from the cwnd events."""
    if trace is None:
        return None
    import polars as pl

    tr = trace.select("flow", "t", pl.col("cwnd_bytes").cast(pl.Float64)).sort("t")
    if events is None or "state" not in events.columns:
        return tr.with_columns(pl.col("cwnd_bytes").alias("window"))
    ev = (events.filter(pl.col("event") == "cwnd")
          .select("flow", "t", "state", pl.col("ssthresh_bytes").cast(pl.Float64).alias("ssthresh"))
          .sort("t"))
    j = tr.join_asof(ev, on="t", by="flow", strategy="backward", check_sortedness=False)  # sorted by t above
    return j.with_columns(
        pl.when(pl.col("state") == "recovery")
        .then(pl.min_horizontal("ssthresh", "cwnd_bytes"))
        .otherwise(pl.col("cwnd_bytes"))
        .alias("window"))


def compare(ns2: Mapping[str, Any], tcplab: Mapping[str, Any], scenario: str = "") -> list[dict[str, Any]]:
    """Rows side by side: one per flow and metric, one per link direction and metric:
    ``{"scenario", "kind" ("flow"/"link"), "name", "metric", "ns2", "tcplab", "ratio"}``
    (ratio = tcplab / ns-2; NaN when ns-2's value is 0 and tcplab's not; 1 when both 0)."""
    rows: list[dict[str, Any]] = []
    for kind, metrics in (("flow", FLOW_METRICS), ("link", LINK_METRICS)):
        a, b = ns2[f"{kind}s"], tcplab[f"{kind}s"]
        for name in sorted(set(a) | set(b)):
            for m in metrics:
                x = a.get(name, {}).get(m, math.nan)
                y = b.get(name, {}).get(m, math.nan)
                if x == 0 and y == 0:
                    r = 1.0
                elif x == 0 or x is None or y is None or (isinstance(x, float) and math.isnan(x)):
                    r = math.nan
                else:
                    r = y / x
                rows.append({"scenario": scenario, "kind": kind, "name": name, "metric": m, "ns2": x,
                             "tcplab": y, "ratio": r})
    return rows


def run_both(scenario: Scenario | Mapping[str, Any] | str | Path, seed: int,
             out_dir: str | Path | None = None, timeout_s: float = 600.0,
             ns2_defaults: bool = False, samples: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
    """(ns-2 metrics, tcplab metrics) of one scenario and seed; ``ns2_defaults``: ns-2 at its
    own defaults where the scenario states nothing (the script is written from the scenario
    as written, :func:`~tcplab.ns2.translate.stated`)."""
    sc = expanded(scenario)
    ns2 = run_ns2(scenario if ns2_defaults else sc, seed, out_dir, timeout_s, ns2_defaults=ns2_defaults,
                  samples=samples)
    return ns2, run_tcplab(sc, seed)

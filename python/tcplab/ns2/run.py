"""Running ns-2.35: :func:`run_ns2` (the cross-check's metrics) and :func:`run_ns2_result` (a
tcplab-shaped :class:`~tcplab.results.Result`, ``tcplab reproduce --engine ns2``) translate
a scenario, execute ``ns`` on it and read its JSON back."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from tcplab.analysis import jain
from tcplab.results import INTERVAL_SCHEMA, Result
from tcplab.scenario import Scenario

from .agents import _SLOWDOWN_AGENTS
from .common import Ns2Error, _flow_value, _rate_bps, _seconds, _summary_stats, _tcp_header, _variant, expanded
from .translate import Ns2Script, translate

INTERVAL_COLUMNS = tuple(INTERVAL_SCHEMA)


def ns2_available() -> str | None:
    """The path of ns-2's ``ns`` binary, or None."""
    return shutil.which("ns")


def run_ns2(scenario: Scenario | Mapping[str, Any] | str | Path, seed: int | None = None,
            out_dir: str | Path | None = None, timeout_s: float = 600.0,
            ns2_defaults: bool = False, samples: bool = True) -> dict[str, Any]:
    """Translate ``scenario``, run ``ns`` on it (at most ``timeout_s`` wall seconds) and
    return the metrics: ``{"window": [t0, t1], "flows": {name: {...}}, "links": {name:
    {...}}, "notes": [...], "wall_s": ...}``. The script and its JSON stay in ``out_dir``
    (a temporary directory when None). ``ns2_defaults``: ns-2 at its own defaults where the
    scenario states nothing (:func:`~tcplab.ns2.translate.translate`). Raises
    :class:`Ns2Unsupported` or :class:`Ns2Error`."""
    script = translate(scenario, seed, out_json="ns2_result.json", ns2_defaults=ns2_defaults, samples=samples)
    raw, wall = _execute(script, out_dir, timeout_s)
    return _ns2_metrics(script, raw, wall)


def run_ns2_result(scenario: Scenario | Mapping[str, Any] | str | Path, seed: int | None = None,
                   out_dir: str | Path | None = None, timeout_s: float = 3600.0) -> Result:
    """Run ``scenario`` in ns-2.35 and return a tcplab-shaped :class:`~tcplab.results.Result`
    (what ``tcplab reproduce --engine ns2`` tabulates; docs/crosscheck.md, "ns-2.35 as an
    engine" has each key's ns-2 source). ``out_dir`` keeps ``scenario.tcl`` and ns-2's JSON.
    Raises :class:`Ns2Unsupported` or :class:`Ns2Error`."""
    sc = expanded(scenario)
    if seed is not None:
        sc["seed"] = int(seed)
    script = translate(sc, seed, out_json="ns2_result.json", samples=False)
    raw, wall = _execute(script, out_dir, timeout_s)
    return ns2_result(sc, script, raw, wall)


def _execute(script: Ns2Script, out_dir: str | Path | None, timeout_s: float) -> tuple[dict[str, Any], float]:
    import time

    binary = ns2_available()
    if binary is None:
        raise Ns2Error("ns-2 is not installed: `apt-get install -y ns2` (Debian/Ubuntu) gives /usr/bin/ns")
    with tempfile.TemporaryDirectory(prefix="tcplab-ns2-") as tmp:
        d = Path(out_dir) if out_dir is not None else Path(tmp)
        d.mkdir(parents=True, exist_ok=True)
        (d / "scenario.tcl").write_text(script.otcl)
        (d / "ns2_result.json").unlink(missing_ok=True)
        w0 = time.perf_counter()
        try:
            proc = subprocess.run([binary, "scenario.tcl"], cwd=d, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise Ns2Error(f"ns-2 ran longer than {timeout_s:g} s on {d / 'scenario.tcl'}") from None
        wall = time.perf_counter() - w0
        res = d / "ns2_result.json"
        if proc.returncode != 0 or not res.exists():
            tail = (proc.stderr or proc.stdout).strip().splitlines()
            msg = tail[0] if tail else f"exit status {proc.returncode}"
            raise Ns2Error(f"ns-2 failed on {d / 'scenario.tcl'}: {msg}")
        raw = json.loads(res.read_text())
    return raw, wall


def ns2_result(sc: Mapping[str, Any], script: Ns2Script, raw: Mapping[str, Any], wall: float) -> Result:
    """A tcplab-shaped result from ns-2's JSON (see :func:`run_ns2_result`). Definitions,
    as close to docs/outputs.md as ns-2's counters allow:

    * TCP goodput: the sender's cumulative ack (``ack_``) advanced over the window, times
      the mss (in-order data delivered, as the sender learns it: half a round trip after
      tcplab's receiver-side count); throughput: the same segments at ``mss + header``.
    * UDP goodput / throughput: the sink's (LossMonitor) ``bytes_``, net of / with headers.
    * Per interval (``metrics.interval`` from t = 0): the same counters' differences; the
      window at the interval's end (``cwnd_``, capped by ``window_``) times the mss; the
      smoothed RTT at the interval's end (``srtt_``, in whole ``tcpTick_`` units; NaN before
      the first sample).
    * ``fast_retransmits`` (Reno, Newreno and Sack1 agents): ``ncwndcuts1_ − nrexmit_ −
      necnresponses_``.
    * Links: ``offered``, ``drops``, ``marks`` from the queue monitor over the whole run,
      ``steady_*`` over the window; utilisation from ``bdepartures_`` (bytes sent)."""
    t0, t1 = script.window
    span = t1 - t0
    duration = _seconds(sc["duration"])
    interval = _seconds((sc.get("metrics") or {}).get("interval", "1s"))
    links_sc = sc.get("links", {})
    rate = {n: _rate_bps(lk["rate"]) for n, lk in links_sc.items()}
    flows_out: list[dict[str, Any]] = []
    rows: dict[str, list[Any]] = {c: [] for c in INTERVAL_COLUMNS}
    for i, name in enumerate(script.flows):
        f = sc["flows"][name]
        r = raw["flows"][str(i)]
        tcp = script.transport[name] == "tcp"
        eff_link = f.get("efficiency_link") or next(
            (n for n, lk in sorted(links_sc.items()) if lk["from"] == f["from"]), None)
        eff_rate = rate.get(eff_link or "", math.nan)
        app_type, app = _variant(f.get("app"), "type", "bulk")
        start = _seconds(app.get("start", 0))
        stop = _seconds(app["stop"]) if app.get("stop") is not None else math.inf
        if tcp:
            mss = int(_flow_value(f, "mss"))
            wire = mss + _tcp_header(f)
            per_unit, wire_per_unit = mss, wire  # per segment acked
            c0, c1, series = r["ack0"], r["ack1"], r["iack"]
        else:
            per_unit = script.payload[name] / script.wire[name]
            wire_per_unit = 1.0  # per byte on the wire
            c0, c1, series = r["bytes0"], r["bytes1"], r["ibytes"]
        good = (c1 - c0) * per_unit * 8 / span if span > 0 else math.nan
        thr = (c1 - c0) * wire_per_unit * 8 / span if span > 0 else math.nan
        # the window at the end of each interval that ends in the steady-state window
        cw = [w for k, w in enumerate(r.get("icw") or []) if k * interval > t0 + 1e-9]
        # Fast retransmits: the agent's window cuts with data outstanding (`ncwndcuts1_`,
        # tcp.cc `slowdown()`) less its timeouts (`nrexmit_`) and ECN responses
        # (`necnresponses_`): the agents whose fast retransmit goes through `slowdown()`.
        fr = {}
        if tcp and script.agents.get(name) in _SLOWDOWN_AGENTS and "cuts1" in r:
            fr = {"fast_retransmits": r["cuts1"] - r["timeouts"] - r.get("ecn_cuts", 0)}
        # The smoothed RTT at each interval's end: `t_srtt_` in ticks << T_SRTT_BITS (tcp.cc).
        srtt = [(v >> r["srtt_bits"]) * r["tick"] if v > 0 else math.nan for v in r.get("isr") or []] if tcp else []
        # The steady window's mean RTT: the mean of those interval-end smoothed RTTs (ns-2
        # keeps no per-ack samples; tcplab's `mean_rtt_s` averages every ack's RTT).
        st = [x for k, x in enumerate(srtt) if k * interval > t0 + 1e-9 and not math.isnan(x)]
        rtt = {"mean_rtt_s": sum(st) / len(st)} if st else {}
        flows_out.append({
            "name": name, "from": f["from"], "to": f["to"],
            # "cc" only on TCP flows, as tcplab's summary (tcplab.repro.metrics picks TCP flows by it)
            **({"cc": _variant(f.get("cc"), "algorithm", "newreno")[0]} if tcp else {}),
            "transport": script.transport[name], "goodput_bps": good, "throughput_bps": thr,
            "efficiency": thr / eff_rate if eff_rate else math.nan, "efficiency_link": eff_link,
            "segments_sent": r.get("data_packets", r.get("packets")), "retransmits": r.get("retransmits", 0),
            "timeouts": r.get("timeouts", 0), **fr, **rtt,
            "mean_cwnd_bytes": (sum(cw) / len(cw) * int(_flow_value(f, "mss"))) if tcp and cw else None,
            "group": f.get("group"),
        })
        icw = r.get("icw") or []
        for k in range(min(len(series) - 1, int(math.ceil(duration / interval - 1e-9)))):
            a, b = k * interval, min((k + 1) * interval, duration)
            n = series[k + 1] - series[k]
            rows["flow"].append(name)
            rows["t_start"].append(a)
            rows["t_end"].append(b)
            rows["goodput_bps"].append(n * per_unit * 8 / (b - a))
            tp = n * wire_per_unit * 8 / (b - a)
            rows["throughput_bps"].append(tp)
            rows["efficiency"].append(tp / eff_rate if eff_rate else math.nan)
            rows["cwnd_bytes"].append(int(icw[k + 1] * int(_flow_value(f, "mss"))) if tcp and k + 1 < len(icw) else 0)
            rows["srtt_s"].append(srtt[k + 1] if k + 1 < len(srtt) else math.nan)
            rows["active"].append(max(0.0, min(b, stop) - max(a, start)) / (b - a))
    links_out: list[dict[str, Any]] = []
    for j, name in enumerate(script.links):
        r = raw["links"][str(j)]
        lk = links_sc[name]
        a0, d0, m0, b0 = r["at0"]
        steady_arr = r["arrivals"] - a0
        links_out.append({
            "name": name, "from": lk["from"], "to": lk["to"], "rate_bps": rate[name],
            "delay_s": _seconds(lk.get("delay", 0)), "queue": _variant(lk.get("queue"), "type", "droptail")[0],
            "offered": r["arrivals"], "drops": r["drops"], "marks": r["marks"],
            "steady_drops": r["drops"] - d0, "steady_marks": r["marks"] - m0,
            "steady_drop_rate": (r["drops"] - d0) / steady_arr if steady_arr else 0.0,
            "steady_mark_rate": (r["marks"] - m0) / steady_arr if steady_arr else 0.0,
            "utilization": r["bdep"] * 8 / (rate[name] * duration) if duration > 0 else math.nan,
            "steady_utilization": (r["bdep"] - b0) * 8 / (rate[name] * span) if span > 0 else math.nan,
        })
    tcp_good = [f["goodput_bps"] for f in flows_out if f["transport"] == "tcp"]
    groups: dict[str, dict[str, Any]] = {}
    for f in flows_out:
        if f["group"] is not None:
            groups.setdefault(str(f["group"]), {"rates": []})["rates"].append(f["goodput_bps"])
    stochastic = any((lk.get("error") or lk.get("loss")) for lk in links_sc.values()) or any(
        _variant(f.get("app"), "type", "bulk")[0] == "onoff" for f in sc["flows"].values())
    summary = {
        "engine": "ns-2.35",
        "run": {"engine": "ns-2.35", "sim_seconds": duration, "steady_start_s": t0, "stochastic": bool(stochastic),
                "wall_seconds": wall, "events": None, "packets_dropped": sum(lk["drops"] for lk in links_out)},
        "seed": int(sc.get("seed", 1)),
        "flows": flows_out,
        "links": links_out,
        "fairness": {"jain": jain(tcp_good), "flows": len(tcp_good),
                     "groups": {g: {"jain": jain(v["rates"]), "flows": len(v["rates"]), "goodput_bps": sum(v["rates"])}
                                for g, v in sorted(groups.items())}},
        "analysis": {},
        "pcap": [],
        "scenario": str(sc.get("name", "")),
        "warnings": list(script.notes),
    }
    if script.outages:  # as tcplab's summary (tcplab.repro.metrics.post_outage reads them)
        summary["outages"] = {k: {"periods": v, "truncated": False} for k, v in script.outages.items()}
    intervals = pl.DataFrame(rows, schema=INTERVAL_SCHEMA)
    return Result(summary, intervals)


def _ns2_metrics(script: Ns2Script, raw: Mapping[str, Any], wall: float) -> dict[str, Any]:
    t0, t1 = script.window
    span = t1 - t0
    flows: dict[str, dict[str, Any]] = {}
    for i, name in enumerate(script.flows):
        r = raw["flows"][str(i)]
        if script.transport[name] == "tcp":
            cw = r["cwnd"]
            flows[name] = {
                "goodput_bps": (r["ack1"] - r["ack0"]) * script.payload[name] * 8 / span if span > 0 else math.nan,
                "cwnd_mean": sum(cw) / len(cw) if cw else math.nan,
                "data_packets": r["data_packets"],
                "retransmits": r["retransmits"],
                "timeouts": r["timeouts"],
            }
        else:
            # LossMonitor counts whole packets (payload + header) in bytes_; goodput is payload.
            share = script.payload[name] / script.wire[name]
            flows[name] = {"goodput_bps": (r["bytes1"] - r["bytes0"]) * share * 8 / span if span > 0 else math.nan,
                           "cwnd_mean": math.nan, "data_packets": r["packets"], "retransmits": 0, "timeouts": 0}
    links: dict[str, dict[str, Any]] = {}
    for j, name in enumerate(script.links):
        r = raw["links"][str(j)]
        mean, p5, p95 = _summary_stats(r["q"])
        links[name] = {"arrivals": r["arrivals"], "drops": r["drops"], "marks": r["marks"],
                       "q_mean": mean, "q_p5": p5, "q_p95": p95}
    return {"window": [t0, t1], "flows": flows, "links": links, "notes": script.notes, "wall_s": wall}

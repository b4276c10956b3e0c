"""Flow lists and per-run metrics of seed 004's runs (the manifest's ``vary_fn`` and
``python:`` metrics).

``mixed(x, seed, tcpx, n, ...)``: ``x`` flows (or ``n``), half NewReno (group ``nr``, names
``nr1``...) and half ``tcpx`` (group ``x``, names ``x1``...); ``tcpx = "newreno"`` gives the
all-NewReno run of an efficiency/friendliness pair (run (a) of X-EF: the "x" half is then
NewReno too). Starts: U[0, ``jitter``] s per flow from a stream seeded by (seed, x), the same
for every protocol of one seed (common random numbers).
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tcplab.results import Result

#: The deck's protocols as cc tables (choices in cc/westwood.rs).
CC: dict[str, Any] = {
    "newreno": "newreno",
    "be": {"algorithm": "westwood", "estimator": "be"},
    "re": {"algorithm": "westwood", "estimator": "re"},
    "crb": {"algorithm": "westwood", "estimator": "crb"},
    "abse": {"algorithm": "westwood", "estimator": "abse"},
    # TCPW-A: ABSE with Agile Probing and PNCD (the deck pairs them).
    "tcpw_a": {"algorithm": "westwood", "estimator": "abse", "agile_probing": True, "pncd": True},
    "vegas": "vegas",
    "fast": "fast",
}


def mixed(x: float, seed: int, tcpx: str = "be", n: int | None = None, jitter: float = 1.0,
          cc_args: dict[str, Any] | None = None) -> dict[str, Any]:
    total = int(x if n is None else n)
    if total < 2 or total % 2:
        raise ValueError(f"an even number of flows >= 2, got {total}")
    if tcpx not in CC:
        raise ValueError(f"tcpx: one of {', '.join(CC)}, got {tcpx!r}")
    cc = CC[tcpx]
    if cc_args:
        cc = {**({"algorithm": cc} if isinstance(cc, str) else cc), **cc_args}
    rng = random.Random(f"westwood-{seed}-{total}")
    starts = [rng.uniform(0.0, jitter) for _ in range(total)]
    half = total // 2
    out = [{"name": f"nr{i + 1}", "cc": "newreno", "group": "nr", "app": {"type": "bulk", "start": f"{starts[2 * i]:.6f}s"}}
           for i in range(half)]
    out += [{"name": f"x{i + 1}", "cc": cc, "group": "x", "app": {"type": "bulk", "start": f"{starts[2 * i + 1]:.6f}s"}}
            for i in range(half)]
    return {"dumbbell.flows": out}


#: E004-S-CTRLFRIEND: the swept ABSE maps (``abse_threshold`` θ, ``abse_slope`` s), i.e.
#: T_k = Δt_k if γ < θ, else clamp(s·RTT·γ, Δt_k, RTT) (cc/westwood.rs). (0.28, 1) is the
#: deck's map (the defaults).
ABSE_MAPS: list[tuple[float, float]] = [(th, s) for th in (0.1, 0.28, 0.5) for s in (0.5, 1.0, 2.0)]
ABSE_DEFAULT_MAP = (0.28, 1.0)


def abse_aggressiveness(threshold: float, slope: float) -> float:
    """The aggressiveness index of an ABSE map: ``a = 1 − ∫_0^1 T(γ)/RTT dγ`` with
    ``T(γ)/RTT = 0`` below the threshold (one inter-ack interval, taken as ≪ RTT) and
    ``min(1, slope·γ)`` above it: one minus the map's mean sample width (in RTTs) over the
    congestion levels γ ∈ [0, 1] (weighted uniformly). A shorter sample interval is more
    packet-pair-like (BE: "overestimates under congestion"), a longer one more RE-like
    (the achieved rate), and ERE sets ssthresh = ERE·RTT_min after a loss, so a shorter
    map is the more aggressive (less friendly) one. ``a`` grows with the threshold and
    falls with the slope, and orders every pair of maps one of which is pointwise shorter
    (θ ≥ θ' and s ≤ s') the same way; it also orders maps that cross (e.g. (0.5, 2) and
    (0.1, 1)), which the pointwise order leaves unordered."""
    if not (0.0 <= threshold < 1.0 and slope > 0.0):
        raise ValueError(f"threshold in [0, 1) and slope > 0, got ({threshold}, {slope})")
    k = 1.0 / slope  # min(1, s·γ) = 1 from γ = 1/s on
    if k <= threshold:
        width = 1.0 - threshold
    elif k >= 1.0:
        width = slope * (1.0 - threshold ** 2) / 2.0
    else:
        width = slope * (k ** 2 - threshold ** 2) / 2.0 + (1.0 - k)
    return 1.0 - width


def abse_map(x: float, seed: int, n: int, tcpx: str = "abse", jitter: float = 1.0) -> dict[str, Any]:
    """E004-S-CTRLFRIEND: ``mixed(n flows)`` whose TCPx is ABSE with the map of
    :data:`ABSE_MAPS` whose aggressiveness index (:func:`abse_aggressiveness`, rounded to
    4 decimals) is ``x``. The deck's map (0.28, 1) is the plain ``abse`` table, so its runs
    are the E/F figures' own; ``tcpx = "newreno"`` ignores ``x`` (the all-NewReno run of
    the pair, the same for every map)."""
    if tcpx == "newreno":
        return mixed(x, seed, tcpx="newreno", n=n, jitter=jitter)
    if tcpx != "abse":
        raise ValueError(f"tcpx: abse or newreno, got {tcpx!r}")
    found = [m for m in ABSE_MAPS if abs(abse_aggressiveness(*m) - x) < 5e-5]
    if not found:
        known = ", ".join(f"{abse_aggressiveness(*m):.4f}" for m in ABSE_MAPS)
        raise ValueError(f"x = {x}: not the aggressiveness of a swept ABSE map ({known})")
    th, s = found[0]
    args = None if (th, s) == ABSE_DEFAULT_MAP else {"abse_threshold": th, "abse_slope": s}
    return mixed(x, seed, tcpx="abse", n=n, jitter=jitter, cc_args=args)


def randflows(x: float, seed: int, tcpx: str = "newreno", n: int = 100, lifetime: float = 30.0,
              span: float = 600.0, pairs: int = 20) -> dict[str, Any]:
    """T-RANDFLOWS (seed 004's dynamic load): ``n`` bulk flows of protocol ``tcpx``, each
    sending for ``lifetime`` s from a start uniform in [0, ``span`` - ``lifetime``] s, flow i
    on the dumbbell's pair i mod ``pairs`` (+1). The
    starts come from a stream seeded by (seed, n) only, so both protocols of one seed and every
    ``x`` see the same arrivals (common random numbers)."""
    if n < 1:
        raise ValueError(f"n: at least one flow, got {n}")
    if not 0 < lifetime <= span:
        raise ValueError(f"lifetime: in (0, span = {span}] s, got {lifetime}")
    if tcpx not in CC:
        raise ValueError(f"tcpx: one of {', '.join(CC)}, got {tcpx!r}")
    rng = random.Random(f"westwood-randflows-{seed}-{n}")
    starts = sorted(rng.uniform(0.0, span - lifetime) for _ in range(n))
    flows = [{"name": f"r{i + 1}", "cc": CC[tcpx], "pair": i % pairs + 1,
              "app": {"type": "bulk", "start": f"{t:.6f}s", "stop": f"{t + lifetime:.6f}s"}}
             for i, t in enumerate(starts)]
    return {"dumbbell.flows": flows}


#: E004-S-FAIR's round trips: "different RTTs" (the deck gives none), ten values 20-200 ms.
FAIR_RTTS_MS: tuple[int, ...] = tuple(range(20, 201, 20))


def fair(x: float, seed: int, tcpx: str = "be", jitter: float = 1.0) -> dict[str, Any]:
    """E004-S-FAIR: ten flows of one protocol ``tcpx`` (all TCPW-BE, or all NewReno: separate
    runs), flow i on host pair i with propagation round trip ``FAIR_RTTS_MS[i]``, the
    bottleneck buffer ``x`` BDPs (of the longest round trip, docs/scenarios.md), starts
    U[0, ``jitter``] s from a stream seeded by the seed only (the same for both protocols and
    every buffer: common random numbers). The bottleneck's one-way delay is 5 ms so that the
    20-ms pair fits (path.toml's)."""
    if tcpx not in CC:
        raise ValueError(f"tcpx: one of {', '.join(CC)}, got {tcpx!r}")
    if x <= 0:
        raise ValueError(f"x: a buffer of more than 0 BDPs, got {x}")
    n = len(FAIR_RTTS_MS)
    rng = random.Random(f"westwood-fair-{seed}")
    starts = [rng.uniform(0.0, jitter) for _ in range(n)]
    flows = [{"name": f"f{i + 1}", "cc": CC[tcpx], "group": "x", "pair": i + 1,
              "app": {"type": "bulk", "start": f"{starts[i]:.6f}s"}} for i in range(n)]
    return {"dumbbell.flows": flows, "dumbbell.pairs": n, "dumbbell.rtt": [f"{r}ms" for r in FAIR_RTTS_MS],
            "dumbbell.bottleneck.delay": "5ms", "dumbbell.bottleneck.buffer": f"{x:g}bdp"}


def meas(x: float, seed: int, tcpx: str = "tcpw_a", cross: int = 4, jitter: float = 1.0) -> dict[str, Any]:
    """E004-S-MEAS panel 2 (the FreeBSD slide, simulated): one test flow ``w`` of protocol
    ``tcpx`` sharing the bottleneck with ``cross`` NewReno flows (group ``nr``) that stop at
    ``x`` s (the load drop). Every flow starts U[0, ``jitter``] s, from a stream seeded by the
    seed only, so both protocols of one seed see the same cross traffic."""
    if tcpx not in CC:
        raise ValueError(f"tcpx: one of {', '.join(CC)}, got {tcpx!r}")
    if cross < 1:
        raise ValueError(f"cross: at least one cross flow, got {cross}")
    rng = random.Random(f"westwood-meas-{seed}-{cross}")
    starts = [rng.uniform(0.0, jitter) for _ in range(cross + 1)]
    flows = [{"name": "w", "cc": CC[tcpx], "group": "x", "app": {"type": "bulk", "start": f"{starts[0]:.6f}s"}}]
    flows += [{"name": f"nr{i + 1}", "cc": "newreno", "group": "nr",
               "app": {"type": "bulk", "start": f"{starts[i + 1]:.6f}s", "stop": f"{x:g}s"}} for i in range(cross)]
    return {"dumbbell.flows": flows}


def probing_delay(res: Result, flow: str = "w", t_drop: float = 60.0, rtt_s: float = 0.1) -> float:
    """E004-S-MEAS: round trips (of ``rtt_s``, the propagation round trip) from the load drop
    at ``t_drop`` to PNCD's firing: the first step of ``cc_aprobe`` from 0 to 1 in the cwnd
    trace at or after the drop (the sample before the drop counts as the step's start). A
    flow already in Agile Probing at the drop that stays there gives PNCD nothing to do; it
    is censored at the run's end (a lower bound), as is one whose PNCD never fires."""
    import polars as pl

    tr = res.traces.get("cwnd")
    if tr is None:
        raise ValueError("the run has no cwnd trace (metrics.trace)")
    d = tr.filter(pl.col("flow") == flow).sort("t")
    before = d.filter(pl.col("t") < t_drop).tail(1)
    after = d.filter(pl.col("t") >= t_drop)
    ap = pl.concat([before, after])["cc_aprobe"].to_list()
    ts = pl.concat([before, after])["t"].to_list()
    t = next((ts[i] for i in range(1, len(ap)) if ap[i - 1] == 0 and ap[i] >= 1),
             float(res.summary["run"]["sim_seconds"]))
    return (max(t, t_drop) - t_drop) / rtt_s


def time_to_freed_share(res: Result, flow: str = "w", t_drop: float = 60.0, fraction: float = 0.8,
                        capacity_bps: float = 10e6, before_s: float = 20.0) -> float:
    """E004-S-MEAS: seconds from the load drop at ``t_drop`` until ``flow``'s goodput in one
    interval of the per-interval series first reaches its mean over the ``before_s`` seconds
    before the drop plus ``fraction`` of the capacity the drop freed (the bottleneck's payload
    rate, ``capacity_bps`` x 1000/1040, minus that mean), counted to the end of that
    interval. A flow that never gets there is censored at the run's end (a lower bound)."""
    import polars as pl

    iv = res.intervals.filter(pl.col("flow") == flow)
    pre = iv.filter((pl.col("t_start") >= t_drop - before_s) & (pl.col("t_end") <= t_drop))["goodput_bps"]
    if pre.len() == 0:
        raise ValueError(f"no interval of flow '{flow}' in the {before_s} s before {t_drop} s")
    before = float(pre.mean())  # type: ignore[arg-type]
    target = before + fraction * (capacity_bps * 1000 / 1040 - before)
    d = iv.filter((pl.col("t_start") >= t_drop) & (pl.col("goodput_bps") >= target)).sort("t_start")
    t = float(d["t_end"][0]) if d.height else float(res.summary["run"]["sim_seconds"])
    return t - t_drop


def dispersion(x: float, seed: int, vary: str = "load", load: float = 0.8, length: int = 2,
               post: bool = True, trains: int = 1000) -> dict[str, Any]:
    """E004-S-HIST-PP / -HIST-TRAIN (dispersion.toml): ``x`` is the cross traffic's load
    (``vary = "load"``) or the train length (``vary = "length"``). Each hop's Poisson cross
    flow sends ``load`` of the hop's capacity (100, 10, 100 Mb/s); ``post = False`` leaves
    the hop after the narrow link without cross traffic (no post-narrow compression). The
    probe writes ``trains`` trains of ``length`` packets, one every 50 ms + 12 ms per packet
    (ten times a train's time on the 10-Mb/s narrow link, so that the probe adds at most 10 %
    of its capacity), from 1 s; the run lasts until 0.5 s after the last. The cross traffic's
    stream is the seed's (``seed`` sets the scenario seed)."""
    if vary == "load":
        load = x
    elif vary == "length":
        length = int(x)
    else:
        raise ValueError(f"vary: 'load' or 'length', got {vary!r}")
    if not 0 <= load < 1:
        raise ValueError(f"load: in [0, 1), got {load}")
    if length < 2:
        raise ValueError(f"length: at least 2 packets (a pair), got {length}")
    interval_ms = 50 + 12 * length
    rates = {"x1": 100e6 * load, "x2": 10e6 * load, "x3": 100e6 * load if post else 0.0}
    out: dict[str, Any] = {"seed": seed, "flows.pp.app.length": length, "flows.pp.app.interval": f"{interval_ms}ms",
                           "duration": f"{1 + trains * interval_ms / 1000 + 0.5:g}s"}
    for name, bps in rates.items():
        if bps > 0:
            out[f"flows.{name}.app.rate"] = f"{bps:.0f}bps"
        else:  # no cross traffic on this hop: the flow never starts
            out[f"flows.{name}.app.start"] = f"{1 + trains * interval_ms / 1000 + 0.5:g}s"
    return out


def dispersion_estimates(res: Result, flow: str = "pp", size: int = 1500, capacity_bps: float = 10e6,
                         tolerance: float = 0.05) -> dict[str, Any]:
    """The bandwidth estimates of the probe ``flow``'s complete trains: the packets written
    at one instant (same send time, ``t − rtt_s`` of probes.parquet, to the nanosecond) are
    a train, the most packets any instant has is the train length N, and a train of which
    all N came back gives (N − 1)·``size``·8/Δ, Δ = the time between its first and last
    arrivals (send time + ``forward_s``; ``size``: wire bytes per packet). Returns
    ``samples`` (every estimate, Mb/s), ``mean`` (Mb/s: for long trains Dovrolis et al.'s
    asymptotic dispersion rate, ADR), ``median``, and the fractions of estimates within
    ``tolerance`` of the narrow link's ``capacity_bps`` (``capacity``), below that band
    (``scdr``, the sub-capacity dispersion range) and above it (``pncm``, post-narrow
    capacity modes)."""
    import polars as pl

    p = res.probes.filter(pl.col("flow") == flow)
    if p.height == 0:
        raise ValueError(f"flow '{flow}' has no echoed probes (echo = true)")
    p = p.with_columns(sent=((pl.col("t") - pl.col("rtt_s")) * 1e9).round(0),
                       arrival=pl.col("t") - pl.col("rtt_s") + pl.col("forward_s"))
    trains = p.group_by("sent").agg(pl.col("seq").min().alias("first"), pl.col("seq").max().alias("last"),
                                    pl.len().alias("n"), pl.col("arrival").sort_by("seq").first().alias("a0"),
                                    pl.col("arrival").sort_by("seq").last().alias("a1"))
    n = int(trains["n"].max())  # type: ignore[arg-type]
    if n < 2:
        raise ValueError(f"flow '{flow}': its writes are single packets, not pairs or trains")
    full = trains.filter((pl.col("n") == n) & (pl.col("last") - pl.col("first") == n - 1) & (pl.col("a1") > pl.col("a0")))
    est = ((n - 1) * size * 8 / (full["a1"] - full["a0"]) / 1e6).to_list()
    if not est:
        raise ValueError(f"flow '{flow}': no complete train was echoed")
    c = capacity_bps / 1e6
    m = len(est)
    srt = sorted(est)
    # fsum: the mean must not depend on the order of `trains`' rows, which a hash group-by
    # does not fix (a plain sum moved in the last digit between runs of the same scenario).
    return {"samples": srt, "mean": math.fsum(est) / m, "median": srt[m // 2], "trains": m, "length": n,
            "capacity": sum(1 for e in est if abs(e / c - 1) <= tolerance) / m,
            "scdr": sum(1 for e in est if e < c * (1 - tolerance)) / m,
            "pncm": sum(1 for e in est if e > c * (1 + tolerance)) / m}


def goodput_utilization(res: Result, link: str = "bn") -> float:
    """Every flow's goodput together over the bottleneck ``link``'s rate (both over the
    steady window)."""
    rate = next(lk["rate_bps"] for lk in res.summary["links"] if lk["name"] == link)
    return sum(f["goodput_bps"] for f in res.summary["flows"]) / rate


def _goodputs(res: Result, group: str) -> list[float]:
    return [f["goodput_bps"] for f in res.summary["flows"] if f.get("group") == group]


def group_mean(res: Result, group: str) -> float:
    """Mean steady-state goodput (b/s) of the flows labelled ``group``."""
    g = _goodputs(res, group)
    if not g:
        raise ValueError(f"no flow in group '{group}'")
    return sum(g) / len(g)


def group_ratio(res: Result, a: str = "x", b: str = "nr") -> float:
    """Mean goodput of group ``a`` over mean goodput of group ``b`` (same run)."""
    den = group_mean(res, b)
    return group_mean(res, a) / den if den else float("inf")


def _trace(res: Result, flow: str, t0: float | None) -> Any:
    import polars as pl

    if t0 is None:
        t0 = float(res.summary["run"]["steady_start_s"])
    tr = res.traces.get("cwnd")
    if tr is None:
        raise ValueError("the run has no cwnd trace (metrics.trace)")
    d = tr.filter((pl.col("flow") == flow) & (pl.col("t") >= t0))
    if d.height == 0:
        raise ValueError(f"no trace samples of flow '{flow}' after {t0} s")
    return d


def time_to_window(res: Result, flow: str = "w", fraction: float = 0.9, capacity_bps: float = 40e6,
                   rtt_s: float = 0.1, mss: int = 1000, header: int = 40) -> float:
    """Simulated time at which the flow's congestion window (cwnd trace) first reaches
    ``fraction`` of the path's BDP in packets, ``capacity_bps`` x ``rtt_s`` over the data
    packets' wire size (``mss + header``): E004-S-APROBE's "time to reach 90 % of BDP" for
    a flow that starts at 0 (path.toml's). A window that never gets there is censored at
    the run's length (a lower bound: a ratio against it errs towards 1)."""
    import polars as pl

    tr = res.traces.get("cwnd")
    if tr is None:
        raise ValueError("the run has no cwnd trace (metrics.trace)")
    bdp_packets = capacity_bps * rtt_s / (8 * (mss + header))
    d = tr.filter((pl.col("flow") == flow) & (pl.col("cwnd_bytes") >= fraction * bdp_packets * mss)).sort("t")
    return float(d["t"][0]) if d.height else float(res.summary["run"]["sim_seconds"])


def trace_mean(res: Result, flow: str, column: str, t0: float | None = None) -> float:
    """Mean of a cwnd-trace column (e.g. ``cc_be_bps``) of ``flow`` over samples at t >= t0
    (default: the run's steady-state start)."""
    d = _trace(res, flow, t0)
    return float(d[column].mean())  # type: ignore[arg-type]


def estimates(res: Result, flow: str = "w", other: str = "nr", capacity_bps: float = 5e6,
              t0: float | None = None) -> dict[str, float]:
    """Seed 004's "BE and RE comparison": mean BE and RE of the TCPW flow ``flow`` (b/s of
    payload, trace samples at t >= t0, default the steady-state start), the payload capacity minus ``other``'s goodput (the
    slide's error-panel "fair share"), and the ratios of each
    estimate to that share; ``gap`` = the congestion measure's mean relative gap
    (cwnd − RTT_min·RE)/cwnd (E004-S-CMEASURE)."""
    d = _trace(res, flow, t0)
    be = float(d["cc_be_bps"].mean())  # type: ignore[arg-type]
    re_ = float(d["cc_re_bps"].mean())  # type: ignore[arg-type]
    flows = {f["name"]: f for f in res.summary["flows"]}
    payload = capacity_bps * 1000 / 1040  # 1000-B segments + 40-B headers (pair.toml)
    share = payload - flows[other]["goodput_bps"] if other in flows else payload
    cw = d["cwnd_bytes"].cast(float)
    gap = ((cw - d["cc_rtt_min_s"] * d["cc_re_bps"] / 8.0) / cw).drop_nans().drop_nulls()
    dist_be, dist_re = abs(be / share - 1.0), abs(re_ / share - 1.0)
    return {"be": be, "re": re_, "share": share, "be_share": be / share, "re_share": re_ / share,
            "closer": dist_re / dist_be if dist_be else float("inf"),
            "be_re": be / re_ if re_ else float("inf"), "gap": float(gap.mean())}  # type: ignore[arg-type]

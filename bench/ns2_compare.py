#!/usr/bin/env python3
"""tcplab beside ns-2.35 on the cross-check scenarios (docs/crosscheck.md, "ns-2.35").

    python bench/ns2_compare.py [--only NAME,...] [--seeds N] [--quick] [--match] [--json FILE]
                                [--set KEY=VALUE]... [--markdown FILE] [--out DIR] [--list]
    python bench/ns2_compare.py --random N [--gen-seed S] [--seeds N] [--json FILE]

--random N runs N scenarios of tcplab.ns2.generate (generator seed --gen-seed, default 1) at
5 seeds each, with `profile = "ns2"` on the tcplab side and ns-2 at its own defaults (the
script states only what the scenario states), and gives each flow group and link a
statistical verdict (tcplab.ns2.verdict): agree, disagree or inconclusive.

Each scenario of bench/ns2/ (a tcplab TOML file) is translated to OTcl by
tcplab.ns2 (`to_otcl`), run in ns-2.35 (`ns`) and in tcplab with the same seeds, and the
metrics of both (tcplab.ns2.FLOW_METRICS, LINK_METRICS; same definitions on both sides) are
printed side by side: per flow (and, with several TCP flows, their aggregate "all N": goodput
and counts summed, window averaged) goodput, mean window, retransmissions and timeouts; per link
direction that dropped or marked anything, drops, marks and queue mean and 5-95 %.

Modes:
  default   every flow gets `profile = "ns2"` through [defaults.flows] (the scenario's own
            keys win), so tcplab behaves like ns-2's agents; the translator writes the
            profile's keys into the script. Where this tcplab has no `ns2` profile yet, it says
            so in one line and runs --match instead.
  --match   tcplab runs the scenario as written and ns-2 is configured to match it (the
            translator overrides ns-2's defaults where they differ from tcplab's; what ns-2
            cannot switch is listed under the table as notes).
  --set     an override applied to every scenario before translation, as `tcplab run --set`
            (e.g. --set defaults.flows.rto_restart_on_retransmit=true to check a traced cause:
            both sides then run the changed scenario).

Verdict per flow: goodput (mean over the seeds) within 5 % and timeouts within 10 %; per
link: drops within 10 % ("within 10 %" for counts: |a - b| <= 10 % of the larger, or <= 2).
It reports agreement or disagreement and never fails on it; neither simulator is tuned to the
other. Where `ns` is missing it installs Debian's `ns2` when run as root, else prints how and
exits 0. Scripts, ns-2's JSON and the results stay under --out (default out/ns2/).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCENARIOS = HERE / "ns2"
TOL_GOODPUT = 0.05
TOL_COUNT = 0.10
COUNT_SLACK = 2


def ensure_ns() -> str | None:
    """The ns binary; installs Debian's ns2 when missing and root. None = not available."""
    ns = shutil.which("ns")
    if ns:
        return ns
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        print("SKIPPED ns-2 cross-check: `ns` is not installed; run `sudo apt-get install -y ns2` "
              "(Debian/Ubuntu) and `make crosscheck-ns2` again")
        return None
    print("installing ns-2.35 (apt-get install -y ns2) ...", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "ns2"]):
        if subprocess.run(cmd, env=env).returncode != 0:
            print(f"SKIPPED ns-2 cross-check: `{' '.join(cmd)}` failed")
            return None
    return shutil.which("ns")


def profile_supported() -> bool:
    from tcplab.scenario import Scenario, ScenarioError

    probe = {"duration": "1s", "nodes": {"a": "host", "b": "host"},
             "links": {"ab": {"from": "a", "to": "b", "rate": "1Mbps", "duplex": True}},
             "defaults": {"flows": {"profile": "ns2"}}, "flows": {"f": {"from": "a", "to": "b"}}}
    try:
        Scenario(probe).validate()
    except ScenarioError:
        return False
    return True


def load(path: Path, mode: str, quick: bool, sets: list[str] | None = None):
    from tcplab.ns2.common import _seconds
    from tcplab.scenario import Scenario

    sc = Scenario.from_toml(path)
    over: dict = {}
    if mode == "profile":
        over["defaults.flows.profile"] = "ns2"
    if quick:
        d = sc.to_dict()
        dur = _seconds(d["duration"])
        if dur > 30:
            start = _seconds((d.get("metrics") or {}).get("steady_start", 0))
            over["duration"] = "30s"
            over["metrics.steady_start"] = f"{start * 30 / dur:g}s"
    from tcplab.scenario import parse_override

    for item in sets or []:
        k, v = parse_override(item)
        over[k] = v
    return sc.with_overrides(over) if over else sc


def close(a: float, b: float, tol: float, slack: float = 0.0) -> bool:
    if any(isinstance(x, float) and math.isnan(x) for x in (a, b)):
        return False
    return abs(a - b) <= max(tol * max(abs(a), abs(b)), slack)


def mean(xs: list[float]) -> float:
    xs = [x for x in xs if not (isinstance(x, float) and math.isnan(x))]
    return sum(xs) / len(xs) if xs else math.nan


def markdown(flow_rows: list[dict], link_rows: list[dict]) -> str:
    """One row per scenario: the aggregate of its TCP flows (or its one TCP flow) and the
    link direction with the most drops and marks (docs/crosscheck.md's table)."""
    def f(x: float, nd: int = 2) -> str:
        return "–" if isinstance(x, float) and math.isnan(x) else f"{x:.{nd}f}" if nd else f"{x:.0f}"

    out = ["| scenario | flows | goodput ns-2 / tcplab Mb/s | ratio | cwnd ns-2 / tcplab | retransmits ns-2 / tcplab "
           "| timeouts ns-2 / tcplab | link: drops ns-2 / tcplab | marks ns-2 / tcplab | verdict |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for sc in dict.fromkeys(r["scenario"] for r in flow_rows):
        rows = [r for r in flow_rows if r["scenario"] == sc and not math.isnan(r["cwnd_mean_ns2"])]
        agg = [r for r in rows if r["flow"].startswith("all ")]
        r = agg[0] if agg else rows[0]
        n = r["flow"].split()[1] if agg else "1"
        links = sorted((x for x in link_rows if x["scenario"] == sc),
                       key=lambda x: -(x["drops_ns2"] + x["drops_tcplab"] + x["marks_ns2"] + x["marks_tcplab"]))
        ln = links[0] if links else None
        lcell = f"{ln['link']}: {f(ln['drops_ns2'], 0)} / {f(ln['drops_tcplab'], 0)}" if ln else "–"
        mcell = f"{f(ln['marks_ns2'], 0)} / {f(ln['marks_tcplab'], 0)}" if ln else "–"
        verdict = r["verdict"] if not ln or ln["verdict"] == "ok" else (
            "drops" if r["verdict"] == "ok" else f"{r['verdict']}+drops")
        out.append(f"| {sc} | {n} | {f(r['goodput_bps_ns2'] / 1e6, 3)} / {f(r['goodput_bps_tcplab'] / 1e6, 3)} "
                   f"| {f(r['goodput_ratio'], 3)} | {f(r['cwnd_mean_ns2'], 1)} / {f(r['cwnd_mean_tcplab'], 1)} "
                   f"| {f(r['retransmits_ns2'], 0)} / {f(r['retransmits_tcplab'], 0)} "
                   f"| {f(r['timeouts_ns2'], 1)} / {f(r['timeouts_tcplab'], 1)} | {lcell} | {mcell} | {verdict} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated scenario names (file stems)")
    ap.add_argument("--seeds", type=int, help="seeds 1..N per scenario (default 3; 5 with --random)")
    ap.add_argument("--quick", action="store_true", help="1 seed, at most 30 simulated seconds per run")
    ap.add_argument("--match", action="store_true", help="tcplab as written, ns-2 configured to match it")
    ap.add_argument("--json", type=Path, help="write every number to this file")
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "ns2", help="ns-2 scripts and results (default out/ns2)")
    ap.add_argument("--timeout", type=float, default=600.0, help="wall seconds per ns-2 run")
    ap.add_argument("--markdown", type=Path, help="write one summary row per scenario as a Markdown table")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="override applied to every scenario (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the scenarios and exit")
    ap.add_argument("--random", type=int, metavar="N",
                    help="N generated scenarios (tcplab.ns2.generate) with ns-2 at its own defaults, "
                         "statistical verdicts (default seeds: 5)")
    ap.add_argument("--gen-seed", type=int, default=1, help="generator seed for --random (default 1)")
    args = ap.parse_args(argv)
    if args.random is not None:
        return random_main(args)

    files = sorted(SCENARIOS.glob("*.toml"))
    if args.only:
        want = [w.strip() for w in args.only.split(",") if w.strip()]
        unknown = [w for w in want if not (SCENARIOS / f"{w}.toml").exists()]
        if unknown:
            print(f"error: --only: unknown scenario {unknown[0]} (known: {', '.join(f.stem for f in files)})",
                  file=sys.stderr)
            return 2
        files = [SCENARIOS / f"{w}.toml" for w in want]
    from tcplab.scenario import ScenarioError, parse_override

    try:
        for item in args.sets:
            parse_override(item)
    except ScenarioError as e:
        print(f"error: --set: {e.reason}", file=sys.stderr)
        return 2
    if args.list:
        for f in files:
            print(f.stem)
        return 0
    if ensure_ns() is None:
        return 0

    import polars as pl

    from tcplab import ns2

    mode = "match" if args.match else "profile"
    if mode == "profile" and not profile_supported():
        print('note: this tcplab has no `profile = "ns2"` yet; running --match (ns-2 configured to match tcplab)')
        mode = "match"
    seeds = [1] if args.quick else list(range(1, (args.seeds or 3) + 1))
    print(f"ns-2.35 cross-check: {len(files)} scenarios x {len(seeds)} seeds, mode {mode}"
          + "".join(f", --set {x}" for x in args.sets), flush=True)

    flow_rows: list[dict] = []
    link_rows: list[dict] = []
    notes: dict[str, list[str]] = {}
    raw: dict[str, dict] = {}
    t_start = time.perf_counter()
    for f in files:
        name = f.stem
        try:
            sc = load(f, mode, args.quick, args.sets)
        except Exception as e:  # noqa: BLE001 - one line per bad scenario
            print(f"{name}: error: {e}")
            continue
        per_seed = []
        try:
            for s in seeds:
                a, b = ns2.run_both(sc, s, args.out / mode / name / f"seed{s}", args.timeout)
                per_seed.append((a, b))
        except (ns2.Ns2Unsupported, ns2.Ns2Error) as e:
            print(f"{name}: {e}")
            continue
        notes[name] = per_seed[0][0]["notes"]
        raw[name] = {"seeds": seeds, "runs": [{"ns2": a, "tcplab": b} for a, b in per_seed]}
        wall_ns2 = sum(a["wall_s"] for a, _ in per_seed)
        wall_tl = sum(b["wall_s"] for _, b in per_seed)
        print(f"  {name}: ns-2 {wall_ns2:.1f} s, tcplab {wall_tl:.1f} s", flush=True)
        for fl in sorted(per_seed[0][0]["flows"]):
            r = {"scenario": name, "flow": fl}
            for m in ns2.FLOW_METRICS:
                r[f"{m}_ns2"] = mean([a["flows"][fl][m] for a, _ in per_seed])
                r[f"{m}_tcplab"] = mean([b["flows"][fl][m] for _, b in per_seed])
            r["goodput_ratio"] = (r["goodput_bps_tcplab"] / r["goodput_bps_ns2"]
                                  if r["goodput_bps_ns2"] else math.nan)
            ok_g = close(r["goodput_bps_ns2"], r["goodput_bps_tcplab"], TOL_GOODPUT)
            ok_t = close(r["timeouts_ns2"], r["timeouts_tcplab"], TOL_COUNT, COUNT_SLACK)
            r["verdict"] = "ok" if ok_g and ok_t else ("goodput" if not ok_g else "") + (
                "+" if not ok_g and not ok_t else "") + ("timeouts" if not ok_t else "")
            flow_rows.append(r)
        tcp = [fl for fl, m in per_seed[0][0]["flows"].items() if not math.isnan(m["cwnd_mean"])]
        if len(tcp) > 1:  # the aggregate of the TCP flows: per-flow splits are phase-sensitive
            r = {"scenario": name, "flow": f"all {len(tcp)}"}
            for m in ns2.FLOW_METRICS:
                agg = mean if m == "cwnd_mean" else sum
                r[f"{m}_ns2"] = mean([agg([a["flows"][fl][m] for fl in tcp]) for a, _ in per_seed])
                r[f"{m}_tcplab"] = mean([agg([b["flows"][fl][m] for fl in tcp]) for _, b in per_seed])
            r["goodput_ratio"] = r["goodput_bps_tcplab"] / r["goodput_bps_ns2"] if r["goodput_bps_ns2"] else math.nan
            ok_g = close(r["goodput_bps_ns2"], r["goodput_bps_tcplab"], TOL_GOODPUT)
            ok_t = close(r["timeouts_ns2"], r["timeouts_tcplab"], TOL_COUNT, COUNT_SLACK)
            r["verdict"] = "ok" if ok_g and ok_t else ("goodput" if not ok_g else "") + (
                "+" if not ok_g and not ok_t else "") + ("timeouts" if not ok_t else "")
            flow_rows.append(r)
        for ln in sorted(per_seed[0][0]["links"]):
            r = {"scenario": name, "link": ln}
            for m in ns2.LINK_METRICS:
                r[f"{m}_ns2"] = mean([a["links"][ln][m] for a, _ in per_seed])
                r[f"{m}_tcplab"] = mean([b["links"][ln][m] for _, b in per_seed])
            if max(r["drops_ns2"], r["drops_tcplab"], r["marks_ns2"], r["marks_tcplab"]) == 0:
                continue
            r["verdict"] = "ok" if close(r["drops_ns2"], r["drops_tcplab"], TOL_COUNT, COUNT_SLACK) else "drops"
            link_rows.append(r)

    wall = time.perf_counter() - t_start
    cfg = pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=250, fmt_str_lengths=40, tbl_hide_dataframe_shape=True,
                    float_precision=3)
    with cfg:
        if flow_rows:
            df = pl.DataFrame(flow_rows)
            show = df.select(
                "scenario", "flow",
                (pl.col("goodput_bps_ns2") / 1e6).alias("goodput ns2 Mb/s"),
                (pl.col("goodput_bps_tcplab") / 1e6).alias("tcplab Mb/s"),
                pl.col("goodput_ratio").alias("ratio"),
                pl.col("cwnd_mean_ns2").alias("cwnd ns2"), pl.col("cwnd_mean_tcplab").alias("cwnd tcplab"),
                pl.col("retransmits_ns2").alias("rexmit ns2"), pl.col("retransmits_tcplab").alias("rexmit tcplab"),
                pl.col("timeouts_ns2").alias("RTO ns2"), pl.col("timeouts_tcplab").alias("RTO tcplab"),
                "verdict",
            )
            print(f"\nPer flow (mean over seeds {seeds[0]}..{seeds[-1]}; goodput in the steady-state window, "
                  "counts over the whole run)")
            print(show)
        if link_rows:
            dl = pl.DataFrame(link_rows)
            print("\nPer link direction that dropped or marked (mean over seeds; queue = packets waiting "
                  "+ in transmission, 10-ms samples in the window)")
            print(dl.select(
                "scenario", "link", pl.col("arrivals_ns2").alias("arrivals ns2"),
                pl.col("arrivals_tcplab").alias("arrivals tcplab"), pl.col("drops_ns2").alias("drops ns2"),
                pl.col("drops_tcplab").alias("drops tcplab"), pl.col("marks_ns2").alias("marks ns2"),
                pl.col("marks_tcplab").alias("marks tcplab"), pl.col("q_mean_ns2").alias("q ns2"),
                pl.col("q_mean_tcplab").alias("q tcplab"), pl.col("q_p95_ns2").alias("q95 ns2"),
                pl.col("q_p95_tcplab").alias("q95 tcplab"), "verdict"))
    agree = sum(r["verdict"] == "ok" for r in flow_rows if not r["flow"].startswith("all "))
    n_flows = sum(not r["flow"].startswith("all ") for r in flow_rows)
    agg_rows = [r for r in flow_rows if r["flow"].startswith("all ")]
    print(f"\naggregates: {sum(r['verdict'] == 'ok' for r in agg_rows)}/{len(agg_rows)} agree;", end=" ")
    print(f"{agree}/{n_flows} flows agree (goodput within {TOL_GOODPUT:.0%}, timeouts within "
          f"{TOL_COUNT:.0%}); {sum(r['verdict'] == 'ok' for r in link_rows)}/{len(link_rows)} links (drops within "
          f"{TOL_COUNT:.0%}); {wall:.0f} s")
    if notes:
        print("\nBehaviours ns-2.35 cannot switch to tcplab's (first flow of each scenario; docs/crosscheck.md):")
        seen: set[str] = set()
        for name, ns in notes.items():
            for n in ns:
                generic = n.split(":", 1)[1] if ":" in n else n
                key = n.split(":", 1)[0].split(".")[-1] + generic
                if key not in seen:
                    seen.add(key)
                    print(f"  {name}: {n}")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(markdown(flow_rows, link_rows))
        print(f"wrote {args.markdown}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"mode": mode, "sets": args.sets, "seeds": seeds, "flows": flow_rows, "links": link_rows,
                                         "notes": notes, "runs": raw}, indent=1, default=str))
        print(f"wrote {args.json}")
    return 0


def random_main(args: argparse.Namespace) -> int:
    """--random N: generated scenarios, ns-2 at its own defaults, verdicts by confidence
    interval (tcplab.ns2.verdict)."""
    if args.random < 1:
        print("error: --random: must be at least 1", file=sys.stderr)
        return 2
    if ensure_ns() is None:
        return 0
    import polars as pl

    from tcplab import ns2
    from tcplab.ns2 import generate, verdict
    from tcplab.ns2.common import expanded
    from tcplab.scenario import Scenario

    seeds = list(range(1, (args.seeds or 5) + 1))
    print(f"ns-2.35 cross-check on {args.random} generated scenarios (generator seed {args.gen_seed}) "
          f"x {len(seeds)} seeds, ns-2 at its own defaults", flush=True)
    rows: list[dict] = []
    raw: dict[str, dict] = {}
    t_start = time.perf_counter()
    for i in range(args.random):
        d = generate.generate(args.gen_seed, i)
        name = f"gen{args.gen_seed}_{i:03d}"
        sc = Scenario(d)
        out = args.out / "random" / name
        out.mkdir(parents=True, exist_ok=True)
        (out / "scenario.toml").write_text(generate.to_toml(d))
        try:
            # Each seed also moves the flows' starts (generate.with_start_jitter, the same on
            # both sides), so that the seeds sample phases where nothing else is random.
            runs = [ns2.run_both(Scenario(generate.with_start_jitter(d, s)), s, out / f"seed{s}", args.timeout,
                                 ns2_defaults=True, samples=False)
                    for s in seeds]
        except (ns2.Ns2Unsupported, ns2.Ns2Error) as e:
            print(f"  {name}: {e}")
            continue
        got = verdict.scenario_verdicts(name, verdict.flow_groups(expanded(sc)), runs)
        rows += got
        raw[name] = {"runs": [{"ns2": a, "tcplab": b} for a, b in runs]}
        bad = [f"{r['name']}.{r['metric']} {r['ratio']:.2f}" for r in got if r["verdict"] == "disagree"]
        print(f"  {name} ({time.perf_counter() - t_start:.0f} s): {len(got)} rows, "
              f"{sum(r['verdict'] == 'agree' for r in got)} agree" + (f"; disagree: {', '.join(bad)}" if bad else ""),
              flush=True)
    wall = time.perf_counter() - t_start
    if not rows:
        print("no scenario ran")
        return 0
    counts = verdict.summary(rows)
    print("\nVerdicts (95 % interval of tcplab/ns-2 within the band: agree; outside: disagree; else inconclusive)")
    for metric, c in counts.items():
        n = sum(c.values())
        print(f"  {metric:12s} agree {c['agree']:4d}  disagree {c['disagree']:4d}  inconclusive {c['inconclusive']:4d}"
              f"  ({verdict.share_agree(c):.0%} of the classified agree; {c['inconclusive'] / n:.0%} inconclusive)")
        if c["inconclusive"] / n > verdict.MAX_INCONCLUSIVE:
            print(f"    more than {verdict.MAX_INCONCLUSIVE:.0%} inconclusive: run more seeds (--seeds)")
    df = pl.DataFrame(rows)
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, float_precision=3, tbl_hide_dataframe_shape=True):
        print("\nDistribution of the ratios tcplab / ns-2 (finite ones)")
        print(df.filter(pl.col("ratio").is_finite()).group_by("metric").agg(
            pl.len().alias("n"), *[pl.col("ratio").quantile(q).alias(f"p{int(q * 100)}") for q in (0.05, 0.25, 0.5, 0.75, 0.95)]
        ).sort("metric"))
        worst = df.filter(pl.col("verdict") == "disagree").with_columns(
            pl.col("ratio").clip(1e-6, 1e6).log().abs().alias("off")).sort("off", descending=True).head(10)
        print("\nWorst ten (disagreeing rows, farthest from 1)")
        print(worst.select("scenario", "kind", "name", "metric", "ns2", "tcplab", "ratio", "lo", "hi", "verdict"))
    print(f"\n{len(raw)} scenarios in {wall:.0f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"gen_seed": args.gen_seed, "seeds": seeds, "rows": rows, "counts": counts,
                                         "runs": raw}, indent=1, default=str))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Old against new: `tcplab-bench run` of the same scenarios by two or more builds, alternating.

    python bench/ab.py [--old REV ...] [--rounds 21] [--cpu N] [--scenario "b 20" ...]

Builds `tcplab-bench` (release) for each `--old` revision in its own git worktree under
`target/ab/` (worktrees, one shared build directory and each revision's binary are reused on
later calls) and for the working tree, then runs every
scenario once per binary per round, the order of the binaries reversed every other round, each
run pinned to one core (`--cpu`, default the last core this process may use) so that runs never
share a core. Each run's `window_wall_seconds` is its simulated window alone (no build, no
process start). Prints per scenario and binary the minimum and median wall time, the median of
the per-round ratios to the first binary and the ratio of the minima, and fails (exit 1) when
two binaries of one scenario give different fingerprints: then they did not do the same work
and their times do not compare. Where every binary reports a results fingerprint (every output
but the event count), that one decides, and the event counts are printed beside it: a change
that only removes events passes, and says so (its CHANGELOG line names the new count); older
binaries report the run fingerprint only (outputs and event count in one hash), which then
decides. How the figures were used: docs/performance.md ("Single-thread
speed, side by side").

Wall times are only as steady as the machine: run on an otherwise idle host, and look at the
per-round ratios' spread before believing a difference of a few per cent (callgrind counts
instructions, but on this engine instruction counts and wall time have moved in opposite
directions: docs/performance.md).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path("target/release/tcplab-bench")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def build(rev: str | None) -> tuple[str, Path]:
    """(label, binary) of `rev`, or of the working tree when `rev` is None."""
    if rev is None:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "tcplab-core", "--bin", "tcplab-bench"],
                       cwd=ROOT, check=True)
        dirty = "+" if git("status", "--porcelain", "--untracked-files=no") else ""
        return f"{git('rev-parse', '--short', 'HEAD')}{dirty} (tree)", ROOT / BENCH
    try:
        sha = git("rev-parse", "--short", f"{rev}^{{commit}}")
    except subprocess.CalledProcessError:
        sys.exit(f"error: --old {rev}: not a revision of this repository")
    tree = ROOT / "target" / "ab" / sha
    if not tree.exists():
        subprocess.run(["git", "worktree", "add", "--detach", "-f", str(tree), sha], cwd=ROOT, check=True,
                       capture_output=True)
    env = {**os.environ, "CARGO_TARGET_DIR": str(ROOT / "target" / "ab" / "build")}
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "tcplab-core", "--bin", "tcplab-bench"],
                   cwd=tree, env=env, check=True)
    # One shared target directory (incremental builds); keep each revision's binary apart.
    out = ROOT / "target" / "ab" / f"tcplab-bench-{sha}"
    out.write_bytes((ROOT / "target" / "ab" / "build" / "release" / "tcplab-bench").read_bytes())
    out.chmod(0o755)
    return sha, out


def run_once(binary: Path, scenario: list[str], cpu: int | None) -> tuple[float, tuple]:
    """The run's wall time and (run fingerprint, results fingerprint or None, events)."""
    cmd = [str(binary), "run", *scenario]
    if cpu is not None:
        cmd = ["taskset", "-c", str(cpu), *cmd]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    row = json.loads(out.strip().splitlines()[-1])
    return row["window_wall_seconds"], (row["fingerprint"], row.get("results_fingerprint"), row.get("events"))


def verdict(prints: dict[str, list[tuple]]) -> tuple[bool, str]:
    """Whether the binaries did the same work, and a line saying what was compared."""
    every = [p for ps in prints.values() for p in ps]
    if all(p[1] is not None for p in every):
        same = len({p[1] for p in every}) == 1
        events = sorted({p[2] for p in every})
        if same and len(events) > 1:
            return True, (f"results fingerprints equal, event counts differ ({', '.join(map(str, events))}): "
                          "the same results with other work; say so in CHANGELOG.md")
        return same, "results fingerprints " + ("equal" if same else "differ")
    same = len({p[0] for p in every}) == 1
    return same, "run fingerprints (outputs and event count) " + ("equal" if same else "differ")


def rotate(binaries: list[tuple[str, Path]], scenario: list[str], rounds: int, cpu: int | None) -> dict:
    """Wall times and fingerprints of each binary over `rounds` alternating rounds."""
    walls: dict[str, list[float]] = {label: [] for label, _ in binaries}
    prints: dict[str, set[tuple]] = {label: set() for label, _ in binaries}
    for r in range(rounds):
        for label, binary in binaries if r % 2 == 0 else binaries[::-1]:
            wall, fp = run_once(binary, scenario, cpu)
            walls[label].append(wall)
            prints[label].add(fp)
    return {"walls": walls, "fingerprints": {k: sorted(v, key=str) for k, v in prints.items()}}


def summarize(result: dict) -> list[dict]:
    walls = result["walls"]
    first = next(iter(walls))
    rows = []
    for label, w in walls.items():
        ratios = [a / b for a, b in zip(w, walls[first])]
        rows.append({
            "binary": label,
            "min_s": min(w),
            "median_s": statistics.median(w),
            "median_ratio": statistics.median(ratios),
            "min_ratio": min(w) / min(walls[first]),
            "fingerprints": result["fingerprints"][label],
        })
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", action="append", default=[], metavar="REV",
                    help="a revision to compare (repeatable; default: HEAD, against the working tree)")
    ap.add_argument("--scenario", action="append", default=[], metavar="'NAME SECONDS'",
                    help="tcplab-bench run arguments (repeatable; default: 'b 20')")
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--cpu", type=int, default=None, help="core to pin every run to (default: the last one)")
    ap.add_argument("--no-pin", action="store_true", help="do not pin runs with taskset")
    ap.add_argument("--json", type=Path, help="also write the times and the summary here")
    a = ap.parse_args()
    if a.rounds < 1:
        ap.error("--rounds: must be at least 1")
    cpu = None
    if not a.no_pin:
        if subprocess.run(["which", "taskset"], capture_output=True).returncode != 0:
            print("warning: taskset not found: runs are not pinned to one core", file=sys.stderr)
        else:
            cpu = a.cpu if a.cpu is not None else max(os.sched_getaffinity(0))
    olds = a.old or ["HEAD"]
    try:
        binaries = [build(rev) for rev in olds] + [build(None)]
    except subprocess.CalledProcessError as e:
        sys.exit(f"error: {' '.join(map(str, e.cmd))} failed (exit {e.returncode})")
    report = {}
    ok = True
    for sc in a.scenario or ["b 20"]:
        args = sc.split()
        try:
            result = rotate(binaries, args, a.rounds, cpu)
        except subprocess.CalledProcessError as e:
            sys.exit(f"error: --scenario {sc!r}: {' '.join(map(str, e.cmd))} failed: {(e.stderr or '').strip()}")
        rows = summarize(result)
        report[sc] = {**result, "summary": rows}
        print(f"== tcplab-bench run {sc}: {a.rounds} rounds, "
              f"{'pinned to cpu ' + str(cpu) if cpu is not None else 'not pinned'}")
        print(f"{'binary':<24} {'min s':>8} {'median s':>9} {'median ratio':>13} {'min/min':>8}  "
              "fingerprint  results  events")
        for r in rows:
            fps = "; ".join(f"{p[0]}  {p[1] or '-'}  {p[2] if p[2] is not None else '-'}" for p in r["fingerprints"])
            print(f"{r['binary']:<24} {r['min_s']:>8.4f} {r['median_s']:>9.4f} {r['median_ratio']:>13.4f} "
                  f"{r['min_ratio']:>8.4f}  {fps}")
        same, what = verdict(result["fingerprints"])
        print(what)
        if not same:
            print(f"error: {sc}: the binaries' fingerprints differ: they did different work, their times do "
                  "not compare", file=sys.stderr)
            ok = False
    if a.json:
        a.json.write_text(json.dumps(report, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

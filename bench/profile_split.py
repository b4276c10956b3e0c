"""Where the time goes: sample a `tcplab-bench run` with `perf record` and split the samples
by the part of the simulator they fall in (docs/performance.md, "Where the time goes").

Each sampled instruction address is resolved with `addr2line -i` into its chain of inlined
frames; the sample goes to the innermost frame in `crates/tcplab-core/src/` (so a `VecDeque`
operation inlined into the link's `offer` counts as the link's), and that file's path to a
part. The ns per event of a part is its share of the samples times the run's wall time
per event (the whole run: build, warm-up and window).

    python bench/profile_split.py [--write] [--freq HZ] [--case a|b|both]

Needs `perf` (and `kernel.perf_event_paranoid` ≤ 2 for user-space sampling) and
`addr2line`; builds `tcplab-bench` with the release profile (line tables: `debug = 1`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from docblock import write_block

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "performance.md"
BIN = REPO / "target" / "release" / "tcplab-bench"
SRC = "crates/tcplab-core/src/"

# bench a* and b* of docs/performance.md ("Scenarios"): steady state, no slow start.
CASES = {
    "a": ["run", "a", "100", "--warmup", "10", "--init-ssthresh", "500000"],
    "b": ["run", "b", "30", "--warmup", "10", "--init-ssthresh", "312500"],
}

# (part, path prefixes under crates/tcplab-core/src/), first match wins.
PARTS: list[tuple[str, tuple[str, ...]]] = [
    ("event queue (heap, timers)", ("event.rs", "time.rs")),
    ("engine loop, routing, dispatch", ("sim.rs", "sim/", "par/", "net/node.rs", "net/route")),
    ("link and queue path", ("net/", "queue/", "packet.rs")),
    ("TCP receiver", ("tcp/receiver.rs",)),
    ("TCP sender (incl. RTT, SACK, RACK)", ("tcp/",)),
    ("congestion control", ("cc/", "cc_api.rs")),
    ("statistics", ("stats/", "report")),
    ("applications", ("app/", "udp.rs")),
]


def part_of(path: str | None) -> str:
    if path is None:
        return "outside tcplab-core (libc, allocator, kernel)"
    for name, prefixes in PARTS:
        if path.startswith(prefixes):
            return name
    return "other tcplab-core code"


def resolve(addrs: list[int]) -> dict[int, str | None]:
    """Address → path (under crates/tcplab-core/src/) of its innermost tcplab-core frame."""
    out: dict[int, str | None] = {}
    if not addrs:
        return out
    text = subprocess.run(["addr2line", "-i", "-a", "-e", str(BIN), *[hex(a) for a in addrs]],
                          capture_output=True, text=True, check=True).stdout
    cur: int | None = None
    for line in text.splitlines():
        if line.startswith("0x"):
            cur = int(line, 16)
            out[cur] = None
        elif cur is not None and out[cur] is None and SRC in line:
            out[cur] = line.split(SRC, 1)[1].rsplit(":", 1)[0]
    return out


def profile(case: str, freq: int) -> tuple[Counter[str], dict]:
    with tempfile.TemporaryDirectory() as d:
        data = Path(d) / "perf.data"
        res = subprocess.run(["perf", "record", "-q", "-F", str(freq), "-o", str(data), str(BIN), *CASES[case]],
                             capture_output=True, text=True, check=True)
        run = json.loads(res.stdout.strip().splitlines()[-1])
        ips = subprocess.run(["perf", "script", "-i", str(data), "--show-mmap-events", "-F", "ip,dso"],
                             capture_output=True, text=True, check=True).stdout.split("\n")
    # PIE: a sampled address minus the executable mapping's start plus its file offset is a
    # file offset; the text segment's (vaddr − offset) makes it the address addr2line wants.
    seg = next(ln.split() for ln in subprocess.run(["readelf", "-lW", str(BIN)], capture_output=True, text=True,
                                                   check=True).stdout.splitlines()
               if ln.strip().startswith("LOAD") and " R E " in ln)
    delta = int(seg[2], 16) - int(seg[1], 16)
    start = pgoff = 0
    samples: list[int | None] = []
    for line in ips:
        if line.startswith("PERF_RECORD_MMAP") and "r-xp" in line and line.rstrip().endswith("tcplab-bench"):
            m = line.split("[", 1)[1]
            start = int(m.split("(", 1)[0], 16)
            pgoff = int(m.split("@ ", 1)[1].split()[0], 16)
            continue
        f = line.split()
        if not f or line.startswith("PERF_RECORD"):
            continue
        ip = int(f[0], 16)
        samples.append(ip - start + pgoff + delta if "tcplab-bench" in line and start else None)
    paths = resolve(sorted({s for s in samples if s is not None}))
    parts = Counter(part_of(paths.get(s)) if s is not None else part_of(None) for s in samples)
    return parts, run


def table(results: dict[str, tuple[Counter[str], dict]]) -> str:
    names = [n for n, _ in PARTS] + ["other tcplab-core code", "outside tcplab-core (libc, allocator, kernel)"]
    cases = list(results)
    head = "| part | " + " | ".join(f"{c}*: share | {c}*: ns/event" for c in cases) + " |"
    lines = [head, "|---|" + "---|---|" * len(cases)]
    for n in names:
        cells = []
        for c in cases:
            parts, run = results[c]
            total = sum(parts.values())
            share = parts[n] / total
            cells += [f"{100 * share:.1f} %", f"{share * run['wall_seconds'] / run['events'] * 1e9:.1f}"]
        if any(results[c][0][n] for c in cases):
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
    tot = []
    for c in cases:
        _, run = results[c]
        tot += ["100 %", f"{run['wall_seconds'] / run['events'] * 1e9:.1f}"]
    lines.append("| **all** | " + " | ".join(tot) + " |")
    lines.append("")
    for c in cases:
        parts, run = results[c]
        lines.append(f"{c}* (`tcplab-bench {' '.join(CASES[c])}`): {sum(parts.values())} samples, "
                     f"{run['events']:,} events, {run['wall_seconds']:.3f} s wall under perf, "
                     f"{run['events_per_bottleneck_packet']:.2f} events per bottleneck packet.")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write the table into docs/performance.md")
    ap.add_argument("--freq", type=int, default=10000, help="perf sampling frequency (Hz)")
    ap.add_argument("--case", choices=["a", "b", "both"], default="both")
    args = ap.parse_args()
    if subprocess.run(["cargo", "build", "--release", "-q", "--bin", "tcplab-bench"], cwd=REPO).returncode:
        return 1
    cases = ["a", "b"] if args.case == "both" else [args.case]
    results = {c: profile(c, args.freq) for c in cases}
    body = table(results)
    print(body)
    if args.write:
        cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                    if ln.startswith("model name")), "unknown CPU")
        body += f"\n\nMeasured on {cpu}, {os.cpu_count()} cores."
        return write_block(DOC, "profile-split", "python bench/profile_split.py --write", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""tcplab next to the real Linux kernel of this machine (issue 16, "Cross-checks").

    python bench/kernel_compare.py [--only NAME,...] [--out DIR] [--quick] [--repeat N] [--list]

For each preset scenario (PRESETS below, each a tcplab scenario) it

  1. expands the scenario with tcplab and builds the same topology out of network
     namespaces (one per node) and veth pairs: every link direction that leaves a router is
     shaped by `htb` (rate) + `pfifo` (limit = the tcplab queue limit in packets; `bfifo` for
     byte limits) on the router's interface; links leaving a host are not shaped (see
     LIMITATIONS); a host-to-host link gets a router namespace in the middle that carries
     the shaping of both directions, so that the queues stay off the end hosts as in tcplab;
  2. adds the propagation delays with a user-space delay line (a TUN device in one router
     that every path crosses, `_delay` below): this kernel has no `netem`
     (CONFIG_NET_SCH_NETEM is not set; `tc qdisc add ... netem` fails), nor fq/etf;
  3. runs one real bulk TCP connection per tcplab flow (stdlib Python sender/receiver in the
     flows' namespaces, `setsockopt(TCP_CONGESTION)` per flow) and samples `ss -tin` in every
     sender namespace every `--period` s (cwnd, ssthresh, rtt, delivery_rate, bytes_acked,
     retrans, snd_wnd, unacked). Windows are read from `ss`, never from socket options (the
     kernel doubles SO_SNDBUF and autotunes both buffers);
  4. runs the tcplab scenario with `profile = "linux"` on every flow (docs/tcp.md,
     "Profiles": SACK, RACK-TLP, PRR, F-RTO, initial window 10, delayed acks 40 ms with
     quick-ack mode, segment counting, rto_min 200 ms), the flow's own `cc`, and LINUX_FLOW's
     wire sizes (MSS 1448 with 66-B headers/acks as on the veth wire, Ethernet included);
  5. prints a side-by-side table (goodput per flow and aggregate, Jain's index, window
     mean and percentiles, retransmissions, RTT) per time window, writes the two traces
     (kernel_trace.csv, tcplab_trace.csv), the table (table.md, results.json) and a cwnd
     plot (cwnd.png) under --out/NAME.

Runs are bounded (each scenario's `duration`, at most 60 s of wall time; every child is
killed at the end). Only addresses inside the namespaces it creates are used (10.99.X.0/24).
Everything it created (processes it started, by pid, and its namespaces, by name) is removed
on exit, also on Ctrl-C, SIGTERM or an error (try/finally). Where namespaces are not
permitted (not root, `ip netns add` fails, no htb) it prints a SKIPPED line and exits 0.

LIMITATIONS (also in docs/crosscheck.md): links leaving a host are not shaped (a host's own
qdisc would interact with TCP Small Queues and local congestion signals, which tcplab does
not model); only drop-tail queues are expressible (this kernel has htb, tbf, pfifo, bfifo:
no RED, CoDel, FQ-CoDel, PIE, fq); the delay line is one FIFO per (source, destination)
pair of constant delay, in user space (its per-packet jitter, ~0.1 ms, is reported); CUBIC
in the kernel uses its HyStart (ack train + delay), tcplab's HyStart++ (RFC 9406).
"""
from __future__ import annotations

import argparse
import heapq
import json
import math
import os
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WALL_LIMIT_S = 60.0          # no run longer than this (issue 16: bounded runs)
SINK_PORT0 = 5001
SUBNET = "10.99"             # 10.99.E.0/24 per kernel edge E; nothing outside our namespaces

# Wire sizes on a veth: IPv4 20 B + TCP 20 B + timestamps option 12 B + Ethernet 14 B, which
# htb counts (skb->len at the qdisc includes the Ethernet header). MSS 1448 = 1500 - 52.
KERNEL_MSS = 1448
KERNEL_HEADER = 66
KERNEL_ACK = 66

# Every tcplab flow gets `profile = "linux"` (through [defaults.flows], so a flow's own `cc`
# wins) and these wire sizes: the profile's 52-B headers leave out the Ethernet header that
# htb counts on the veth.
LINUX_PROFILE = "linux"
LINUX_FLOW = {
    "mss": KERNEL_MSS,
    "header": KERNEL_HEADER,
    "ack_size": KERNEL_ACK,
}
# The keys the profile brought that closed differences of docs/crosscheck.md, switched back
# off in a tcplab-only check of the same run ("before").
BEFORE_PROFILE = {"ack_counting": "acks", "quickack": 0}
KERNEL_CC = {"reno": "reno", "newreno": "reno", "cubic": "cubic", "bbr": "bbr"}


# ----------------------------------------------------------------------------------------
# Presets: tcplab scenarios (dicts), each with its comparison windows.
# ----------------------------------------------------------------------------------------

def _dumbbell(ccs: list[str], rate: str, rtt_ms: float, buffer_pkts: int, duration: float) -> dict:
    # Bottleneck and access delays make up the RTT: 2 x (access + bn + access) one way.
    one_way = rtt_ms / 2.0
    return {
        "duration": f"{duration}s",
        "dumbbell": {
            "bottleneck": {"rate": rate, "delay": f"{one_way - 2.0}ms", "buffer": buffer_pkts},
            "access": {"rate": "1Gbps", "delay": "1ms"},
            "flows": [{"cc": c} for c in ccs],
        },
    }


def _twoway(duration: float) -> dict:
    """Seed 000's two-way asymmetric link as issue 16 measured it: 200 kb/s up, 10 Mb/s down,
    zero propagation delay, one bulk connection each way, unlimited FIFOs (fig2_3.toml with
    rates doubled), Linux's TCP instead of the paper's 64 KB Reno."""
    return {
        "duration": f"{duration}s",
        "nodes": {"slow": "host", "fast": "host"},
        "links": {
            "up": {"from": "slow", "to": "fast", "rate": "200kbps", "delay": "0s",
                   "queue": {"type": "droptail", "limit": "unlimited"}},
            "down": {"from": "fast", "to": "slow", "rate": "10Mbps", "delay": "0s",
                     "queue": {"type": "droptail", "limit": "unlimited"}},
        },
        "flows": {
            "slow": {"from": "slow", "to": "fast", "cc": "reno"},
            "fast": {"from": "fast", "to": "slow", "cc": "reno"},
        },
    }


@dataclass
class Preset:
    name: str
    about: str
    scenario: dict
    windows: list[tuple[str, float, float]]   # (label, t0, t1) seconds
    links: list[str] = field(default_factory=list)   # tcplab link directions to measure
    # SO_SNDBUF asked for per flow on the kernel side (the kernel doubles it); tcplab then gets
    # max_window = the window the kernel actually kept (median ss `unacked`, second half).
    sndbuf: dict[str, int] = field(default_factory=dict)
    # Receive window clamp per flow, segments (TCP_WINDOW_CLAMP on the kernel's receiver,
    # max_window = the same bytes in tcplab): an exact window on both sides.
    clamp: dict[str, int] = field(default_factory=dict)
    # tcplab alone for this long too (s; 0 = no): when its windows reach the kernel's, and
    # the goodputs over the second half.
    tcplab_long: float = 0.0
    # tcplab again over this many seeds with every flow's start jittered by up to one RTT
    # (start_jitter): are its fairness figures a phase effect of one deterministic run?
    jitter_seeds: int = 0
    jitter: str = "40ms"
    # tcplab-only checks of a traced cause: (label, {flow or "*": {key: value, or None to
    # remove the key}}), run on the same seeds as above (seed 1 without jitter_seeds).
    variants: list[tuple[str, dict[str, dict]]] = field(default_factory=list)
    quick_duration: float = 8.0


PRESETS = [
    Preset("cubic2", "2 CUBIC flows, 20 Mb/s, RTT 40 ms, 66-packet (1 BDP) drop-tail buffer",
           _dumbbell(["cubic", "cubic"], "20Mbps", 40.0, 66, 40.0),
           [("steady", 10.0, 40.0)], ["bn"], jitter_seeds=5,
           variants=[("no delayed acks", {"*": {"delayed_ack": None}}),
                     ("per-ack counting, no quick-ack", {"*": BEFORE_PROFILE})]),
    Preset("reno2", "2 Reno flows, 20 Mb/s, RTT 40 ms, 66-packet (1 BDP) drop-tail buffer",
           _dumbbell(["reno", "reno"], "20Mbps", 40.0, 66, 40.0),
           [("steady", 10.0, 40.0)], ["bn"], jitter_seeds=5,
           variants=[("no delayed acks", {"*": {"delayed_ack": None}}),
                     ("per-ack counting, no quick-ack", {"*": BEFORE_PROFILE})]),
    Preset("cubic_reno", "CUBIC vs Reno, 20 Mb/s, RTT 40 ms, 66-packet drop-tail buffer",
           _dumbbell(["cubic", "reno"], "20Mbps", 40.0, 66, 40.0),
           [("steady", 10.0, 40.0)], ["bn"], jitter_seeds=5,
           variants=[("no delayed acks", {"*": {"delayed_ack": None}}),
                     ("per-ack counting, no quick-ack", {"*": BEFORE_PROFILE})]),
    # The default profile's mixed dumbbell (issue "One design for 'behave like X'", done-when:
    # every flow at least a sixth of the link): CUBIC, BBR (v1, the kernel's `bbr`) and
    # Reno sharing one drop-tail bottleneck of 0.5, 1 and 3 BDP.
    *[Preset(f"mix_{tag}", f"CUBIC, BBR and Reno, 20 Mb/s, RTT 40 ms, {pkts}-packet ({tag} BDP) "
             "drop-tail buffer",
             _dumbbell(["cubic", "bbr", "reno"], "20Mbps", 40.0, pkts, 40.0),
             [("steady", 10.0, 40.0)], ["bn"])
      for tag, pkts in (("0.5", 33), ("1", 66), ("3", 198))],
    Preset("twoway", "seed 000 two-way link: 200 kb/s up, 10 Mb/s down, no delay, unlimited "
           "FIFOs, Reno each way", _twoway(60.0),
           [("transient", 0.0, 20.0), ("steady", 30.0, 58.0)], ["up", "down"],
           sndbuf={"slow": 65536, "fast": 65536}),
    Preset("twoway_clamp", "seed 000 two-way link as twoway, windows clamped to the issue's 88 "
           "(slow) and 52 (fast) segments", _twoway(60.0),
           [("transient", 0.0, 20.0), ("steady", 30.0, 58.0)], ["up", "down"],
           clamp={"slow": 88, "fast": 52}, tcplab_long=600.0,
           variants=[("fast rto_min 10 s", {"fast": {"rto_min": "10s"}}),
                     ("no quick-ack", {"*": {"quickack": 0}}),
                     ("per-ack counting, no quick-ack", {"*": BEFORE_PROFILE})]),
]


# ----------------------------------------------------------------------------------------
# `ss -tin` parsing (pure; tests/test_kernel_compare.py)
# ----------------------------------------------------------------------------------------

_RATE_UNITS = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_RATE_RE = re.compile(r"^([0-9.]+)([kKMGT]?)bps$")


def parse_rate(text: str) -> float:
    """'19255319bps', '19.3Mbps', '231kbps' -> bits per second."""
    m = _RATE_RE.match(text)
    if not m:
        raise ValueError(f"not an ss rate: {text!r}")
    return float(m.group(1)) * _RATE_UNITS[m.group(2)]


def _num(text: str) -> float | int:
    return float(text) if any(c in text for c in ".eE") else int(text)


# Keys whose value follows as the next token (`send 19Mbps`, `pacing_rate 23Mbps`, ...).
_SPACED_RATES = ("send", "pacing_rate", "delivery_rate", "max_pacing_rate")
_STATES = {"ESTAB", "SYN-SENT", "SYN-RECV", "FIN-WAIT-1", "FIN-WAIT-2", "TIME-WAIT", "CLOSE-WAIT",
           "LAST-ACK", "LISTEN", "CLOSING", "UNCONN", "CLOSED"}


def _split_addr(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host.strip("[]"), int(port) if port.isdigit() else -1


def parse_ss(text: str) -> list[dict[str, Any]]:
    """Parse `ss -tin` (or `-tinH`, with or without a state filter) output into one dict per
    socket: `state` (None when ss omitted the column), `recv_q`, `send_q`, `local`,
    `local_port`, `peer`, `peer_port`, plus the info keys: numbers as int/float, rates in
    b/s, `rtt`/`rttvar` (ms) from `rtt:A/B`, `retrans`/`retrans_total` from `retrans:A/B`,
    `flags` (bare words: the congestion control, `ts`, `sack`, `ecn`, ...) and `cc` (the
    first bare word that is not a known flag)."""
    sockets: list[dict[str, Any]] = []
    cur: dict[str, Any] | None = None
    for raw in text.splitlines():
        if not raw.strip() or raw.startswith(("State", "Recv-Q", "Netid")):
            continue
        if not raw[0].isspace():
            tok = raw.split()
            state = None
            if tok and tok[0] in _STATES:
                state, tok = tok[0], tok[1:]
            if len(tok) < 4:
                cur = None
                continue
            local, lport = _split_addr(tok[2])
            peer, pport = _split_addr(tok[3])
            cur = {"state": state, "recv_q": int(tok[0]), "send_q": int(tok[1]),
                   "local": local, "local_port": lport, "peer": peer, "peer_port": pport,
                   "flags": []}
            sockets.append(cur)
            continue
        if cur is None:
            continue
        _parse_info(raw.split(), cur)
    return sockets


_KNOWN_FLAGS = {"ts", "sack", "ecn", "ecnseen", "fastopen", "app_limited", "ect", "wscale"}


def _parse_info(tokens: list[str], out: dict[str, Any]) -> None:
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in _SPACED_RATES and i + 1 < len(tokens):
            try:
                out[tok] = parse_rate(tokens[i + 1])
                i += 2
                continue
            except ValueError:
                pass
        key, sep, val = tok.partition(":")
        if not sep:
            out["flags"].append(tok)
            if "cc" not in out and tok not in _KNOWN_FLAGS and not tok.startswith("("):
                out["cc"] = tok
            i += 1
            continue
        if key == "rtt" and "/" in val:
            a, b = val.split("/", 1)
            out["rtt"], out["rttvar"] = float(a), float(b)
        elif key == "retrans" and "/" in val:
            a, b = val.split("/", 1)
            out["retrans"], out["retrans_total"] = int(a), int(b)
        elif key in ("wscale",):
            out[key] = val
        elif key.endswith("_rate") or val.endswith("bps"):
            try:
                out[key] = parse_rate(val)
            except ValueError:
                out[key] = val
        else:
            try:
                out[key] = _num(val.rstrip("ms") if key in ("busy", "rwnd_limited", "sndbuf_limited",
                                                            "cwnd_limited") else val)
            except ValueError:
                out[key] = val
        i += 1


def parse_samples(text: str) -> list[tuple[float, list[dict[str, Any]]]]:
    """The `_sample` worker's file: blocks `@ T` followed by that instant's `ss -tinH`."""
    out: list[tuple[float, list[dict[str, Any]]]] = []
    t: float | None = None
    buf: list[str] = []
    for line in text.splitlines() + ["@ end"]:
        if line.startswith("@ "):
            if t is not None:
                out.append((t, parse_ss("\n".join(buf))))
            buf = []
            head = line[2:].strip()
            t = None if head == "end" else float(head)
        else:
            buf.append(line)
    return out


# ----------------------------------------------------------------------------------------
# Statistics (pure)
# ----------------------------------------------------------------------------------------

def jain(xs: list[float]) -> float | None:
    if not xs:
        return None
    s, s2 = sum(xs), sum(x * x for x in xs)
    return 1.0 if s2 == 0 else s * s / (len(xs) * s2)


def percentile(xs: list[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not xs:
        return None
    v = sorted(xs)
    pos = (len(v) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def rate_between(series: list[tuple[float, float]], t0: float, t1: float) -> float | None:
    """Counter series [(t, bytes)] -> bits/s between the samples nearest inside [t0, t1]."""
    inside = [(t, b) for t, b in series if t0 - 1e-9 <= t <= t1 + 1e-9]
    if len(inside) < 2 or inside[-1][0] <= inside[0][0]:
        return None
    (ta, ba), (tb, bb) = inside[0], inside[-1]
    return (bb - ba) * 8.0 / (tb - ta)


def window_stats(samples: list[tuple[float, float]], t0: float, t1: float) -> dict[str, float | None]:
    xs = [w for t, w in samples if t0 <= t <= t1]
    return {"mean": sum(xs) / len(xs) if xs else None, "p10": percentile(xs, 0.10),
            "p50": percentile(xs, 0.50), "p90": percentile(xs, 0.90)}


# ----------------------------------------------------------------------------------------
# Workers run inside the namespaces (stdlib only)
# ----------------------------------------------------------------------------------------

def worker_sink(port: int, clamp: int = 0) -> None:
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if clamp:
        # The accepted connection advertises at most `clamp` bytes. SO_RCVBUF (4x the clamp,
        # doubled by the kernel) turns receive-buffer autotuning off, which would otherwise
        # raise window_clamp along with the buffer (tcp_rcv_space_adjust).
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * clamp)
        srv.setsockopt(socket.IPPROTO_TCP, socket.TCP_WINDOW_CLAMP, clamp)
    srv.bind(("0.0.0.0", port))
    srv.listen(4)
    conn, _ = srv.accept()
    buf = bytearray(1 << 20)
    if not clamp:
        while conn.recv_into(buf):
            pass
        return
    # Re-applied every 20 ms: since Linux 6.x the kernel recomputes window_clamp from the
    # receive buffer when its payload/truesize estimate (scaling_ratio) changes, which undoes
    # a TCP_WINDOW_CLAMP set once (seen here: a 52-segment clamp ending at 90 segments).
    nxt = 0.0
    while True:
        now = time.monotonic()
        if now >= nxt:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_WINDOW_CLAMP, clamp)
            nxt = now + 0.02
        if not conn.recv_into(buf):
            break


def _client(cc: str, sndbuf: int) -> socket.socket:
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    if sndbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)   # the kernel doubles it
    return s


def worker_source(host: str, port: int, cc: str, seconds: float, sndbuf: int = 0) -> None:
    s = _client(cc, sndbuf)
    for _ in range(100):                  # the sink may still be starting
        try:
            s.connect((host, port))
            break
        except ConnectionRefusedError:
            time.sleep(0.02)
            s.close()
            s = _client(cc, sndbuf)
    print(f"{time.time():.6f}", flush=True)        # connected: the flow's t = 0
    got = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
    if got != cc:
        raise SystemExit(f"TCP_CONGESTION is {got}, wanted {cc}")
    data = bytes(1 << 16)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        s.send(data)
    s.close()


def worker_sample(period: float, peer_ports: str) -> None:
    """Print `@ T` (time.time()) and `ss -tinH` for our sockets every period, until killed."""
    ports = peer_ports.split(",")
    filt = " or ".join(f"dport = :{p}" for p in ports)
    cmd = ["ss", "-tinH", "state", "established", f"( {filt} )"]
    nxt = time.monotonic()
    while True:
        t = time.time()
        out = subprocess.run(cmd, capture_output=True, text=True).stdout
        sys.stdout.write(f"@ {t:.6f}\n{out}")
        sys.stdout.flush()
        nxt += period
        time.sleep(max(0.0, nxt - time.monotonic()))


TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def worker_delay(tun: str, spec: str) -> None:
    """Delay line: every IPv4 packet read from the TUN device is written back after the
    one-way delay of its (source, destination) pair (spec: JSON {"src>dst": seconds};
    pairs not listed: 0). A constant delay per pair keeps each pair's packets in order.
    Prints the largest lateness seen (how much later than due a packet left) on exit."""
    fd = os.open("/dev/net/tun", os.O_RDWR)
    import fcntl
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", tun.encode(), IFF_TUN | IFF_NO_PI))
    os.set_blocking(fd, False)
    delays = {}
    for k, v in json.loads(spec).items():
        a, b = k.split(">")
        delays[(socket.inet_aton(a), socket.inet_aton(b))] = float(v)
    heap: list[tuple[float, int, bytes]] = []
    seq = 0
    late_max = 0.0
    late_sum = 0.0
    n = 0

    def report(*_: Any) -> None:
        sys.stdout.write(json.dumps({"packets": n, "late_max_s": late_max,
                                     "late_mean_s": late_sum / n if n else 0.0}) + "\n")
        sys.stdout.flush()
        os._exit(0)

    signal.signal(signal.SIGTERM, report)
    while True:
        timeout = max(0.0, heap[0][0] - time.monotonic()) if heap else 1.0
        r, _, _ = select.select([fd], [], [], timeout)
        if r:
            while True:
                try:
                    pkt = os.read(fd, 65536)
                except BlockingIOError:
                    break
                d = delays.get((pkt[12:16], pkt[16:20]), 0.0) if len(pkt) >= 20 else 0.0
                if d <= 0.0:
                    os.write(fd, pkt)
                else:
                    heapq.heappush(heap, (time.monotonic() + d, seq, pkt))
                    seq += 1
        now = time.monotonic()
        while heap and heap[0][0] <= now:
            due, _, pkt = heapq.heappop(heap)
            os.write(fd, pkt)
            late = now - due
            late_max = max(late_max, late)
            late_sum += late
            n += 1


# ----------------------------------------------------------------------------------------
# Namespace plumbing
# ----------------------------------------------------------------------------------------

class Skip(Exception):
    """The kernel cannot run this here (not root, no netns, no htb, ...)."""


class NotExpressible(Exception):
    """The scenario uses something this kernel setup cannot build."""


def sh(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run(list(args), capture_output=True, text=True)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {p.stderr.strip() or p.stdout.strip()}")
    return p


def parse_rate_text(text: str | int | float) -> float:
    """tcplab rate strings ('20Mbps', '200kbps', '1Gbps') -> b/s."""
    if isinstance(text, (int, float)):
        return float(text)
    m = re.fullmatch(r"\s*([0-9.eE+]+)\s*([kKMGT]?)(bps|bit/s|b/s)\s*", text)
    if not m:
        raise NotExpressible(f"rate {text!r}")
    return float(m.group(1)) * _RATE_UNITS[m.group(2)]


def parse_duration(text: str | int | float) -> float:
    if isinstance(text, (int, float)):
        return float(text)
    m = re.fullmatch(r"\s*([0-9.eE+]+)\s*(ps|ns|us|µs|ms|s|min)?\s*", text)
    if not m:
        raise NotExpressible(f"duration {text!r}")
    scale = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0,
             "min": 60.0, None: 1.0}[m.group(2)]
    return float(m.group(1)) * scale


@dataclass
class Edge:
    """One veth pair between kernel nodes a and b; `shape_ab` is the tcplab link direction
    carried by a's interface (None = unshaped), `shape_ba` the other."""
    a: str
    b: str
    shape_ab: dict | None
    shape_ba: dict | None
    idx: int = 0

    def addr(self, node: str) -> str:
        return f"{SUBNET}.{self.idx}.{1 if node == self.a else 2}"

    def ifname(self, node: str) -> str:
        return f"v{self.idx}{'a' if node == self.a else 'b'}"


@dataclass
class KernelPlan:
    nodes: dict[str, str]                    # kernel node -> "host" | "router"
    edges: list[Edge]
    flows: list[dict]                        # name, from, to, cc (kernel), port
    delays: dict[tuple[str, str], float]     # (src host, dst host) -> one-way seconds
    delay_node: str | None
    shaped: dict[str, tuple[str, str]]       # tcplab link direction -> (kernel node, ifname)


def plan_topology(expanded: dict) -> KernelPlan:
    """The kernel topology for an expanded tcplab scenario (or NotExpressible)."""
    nodes = {k: (v if isinstance(v, str) else v.get("type", "host")) for k, v in expanded["nodes"].items()}
    links = expanded["links"]
    pairs: dict[frozenset, list[tuple[str, dict]]] = {}
    for name, d in sorted(links.items()):
        q = d.get("queue", {"type": "droptail", "limit": 1000})
        if q.get("type", "droptail") != "droptail" or "mark_threshold" in q:
            raise NotExpressible(f"links.{name}.queue: only drop-tail (htb + pfifo) is expressible here")
        for key in ("loss", "error", "backpressure"):
            if key in d and d[key] not in (0, "none", {"model": "none"}):
                raise NotExpressible(f"links.{name}.{key}")
        pairs.setdefault(frozenset((d["from"], d["to"])), []).append((name, d))
    kn = dict(nodes)
    edges: list[Edge] = []
    for key, dirs in pairs.items():
        a, b = sorted(key)
        ab = next(((n, d) for n, d in dirs if d["from"] == a), None)
        ba = next(((n, d) for n, d in dirs if d["from"] == b), None)
        if len(dirs) > 2:
            raise NotExpressible(f"parallel links between {a} and {b}")
        if nodes[a] == "host" and nodes[b] == "host":
            m = f"m_{a}_{b}"[:10]
            kn[m] = "router"
            edges.append(Edge(a, m, None, _named(ba)))
            edges.append(Edge(m, b, _named(ab), None))
        else:
            edges.append(Edge(a, b, _named(ab) if nodes[a] == "router" else None,
                              _named(ba) if nodes[b] == "router" else None))
    for i, e in enumerate(edges, start=1):
        e.idx = i
    shaped = {}
    for e in edges:
        if e.shape_ab:
            shaped[e.shape_ab["_name"]] = (e.a, e.ifname(e.a))
        if e.shape_ba:
            shaped[e.shape_ba["_name"]] = (e.b, e.ifname(e.b))
    flows, delays = [], {}
    for i, (fname, f) in enumerate(sorted(expanded["flows"].items())):
        if f.get("transport", "tcp") != "tcp":
            raise NotExpressible(f"flows.{fname}: UDP")
        app = f.get("app", {"type": "bulk"})
        if app.get("type", "bulk") != "bulk" or any(k in app for k in ("start", "stop")):
            raise NotExpressible(f"flows.{fname}.app: only a bulk source from t = 0")
        cc = f.get("cc", "newreno")
        cc = cc if isinstance(cc, str) else cc.get("algorithm")
        if cc not in KERNEL_CC:
            raise NotExpressible(f"flows.{fname}.cc = {cc!r}: the kernel here has reno, cubic, bbr")
        flows.append({"name": fname, "from": f["from"], "to": f["to"], "cc": KERNEL_CC[cc],
                      "port": SINK_PORT0 + i})
        for s, d in ((f["from"], f["to"]), (f["to"], f["from"])):
            delays[(s, d)] = sum(parse_duration(links[ln].get("delay", 0)) for ln in _path(links, s, d))
    # The delay line sits in one router that every flow path crosses (both directions).
    delay_node = None
    if any(v > 0 for v in delays.values()):
        adj = _adjacency(kn, edges)
        common = None
        for (s, d) in delays:
            on = set(_kpath(adj, s, d)[1:-1])
            common = on if common is None else common & on
        routers = sorted(n for n in (common or set()) if kn[n] == "router")
        if not routers:
            raise NotExpressible("no router on every path to hold the delay line")
        delay_node = routers[0]
    return KernelPlan(kn, edges, flows, delays, delay_node, shaped)


def _named(nd: tuple[str, dict] | None) -> dict | None:
    if nd is None:
        return None
    return dict(nd[1], _name=nd[0])


def _path(links: dict, src: str, dst: str) -> list[str]:
    """tcplab's static route: fewest hops, ties by link name (BFS over sorted links)."""
    prev: dict[str, str | None] = {src: None}
    frontier = [src]
    while frontier and dst not in prev:
        nxt = []
        for n in frontier:
            for lname in sorted(links):
                d = links[lname]
                if d["from"] == n and d["to"] not in prev:
                    prev[d["to"]] = lname
                    nxt.append(d["to"])
        frontier = nxt
    if dst not in prev:
        raise NotExpressible(f"no path {src} -> {dst}")
    out, n = [], dst
    while prev[n] is not None:
        out.append(prev[n])
        n = links[prev[n]]["from"]
    return out[::-1]


def _adjacency(nodes: dict, edges: list[Edge]) -> dict[str, list[tuple[str, Edge]]]:
    adj: dict[str, list[tuple[str, Edge]]] = {n: [] for n in nodes}
    for e in edges:
        adj[e.a].append((e.b, e))
        adj[e.b].append((e.a, e))
    return adj


def _kpath(adj: dict, src: str, dst: str) -> list[str]:
    prev: dict[str, str | None] = {src: None}
    frontier = [src]
    while frontier and dst not in prev:
        nxt = []
        for n in frontier:
            for m, _ in sorted(adj[n], key=lambda x: x[0]):
                if m not in prev:
                    prev[m] = n
                    nxt.append(m)
        frontier = nxt
    out, n = [], dst
    while n is not None:
        out.append(n)
        n = prev[n]
    return out[::-1]


class Lab:
    """Namespaces and child processes of one run; `close()` removes everything it made."""

    def __init__(self, plan: KernelPlan, tag: str) -> None:
        self.plan = plan
        self.prefix = f"tlk{os.getpid() % 100000}{tag}_"
        self.created: list[str] = []
        self.procs: list[subprocess.Popen] = []
        self.host_addr: dict[str, str] = {}

    def ns(self, node: str) -> str:
        return self.prefix + node

    def nsx(self, node: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return sh("ip", "netns", "exec", self.ns(node), *args, check=check)

    def build(self) -> None:
        p = self.plan
        for n in p.nodes:
            r = sh("ip", "netns", "add", self.ns(n), check=False)
            if r.returncode != 0:
                raise Skip(f"`ip netns add` failed: {r.stderr.strip()}")
            self.created.append(self.ns(n))
            sh("ip", "-n", self.ns(n), "link", "set", "lo", "up")
            for key in ("net.ipv4.conf.all.rp_filter", "net.ipv4.conf.default.rp_filter"):
                self.nsx(n, "sysctl", "-qw", f"{key}=0", check=False)
            if p.nodes[n] == "router":
                self.nsx(n, "sysctl", "-qw", "net.ipv4.ip_forward=1")
        for e in p.edges:
            sh("ip", "link", "add", "name", e.ifname(e.a), "netns", self.ns(e.a), "type", "veth",
               "peer", "name", e.ifname(e.b), "netns", self.ns(e.b))
            for n in (e.a, e.b):
                # One MTU-sized packet per skb (no GSO/TSO): pfifo limits count packets.
                sh("ip", "-n", self.ns(n), "link", "set", e.ifname(n), "gso_max_segs", "1",
                   "gso_max_size", "1500", "up")
                sh("ip", "-n", self.ns(n), "addr", "add", f"{e.addr(n)}/24", "dev", e.ifname(n))
                if p.nodes[n] == "host":
                    self.host_addr.setdefault(n, e.addr(n))
            for n, shape in ((e.a, e.shape_ab), (e.b, e.shape_ba)):
                if shape:
                    self._shape(n, e.ifname(n), shape)
        self._routes()
        if p.delay_node:
            self._delay_line()

    def _shape(self, node: str, ifname: str, d: dict) -> None:
        rate = parse_rate_text(d["rate"])
        q = d.get("queue", {"type": "droptail", "limit": 1000})
        limit = q.get("limit", 1000)
        ns = self.ns(node)
        r = sh("tc", "-n", ns, "qdisc", "add", "dev", ifname, "root", "handle", "1:", "htb",
               "default", "1", check=False)
        if r.returncode != 0:
            raise Skip(f"htb qdisc not available: {r.stderr.strip()}")
        # burst/cburst of two full frames: htb's own default is rate/HZ + MTU.
        sh("tc", "-n", ns, "class", "add", "dev", ifname, "parent", "1:", "classid", "1:1", "htb",
           "rate", f"{int(rate)}bit", "ceil", f"{int(rate)}bit", "burst", "3028", "cburst", "3028",
           "quantum", "1514")
        if isinstance(limit, str) and limit == "unlimited":
            args = ["pfifo", "limit", "100000"]
        elif isinstance(limit, int) or re.fullmatch(r"\d+\s*(p|pkt)?", str(limit)):
            args = ["pfifo", "limit", str(int(re.match(r"\d+", str(limit)).group(0)))]
        else:
            from_bytes = parse_size(str(limit))
            args = ["bfifo", "limit", str(from_bytes)]
        sh("tc", "-n", ns, "qdisc", "add", "dev", ifname, "parent", "1:1", "handle", "10:", *args)

    def _routes(self) -> None:
        p = self.plan
        adj = _adjacency(p.nodes, p.edges)
        for n in p.nodes:
            for e in p.edges:
                if n in (e.a, e.b):
                    continue
                # next hop towards the nearer end of edge e
                pa, pb = _kpath(adj, n, e.a), _kpath(adj, n, e.b)
                path = pa if len(pa) <= len(pb) else pb
                hop = path[1]
                via = next(ed for m, ed in adj[n] if m == hop)
                sh("ip", "-n", self.ns(n), "route", "add", f"{SUBNET}.{e.idx}.0/24", "via", via.addr(hop))

    def _delay_line(self) -> None:
        p = self.plan
        node = p.delay_node
        ns = self.ns(node)
        r = sh("ip", "-n", ns, "tuntap", "add", "dev", "tdl", "mode", "tun", check=False)
        if r.returncode != 0:
            raise Skip(f"no TUN device for the delay line (this kernel has no netem): {r.stderr.strip()}")
        sh("ip", "-n", ns, "link", "set", "tdl", "up")
        self.nsx(node, "sysctl", "-qw", "net.ipv4.conf.tdl.rp_filter=0", check=False)
        sh("ip", "-n", ns, "route", "add", "default", "dev", "tdl", "table", "100")
        for e in p.edges:
            if node in (e.a, e.b):
                sh("ip", "-n", ns, "rule", "add", "iif", e.ifname(node), "lookup", "100", "pref", "100")
        spec = {f"{self.host_addr[s]}>{self.host_addr[d]}": v for (s, d), v in p.delays.items() if v > 0}
        self.spawn(node, "_delay", "tdl", json.dumps(spec), stdout=subprocess.PIPE)
        self.delay_proc = self.procs[-1]

    def spawn(self, node: str, *args: str, stdout: Any = subprocess.DEVNULL) -> subprocess.Popen:
        proc = subprocess.Popen(["ip", "netns", "exec", self.ns(node), sys.executable, str(Path(__file__).resolve()),
                                 *args], stdout=stdout, stderr=subprocess.PIPE, text=True)
        self.procs.append(proc)
        return proc

    def tc_stats(self, node: str, ifname: str) -> tuple[int, int, int]:
        """(bytes sent, drops, packets waiting) of the htb root on node's ifname."""
        out = sh("tc", "-s", "-n", self.ns(node), "qdisc", "show", "dev", ifname, check=False).stdout
        m = re.search(r"qdisc htb 1:.*?Sent (\d+) bytes \d+ pkt \(dropped (\d+).*?backlog \S+ (\d+)p", out, re.S)
        return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else (0, 0, 0)

    def close(self) -> None:
        # exited on their own with an error (negative codes are our own terminate/kill)
        failed = [p for p in self.procs if p.poll() is not None and p.returncode > 0]
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + 2.0
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for proc in self.procs:
            if proc in failed and proc.stderr:
                print(f"warning: worker {' '.join(proc.args[5:])} exited with {proc.returncode}: "
                      f"{proc.stderr.read().strip()[-500:]}", file=sys.stderr)
            for stream in (proc.stdout, proc.stderr):
                if stream:
                    stream.close()
        for ns in reversed(self.created):
            sh("ip", "netns", "del", ns, check=False)
        self.created.clear()


class TcPoller:
    """Samples every shaped link's htb counters (bytes, drops, backlog) every `period` s."""

    def __init__(self, lab: Lab, shaped: dict[str, tuple[str, str]], t0: float, period: float = 0.25) -> None:
        import threading
        self.lab, self.shaped, self.t0, self.period = lab, shaped, t0, period
        self.samples: dict[str, list[tuple[float, int, int, int]]] = {n: [] for n in shaped}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._poll()
        self._thread.start()

    def _poll(self) -> None:
        for n, where in self.shaped.items():
            self.samples[n].append((time.time() - self.t0, *self.lab.tc_stats(*where)))

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self._poll()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self._poll()


def parse_size(text: str) -> int:
    m = re.fullmatch(r"\s*([0-9.]+)\s*([kKMG]i?)?B\s*", text)
    if not m:
        raise NotExpressible(f"queue limit {text!r}")
    unit = m.group(2) or ""
    scale = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "Ki": 1024, "ki": 1024, "Mi": 1 << 20,
             "Gi": 1 << 30}[unit]
    return int(float(m.group(1)) * scale)


def preflight() -> None:
    if os.geteuid() != 0:
        raise Skip("not root: network namespaces need CAP_NET_ADMIN")
    for tool in ("ip", "tc", "ss"):
        if shutil.which(tool) is None:
            raise Skip(f"`{tool}` not found (iproute2)")
    name = f"tlkprobe{os.getpid()}"
    r = sh("ip", "netns", "add", name, check=False)
    if r.returncode != 0:
        raise Skip(f"`ip netns add` is not permitted here: {r.stderr.strip()}")
    sh("ip", "netns", "del", name, check=False)


def available_cc() -> set[str]:
    try:
        return set(Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split())
    except OSError:
        return set()


# ----------------------------------------------------------------------------------------
# One comparison
# ----------------------------------------------------------------------------------------

def tcplab_scenario(preset_scenario: dict, duration: float, period: float) -> dict:
    sc = json.loads(json.dumps(preset_scenario))
    sc["duration"] = f"{duration}s"
    sc.setdefault("metrics", {})["trace"] = f"{int(round(period * 1000))}ms"
    return sc


def expand(scenario: dict) -> dict:
    import tcplab
    sc = json.loads(json.dumps(scenario))
    sc.setdefault("defaults", {}).setdefault("flows", {})["profile"] = LINUX_PROFILE
    expanded = tcplab.Scenario.from_dict(sc).expand().to_dict()
    for f in expanded["flows"].values():
        f.update(LINUX_FLOW)
    return expanded


def run_tcplab(expanded: dict, flow_overrides: dict[str, dict]) -> tuple[Any, dict]:
    import tcplab
    sc = json.loads(json.dumps(expanded))
    for name, over in flow_overrides.items():
        sc["flows"][name].update(over)
    res = tcplab.run(tcplab.Scenario.from_dict(sc), seed=1)
    return res, res.summary


def run_kernel(plan: KernelPlan, duration: float, period: float, tag: str) -> dict:
    lab = Lab(plan, tag)
    out: dict[str, Any] = {}
    try:
        lab.build()
        for f in plan.flows:
            lab.spawn(f["to"], "_sink", str(f["port"]), str(f.get("clamp", 0)))
        samplers = {}
        by_sender: dict[str, list[str]] = {}
        for f in plan.flows:
            by_sender.setdefault(f["from"], []).append(str(f["port"]))
        time.sleep(0.3)
        files = {}
        for node, ports in by_sender.items():
            # to a file, not a pipe: a full pipe would stall the sampler
            files[node] = tempfile.TemporaryFile("w+")
            samplers[node] = lab.spawn(node, "_sample", str(period), ",".join(ports), stdout=files[node])
        t_wall0 = time.time()
        poll = TcPoller(lab, plan.shaped, t_wall0)
        poll.start()
        sources = [lab.spawn(f["from"], "_source", lab.host_addr[f["to"]], str(f["port"]), f["cc"],
                             str(duration), str(f.get("sndbuf", 0)), stdout=subprocess.PIPE)
                   for f in plan.flows]
        # t = 0 is when the first connection is established (Python's start-up inside the
        # namespaces takes up to a second on a loaded machine); the run lasts `duration` from there.
        starts = []
        for proc in sources:
            line = proc.stdout.readline().strip()
            if not line:
                raise RuntimeError(f"a source did not connect: {proc.stderr.read().strip()[-300:]}")
            starts.append(float(line))
        t_start = min(starts)
        time.sleep(max(0.0, t_start + duration - time.time()))
        t_end = time.time()
        poll.stop()
        for proc in samplers.values():
            proc.terminate()
        raw = {}
        for node, proc in samplers.items():
            proc.wait(timeout=5)
            files[node].seek(0)
            raw[node] = files[node].read()
            files[node].close()
        if plan.delay_node:
            lab.delay_proc.terminate()
            txt = lab.delay_proc.communicate(timeout=5)[0].strip()
            out["delay_line"] = json.loads(txt.splitlines()[-1]) if txt else None
        port_flow = {f["port"]: f for f in plan.flows}
        series: dict[str, list[dict]] = {f["name"]: [] for f in plan.flows}
        for node, text in raw.items():
            for t, socks in parse_samples(text):
                for s in socks:
                    f = port_flow.get(s.get("peer_port"))
                    if f is None or f["from"] != node:
                        continue
                    s["t"] = t - t_start
                    series[f["name"]].append(s)
        out["series"] = series
        shift = t_start - t_wall0
        out["links"] = {n: [(t - shift, *rest) for t, *rest in smp] for n, smp in poll.samples.items()}
        out["wall_s"] = t_end - t_start
        out["connect_offsets_s"] = {f["name"]: st - t_start for f, st in zip(plan.flows, starts)}
        out["ccs"] = {f["name"]: f["cc"] for f in plan.flows}
    finally:
        lab.close()
    return out


def kernel_flow_stats(series: list[dict], t0: float, t1: float) -> dict[str, Any]:
    acked = [(s["t"], s.get("bytes_acked", 0)) for s in series]
    win = []
    for s in series:
        cwnd = s.get("cwnd")
        if cwnd is None:
            continue
        mss = s.get("mss", KERNEL_MSS)
        rwnd = s.get("snd_wnd")
        w = min(cwnd, rwnd // mss) if isinstance(rwnd, int) else cwnd
        win.append((s["t"], float(w)))
    fl = [s.get("unacked", 0) for s in series if t0 <= s["t"] <= t1]
    rtts = [s["rtt"] for s in series if t0 <= s["t"] <= t1 and "rtt" in s]
    last = series[-1] if series else {}
    # whole run, as tcplab's `retransmits`
    return {"goodput_bps": rate_between(acked, t0, t1), "win": window_stats(win, t0, t1),
            "rtt_ms": sum(rtts) / len(rtts) if rtts else None, "retrans": last.get("retrans_total", 0),
            "in_flight": sum(fl) / len(fl) if fl else None,
            "min_rtt_ms": last.get("minrtt"), "cwnd_series": win}


def summary_flow(summary: dict, flow: str) -> dict:
    flows = summary["flows"]
    return next(f for f in flows if f["name"] == flow) if isinstance(flows, list) else flows[flow]


def tcplab_flow_stats(res: Any, summary: dict, flow: str, t0: float, t1: float, mss: int) -> dict[str, Any]:
    import polars as pl
    iv = res.intervals.filter((pl.col("flow") == flow) & (pl.col("t_start") >= t0 - 1e-9)
                              & (pl.col("t_end") <= t1 + 1e-9))
    tr = res.traces["cwnd"].filter(pl.col("flow") == flow)
    win = [(t, c / mss) for t, c in zip(tr["t"].to_list(), tr["cwnd_bytes"].to_list())]
    fl = [b / mss for t, b in zip(tr["t"].to_list(), tr["in_flight_bytes"].to_list()) if t0 <= t <= t1]
    goodput = rtt = None
    if iv.height:
        span = (iv["t_end"] - iv["t_start"]).to_list()
        goodput = sum(g * w for g, w in zip(iv["goodput_bps"].to_list(), span)) / sum(span)
        rtts = [x for x in iv["srtt_s"].to_list() if x == x]
        rtt = 1e3 * sum(rtts) / len(rtts) if rtts else None
    fs = summary_flow(summary, flow)
    return {"goodput_bps": goodput, "win": window_stats(win, t0, t1), "rtt_ms": rtt,
            "in_flight": sum(fl) / len(fl) if fl else None,
            "retrans": fs.get("retransmits"), "timeouts": fs.get("timeouts"),
            "min_rtt_ms": (fs.get("min_rtt_s") or 0.0) * 1e3, "cwnd_series": win}


# ----------------------------------------------------------------------------------------
# Report
# ----------------------------------------------------------------------------------------

def _f(x: Any, fmt: str = "{:.1f}") -> str:
    return "–" if x is None else fmt.format(x)


def _pair(k: Any, t: Any, fmt: str = "{:.1f}") -> str:
    return f"{_f(k, fmt)} / {_f(t, fmt)}"


def compare(preset: Preset, quick: bool, period: float, out_dir: Path, repeat: int = 1) -> dict[str, Any]:
    duration = preset.quick_duration if quick else parse_duration(preset.scenario["duration"])
    duration = min(duration, WALL_LIMIT_S - 2.0)
    windows = [("steady", duration / 2.0, duration)] if quick else preset.windows
    expanded = expand(tcplab_scenario(preset.scenario, duration, period))
    plan = plan_topology(expanded)
    for f in plan.flows:
        f["sndbuf"] = preset.sndbuf.get(f["name"], 0)
        f["clamp"] = preset.clamp.get(f["name"], 0) * KERNEL_MSS
    missing = {f["cc"] for f in plan.flows} - available_cc()
    if missing:
        raise Skip(f"kernel congestion control(s) not available: {', '.join(sorted(missing))}")
    kern = run_kernel(plan, duration, period, preset.name[:4])
    # Flows whose kernel window is capped by SO_SNDBUF get the window the kernel actually
    # kept (median `unacked` in ss over the second half, segments) as tcplab's max_window.
    overrides = {}
    for n in preset.sndbuf:
        late = [s.get("unacked", 0) for s in kern["series"][n] if s["t"] >= duration / 2]
        med = percentile(late, 0.5)
        if med:
            overrides[n] = {"max_window": int(round(med)) * KERNEL_MSS}
    for n, segs in preset.clamp.items():
        overrides[n] = {"max_window": segs * KERNEL_MSS}
    res, summary = run_tcplab(expanded, overrides)
    names = [f["name"] for f in plan.flows]
    result: dict[str, Any] = {"preset": preset.name, "about": preset.about, "duration_s": duration,
                              "loadavg_after_kernel_run": os.getloadavg(),
                              "windows": [], "links": {}, "delay_line": kern.get("delay_line"),
                              "flows": {f["name"]: {"cc": f["cc"], "port": f["port"], "sndbuf": f["sndbuf"],
                                                    "kernel_first_sample_s": (kern["series"][f["name"]] or [{}])[0].get("t"),
                                                    "clamp_bytes": f["clamp"], "tcplab_max_window_segments":
                                                        overrides.get(f["name"], {}).get("max_window", 0) // KERNEL_MSS}
                                        for f in plan.flows}}
    for link in preset.links:
        conf = parse_rate_text(expanded["links"][link]["rate"])
        smp = kern["links"].get(link, [])
        result["links"][link] = {"configured_bps": conf, "kernel_drops": smp[-1][2] if smp else None,
                                 "kernel_samples": smp}
    lines = [f"### {preset.name}: {preset.about}", "",
             f"{duration:.0f} s each side; kernel {os.uname().release} (load average "
             f"{result['loadavg_after_kernel_run'][0]:.1f} on {os.cpu_count()} CPUs); cells are kernel / tcplab; "
             "win = the sender's window in segments, min(cwnd, receive window); in flight = ss `unacked` / "
             "tcplab's in_flight_bytes "
             f"(ss -tin every {period:g} s; tcplab's cwnd trace at the same period)", ""]
    for label, t0, t1 in windows:
        rows = {}
        for n in names:
            k = kernel_flow_stats(kern["series"][n], t0, t1)
            t = tcplab_flow_stats(res, summary, n, t0, t1, KERNEL_MSS)
            rows[n] = (k, t)
        w = {"label": label, "t0": t0, "t1": t1, "flows": {}}
        lines += [f"**{label}** [{t0:g} s, {t1:g} s]", "",
                  "| flow | cc | goodput Mb/s | win mean | win p10 | win p50 | win p90 | in flight mean | srtt ms | min RTT ms | retrans (run) |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for n, (k, t) in rows.items():
            lines.append(f"| {n} | {kern['ccs'][n]} | {_pair(_mb(k['goodput_bps']), _mb(t['goodput_bps']), '{:.3f}')} | "
                         f"{_pair(k['win']['mean'], t['win']['mean'])} | {_pair(k['win']['p10'], t['win']['p10'])} | "
                         f"{_pair(k['win']['p50'], t['win']['p50'])} | {_pair(k['win']['p90'], t['win']['p90'])} | "
                         f"{_pair(k['in_flight'], t['in_flight'])} | "
                         f"{_pair(k['rtt_ms'], t['rtt_ms'])} | {_pair(k['min_rtt_ms'], t['min_rtt_ms'], '{:.2f}')} | "
                         f"{_pair(k['retrans'], t['retrans'], '{:d}')} |")
            w["flows"][n] = {"kernel": {a: b for a, b in k.items() if a != "cwnd_series"},
                             "tcplab": {a: b for a, b in t.items() if a != "cwnd_series"}}
        kg = [rows[n][0]["goodput_bps"] or 0.0 for n in names]
        tg = [rows[n][1]["goodput_bps"] or 0.0 for n in names]
        w["aggregate_bps"] = {"kernel": sum(kg), "tcplab": sum(tg)}
        w["jain"] = {"kernel": jain(kg), "tcplab": jain(tg)}
        lines += [f"| aggregate | | {_pair(sum(kg) / 1e6, sum(tg) / 1e6, '{:.3f}')} | | | | | | | | |",
                  f"| Jain | | {_pair(jain(kg), jain(tg), '{:.3f}')} | | | | | | | | |", ""]
        w["links"] = {}
        for link in preset.links:
            smp = kern["links"].get(link, [])
            wire = rate_between([(t, b) for t, b, _, _ in smp], t0, t1)
            q = [p for t, _, _, p in smp if t0 <= t <= t1]
            conf = result["links"][link]["configured_bps"]
            tq = tcplab_queue(res, link, t0, t1)
            w["links"][link] = {"kernel_wire_bps": wire, "kernel_queue_mean": sum(q) / len(q) if q else None,
                                "tcplab_queue_mean": tq}
            lines.append(f"link `{link}` ({conf / 1e6:g} Mb/s): kernel htb sent {_f(_mb(wire), '{:.3f}')} Mb/s "
                         f"on the wire ({_f(wire / conf * 100 if wire else None)} %); queue mean "
                         f"{_pair(w['links'][link]['kernel_queue_mean'], tq)} packets")
        lines.append("")
        result["windows"].append(w)
    for link, v in result["links"].items():
        lines.append(f"link `{link}`: {v['kernel_drops']} kernel drops (run), tcplab "
                     f"{tcplab_drops(summary, link)}")
    if kern.get("delay_line"):
        d = kern["delay_line"]
        lines.append(f"delay line: {d['packets']} packets delayed, lateness mean "
                     f"{d['late_mean_s'] * 1e3:.3f} ms, max {d['late_max_s'] * 1e3:.3f} ms")
    if repeat > 1:
        # The kernel is not deterministic: the same run again, the last window's figures.
        label, t0, t1 = windows[-1]
        reps = [kern] + [run_kernel(plan, duration, period, preset.name[:4]) for _ in range(repeat - 1)]
        rows = []
        for kr in reps:
            g = [kernel_flow_stats(kr["series"][n], t0, t1)["goodput_bps"] or 0.0 for n in names]
            drops = sum(kr["links"][lk][-1][2] for lk in preset.links if kr["links"].get(lk))
            rows.append({"goodput_bps": g, "aggregate_bps": sum(g), "jain": jain(g), "drops": drops})
        result["kernel_repeats"] = rows
        js = [r["jain"] for r in rows]
        ag = [r["aggregate_bps"] / 1e6 for r in rows]
        per = ", ".join(f"{n} {min(r['goodput_bps'][i] for r in rows) / 1e6:.2f}-"
                        f"{max(r['goodput_bps'][i] for r in rows) / 1e6:.2f}" for i, n in enumerate(names))
        lines.append(f"kernel over {repeat} runs ({label}): aggregate {min(ag):.3f}-{max(ag):.3f} Mb/s, Jain "
                     f"mean {sum(js) / len(js):.3f} (min {min(js):.3f}, max {max(js):.3f}), goodput Mb/s {per}, "
                     f"drops {', '.join(str(r['drops']) for r in rows)}")
    if preset.jitter_seeds and not quick:
        import polars as pl
        label, t0, t1 = windows[-1]
        js, aggs = [], []
        for seed in range(1, preset.jitter_seeds + 1):
            jsc = json.loads(json.dumps(expanded))
            for f in jsc["flows"].values():
                f["start_jitter"] = preset.jitter
            import tcplab
            jr = tcplab.run(tcplab.Scenario.from_dict(jsc), seed=seed)
            iv = jr.intervals.filter((pl.col("t_start") >= t0 - 1e-9) & (pl.col("t_end") <= t1 + 1e-9))
            g = [iv.filter(pl.col("flow") == n)["goodput_bps"].mean() or 0.0 for n in names]
            js.append(jain(g))
            aggs.append(sum(g))
        result["tcplab_jitter"] = {"seeds": preset.jitter_seeds, "jitter": preset.jitter, "jain": js,
                                   "aggregate_bps": aggs}
        lines.append(f"tcplab over {preset.jitter_seeds} seeds, start_jitter {preset.jitter} ({label}): Jain "
                     f"mean {sum(js) / len(js):.3f} (min {min(js):.3f}, max {max(js):.3f}); aggregate "
                     f"{sum(aggs) / len(aggs) / 1e6:.3f} Mb/s")
    for vlabel, vover in ([] if quick else preset.variants):
        import polars as pl

        import tcplab
        label, t0, t1 = windows[-1]
        vrows = []
        for seed in range(1, max(1, preset.jitter_seeds) + 1):
            vsc = json.loads(json.dumps(expanded))
            for n, over in overrides.items():
                vsc["flows"][n].update(over)
            for fname, f in vsc["flows"].items():
                if preset.jitter_seeds:
                    f["start_jitter"] = preset.jitter
                for key, val in {**vover.get("*", {}), **vover.get(fname, {})}.items():
                    if val is None:
                        f.pop(key, None)
                    else:
                        f[key] = val
            vr = tcplab.run(tcplab.Scenario.from_dict(vsc), seed=seed)
            per = {}
            for wl, a, b in windows:
                iv = vr.intervals.filter((pl.col("t_start") >= a - 1e-9) & (pl.col("t_end") <= b + 1e-9))
                per[wl] = [iv.filter(pl.col("flow") == n)["goodput_bps"].mean() or 0.0 for n in names]
            drops = sum((tcplab_drops(vr.summary, lk) or 0) for lk in preset.links)
            vrows.append({"seed": seed, "goodput_bps": per, "drops": drops,
                          "timeouts": {n: summary_flow(vr.summary, n)["timeouts"] for n in names}})
        result.setdefault("tcplab_variants", {})[vlabel] = vrows
        js = [jain(r["goodput_bps"][label]) for r in vrows]
        gp = "; ".join(f"{wl}: " + ", ".join(
            f"{n} {min(r['goodput_bps'][wl][i] for r in vrows) / 1e6:.3f}-{max(r['goodput_bps'][wl][i] for r in vrows) / 1e6:.3f}"
            for i, n in enumerate(names)) for wl, _, _ in windows)
        tos = ", ".join(f"{n} {sum(r['timeouts'][n] for r in vrows)}" for n in names)
        drops_txt = ", ".join(str(r["drops"]) for r in vrows)
        lines.append(f"tcplab check `{vlabel}` ({len(vrows)} seed(s)): Jain ({label}) mean {sum(js) / len(js):.3f}; "
                     f"goodput Mb/s {gp}; drops {drops_txt}; timeouts {tos}")
    if preset.tcplab_long and not quick:
        long_sc = json.loads(json.dumps(expanded))
        long_sc["duration"] = f"{preset.tcplab_long}s"
        long_sc["metrics"]["steady_start"] = f"{preset.tcplab_long / 2}s"
        lres, lsum = run_tcplab(long_sc, overrides)
        result["tcplab_long"] = {}
        for n in names:
            fs = summary_flow(lsum, n)
            result["tcplab_long"][n] = {"goodput_bps": fs["goodput_bps"], "timeouts": fs["timeouts"],
                                        "max_window_reached_s": fs.get("max_window_reached_s")}
            lines.append(f"tcplab alone for {preset.tcplab_long:g} s: `{n}` goodput over the second half "
                         f"{fs['goodput_bps'] / 1e6:.3f} Mb/s, window first at its maximum at "
                         f"{_f(fs.get('max_window_reached_s'))} s, {fs['timeouts']} timeouts")
    lines.append("")
    text = "\n".join(lines)
    d = out_dir / preset.name
    d.mkdir(parents=True, exist_ok=True)
    (d / "table.md").write_text(text)
    (d / "results.json").write_text(json.dumps(result, indent=2, sort_keys=True, default=str) + "\n")
    _save_traces(d, kern, res, names)
    _plot(d / "cwnd.png", preset, kern, res, names, windows)
    print(text, flush=True)
    return result


def tcplab_queue(res: Any, link: str, t0: float, t1: float) -> float | None:
    import polars as pl
    q = res.traces.get("queue")
    if q is None or "link" not in q.columns:
        return None
    col = next((c for c in ("packets", "queue_packets", "len_packets") if c in q.columns), None)
    if col is None:
        return None
    sel = q.filter((pl.col("link") == link) & (pl.col("t") >= t0) & (pl.col("t") <= t1))[col].to_list()
    return sum(sel) / len(sel) if sel else None


def tcplab_drops(summary: dict, link: str) -> Any:
    links = summary.get("links", {})
    entry = next((ln for ln in links if ln.get("name") == link), None) if isinstance(links, list) else links.get(link)
    if not entry:
        return None
    return entry.get("drops", entry.get("drops_overflow"))


def _mb(x: float | None) -> float | None:
    return None if x is None else x / 1e6


TRACE_KEYS = ("cwnd", "ssthresh", "snd_wnd", "unacked", "rtt", "rttvar", "delivery_rate", "bytes_acked",
              "retrans_total", "lost", "mss")


def _save_traces(d: Path, kern: dict, res: Any, names: list[str]) -> None:
    with open(d / "kernel_trace.csv", "w") as fh:
        fh.write("t,flow," + ",".join(TRACE_KEYS) + "\n")
        for n in names:
            for s in kern["series"][n]:
                fh.write(f"{s['t']:.4f},{n}," + ",".join(str(s.get(k, "")) for k in TRACE_KEYS) + "\n")
    tr = res.traces["cwnd"]
    with open(d / "tcplab_trace.csv", "w") as fh:
        fh.write("t,flow,cwnd_segments,ssthresh_bytes\n")
        for row in tr.select(["t", "flow", "cwnd_bytes", "ssthresh_bytes"]).iter_rows():
            fh.write(f"{row[0]:.4f},{row[1]},{row[2] / KERNEL_MSS:.3f},{row[3]}\n")


def _plot(path: Path, preset: Preset, kern: dict, res: Any, names: list[str], windows: list) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    import polars as pl
    fig, axes = plt.subplots(len(names), 1, figsize=(9, 2.6 * len(names)), sharex=True, squeeze=False)
    for ax, n in zip(axes[:, 0], names):
        k = kernel_flow_stats(kern["series"][n], 0, 1e9)["cwnd_series"]
        tr = res.traces["cwnd"].filter(pl.col("flow") == n)
        ax.plot([t for t, _ in k], [w for _, w in k], lw=1.0, label="Linux (ss -tin)")
        ax.plot(tr["t"].to_list(), [c / KERNEL_MSS for c in tr["cwnd_bytes"].to_list()], lw=1.0,
                label="tcplab", alpha=0.85)
        for _, t0, t1 in windows:
            ax.axvspan(t0, t1, color="0.9", zorder=0)
        ax.set_ylabel(f"{n} ({kern['ccs'][n]})\nwindow, segments")
        ax.legend(loc="upper right", fontsize=8)
    axes[-1, 0].set_xlabel("time, s")
    fig.suptitle(f"{preset.name}: {preset.about}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0].startswith("_"):          # workers inside the namespaces
        cmd, rest = argv[0], argv[1:]
        if cmd == "_sink":
            worker_sink(int(rest[0]), int(rest[1]) if len(rest) > 1 else 0)
        elif cmd == "_source":
            worker_source(rest[0], int(rest[1]), rest[2], float(rest[3]), int(rest[4]) if len(rest) > 4 else 0)
        elif cmd == "_sample":
            worker_sample(float(rest[0]), rest[1])
        elif cmd == "_delay":
            worker_delay(rest[0], rest[1])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="comma-separated preset names")
    ap.add_argument("--out", default=str(ROOT / "out" / "kernel"))
    ap.add_argument("--quick", action="store_true", help="short runs (8 s) of each preset")
    ap.add_argument("--period", type=float, default=0.1, help="ss sampling period, s")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run the kernel side this many times (its variation, last window)")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    presets = PRESETS
    if args.only:
        want = args.only.split(",")
        unknown = set(want) - {p.name for p in PRESETS}
        if unknown:
            ap.error(f"unknown preset(s) {', '.join(sorted(unknown))}; known: {', '.join(p.name for p in PRESETS)}")
        presets = [p for p in PRESETS if p.name in want]
    if args.list:
        for p in PRESETS:
            print(f"{p.name:12s} {p.about}")
        return 0
    try:
        preflight()
    except Skip as e:
        print(f"SKIPPED kernel comparison: {e}")
        return 0
    # SIGTERM/SIGHUP end the run through the same finally blocks as Ctrl-C.
    def interrupt(*_: Any) -> None:
        raise KeyboardInterrupt

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupt)
    out_dir = Path(args.out)
    results = []
    try:
        for p in presets:
            try:
                results.append(compare(p, args.quick, args.period, out_dir, max(1, args.repeat)))
            except Skip as e:
                print(f"SKIPPED {p.name}: {e}")
                if "netns" in str(e) or "root" in str(e):
                    return 0
            except NotExpressible as e:
                print(f"SKIPPED {p.name}: not expressible with this kernel's tools: {e}")
    except KeyboardInterrupt:
        print("interrupted; namespaces and processes of this run removed", flush=True)
        return 130
    (out_dir).mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(results, indent=2, sort_keys=True, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

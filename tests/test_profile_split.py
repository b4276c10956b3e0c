"""bench/profile_split.py: which part of the simulator a source path belongs to, and that
every source file of the core falls in a named part (a new module must be placed)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
_spec = importlib.util.spec_from_file_location("bench_profile_split", ROOT / "bench" / "profile_split.py")
ps = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ps)


def test_paths_map_to_their_parts():
    assert ps.part_of("event.rs") == "event queue (heap, timers)"
    assert ps.part_of("net/link.rs") == "link and queue path"
    assert ps.part_of("queue/red.rs") == "link and queue path"
    assert ps.part_of("tcp/receiver.rs") == "TCP receiver"
    assert ps.part_of("tcp/sender/sack_recovery.rs").startswith("TCP sender")
    assert ps.part_of("cc/cubic.rs") == "congestion control"
    assert ps.part_of(None).startswith("outside tcplab-core")


def test_the_parts_cover_the_hot_modules():
    src = ROOT / "crates" / "tcplab-core" / "src"
    for rel in ("event.rs", "sim.rs", "net/link.rs", "tcp/sender.rs", "tcp/receiver.rs", "cc/reno.rs",
                "stats"):
        assert (src / rel).exists(), rel
        assert ps.part_of(rel if not rel.endswith("stats") else "stats/x.rs") != "other tcplab-core code", rel

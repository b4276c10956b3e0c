"""bench/ab.py's verdict: which fingerprint decides whether two builds did the same work."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("bench_ab", ROOT / "bench" / "ab.py")
ab = importlib.util.module_from_spec(_spec)
sys.modules["bench_ab"] = ab
_spec.loader.exec_module(ab)


def test_the_results_fingerprint_decides_and_fewer_events_pass_with_a_note():
    same, what = ab.verdict({"old": [("aa", "r1", 100)], "new": [("bb", "r1", 90)]})
    assert same
    assert "event counts differ (90, 100)" in what and "CHANGELOG" in what
    same, what = ab.verdict({"old": [("aa", "r1", 100)], "new": [("aa", "r1", 100)]})
    assert same and what == "results fingerprints equal"


def test_other_results_fail_whatever_the_event_count():
    same, _ = ab.verdict({"old": [("aa", "r1", 100)], "new": [("aa", "r2", 100)]})
    assert not same
    # Two different results within one binary's rounds fail too.
    same, _ = ab.verdict({"old": [("aa", "r1", 100), ("cc", "r2", 100)], "new": [("aa", "r1", 100)]})
    assert not same


def test_a_binary_without_a_results_fingerprint_compares_run_fingerprints():
    same, what = ab.verdict({"old": [("aa", None, None)], "new": [("aa", "r1", 100)]})
    assert same and what.startswith("run fingerprints")
    same, _ = ab.verdict({"old": [("aa", None, None)], "new": [("bb", "r1", 90)]})
    assert not same

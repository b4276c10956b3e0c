"""Generated scenarios beside ns-2.35 at its own defaults: the translator writes only what a
scenario states, the statistical verdict, and (where ``ns`` is installed) the harness end to
end on a few generated scenarios."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tcplab.ns2 import generate, verdict
from tcplab.ns2.common import Ns2Unsupported
from tcplab.ns2.translate import stated, translate

ROOT = Path(__file__).resolve().parent.parent

# ns-2 variables whose value a tcplab profile supplies: with ns2_defaults none may be written
# unless the scenario states the key (the generator never states these).
PROFILE_VARS = {
    "tcpip_base_hdr_size_", "useHeaders_", "windowInit_", "windowInitOption_", "rtxcur_init_", "minrto_",
    "maxrto_", "tcpTick_", "numdupacks_", "syn_", "bugFix_", "singledup_", "maxburst_", "overhead_",
    "old_ecn_", "newreno_changes1_", "partial_window_deflation_", "exit_recovery_fix_", "newreno_changes_",
    "maxcwnd_", "ts_option_size_", "mean_pktsize_", "idle_pktsize_", "gentle_", "wait_", "bytes_",
    "queue_in_bytes_", "use_mark_p_", "mark_p_", "targetdelay_", "drop_tail_", "drop_front_", "drop_rand_",
    "cautious_", "adaptive_", "ecn_syn_",
}


def _set_vars(otcl: str, who: str) -> list[str]:
    return re.findall(rf"^\{who}(?:\(\d+\))? set (\w+) ", otcl, flags=re.M)


@pytest.mark.parametrize("index", range(12))
def test_ns2_defaults_writes_only_what_the_scenario_states(index: int) -> None:
    d = generate.generate(1, index)
    st = stated(d)
    script = translate(d, ns2_defaults=True)
    tcp, q, sink = (_set_vars(script.otcl, w) for w in ("$tcp", "$q", "$sink"))
    leaked = sorted(set(tcp + q + sink) & PROFILE_VARS)
    assert not leaked, f"profile-derived variables written: {leaked}"
    flows = [f for f in st["flows"].values() if f.get("transport", "tcp") == "tcp"]
    # Only the stated flow keys' variables: mss, max_window, ecn, and the agents' identities.
    allowed_tcp = {"packetSize_", "window_", "ecn_", "windowOption_", "timestamps_", "increase_num_",
                   "decrease_num_", "v_alpha_", "v_beta_", "v_gamma_"}
    assert set(tcp) <= allowed_tcp, sorted(set(tcp) - allowed_tcp)
    assert tcp.count("window_") == sum("max_window" in f for f in flows)
    # The queues' variables come from keys the generated queue tables write.
    allowed_q = {"thresh_", "maxthresh_", "q_weight_", "linterm_", "setbit_"}
    assert set(q) <= allowed_q, sorted(set(q) - allowed_q)
    assert set(sink) <= {"interval_", "ts_echo_rfc1323_"}  # the Linux agent runs with timestamp echoes
    # Every direction's stated buffer, and only those, as queue-limit lines.
    limits = sum(1 for ln in st["links"].values() if isinstance(ln.get("queue"), dict) and "limit" in ln["queue"])
    assert script.otcl.count("$ns queue-limit") == limits


def test_ns2_defaults_needs_explicit_sections() -> None:
    with pytest.raises(Ns2Unsupported) as e:
        stated({"duration": "5s", "dumbbell": {"bottleneck": {"rate": "1Mbps"}, "flows": ["reno"]}})
    assert e.value.key == "dumbbell"


def test_full_translation_still_writes_every_key() -> None:
    # Without ns2_defaults the profile's values go into the script (the --match idiom).
    script = translate(generate.generate(1, 0))
    assert "tcpip_base_hdr_size_" in script.otcl and "minrto_" in script.otcl


def test_ratio_interval_and_classification() -> None:
    # Equal samples: exactly 1; both zero: agree exactly.
    assert verdict.ratio_ci([5, 5, 5], [5, 5, 5]) == (1.0, 1.0, 1.0)
    assert verdict.ratio_ci([0, 0], [0, 0]) == (1.0, 1.0, 1.0)
    r, lo, hi = verdict.ratio_ci([10.2, 9.8, 10.1, 9.9, 10.0], [10.0, 10.1, 9.9, 10.0, 10.0])
    assert lo < r < hi and abs(r - 1) < 0.01 and hi - lo < 0.05
    assert verdict.classify(lo, hi, 0.05) == "agree"
    r, lo, hi = verdict.ratio_ci([13.0, 12.8, 13.1, 12.9, 13.2], [10.0, 10.1, 9.9, 10.0, 10.0])
    assert verdict.classify(lo, hi, 0.05) == "disagree"
    r, lo, hi = verdict.ratio_ci([5.0, 15.0], [10.0, 10.5])
    assert verdict.classify(lo, hi, 0.05) == "inconclusive"
    # One side never, the other every seed: disagree; one seed each: an infinite interval.
    r, lo, hi = verdict.ratio_ci([3, 3], [0, 0])
    assert math.isinf(r) and verdict.classify(lo, hi, 0.15) == "disagree"
    r, lo, hi = verdict.ratio_ci([3.0], [2.0])
    assert verdict.classify(lo, hi, 0.05) == "inconclusive"


def test_counts_get_an_absolute_slack() -> None:
    runs = [({"flows": {"a": {"goodput_bps": 1e6, "timeouts": n}}, "links": {}},
             {"flows": {"a": {"goodput_bps": 1e6, "timeouts": t}}, "links": {}}) for n, t in ((1, 2), (2, 0), (0, 1))]
    rows = verdict.scenario_verdicts("s", {"g": ["a"]}, runs)
    got = {r["metric"]: r["verdict"] for r in rows}
    assert got == {"goodput_bps": "agree", "timeouts": "agree"}


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 (`ns`) is not installed")
def test_random_crosscheck_classifies_every_group(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "ns2_compare.py"), "--random", "3", "--seeds", "2",
                        "--out", str(tmp_path / "out"), "--json", str(out)],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "Verdicts" in p.stdout and "Worst ten" in p.stdout
    data = json.loads(out.read_text())
    assert len(data["runs"]) == 3
    rows = data["rows"]
    groups = {(r["scenario"], r["name"]) for r in rows if r["kind"] == "group"}
    assert groups and all(r["verdict"] in ("agree", "disagree", "inconclusive") for r in rows)
    for i in range(3):
        d = generate.generate(1, i)
        want = {f.get("group") or n for n, f in d["flows"].items() if f.get("transport", "tcp") == "tcp"}
        assert {g for s, g in groups if s == f"gen1_{i:03d}"} == want


def test_start_jitter_is_seeded_and_bounded() -> None:
    d = generate.generate(1, 3)
    a, b, c = (generate.with_start_jitter(d, s) for s in (1, 1, 2))
    assert a == b and a != c and d == generate.generate(1, 3)  # the input is not changed
    for name, f in d["flows"].items():
        t0 = float(f["app"]["start"].rstrip("s"))
        t1 = float(a["flows"][name]["app"]["start"].rstrip("s"))
        assert t0 <= t1 <= t0 + generate.JITTER_MS / 1000

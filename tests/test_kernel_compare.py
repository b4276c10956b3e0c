"""bench/kernel_compare.py: `ss -tin` parsing, statistics and topology planning (always), and a
short run against the real kernel (only as root where network namespaces work)."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("kernel_compare", ROOT / "bench" / "kernel_compare.py")
kc = importlib.util.module_from_spec(_spec)
sys.modules["kernel_compare"] = kc
_spec.loader.exec_module(kc)

# Captured on this machine (iproute2 6.1, kernel 6.18): `ss -tinH state established '( dport
# = :5001 )'` (no State column) and `ss -tin` (header, State column, a bbr receiver).
SS_FILTERED = """\
0      118736 10.99.1.1:47338 10.99.3.1:5001
\t cubic wscale:10,10 rto:228 rtt:24.064/0.304 mss:1448 pmtu:1500 rcvmss:536 advmss:1448 cwnd:40 ssthresh:35 bytes_sent:5599416 bytes_retrans:7240 bytes_acked:5534257 segs_out:3869 segs_in:2005 data_segs_out:3867 send 19255319bps lastrcv:2316 pacing_rate 23125720bps delivery_rate 19133784bps delivered:3823 busy:2316ms unacked:40 retrans:0/5 rcv_space:14480 rcv_ssthresh:64088 notsent:60816 minrtt:0.05 snd_wnd:444416
"""
SS_FULL = """\
State Recv-Q Send-Q Local Address:Port  Peer Address:Port Process
ESTAB 0      0          127.0.0.1:45074    127.0.0.1:5001
\t reno wscale:10,10 rto:208 rtt:5.762/11.501 mss:47616 pmtu:65535 rcvmss:536 advmss:65483 cwnd:10 bytes_sent:134518 bytes_retrans:34518 bytes_acked:100001 segs_out:6 segs_in:3 data_segs_out:4 send 661103783bps lastsnd:196 lastrcv:204 lastack:156 pacing_rate 1322035480bps delivery_rate 25334392bps delivered:5 busy:48ms retrans:0/1 dsack_dups:1 rcv_space:65495 rcv_ssthresh:65495 minrtt:0.014 snd_wnd:28672
ESTAB 100000 0          127.0.0.1:5001     127.0.0.1:45074
\t bbr wscale:10,10 rto:204 rtt:0.012/0.006 ato:80 mss:32768 pmtu:65535 rcvmss:34518 advmss:65483 cwnd:10 bytes_received:100000 segs_out:2 segs_in:6 data_segs_in:4 bbr:(bw:0bps,mrtt:0.012) send 218453333333bps lastsnd:208 lastrcv:208 lastack:200 pacing_rate 624307185112bps delivered:1 app_limited rcv_rtt:0.018 rcv_space:65483 rcv_ssthresh:94833 minrtt:0.012 snd_wnd:65536
"""
# Older iproute2 prints rates with units and puts flags before the algorithm.
SS_OLD = """\
ESTAB      0      0      10.0.0.1:40000     10.0.0.2:5001
\t ts sack cubic wscale:7,7 rto:204 rtt:0.5/0.25 mss:1448 cwnd:12 ssthresh:8 bytes_acked:2897 send 278.0Mbps pacing_rate 556.0Mbps delivery_rate 12.5kbps retrans:1/3 unacked:4
"""


def test_parse_rate_units():
    assert kc.parse_rate("19255319bps") == 19255319
    assert kc.parse_rate("19.3Mbps") == pytest.approx(19.3e6)
    assert kc.parse_rate("231kbps") == pytest.approx(231e3)
    assert kc.parse_rate("1.5Gbps") == pytest.approx(1.5e9)
    with pytest.raises(ValueError):
        kc.parse_rate("fast")


def test_parse_ss_filtered_sender():
    (s,) = kc.parse_ss(SS_FILTERED)
    assert s["state"] is None and s["send_q"] == 118736
    assert (s["local"], s["local_port"], s["peer"], s["peer_port"]) == ("10.99.1.1", 47338, "10.99.3.1", 5001)
    assert s["cc"] == "cubic"
    assert s["cwnd"] == 40 and s["ssthresh"] == 35 and s["unacked"] == 40 and s["mss"] == 1448
    assert s["rtt"] == pytest.approx(24.064) and s["rttvar"] == pytest.approx(0.304)
    assert s["retrans"] == 0 and s["retrans_total"] == 5
    assert s["bytes_acked"] == 5534257 and s["snd_wnd"] == 444416
    assert s["delivery_rate"] == 19133784 and s["send"] == 19255319 and s["pacing_rate"] == 23125720
    assert s["minrtt"] == pytest.approx(0.05) and s["busy"] == 2316


def test_parse_ss_header_states_and_bbr():
    a, b = kc.parse_ss(SS_FULL)
    assert a["state"] == "ESTAB" and a["cc"] == "reno" and a["peer_port"] == 5001
    assert a["bytes_retrans"] == 34518 and a["retrans_total"] == 1 and a["dsack_dups"] == 1
    assert b["recv_q"] == 100000 and b["cc"] == "bbr" and b["local_port"] == 5001
    assert "app_limited" in b["flags"] and "delivery_rate" not in b
    assert b["bbr"] == "(bw:0bps,mrtt:0.012)"      # kept verbatim


def test_parse_ss_old_format():
    (s,) = kc.parse_ss(SS_OLD)
    assert s["cc"] == "cubic" and {"ts", "sack"} <= set(s["flags"])
    assert s["send"] == pytest.approx(278e6) and s["delivery_rate"] == pytest.approx(12.5e3)
    assert s["retrans"] == 1 and s["retrans_total"] == 3 and s["cwnd"] == 12


def test_parse_samples_blocks():
    text = "@ 100.5\n" + SS_FILTERED + "@ 100.6\n@ 100.7\n" + SS_OLD
    out = kc.parse_samples(text)
    assert [t for t, _ in out] == [100.5, 100.6, 100.7]
    assert [len(s) for _, s in out] == [1, 0, 1]
    assert out[2][1][0]["cwnd"] == 12


def test_statistics():
    assert kc.jain([1.0, 1.0, 1.0]) == 1.0
    assert kc.jain([1.0, 0.0]) == pytest.approx(0.5)
    assert kc.jain([]) is None
    assert kc.percentile([1, 2, 3, 4], 0.5) == pytest.approx(2.5)
    assert kc.percentile([5], 0.9) == 5
    series = [(0.0, 0), (1.0, 1000), (2.0, 3000), (3.0, 6000)]
    assert kc.rate_between(series, 1.0, 3.0) == pytest.approx(5000 * 8 / 2.0)
    assert kc.rate_between(series, 2.5, 2.6) is None
    st = kc.window_stats([(0.0, 10.0), (1.0, 20.0), (2.0, 30.0)], 0.5, 2.0)
    assert st["mean"] == pytest.approx(25.0) and st["p50"] == pytest.approx(25.0)


def test_plan_dumbbell():
    ex = kc.expand(kc.tcplab_scenario(kc.PRESETS[0].scenario, 5.0, 0.1))
    plan = kc.plan_topology(ex)
    assert set(plan.nodes) == {"s1", "s2", "d1", "d2", "r1", "r2"}
    assert len(plan.edges) == 5
    # the bottleneck is shaped on r1's side, its reverse on r2's; host uplinks are not shaped
    assert plan.shaped["bn"][0] == "r1" and plan.shaped["bn_rev"][0] == "r2"
    assert "s1" not in plan.shaped and "d1_rev" not in plan.shaped
    assert plan.delay_node == "r1"
    # 40 ms RTT: 20 ms each way (1 + 18 + 1 ms)
    assert plan.delays[("s1", "d1")] == pytest.approx(0.020)
    assert plan.delays[("d2", "s2")] == pytest.approx(0.020)
    assert [f["cc"] for f in plan.flows] == ["cubic", "cubic"]
    # tcplab's side is profile "linux" with the veth's wire sizes on top.
    for f in ex["flows"].values():
        assert "profile" not in f
        assert (f["ack_counting"], f["quickack"], f["loss_detection"], f["delayed_ack"]) == (
            "segments", 16, "rack", "40ms")
        assert (f["mss"], f["header"], f["ack_size"]) == (kc.KERNEL_MSS, kc.KERNEL_HEADER, kc.KERNEL_ACK)


def test_plan_two_hosts_gets_a_router_in_the_middle():
    ex = kc.expand(kc.tcplab_scenario(kc._twoway(10.0), 10.0, 0.1))
    plan = kc.plan_topology(ex)
    mids = [n for n, k in plan.nodes.items() if k == "router"]
    assert len(mids) == 1
    assert plan.shaped["up"][0] == mids[0] and plan.shaped["down"][0] == mids[0]
    assert plan.delay_node is None                  # no propagation delay: no delay line
    assert {f["cc"] for f in plan.flows} == {"reno"}            # the flows' own cc wins


def test_plan_refuses_what_the_kernel_here_cannot_build():
    sc = kc.tcplab_scenario(kc.PRESETS[0].scenario, 5.0, 0.1)
    sc["dumbbell"]["bottleneck"]["queue"] = {"type": "red", "min_th": 5, "max_th": 15}
    del sc["dumbbell"]["bottleneck"]["buffer"]
    with pytest.raises(kc.NotExpressible, match="links.bn.queue"):
        kc.plan_topology(kc.expand(sc))
    sc = kc.tcplab_scenario(kc.PRESETS[0].scenario, 5.0, 0.1)
    sc["dumbbell"]["flows"] = ["vegas"]
    with pytest.raises(kc.NotExpressible, match="vegas"):
        kc.plan_topology(kc.expand(sc))


def _netns_ok() -> str | None:
    if os.geteuid() != 0:
        return "not root"
    try:
        kc.preflight()
    except kc.Skip as e:
        return str(e)
    return None


def _our_namespaces() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.startswith(f"tlk{os.getpid() % 100000}smok_")}


@pytest.mark.skipif(_netns_ok() is not None, reason=f"network namespaces not usable: {_netns_ok()}")
def test_kernel_smoke(tmp_path):
    """3 s of one CUBIC flow through a 10 Mb/s, 20 ms dumbbell in namespaces, next to tcplab:
    htb must hold the rate, the delay line must add the RTT, and nothing may be left behind."""
    preset = kc.Preset("smoke", "1 CUBIC flow, 10 Mb/s, RTT 20 ms, 40 packets",
                       kc._dumbbell(["cubic"], "10Mbps", 20.0, 40, 3.0), [("all", 1.0, 3.0)], ["bn"])
    if "cubic" not in kc.available_cc():
        pytest.skip("no cubic in this kernel")
    res = kc.compare(preset, quick=False, period=0.1, out_dir=tmp_path)
    w = res["windows"][0]
    k = w["flows"]["f1"]["kernel"]
    t = w["flows"]["f1"]["tcplab"]
    payload = 10e6 * kc.KERNEL_MSS / (kc.KERNEL_MSS + kc.KERNEL_HEADER)
    assert 0.5 * payload < k["goodput_bps"] <= 1.02 * payload      # htb limits, the flow fills it
    assert 0.5 * payload < t["goodput_bps"] <= 1.02 * payload      # 2-s window: reorder releases
    assert 19.0 <= k["min_rtt_ms"] < 30.0                           # the delay line's 20 ms
    assert k["win"]["mean"] and k["win"]["mean"] > 5
    for f in ("table.md", "results.json", "kernel_trace.csv", "tcplab_trace.csv"):
        assert (tmp_path / "smoke" / f).stat().st_size > 0
    assert _our_namespaces() == set()


def test_not_root_skips_with_a_message(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(kc.os, "geteuid", lambda: 1000)
    assert kc.main(["--only", "cubic2", "--out", str(tmp_path)]) == 0
    assert "SKIPPED kernel comparison: not root" in capsys.readouterr().out
    assert not list(tmp_path.iterdir())


@pytest.mark.skipif(_netns_ok() is not None, reason=f"network namespaces not usable: {_netns_ok()}")
def test_kernel_sigterm_cleans_up(tmp_path):
    """SIGTERM in the middle of a kernel run: the harness exits and leaves no namespace."""
    import signal
    import time

    before = _workers()
    proc = subprocess.Popen([sys.executable, str(ROOT / "bench" / "kernel_compare.py"), "--only", "cubic2",
                             "--quick", "--out", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    prefix = f"tlk{proc.pid % 100000}cubi_"

    def ours() -> set[str]:
        out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        return {line.split()[0] for line in out.splitlines() if line.startswith(prefix)}

    deadline = time.monotonic() + 15
    while not ours() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    assert ours(), "the run never built its namespaces"
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=15)
    assert proc.returncode == 130 and "interrupted" in out
    assert ours() == set()
    assert _workers() - before == set()          # every sink, source, sampler and delay line ended


def _workers() -> set[int]:
    """Pids of harness workers (`kernel_compare.py _sink|_source|_sample|_delay`)."""
    found = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                argv = (d / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if any(a.endswith(b"kernel_compare.py") for a in argv) and \
                    any(a in (b"_sink", b"_source", b"_sample", b"_delay") for a in argv):
                found.add(int(d.name))
    return found

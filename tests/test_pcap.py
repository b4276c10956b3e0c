"""Packet traces (``links.NAME.pcap``) read back with an independent reader (scapy), and
with tshark when it is installed."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

import tcplab
from conftest import REPO, CliRunner
from tcplab import _core

scapy_all = pytest.importorskip("scapy.all")
from scapy.layers.inet import IP, TCP  # noqa: E402
from scapy.utils import RawPcapReader, rdpcap  # noqa: E402

EXAMPLE = REPO / "examples" / "pcap_dumbbell.toml"
SENDER_ISN = 0xFFF0_0000
RECEIVER_ISN = 0x0010_0000
MOD = 1 << 32


def _sim(sc: tcplab.Scenario, pcap_dir: Path, seed: int | None = None) -> tuple[tcplab.Result, dict[str, Any]]:
    """Run through the core with the packet log on; returns the Result and the log."""
    sim = _core.Simulation(sc.to_json(), seed, str(pcap_dir), True)
    while not sim.finished:
        sim.advance(sim.duration)
    raw = sim.results()
    log = raw["pcap_log"]
    res = tcplab.Result.from_core(raw, pcap_dir=pcap_dir)
    del sim
    return res, log


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[tcplab.Result, dict[str, Any], Path]:
    d = tmp_path_factory.mktemp("pcap")
    res, log = _sim(tcplab.Scenario.from_toml(EXAMPLE), d)
    return res, log, d


def _link(res: tcplab.Result, name: str) -> dict[str, Any]:
    return next(ln for ln in res.summary["links"] if ln["name"] == name)


def _ns(pkt: Any) -> int:
    """A scapy packet's time in ns (scapy keeps nanosecond files exact as a Decimal)."""
    return int(pkt.time * 1_000_000_000)


def test_example_writes_both_directions(example_run: tuple[tcplab.Result, dict[str, Any], Path]) -> None:
    res, _, d = example_run
    assert res.warnings == []
    assert res.pcaps == {"br": d / "br.pcap", "rb": d / "rb.pcap"}
    files = {f["link"]: f for f in res.summary["pcap"]["files"]}
    assert {f["file"] for f in files.values()} == {"rb.pcap", "br.pcap"}
    assert all(f["error"] is None for f in files.values())
    assert _link(res, "rb")["drops"] > 0, "the example should drop packets at the bottleneck"
    cfg = tcplab.Scenario.from_toml(EXAMPLE).to_dict()["flows"]
    for name in ("rb", "br"):
        size = (d / f"{name}.pcap").stat().st_size
        # Headers only, as long as the flow's simulated header: f1 40 bytes, f2 52.
        key = "header" if name == "rb" else "ack_size"
        with RawPcapReader(str(d / f"{name}.pcap")) as r:
            caplens = [meta.caplen for _, meta in r]
        assert len(caplens) == files[name]["packets"]
        assert set(caplens) == {cfg[f].get(key, 40) for f in ("f1", "f2")} == {40, 52}
        assert size == 24 + sum(16 + c for c in caplens)


@pytest.mark.parametrize("name", ["rb", "br"])
def test_records_match_the_simulation(example_run: tuple[tcplab.Result, dict[str, Any], Path], name: str) -> None:
    """Count, times, sequence numbers, ports and addresses, checksums: scapy vs the run."""
    res, log, d = example_run
    link = _link(res, name)
    pkts = rdpcap(str(d / f"{name}.pcap"))
    # The run drains before it ends: every record is a finished transmission.
    assert link["in_flight"] == 0
    assert len(pkts) == link["tx_packets"] == len(log[name]["t_ns"]) > 500
    pcap_meta = res.summary["pcap"]
    flows = {f["name"]: f for f in res.summary["flows"]}
    addr, ports = pcap_meta["addresses"], pcap_meta["ports"]
    rate = link["rate_bps"]
    flow_cfg = tcplab.Scenario.from_toml(EXAMPLE).to_dict()["flows"]
    last_ns, busy_ns, prev_size = -1, 0.0, 0
    data_bytes = ack_bytes = 0
    wrapped = False
    for i, p in enumerate(pkts):
        row = {k: v[i] for k, v in log[name].items()}
        ip, tcp = p[IP], p[TCP]
        # Timing: the sim's own start-of-transmission time, non-decreasing, and never
        # before the previous packet has been serialised at the link's rate.
        t = _ns(p)
        assert t == row["t_ns"]
        assert t >= last_ns
        if i:
            assert t - last_ns >= int(prev_size * 8 / rate * 1e9) - 1
        # The frame is as long as the simulated packet (issue 31: not 12 bytes longer).
        cfg = flow_cfg[row["flow"]]
        size = ip.len
        assert size == row["size"]
        header = cfg.get("header", 40) if row["kind"] == "data" else cfg.get("ack_size", 40)
        assert ip.ihl * 4 + tcp.dataofs * 4 == header
        assert ip.id == i % 65536, "identification counts the file's records"
        last_ns, prev_size = t, size
        busy_ns += size * 8 / rate * 1e9
        # IPv4 checksum valid (scapy recomputes it when the field is deleted).
        check = ip.copy()
        del check.chksum
        assert IP(bytes(check)).chksum == ip.chksum
        assert ip.proto == 6 and ip.ihl == 5 and ip.ttl == 64
        assert ip.tos & 0b11 == 0, "no ECN in this scenario"
        f = flows[row["flow"]]
        sport, dport = ports[row["flow"]]["sender"], ports[row["flow"]]["receiver"]
        assert "A" in str(tcp.flags)
        opts = dict(tcp.options)
        assert ("Timestamp" in opts) == (header >= 52), "the option only where the header has room"
        if row["kind"] == "data":
            data_bytes += size
            assert (ip.src, ip.dst) == (addr[f["from"]], addr[f["to"]])
            assert (tcp.sport, tcp.dport) == (sport, dport)
            assert tcp.seq == (SENDER_ISN + row["seq"]) % MOD
            wrapped |= tcp.seq < SENDER_ISN
            assert tcp.ack == RECEIVER_ISN
            assert ip.len - header == row["len"], "payload length as simulated"
            if "Timestamp" in opts:
                assert opts["Timestamp"] == (row["ts_ns"] // 1000 % MOD, 0)
        else:
            ack_bytes += size
            assert (ip.src, ip.dst) == (addr[f["to"]], addr[f["from"]])
            assert (tcp.sport, tcp.dport) == (dport, sport)
            assert tcp.seq == RECEIVER_ISN
            assert tcp.ack == (SENDER_ISN + row["ack"]) % MOD
            assert ip.len == header
            if "Timestamp" in opts:
                assert opts["Timestamp"] == (row["rx_ns"] // 1000 % MOD, row["ts_ns"] // 1000 % MOD)
    assert data_bytes == link["tx_data_bytes"] and ack_bytes == link["tx_ack_bytes"]
    # Serialisation time of the records = the link's busy time (utilization).
    assert busy_ns == pytest.approx(link["utilization"] * res.summary["run"]["sim_seconds"] * 1e9, rel=1e-6)
    if name == "rb":
        assert wrapped, "more than 1 MiB per flow: the sender's sequence numbers wrap"


def test_acks_and_sequence_space_match_the_flows(example_run: tuple[tcplab.Result, dict[str, Any], Path]) -> None:
    """Independent of the packet log: per flow, the ack direction carries every ack the
    receiver sent, the last one acknowledging every delivered byte; the data direction
    carries every segment once its first hop passed it (no drops before the bottleneck)."""
    res, _, d = example_run
    ports = res.summary["pcap"]["ports"]
    by_port = {v["sender"]: k for k, v in ports.items()}
    acks: dict[str, list[int]] = {k: [] for k in ports}
    for p in rdpcap(str(d / "br.pcap")):
        acks[by_port[p[TCP].dport]].append(p[TCP].ack)
    data: dict[str, int] = {k: 0 for k in ports}
    for p in rdpcap(str(d / "rb.pcap")):
        data[by_port[p[TCP].sport]] += 1
    for f in res.summary["flows"]:
        name = f["name"]
        assert len(acks[name]) == f["acks_sent"]
        assert acks[name][-1] == (SENDER_ISN + f["bytes_delivered"]) % MOD
        first_hop = _link(res, {"f1": "a1r", "f2": "a2r"}[name])
        assert first_hop["drops"] == 0
        bottleneck_drops = _link(res, "rb")["drops"]
        assert f["segments_sent"] - bottleneck_drops <= data[name] <= f["segments_sent"]
    assert sum(data.values()) == sum(f["segments_sent"] for f in res.summary["flows"]) - _link(res, "rb")["drops"]


def test_raw_reader_sees_nanosecond_raw_ip(example_run: tuple[tcplab.Result, dict[str, Any], Path]) -> None:
    _, _, d = example_run
    with RawPcapReader(str(d / "rb.pcap")) as r:
        assert r.linktype == 101
        assert r.nano
        assert r.snaplen == 80
        _, meta = next(iter(r))
        assert meta.caplen in (40, 52) and meta.wirelen > meta.caplen


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    sc = tcplab.Scenario.from_toml(EXAMPLE).with_overrides({"duration": "2s", "flows.f1.app.stop": "1.5s", "flows.f2.app.stop": "1.5s"})
    runs = []
    for sub in ("one", "two"):
        (tmp_path / sub).mkdir()
        tcplab.run(sc, seed=4, progress=False, pcap_dir=tmp_path / sub)
        runs.append({n: (tmp_path / sub / f"{n}.pcap").read_bytes() for n in ("rb", "br")})
    assert runs[0] == runs[1]
    assert len(runs[0]["rb"]) > 24 + 100 * 56
    # Not trivially equal: the bytes follow what the run did.
    faster = sc.with_overrides({"links.rb.rate": "6Mbps"})
    (tmp_path / "faster").mkdir()
    tcplab.run(faster, seed=4, progress=False, pcap_dir=tmp_path / "faster")
    assert (tmp_path / "faster" / "rb.pcap").read_bytes() != runs[0]["rb"]


def test_cli_writes_pcaps_into_out_and_save_copies_them(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "new" / "out"  # created by the CLI before the run
    r = cli("run", EXAMPLE, "--out", out, "--set", "duration=2s", "--set", "flows.f1.app.stop=1.5s", "--quiet")
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text())
    files = {f["link"]: f for f in s["pcap"]["files"]}
    assert files["rb"]["file"] == "rb.pcap" and files["rb"]["packets"] > 0
    assert len(rdpcap(str(out / "rb.pcap"))) == files["rb"]["packets"]
    res = tcplab.load(out)
    assert res.pcaps["rb"] == out / "rb.pcap"
    copy = res.save(tmp_path / "copy")
    assert (copy / "rb.pcap").read_bytes() == (out / "rb.pcap").read_bytes()
    assert (copy / "br.pcap").exists()
    assert tcplab.load(copy).pcaps["br"] == copy / "br.pcap"
    # Re-running into the same directory without traces removes the old ones.
    r = cli("run", EXAMPLE, "--out", copy, "--set", "duration=2s", "--set", "links.rb.pcap=rb2.pcap", "--quiet")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in copy.glob("*.pcap")) == ["br.pcap", "rb2.pcap"]
    assert len(rdpcap(str(copy / "br.pcap"))) == tcplab.load(copy).summary["pcap"]["files"][0]["packets"]


def test_bad_values_name_the_field(cli: CliRunner, tmp_path: Path) -> None:
    sc = tcplab.Scenario.from_toml(EXAMPLE)
    with pytest.raises(tcplab.ScenarioError) as e:
        sc.with_overrides({"links.rb.pcap": ""}).validate()
    assert e.value.field == "links.rb.pcap" and "empty" in e.value.reason
    with pytest.raises(tcplab.ScenarioError) as e:
        sc.with_overrides({"links.br.pcap": "rb.pcap"}).validate()
    assert e.value.field == "links.rb.pcap" or e.value.field == "links.br.pcap"
    assert "already" in e.value.reason
    with pytest.raises(tcplab.ScenarioError) as e:
        sc.with_overrides({"links.rb.pcap": 3}).validate()
    assert e.value.field == "links.rb.pcap"
    # A directory that does not exist: nothing is created, the error names field and file.
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(sc.with_overrides({"links.rb.pcap": "no/such/dir/rb.pcap"}), progress=False, pcap_dir=tmp_path)
    assert e.value.field == "links.rb.pcap"
    assert "cannot create" in e.value.reason and "no/such/dir/rb.pcap" in e.value.reason
    assert list(tmp_path.iterdir()) == []
    r = cli("run", EXAMPLE, "--out", tmp_path / "o", "--set", "links.rb.pcap=", "--quiet")
    assert r.returncode == 2
    assert r.stderr.strip() == f"error: {EXAMPLE}: links.rb.pcap: must name a file, e.g. 'up.pcap' (got an empty string)"
    assert not (tmp_path / "o").exists(), "an invalid scenario creates no output directory"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_write_error_is_reported_not_raised(cli: CliRunner, tmp_path: Path) -> None:
    # /dev/full inside the output directory: pcap_dir /dev from Python, a device node
    # (mknod, root only) in --out from the CLI.
    sc = tcplab.Scenario.from_toml(EXAMPLE).with_overrides({"duration": "2s", "links.rb.pcap": "full", "links.br.pcap": "null"})
    res = tcplab.run(sc, progress=False, pcap_dir="/dev")
    assert len(res.warnings) == 1
    assert res.warnings[0].startswith("links.rb.pcap: writing '/dev/full' failed: No space left on device")
    files = {f["link"]: f for f in res.summary["pcap"]["files"]}
    assert files["br"]["error"] is None and files["rb"]["error"]
    if os.geteuid() != 0:
        pytest.skip("the CLI half needs mknod (root)")
    (tmp_path / "o").mkdir()
    os.mknod(tmp_path / "o" / "full.pcap", stat.S_IFCHR | 0o666, os.makedev(1, 7))
    r = cli("run", EXAMPLE, "--out", tmp_path / "o", "--set", "links.rb.pcap=full.pcap", "--set", "duration=2s", "--quiet")
    assert r.returncode == 1
    assert f"error: links.rb.pcap: writing '{tmp_path / 'o' / 'full.pcap'}' failed: No space left on device" in r.stderr
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr
    assert (tmp_path / "o" / "summary.json").exists(), "the other results are still written"


def test_no_pcap_no_summary_entry(lossy: dict[str, Any], tmp_path: Path) -> None:
    res = tcplab.run(lossy, progress=False, pcap_dir=tmp_path)
    assert res.summary["pcap"] is None and res.pcaps == {}
    assert list(tmp_path.iterdir()) == []


def test_summary_pcap_keys_are_documented(example_run: tuple[tcplab.Result, dict[str, Any], Path]) -> None:
    res, _, _ = example_run
    doc = (REPO / "docs" / "outputs.md").read_text()
    p = res.summary["pcap"]
    keys = {"pcap"} | set(p) | {k for f in p["files"] for k in f} | {k for v in p["ports"].values() for k in v}
    undocumented = sorted(k for k in keys if f"`{k}`" not in doc)
    assert undocumented == []


def test_sweeps_refuse_pcap(tmp_path: Path) -> None:
    base = tcplab.Scenario.from_toml(EXAMPLE)
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.sweep({"base": base, "grid": {"links.rb.rate": ["5Mbps", "6Mbps"]}}, tmp_path / "sw", progress=False)
    assert e.value.field == "base" and "links.rb.pcap" in e.value.reason and "not written in sweeps" in e.value.reason
    d = base.to_dict()
    for link in d["links"].values():
        link.pop("pcap", None)
    plain = tcplab.Scenario.from_dict(d)
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.sweep({"base": plain, "grid": {"links.rb.pcap": ["a.pcap", "b.pcap"]}}, tmp_path / "sw", progress=False)
    assert e.value.field == "grid" and "links.rb.pcap" in e.value.reason


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_reads_it(example_run: tuple[tcplab.Result, dict[str, Any], Path]) -> None:
    res, log, d = example_run
    r = subprocess.run(
        ["tshark", "-r", str(d / "rb.pcap"), "-o", "tcp.relative_sequence_numbers:FALSE", "-T", "fields",
         "-e", "frame.time_epoch", "-e", "tcp.seq", "-e", "tcp.len", "-e", "ip.checksum.status"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    rows = [ln.split("\t") for ln in r.stdout.splitlines()]
    assert len(rows) == len(log["rb"]["t_ns"])
    for row, t, seq, kind, ln in zip(rows, log["rb"]["t_ns"], log["rb"]["seq"], log["rb"]["kind"], log["rb"]["len"], strict=True):
        assert round(float(row[0]) * 1e9) == pytest.approx(t, abs=1000)
        if kind == "data":
            assert int(row[1]) == (SENDER_ISN + seq) % MOD
            assert int(row[2]) == ln


def test_default_pcap_dir_is_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    sc = tcplab.Scenario.from_toml(EXAMPLE).with_overrides({"duration": "2s"})
    res = tcplab.run(sc, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["br.pcap", "rb.pcap"]
    assert res.pcaps["rb"] == tmp_path / "rb.pcap"
    n = len(rdpcap(str(res.pcaps["rb"])))
    # Cut off mid-run: the packet in transmission at the end is recorded but not counted.
    assert _link(res, "rb")["tx_packets"] <= n <= _link(res, "rb")["tx_packets"] + 1
    assert n == {f["link"]: f for f in res.summary["pcap"]["files"]}["rb"]["packets"]


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/tmp/anywhere.pcap", "is an absolute path"),
        ("../evil_rel.pcap", "contains '..'"),
        ("sub/../../evil.pcap", "contains '..'"),
    ],
)  # fmt: skip
def test_scenario_pcap_paths_stay_inside_the_output_directory(cli: CliRunner, tmp_path: Path, path: str, says: str) -> None:
    """Issue 32: a scenario file is data: it writes only under --out (one line naming the
    key), from the CLI, `tcplab validate` and the Python API alike, and nothing is written."""
    sc = tcplab.Scenario.from_toml(EXAMPLE).with_overrides({"links.rb.pcap": path})
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(sc, progress=False, pcap_dir=tmp_path / "o")
    assert e.value.field == "links.rb.pcap" and says in e.value.reason
    r = cli("run", EXAMPLE, "--out", tmp_path / "o", "--set", f"links.rb.pcap={path}", "--quiet")
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(f"error: {EXAMPLE}: links.rb.pcap: '{path}'") and says in line
    r = cli("validate", EXAMPLE, "--set", f"links.rb.pcap={path}")
    assert r.returncode == 2 and says in r.stderr
    assert not (tmp_path / "o").exists() and not (tmp_path / "evil_rel.pcap").exists()


def test_symbolic_links_out_of_the_output_directory_are_refused(tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "sub").symlink_to(elsewhere)
    (out / "link.pcap").symlink_to(elsewhere / "target.pcap")
    (out / "inside").mkdir()
    sc = tcplab.Scenario.from_toml(EXAMPLE).with_overrides({"duration": "2s"})
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(sc.with_overrides({"links.rb.pcap": "sub/rb.pcap"}), progress=False, pcap_dir=out)
    assert e.value.field == "links.rb.pcap" and "leads outside the run's output directory" in e.value.reason
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(sc.with_overrides({"links.rb.pcap": "link.pcap"}), progress=False, pcap_dir=out)
    assert e.value.field == "links.rb.pcap" and "is a symbolic link" in e.value.reason
    assert list(elsewhere.iterdir()) == []
    # A real subdirectory of the output directory is fine.
    res = tcplab.run(sc.with_overrides({"links.rb.pcap": "inside/rb.pcap"}), progress=False, pcap_dir=out)
    assert res.pcaps["rb"] == out / "inside" / "rb.pcap" and res.pcaps["rb"].stat().st_size > 24

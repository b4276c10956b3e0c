"""Issue 19, "nothing half-written": every output file appears complete or not at all.

A result directory counts as a result when it has ``summary.json`` (written last, removed
first by ``Result.save``); then every file it implies is there and readable. A run killed
with SIGKILL at any moment, a write that fails half-way (disk full, injected) or a Ctrl-C
during the save leaves the earlier complete result or none, never a partial file under a
final name. A sweep killed at any moment resumes by running exactly the missing runs."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import tcplab
from conftest import REPO, TCPLAB
from sweep_hooks import Counting
from tcplab import fileio
from tcplab.results import Result
from tcplab.sweeps.spec import SweepSpec, sorted_overrides

# Two hosts, a captured data direction, 10-ms traces: a run of ~0.1 s wall whose save (with
# --plot) writes a ~1 MB pcap, four parquet files and three plots.
SCENARIO = """
name = "atomic"
duration = "12s"
seed = 5
metrics = { interval = "1s", trace = "10ms" }
[nodes]
a = "host"
b = "host"
[links.ab]
from = "a"
to = "b"
rate = "10Mbps"
delay = "10ms"
loss = 0.001
queue = { type = "droptail", limit = 30 }
pcap = "ab.pcap"
[links.ba]
from = "b"
to = "a"
rate = "10Mbps"
delay = "10ms"
[flows.f]
from = "a"
to = "b"
header = 52  # 68-byte pcap records (the timestamps option): the capture outweighs the rest
"""

PNG_END = b"IEND\xaeB`\x82"


def _pcap_records(path: Path) -> int:
    """Records of a complete pcap file (asserts no record is cut)."""
    data = path.read_bytes()
    assert len(data) >= 24 and data[:4] == b"\x4d\x3c\xb2\xa1", path
    off, n = 24, 0
    while off < len(data):
        assert off + 16 <= len(data), f"{path}: record header cut at {off}"
        incl = struct.unpack_from("<I", data, off + 8)[0]
        assert off + 16 + incl <= len(data), f"{path}: record cut at {off}"
        off += 16 + incl
        n += 1
    return n


def check_result_dir(d: Path, *, plots: bool = True) -> str:
    """``"absent"`` (no summary.json) or ``"complete"`` (asserted valid); never a partial file
    under a final name either way."""
    if not d.exists():
        return "absent"
    names = {p.name for p in d.iterdir()}
    for name in names:  # whatever is under a final name is whole
        p = d / name
        if fileio.is_temporary(name):
            continue
        if name.endswith(".parquet"):
            pl.read_parquet(p)
        elif name.endswith(".png"):
            assert p.read_bytes().endswith(PNG_END), f"{p}: cut"
        elif name.endswith(".pcap"):
            _pcap_records(p)
        elif name.endswith(".json"):
            json.loads(p.read_text())
    if "summary.json" not in names:
        return "absent"
    res = Result.load(d)
    assert res.summary["scenario"] == "atomic"
    flows = res.intervals["flow"].unique().to_list()
    assert flows == ["f"] and res.intervals.height == 12
    assert set(res.traces) == {"cwnd", "queue"}
    for f in res.summary["pcap"]["files"]:
        assert _pcap_records(d / f["file"]) == f["packets"], f
    if plots:
        for png in ("efficiency.png", "cwnd.png", "queue.png"):
            assert (d / png).read_bytes().endswith(PNG_END), png
    return "complete"


def _tcplab_run(out: Path, *extra: str) -> subprocess.Popen[bytes]:
    # --plot: the plots are written before summary.json too (drawn only when asked for).
    return subprocess.Popen([str(TCPLAB), "run", str(out.parent / "s.toml"), "--out", str(out), "-q", "--plot", *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_sigkill_at_random_moments_leaves_a_complete_result_or_none(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(SCENARIO)
    # One complete run first: how long a whole `tcplab run` takes here.
    t0 = time.perf_counter()
    p = _tcplab_run(tmp_path / "ref")
    assert p.wait(timeout=120) == 0
    whole = time.perf_counter() - t0
    assert check_result_dir(tmp_path / "ref") == "complete"
    ref = Result.load(tmp_path / "ref")
    p = _tcplab_run(tmp_path / "seed9", "--seed", "9")
    assert p.wait(timeout=120) == 0
    rng = random.Random(19)
    seen = {"absent": 0, "complete": 0}
    for i in range(6):
        out = tmp_path / f"o{i}"
        if i % 2:  # half of them hold an earlier complete result (another seed)
            shutil.copytree(tmp_path / "seed9", out)
        p = _tcplab_run(out)
        time.sleep(rng.uniform(0.3, 1.0) * whole)
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=60)
        state = check_result_dir(out)
        seen[state] += 1
        if state == "complete":
            got = Result.load(out)
            # the earlier result (seed 9) or this one, never a mix
            assert got.summary["seed"] in (5, 9)
            if got.summary["seed"] == 5:
                assert got.intervals.equals(ref.intervals)
            else:
                assert not got.intervals.equals(ref.intervals)
    assert sum(seen.values()) == 6


# -- injected failures: every write of a save, one at a time ----------------------------------


def _result(tmp_path: Path) -> Result:
    (tmp_path / "s.toml").write_text(SCENARIO)
    pcaps = tmp_path / "pcaps"
    pcaps.mkdir()
    return tcplab.run(tmp_path / "s.toml", progress=False, pcap_dir=pcaps)


def _plots(res: Result) -> Any:
    """What the CLI writes before summary.json (its plots), here a cheap stand-in: the
    plots' atomic writes are exercised by the SIGKILL test."""

    def write(d: Path) -> None:
        fileio.write_bytes(d / "efficiency.png", b"\x89PNG" + bytes(5000) + PNG_END)

    return write


@pytest.mark.parametrize("failure", ["enospc", "interrupt"])
def test_a_save_that_fails_at_any_write_leaves_the_earlier_result_or_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    res = _result(tmp_path)
    # The files a save writes, in order (each ends in fileio's os.replace).
    calls: list[Path] = []
    real_replace = os.replace

    def counting(src: Any, dst: Any) -> None:
        calls.append(Path(dst))
        real_replace(src, dst)

    monkeypatch.setattr(fileio.os, "replace", counting)
    res.save(tmp_path / "count", before_summary=_plots(res))
    monkeypatch.undo()
    n = len(calls)
    assert n >= 5 and calls[-1].name == "summary.json", calls
    for k in range(n):
        for earlier in (False, True):
            d = tmp_path / f"d{k}{'e' if earlier else ''}"
            if earlier:
                res.save(d, before_summary=_plots(res))
            state = {"i": 0}
            orig_replace = real_replace

            def failing_replace(src: Any, dst: Any) -> None:
                i = state["i"]
                state["i"] += 1
                if i == k:
                    # Half of the file is on disk when the error comes.
                    Path(src).write_bytes(Path(src).read_bytes()[: max(1, Path(src).stat().st_size // 2)])
                    if failure == "enospc":
                        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                    raise KeyboardInterrupt
                orig_replace(src, dst)

            monkeypatch.setattr(fileio.os, "replace", failing_replace)
            exc = OSError if failure == "enospc" else KeyboardInterrupt
            with pytest.raises(exc) as info:
                res.save(d, before_summary=_plots(res))
            monkeypatch.undo()
            if failure == "enospc":  # the error names the file meant, not a temporary one
                assert info.value.filename == str(d / calls[k].name) and info.value.errno == errno.ENOSPC
            assert not [p for p in d.iterdir() if fileio.is_temporary(p.name)], "temporary file left"
            assert check_result_dir(d, plots=False) == "absent", (k, earlier)


def test_disk_full_in_the_cli_is_one_line_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(SCENARIO)
    out = tmp_path / "out"
    # Writing a parquet file fails with ENOSPC after writing part of it.
    code = textwrap.dedent(
        f"""
        import errno, os, pathlib, sys
        real = pathlib.Path.write_bytes
        def full(self, data):
            if self.suffix != ".parquet":
                return real(self, data)
            with open(self, "wb") as f:
                f.write(bytes(data)[:100])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        pathlib.Path.write_bytes = full
        from tcplab.cli import main
        sys.argv = ["tcplab", "run", {str(tmp_path / "s.toml")!r}, "--out", {str(out)!r}, "-q"]
        main()
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stderr
    assert r.stderr == f"error: {out / 'intervals.parquet'}: cannot write: No space left on device\n"
    assert sorted(p.name for p in out.iterdir()) == ["ab.pcap"]  # the capture, complete
    _pcap_records(out / "ab.pcap")
    assert check_result_dir(out) == "absent"


def test_pcap_of_an_interrupted_run_is_not_left_truncated(tmp_path: Path) -> None:
    """The core writes the capture to a temporary file and renames it at the end of the
    run: a run killed mid-way leaves no ab.pcap (only a hidden temporary file, removed by
    the next save into that directory)."""
    (tmp_path / "s.toml").write_text(SCENARIO.replace('duration = "12s"', 'duration = "100000s"'))
    out = tmp_path / "out"
    p = _tcplab_run(out)
    deadline = time.time() + 60
    while not (out.exists() and any(fileio.is_temporary(n.name) for n in out.iterdir())):
        assert time.time() < deadline and p.poll() is None
        time.sleep(0.05)
    time.sleep(0.3)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=60)
    names = [n.name for n in out.iterdir()]
    assert "ab.pcap" not in names and len(names) == 1 and fileio.is_temporary(names[0]), names
    # The next run into the directory clears the dead run's leftover.
    (tmp_path / "s.toml").write_text(SCENARIO)
    p = _tcplab_run(out)
    assert p.wait(timeout=120) == 0
    assert check_result_dir(out) == "complete"
    assert not [n for n in out.iterdir() if fileio.is_temporary(n.name)]


def test_atomic_path_keeps_the_earlier_file_on_error(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    fileio.write_text(p, "old")
    with pytest.raises(OSError) as info, fileio.atomic_path(p) as tmp:
        tmp.write_text("new, half")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert info.value.filename == str(p)
    assert p.read_text() == "old" and [q.name for q in tmp_path.iterdir()] == ["x.json"]
    # Devices and FIFOs are written in place.
    with fileio.atomic_path("/dev/null") as tmp:
        assert str(tmp) == "/dev/null"


# -- sweeps ---------------------------------------------------------------------------------


SWEEP_SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
import tcplab
from sweep_hooks import SlowCounting

if __name__ == "__main__":
    tcplab.sweep({spec!r}, out={out!r}, jobs=2, progress=False, run_fn=SlowCounting({log!r}, 0.4))
"""


def _sweep_keys(spec: SweepSpec) -> dict[str, str]:
    """run id → the key sweep_hooks.Counting logs for it."""
    import hashlib

    base = spec.base.to_dict()
    out = {}
    for r in spec.runs():
        sc = tcplab.Scenario.from_dict(base).with_overrides(sorted_overrides(r.overrides))
        out[r.id] = hashlib.sha256(f"{sc.to_json()}|{r.seed}".encode()).hexdigest()[:16]
    return out


def test_a_sweep_killed_at_random_moments_resumes_exactly_the_missing_runs(tmp_path: Path) -> None:
    # Six runs of ~0.5 s each (a 0.4-s wait, then 12 simulated s with 10-ms traces).
    (tmp_path / "base.toml").write_text(SCENARIO.replace('pcap = "ab.pcap"\n', ""))
    (tmp_path / "sw.toml").write_text('base = "base.toml"\nseeds = 3\n[grid]\n"links.ab.loss" = [0.001, 0.01]\n')
    spec = SweepSpec.from_toml(tmp_path / "sw.toml")
    keys = _sweep_keys(spec)
    out = tmp_path / "out"
    rng = random.Random(7)
    # On a loaded machine this process may wake up too late: the sweep has then finished
    # before the kill (no kill tested) or the two kills leave nothing undone (no resume
    # tested). Such a try proves nothing, so it starts over with new kill moments.
    for tries in range(1, 6):
        shutil.rmtree(out, ignore_errors=True)
        if _kill_sweep_twice(tmp_path, out, keys, rng):
            break
    else:
        pytest.fail(f"in {tries} tries, the sweep always finished before a kill or the kills left nothing undone")
    # The resume runs exactly what is missing, once each.
    missing = set(keys) - {d.name for d in (out / "runs").iterdir()}
    assert 0 < len(missing) < len(keys), "the kills should leave part of the sweep undone"
    log = tmp_path / "log-final"
    res = tcplab.sweep(tmp_path / "sw.toml", out=out, jobs=2, progress=False, run_fn=Counting(log))
    ran = log.read_text().split("\n")[:-1] if log.exists() else []
    assert sorted(ln.split()[0] for ln in ran) == sorted(keys[r] for r in missing)
    assert res.ok == 6 and res.executed == len(missing)
    assert not list((out / "tmp").glob("*")) if (out / "tmp").exists() else True


def _kill_sweep_twice(tmp_path: Path, out: Path, keys: dict[str, str], rng: random.Random) -> bool:
    """Start the sweep into ``out`` twice, each time SIGKILLing it (and its workers) a
    moment after it has finished one or two more runs, and check what each kill left.
    False when a kill found the sweep already finished or nothing was left undone."""
    for attempt in range(2):
        log = tmp_path / f"log{attempt}"
        log.unlink(missing_ok=True)
        script = SWEEP_SCRIPT.format(tests=str(REPO / "tests"), spec=str(tmp_path / "sw.toml"), out=str(out), log=str(log))
        (tmp_path / f"s{attempt}.py").write_text(script)
        done_before = {d.name for d in (out / "runs").iterdir()} if (out / "runs").exists() else set()
        p = subprocess.Popen([sys.executable, str(tmp_path / f"s{attempt}.py")], cwd=tmp_path, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Kill it a moment after it has finished one or two more runs.
        target = len(done_before) + rng.randint(1, 2)
        deadline = time.time() + 120
        while p.poll() is None and time.time() < deadline:
            if (out / "runs").exists() and len(list((out / "runs").iterdir())) >= target:
                break
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.2))
        finished = p.poll() is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)  # the sweep and its workers
        p.wait(timeout=60)
        # Every run directory is whole: run.json, and for an ok run its summary and frames. The
        # kill came once `target` runs were complete (or the sweep had finished them all).
        whole = sorted((out / "runs").iterdir()) if (out / "runs").exists() else []
        assert len(whole) >= min(target, len(keys)), (len(whole), target)
        for d in whole:
            rec = json.loads((d / "run.json").read_text())
            assert rec["status"] == "ok", rec
            Result.load(d)
        for f in ("manifest.json",):
            if (out / f).exists():
                json.loads((out / f).read_text())
        # Runs the killed call started: logged; each at most once.
        started = log.read_text().split("\n")[:-1] if log.exists() else []
        assert len(started) == len({ln.split()[0] for ln in started})
        assert not done_before & {rid for rid, k in keys.items() if any(ln.startswith(k) for ln in started)}
        if finished:
            assert p.returncode == 0, "the sweep failed on its own"
        runs = out / "runs"
        if finished or (runs.exists() and len(list(runs.iterdir())) == len(keys)):
            return False
    return True


def _in_small_tmpfs(size: int, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``sh -c script args`` with ``$1`` a fresh tmpfs of ``size`` bytes (a user and
    mount namespace: no root needed where unprivileged user namespaces are allowed)."""
    return subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
         'd=$(mktemp -d) && mount -t tmpfs -o size="$0" tmpfs "$d" && ' + script,
         str(size), *args],
        capture_output=True, text=True, timeout=300,
    )


def _tmpfs_works() -> bool:
    try:
        return _in_small_tmpfs(65536, 'touch "$d/x"').returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@pytest.mark.skipif(not _tmpfs_works(), reason="no unprivileged user/mount namespaces (unshare)")
def test_a_really_full_disk_leaves_a_complete_result_or_none(tmp_path: Path) -> None:
    """`tcplab run --out` onto a tmpfs too small for its results, at sizes where the disk
    fills while the core writes the pcap capture (and the rest then fits), while the parquet
    files are written, near the end of the save, or not at all. Each run exits 1 with one
    line naming the file and "No space left on device", leaves no temporary file and no
    cut file, and no summary.json, except when only the capture failed: then the summary
    says so under `pcap.files` and the capture is absent; or the result fits and is
    complete (exit 0). The tmpfs is copied out before its namespace ends."""
    (tmp_path / "s.toml").write_text(SCENARIO)
    ref = tmp_path / "ref"
    assert _tcplab_run(ref).wait(timeout=120) == 0
    total = sum(p.stat().st_size for p in ref.iterdir())
    pcap = (ref / "ab.pcap").stat().st_size
    rest = total - pcap
    assert pcap > rest + 120_000, (pcap, total)  # the capture is written first, during the run
    script = '"$1" run "$2" --out "$d/out" -q --plot; echo $? > "$3/code"; cp -a "$d/out" "$3/out" 2>/dev/null; true'
    cases = {  # tmpfs size → the file whose write fails ("" = none)
        rest + 80_000: "ab.pcap",
        pcap + rest // 20: ".parquet",
        total - 8192: "",  # whichever comes last
        3 * total: "",
    }
    codes = []
    for size, fails in cases.items():
        size = (size // 4096 + 1) * 4096
        where = tmp_path / f"t{size}"
        where.mkdir()
        r = _in_small_tmpfs(size, script, str(TCPLAB), str(tmp_path / "s.toml"), str(where))
        assert r.returncode == 0, r.stderr
        code = int((where / "code").read_text())
        codes.append(code)
        out = where / "out"
        left = sorted(p.name for p in out.iterdir()) if out.exists() else []
        assert not [n for n in left if fileio.is_temporary(n)], (size, left)
        if code == 0:
            assert check_result_dir(out) == "complete", (size, left)
            continue
        assert code == 1, (size, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (size, r.stderr)
        assert "No space left on device" in lines[0] and fails in lines[0], (size, fails, lines)
        if fails == "ab.pcap":
            assert lines[0].startswith("error: links.ab.pcap: "), lines
            assert "ab.pcap" not in left, left
            summary = json.loads((out / "summary.json").read_text())
            (f,) = summary["pcap"]["files"]
            assert "No space left on device" in f["error"], f
        else:
            assert check_result_dir(out) == "absent", (size, left)
    assert codes == [1, 1, 1, 0], (cases, codes)

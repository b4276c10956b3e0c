"""Event traces (metrics.events → events.parquet), the column registry and trace-hook columns."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import polars as pl

import tcplab
from conftest import LOSSY, CliRunner
from tcplab import _core
from tcplab.results import EVENT_SCHEMA, INTERVAL_SCHEMA, TRACE_SCHEMAS


def _lossy(**metrics: Any) -> dict[str, Any]:
    sc = copy.deepcopy(LOSSY)
    sc["links"]["ab"]["queue"] = {"type": "droptail", "limit": 8}
    sc["metrics"].update(metrics)
    return sc


def test_registry_keeps_the_public_names_and_order() -> None:
    reg = _core.columns()
    assert list(INTERVAL_SCHEMA) == [c["name"] for c in reg["intervals"]] == [
        "flow", "t_start", "t_end", "goodput_bps", "throughput_bps", "efficiency", "cwnd_bytes", "srtt_s", "active"
    ]  # fmt: skip
    assert list(TRACE_SCHEMAS["cwnd"]) == ["flow", "t", "cwnd_bytes", "ssthresh_bytes", "in_flight_bytes", "pacing_rate_bps"]
    assert list(TRACE_SCHEMAS["queue"]) == ["link", "t", "packets", "bytes"]
    assert INTERVAL_SCHEMA["cwnd_bytes"] == pl.UInt64 and TRACE_SCHEMAS["queue"]["packets"] == pl.UInt32
    assert all(c["doc"] for cols in reg.values() for c in cols)


def test_events_rows_match_summary_and_round_trip(tmp_path: Path) -> None:
    r = tcplab.run(_lossy(events=["cwnd", "drop", "loss"]), progress=False)
    ev = r.events
    assert ev is not None
    assert ev.columns == list(EVENT_SCHEMA) and ev.schema == pl.Schema(EVENT_SCHEMA)
    drops = sum(ln["drops"] for ln in r.summary["links"])
    lost = sum(ln["lost"] for ln in r.summary["links"])
    assert drops > 0 and lost > 0
    assert ev.filter(pl.col("event") == "drop").height == drops
    assert ev.filter(pl.col("event") == "loss").height == lost
    assert ev["t"].is_sorted()
    cw = ev.filter(pl.col("event") == "cwnd")
    assert cw.height > 10 and cw["link"].null_count() == cw.height and cw["cwnd_bytes"].null_count() == 0
    assert set(ev.filter(pl.col("event") == "drop")["reason"]) == {"overflow"}
    d = r.save(tmp_path / "a")
    assert (d / "events.parquet").exists()
    back = tcplab.load(d)
    assert back == r and back.events is not None and back.events.equals(ev)
    d2 = back.save(tmp_path / "b")
    assert (d / "events.parquet").read_bytes() == (d2 / "events.parquet").read_bytes()
    # A result without events removes the stale file.
    tcplab.run(_lossy(), progress=False).save(d)
    assert not (d / "events.parquet").exists()


def test_events_off_by_default() -> None:
    r = tcplab.run(_lossy(), progress=False)
    assert r.events is None


def test_bad_event_kind_is_a_scenario_error() -> None:
    try:
        tcplab.run(_lossy(events=["drop", "cwin"]), progress=False)
    except tcplab.ScenarioError as e:
        assert e.field == "metrics.events[1]"
        assert "cwnd, drop, loss, mark" in e.reason
    else:
        raise AssertionError("must fail")


def test_trace_hook_columns_reach_the_cwnd_trace() -> None:
    sc = _lossy(trace="0.5s")
    sc["flows"]["g"] = {"from": "b", "to": "a", "cc": {"algorithm": "gaimd", "alpha": 0.31, "beta": 0.875}}
    tr = tcplab.run(sc, progress=False).traces["cwnd"]
    assert tr.columns == [*TRACE_SCHEMAS["cwnd"], "cc_cwnd_segments"]
    assert tr.schema["cc_cwnd_segments"] == pl.Float64
    seg = {f: tr.filter(pl.col("flow") == f)["cc_cwnd_segments"] for f in ("bulk", "g")}
    assert seg["bulk"].is_nan().all() and not seg["g"].is_nan().any()


def test_cli_run_writes_events_parquet(cli: CliRunner, tmp_path: Path) -> None:
    import json

    import tomli_w

    f = tmp_path / "s.toml"
    f.write_text(tomli_w.dumps(_lossy(events=["drop"])))
    out = tmp_path / "out"
    r = cli("run", f, "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    ev = pl.read_parquet(out / "events.parquet")
    assert set(ev["event"]) == {"drop"} and ev.height == sum(
        ln["drops"] for ln in json.loads((out / "summary.json").read_text())["links"]
    )


def test_outputs_md_lists_the_registered_columns_in_order() -> None:
    """docs/outputs.md's column tables name the registry's columns, in order."""
    import re

    text = (Path(__file__).parent.parent / "docs" / "outputs.md").read_text(encoding="utf-8")

    def table(heading: str) -> list[str]:
        sec = text.split(f"## `{heading}`", 1)[1].split("\n## ", 1)[0]
        names: list[str] = []
        for line in sec.splitlines():
            m = re.match(r"\| (`[^|]+`) \| (string|f64|u64|u32) \|", line)
            if m:
                names += [n.strip("` ") for n in m.group(1).split(",")]
        return names

    assert table("intervals.parquet") == list(INTERVAL_SCHEMA)
    assert table("cwnd_trace.parquet") == [*TRACE_SCHEMAS["cwnd"], "cc_<name>"]
    assert table("queue_trace.parquet") == list(TRACE_SCHEMAS["queue"])
    assert table("probes.parquet") == list(TRACE_SCHEMAS["probe"]) == ["flow", "t", "seq", "rtt_s", "forward_s"]
    assert table("events.parquet") == list(EVENT_SCHEMA)

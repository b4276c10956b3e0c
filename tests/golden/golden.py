"""The golden test's fingerprints: what a run computes, pinned.

Each scenario under ``tests/golden/scenarios/`` is run once (its own seed) and reduced to
content fingerprints: ``summary.json`` without what is not a result (wall time, the
version, the text of warnings), and the rows of ``intervals.parquet``, of each trace and
of ``events.parquet`` (the values, not the file bytes, so a Parquet writer's layout moves
nothing). ``fingerprints.json`` beside this file holds them; ``make test`` compares.

A change that moves a result on purpose updates them with one explicit command and says
so in CHANGELOG.md::

    make golden-update            # all scenarios
    .venv/bin/python tests/golden/golden.py --update --only 06_red_ecn

``golden.py`` alone (no ``--update``) prints which fingerprints differ and exits 1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
STORE = HERE / "fingerprints.json"

#: Summary keys that are not results: they are removed wherever they occur.
NOT_RESULTS = frozenset({"wall_seconds", "version", "warnings"})


def scenario_files() -> list[Path]:
    return sorted(SCENARIOS.glob("*.toml"))


def _canonical(value: Any) -> Any:
    """JSON-able with every float exact (its hex form) and the keys of NOT_RESULTS gone."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in sorted(value.items()) if k not in NOT_RESULTS}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if isinstance(value, float):
        return value.hex()
    return value


def _digest(value: Any) -> str:
    text = json.dumps(_canonical(value), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _frame_digest(df: Any) -> str:
    """The rows of a polars frame: column names, dtypes and every value."""
    cols = [[name, str(dtype), df.get_column(name).to_list()] for name, dtype in zip(df.columns, df.dtypes)]
    return _digest(cols)


def fingerprint(path: Path) -> dict[str, Any]:
    """Run one golden scenario and return its fingerprints (and row counts, for a reader)."""
    import tcplab

    res = tcplab.run(tcplab.Scenario.from_toml(path), progress=False)
    out: dict[str, Any] = {
        "summary": _digest(res.summary),
        "intervals": _frame_digest(res.intervals),
        "rows": {"intervals": res.intervals.height},
    }
    for name, df in sorted(res.traces.items()):
        out[f"trace.{name}"] = _frame_digest(df)
        out["rows"][f"trace.{name}"] = df.height
    if res.events is not None:
        out["events"] = _frame_digest(res.events)
        out["rows"]["events"] = res.events.height
    return out


def load_store() -> dict[str, Any]:
    return json.loads(STORE.read_text()) if STORE.exists() else {}


def differences(name: str, got: dict[str, Any], want: dict[str, Any] | None) -> list[str]:
    """One line per fingerprint of ``name`` that differs from the stored one."""
    if want is None:
        return [f"{name}: no stored fingerprints (run `make golden-update` and say why in CHANGELOG.md)"]
    lines = []
    for key in sorted(set(got) | set(want)):
        if got.get(key) != want.get(key):
            lines.append(f"{name}: {key}: stored {want.get(key)!r}, now {got.get(key)!r}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--update", action="store_true", help="write the new fingerprints into fingerprints.json")
    ap.add_argument("--only", action="append", default=[], help="a scenario's file stem (repeatable)")
    args = ap.parse_args(argv)
    files = [p for p in scenario_files() if not args.only or p.stem in args.only]
    unknown = set(args.only) - {p.stem for p in files}
    if unknown:
        print(f"error: --only: no golden scenario named {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    store = load_store()
    moved: list[str] = []
    for p in files:
        got = fingerprint(p)
        diff = differences(p.stem, got, store.get(p.stem))
        moved.extend(diff)
        if args.update:
            store[p.stem] = got
        print(f"{p.stem}: {'moved' if diff else 'same'}")
    if args.update:
        known = {p.stem for p in scenario_files()}
        store = {k: v for k, v in sorted(store.items()) if k in known}
        STORE.write_text(json.dumps(store, indent=2, sort_keys=True) + "\n")
        print(f"wrote {STORE.name}: {len(moved)} fingerprint(s) moved; add a CHANGELOG.md line saying why")
        return 0
    for line in moved:
        print(line)
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())

"""Compare two reproduction outputs (`tcplab reproduce PAPER --out DIR`) paper by paper.

    .venv/bin/python bench/compare_reproductions.py OLD_DIR NEW_DIR [PAPER ...]

For seed 000 (kalampoukas97) it lists the report rows whose simulated value changed and
whether any row's `agrees` changed; for the other papers it lists every claim whose
verdict (`met`) changed and every claim whose simulated value changed. Used for the tie
order change of 2026-11-27 (docs/reproductions.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl

PAPERS = ["kalampoukas97", "ho2011", "kamra", "zhang", "westwood"]


def seed000(a: pl.DataFrame, b: pl.DataFrame) -> None:
    d = a.with_columns(b["simulated"].alias("sim_new"), b["agrees"].alias("agrees_new"))
    changed = d.filter(pl.col("simulated") != pl.col("sim_new"))
    print(f"kalampoukas97: {a.height} rows, {changed.height} simulated values changed, agrees changed: {int((d['agrees'] != d['agrees_new']).sum())}")
    for r in changed.iter_rows(named=True):
        print(f"   {r['figure']} {r['flow']}: {r['simulated']:.6f} -> {r['sim_new']:.6f} (closed form {r['analytic']:.6f}), agrees {r['agrees']} -> {r['agrees_new']}")


def claims(paper: str, a: pl.DataFrame, b: pl.DataFrame) -> None:
    j = a.join(b, on="claim", suffix="_new")
    verdicts = j.filter(pl.col("met") != pl.col("met_new"))
    values = j.filter(pl.col("simulated").ne_missing(pl.col("simulated_new")))
    print(f"{paper}: {a.height} claims, met {int(a['met'].sum())} -> {int(b['met'].sum())}; {verdicts.height} verdicts and {values.height} values changed")
    for r in verdicts.iter_rows(named=True):
        print(f"   VERDICT {r['claim']}: {r['met']} -> {r['met_new']} ({r['simulated']} -> {r['simulated_new']}; accepted [{r['lo']}, {r['hi']}])")
    for r in values.iter_rows(named=True):
        if r["met"] == r["met_new"]:
            print(f"   value {r['claim']}: {r['simulated']} -> {r['simulated_new']}")


def main() -> None:
    old, new = Path(sys.argv[1]), Path(sys.argv[2])
    for p in sys.argv[3:] or PAPERS:
        f = "report.parquet" if p == "kalampoukas97" else "claims.parquet"
        if not (old / p / f).exists() or not (new / p / f).exists():
            print(f"{p}: not in both directories")
            continue
        a, b = pl.read_parquet(old / p / f), pl.read_parquet(new / p / f)
        seed000(a, b) if p == "kalampoukas97" else claims(p, a, b)


if __name__ == "__main__":
    main()

"""The sweep spec: checking a spec file or dict, expanding its grid or list into runs, and
the stable run ids."""

from __future__ import annotations

import hashlib
import itertools
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcplab.scenario import (
    Scenario,
    ScenarioError,
    check_input_size,
    describe_value,
    plain_value,
    scenario_error,
    split_key,
    toml_syntax_reason,
)

__all__ = ["SPEC_FIELDS", "SweepRun", "SweepSpec", "canonical", "run_id", "sorted_overrides", "spec_error"]

#: Fields a sweep spec may have.
SPEC_FIELDS = ("base", "name", "description", "seeds", "set", "grid", "list")

_SEED_MAX = 2**64
#: The paper scenarios shipped with the package (``scenarios/`` in a checkout): a relative
#: ``base`` not found beside the spec is looked up here.
PAPERS = Path(__file__).resolve().parents[1] / "repro" / "papers"
_ID_VERSION = 1  # part of every run id: bump only if the meaning of a run changes


def spec_error(field: str, reason: str, file: str | Path | None) -> ScenarioError:
    return scenario_error(field, reason, file)


def _limit(text: str | int, path: Path) -> None:
    check_input_size(text, path, what="sweep specs")


def canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def run_id(base: Mapping[str, Any], overrides: Mapping[str, Any], seed: int) -> str:
    """The id of a run: a stable hash of (base scenario data, overrides, seed).

    The base data are hashed in their own key order (the order of the file, which also
    orders flows and links in the simulation); overrides by sorted key.
    """
    doc = {
        "v": _ID_VERSION,
        "base": dict(base),
        "overrides": sorted(([split_key(k), v] for k, v in overrides.items()), key=lambda kv: kv[0]),
        "seed": int(seed),
    }
    return hashlib.sha256(canonical(doc).encode("utf-8")).hexdigest()[:16]


def sorted_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Overrides in their canonical application order (by key path: a table before its fields)."""
    return dict(sorted(overrides.items(), key=lambda kv: split_key(kv[0])))


# -- the spec -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepRun:
    """One run of a sweep: a point of the grid or list, and a seed."""

    id: str
    index: int
    overrides: dict[str, Any]
    seed: int


class SweepSpec:
    """A parsed, checked sweep spec.

    Attributes:
        name: the sweep's name (the ``name`` field, else the spec file's stem).
        base: the base :class:`Scenario` with the ``set`` overrides applied.
        base_path: the base scenario file (None when given as data).
        fixed: the ``set`` overrides.
        params: the swept keys, in spec order.
        points: one dict of overrides per point, in spec order.
        seeds: the seeds, in spec order.
        source: the spec file (None when given as data).
    """

    def __init__(
        self,
        *,
        name: str,
        base: Scenario,
        base_path: str | None,
        fixed: dict[str, Any],
        params: list[str],
        points: list[dict[str, Any]],
        seeds: list[int],
        source: str | None,
        description: str | None = None,
    ) -> None:
        self.name = name
        self.base = base
        self.base_path = base_path
        self.fixed = fixed
        self.params = params
        self.points = points
        self.seeds = seeds
        self.source = source
        self.description = description

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def from_toml(cls, path: str | Path) -> SweepSpec:
        """Read and check a sweep spec file (``base`` is relative to the file).

        Problems raise :class:`ScenarioError` naming the spec file and the field, e.g.
        ``sweep.toml: grid.links.up.rate: is an empty list; give at least one value``.
        """
        path = Path(path)
        try:
            if path.is_file():
                _limit(path.stat().st_size, path)  # before reading it
            text = path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            raise spec_error("", "no such file", path) from None
        except IsADirectoryError:
            raise spec_error("", "is a directory, not a sweep spec", path) from None
        except UnicodeDecodeError as e:
            raise spec_error("", f"not UTF-8 text (byte {e.start})", path) from None
        except OSError as e:
            raise spec_error("", f"cannot read: {e.strerror or e}", path) from None
        _limit(text, path)
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise spec_error("", toml_syntax_reason(e), path) from None
        return cls.from_dict(data, root=path.parent, source=path)

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], root: str | Path | None = None, source: str | Path | None = None
    ) -> SweepSpec:
        """Check a spec given as data (the structure of a spec file).

        ``base`` may be a path (relative to ``root``, default the current directory), a
        :class:`Scenario` or a scenario dict. ``source`` names the spec in errors.
        """
        src = str(source) if source is not None else None
        if not isinstance(data, Mapping):
            raise spec_error("", f"a sweep spec is a table, not {type(data).__name__}", src)
        unknown = [k for k in data if k not in SPEC_FIELDS]
        if unknown:
            raise spec_error(unknown[0], f"unknown field (a sweep spec has {', '.join(SPEC_FIELDS)})", src)

        # base
        if "base" not in data:
            raise spec_error("base", "missing: name the base scenario file, e.g. base = \"fig2_3.toml\"", src)
        raw_base = data["base"]
        base_path: str | None = None
        if isinstance(raw_base, Scenario):
            base = raw_base
            base_path = base.source
        elif isinstance(raw_base, Mapping):
            base = Scenario.from_dict(raw_base)
        elif isinstance(raw_base, (str, Path)) and str(raw_base):
            p = Path(raw_base)
            if not p.is_absolute():
                p = Path(root or ".") / p
                shipped = PAPERS / raw_base
                if not p.exists() and shipped.is_file():  # a paper's scenario, e.g. "kalampoukas97/fig2_3.toml"
                    p = shipped
            try:
                base = Scenario.from_toml(p)
            except ScenarioError as e:
                raise spec_error("base", f"{p}: {e.reason}", src) from None
            base_path = str(p)
        else:
            raise spec_error("base", f"must be the path of a scenario file, not {describe_value(raw_base)}", src)

        # set: fixed overrides
        fixed = _flat_table(data.get("set", {}), "set", src, leaf_lists=False)
        try:
            base = base.with_overrides(sorted_overrides(fixed))
        except ScenarioError as e:
            raise spec_error(f"set.{e.field}", e.reason, src) from None
        try:
            base.validate()
        except ScenarioError as e:
            for key in fixed:  # the problem is a value given in `set`
                if e.field and (key == e.field or e.field.startswith(key + ".")):
                    raise spec_error(f"set.{key}", e.reason, src) from None
            where = f"{base_path}: " if base_path else ""
            raise spec_error("base", f"{where}{e.field}: {e.reason}" if e.field else f"{where}{e.reason}", src) from None

        # grid or list
        has_grid, has_list = "grid" in data, "list" in data
        if has_grid and has_list:
            raise spec_error("list", "give either grid or list, not both", src)
        if not has_grid and not has_list:
            raise spec_error("grid", "missing: give a grid (key = [values]) or a list of override tables", src)
        if has_grid:
            grid = _flat_table(data["grid"], "grid", src, leaf_lists=True)
            if not grid:
                raise spec_error("grid", "is empty: give at least one key = [values]", src)
            params = list(grid)
            points = [dict(zip(params, combo, strict=True)) for combo in itertools.product(*grid.values())]
        else:
            items = data["list"]
            if not isinstance(items, list):
                raise spec_error("list", f"must be an array of override tables, not {describe_value(items)}", src)
            if not items:
                raise spec_error("list", "is empty: give at least one table of overrides", src)
            points, params = [], []
            for i, item in enumerate(items):
                if not isinstance(item, Mapping):
                    raise spec_error(f"list[{i}]", f"must be a table of overrides, not {describe_value(item)}", src)
                point = _flat_table(item, f"list[{i}]", src, leaf_lists=False)
                points.append(point)
                params += [k for k in point if k not in params]
            seen: dict[str, int] = {}
            for i, point in enumerate(points):
                key = canonical(sorted(([split_key(k), v] for k, v in point.items()), key=lambda kv: kv[0]))
                if key in seen:
                    raise spec_error(f"list[{i}]", f"repeats list[{seen[key]}]", src)
                seen[key] = i

        # Packet traces: every run of a sweep would write the same file.
        why = "pcap traces are not written in sweeps (every run would write the same file); run one point with `tcplab run` instead"
        for lname, link in _plain_links(base).items():
            if isinstance(link, Mapping) and "pcap" in link:
                key = f"links.{lname}.pcap"
                if any(split_key(k) == ["links", lname, "pcap"] for k in fixed):
                    raise spec_error(f"set.{key}", why, src)
                where = f"{base_path}: " if base_path else ""
                raise spec_error("base", f"{where}{key}: {why}", src)
        for k in params:
            parts = split_key(k)
            if len(parts) == 3 and parts[0] == "links" and parts[2] == "pcap":
                raise spec_error("grid" if has_grid else "list", f"{k}: {why}", src)

        # seeds
        seeds = _seeds(data.get("seeds"), base, src)

        name = data.get("name")
        if name is not None and not (isinstance(name, str) and name):
            raise spec_error("name", f"must be a non-empty string, not {describe_value(name)}", src)
        if name is None:
            name = Path(src).stem if src else "sweep"
        desc = data.get("description")
        if desc is not None and not isinstance(desc, str):
            raise spec_error("description", f"must be a string, not {describe_value(desc)}", src)
        return cls(
            name=name, base=base, base_path=base_path, fixed=fixed, params=params, points=points,
            seeds=seeds, source=src, description=desc,
        )  # fmt: skip

    # -- views ----------------------------------------------------------------------------

    def runs(self) -> list[SweepRun]:
        """Every run, point by point and, within a point, seed by seed."""
        base = self.base.to_dict()
        out: list[SweepRun] = []
        for point in self.points:
            for seed in self.seeds:
                out.append(SweepRun(run_id(base, point, seed), len(out), dict(point), seed))
        return out

    def to_dict(self) -> dict[str, Any]:
        """What manifest.json records about the spec."""
        return {
            "name": self.name,
            "source": self.source,
            "base": self.base_path,
            "set": self.fixed,
            "params": self.params,
            "seeds": self.seeds,
            "points": len(self.points),
        }

    def __repr__(self) -> str:
        return f"SweepSpec(name={self.name!r}, params={self.params}, points={len(self.points)}, seeds={self.seeds})"


_RESERVED_KEYS = {"seed": "vary the seed with `seeds`, not as an override"}


def _flat_table(value: Any, where: str, src: str | None, *, leaf_lists: bool) -> dict[str, Any]:
    """Flatten nested tables into dotted keys.

    For a grid (``leaf_lists``), a key's value is the list of values to sweep and nested
    tables are followed until a list; elsewhere every non-table value is a leaf.
    """
    if not isinstance(value, Mapping):
        raise spec_error(where, f"must be a table, not {describe_value(value)}", src)
    out: dict[str, Any] = {}
    seen: dict[tuple[str, ...], str] = {}

    def walk(node: Mapping[str, Any], prefix: str) -> None:
        for k, v in node.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, Mapping):
                if not v:
                    raise spec_error(f"{where}.{key}", "is an empty table", src)
                walk(v, key)
                continue
            try:
                parts = tuple(split_key(key))
            except ScenarioError as e:
                raise spec_error(f"{where}.{key}", e.reason, src) from None
            if parts[0] in _RESERVED_KEYS and len(parts) == 1:
                raise spec_error(f"{where}.{key}", _RESERVED_KEYS[parts[0]], src)
            if parts in seen:
                raise spec_error(f"{where}.{key}", f"given twice (also as {seen[parts]!r})", src)
            seen[parts] = key
            if leaf_lists:
                if not isinstance(v, list):
                    raise spec_error(f"{where}.{key}", f"must be a list of values, e.g. [{_toml_repr(v)}], not {describe_value(v)}", src)
                if not v:
                    raise spec_error(f"{where}.{key}", "is an empty list; give at least one value", src)
                values = [plain_value(x) for x in v]
                texts = [canonical(x) for x in values]
                for j, t in enumerate(texts):
                    if t in texts[:j]:
                        raise spec_error(f"{where}.{key}", f"repeats the value {_toml_repr(values[j])}", src)
                out[key] = values
            else:
                out[key] = plain_value(v)

    walk(value, "")
    return out


def _plain_links(base: Scenario) -> dict[str, Any]:
    """The base scenario's link directions after expansion (builders and duplex entries
    generate some), or the links as written when the base does not expand on its own."""
    written = base.to_dict().get("links")
    written = written if isinstance(written, dict) else {}
    try:
        links = base.expand().to_dict().get("links") or {}
    except ScenarioError:
        return written
    # Entries as written first (in file order), then what expansion generated.
    return {**{k: links[k] for k in written if k in links}, **links}


def _seeds(value: Any, base: Scenario, src: str | None) -> list[int]:
    if value is None:
        s = base.to_dict().get("seed", 1)
        return [s] if _ok_seed(s) else [1]
    if isinstance(value, bool) or not isinstance(value, (int, list)):
        raise spec_error("seeds", f"must be a count (e.g. 5) or a list of seeds, not {describe_value(value)}", src)
    if isinstance(value, int):
        if value < 1:
            raise spec_error("seeds", f"must be at least 1, got {value}", src)
        if value > 1_000_000:
            raise spec_error("seeds", f"{value} is too many (at most 1000000)", src)
        return list(range(1, value + 1))
    if not value:
        raise spec_error("seeds", "is an empty list; give at least one seed", src)
    out: list[int] = []
    for i, s in enumerate(value):
        if not _ok_seed(s):
            raise spec_error(f"seeds[{i}]", f"must be an integer in [0, 2^64), got {_toml_repr(s)}", src)
        if s in out:
            raise spec_error(f"seeds[{i}]", f"repeats seed {s}", src)
        out.append(s)
    return out


def _ok_seed(s: Any) -> bool:
    return isinstance(s, int) and not isinstance(s, bool) and 0 <= s < _SEED_MAX


def _toml_repr(v: Any) -> str:
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


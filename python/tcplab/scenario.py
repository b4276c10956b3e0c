"""Scenarios as plain data: load TOML, apply ``key=value`` overrides, hand JSON to the core.

A :class:`Scenario` wraps the dict that a scenario TOML file parses to. Nothing is
interpreted here: the Rust core (``tcplab._core``) owns the schema and every semantic
check, and reports problems as :class:`ScenarioError` naming the dotted field path.
This module only adds what has to happen before the core sees the data: reading files,
TOML syntax errors with line numbers, and overrides such as
``links.up.rate=200kbps``.
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
import math
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomli_w

from tcplab import _core

ScenarioError = _core.ScenarioError


# The core defines the class as ``tcplab.ScenarioError`` (a ``ValueError``) with a readable
# ``str()`` and ``.field`` / ``.reason`` / ``.file``; see crates/tcplab-py/src/lib.rs.

__all__ = ["INPUT_LIMITS", "Scenario", "ScenarioError", "check_input_size", "parse_override", "scenario_error", "split_key"]


# Fixed bounds on an input file, checked before any parser builds a document from it, so
# that a file cannot exhaust the machine while it is read (docs/scenarios.md, "Size
# limits"). They do not depend on --max-memory or on the machine: the same file is refused
# everywhere. The largest file shipped with tcplab is about 75 KB; a scenario needing more
# is written with builders, workloads or defaults. Counts are of characters, so a bracket
# or a comma inside a string counts too (the bounds are far above real files).
INPUT_LIMITS = {
    "bytes": 8 * 1024 * 1024,  # the file's size
    "tables": 100_000,  # table headers ("[x]" / "[[x]]" lines) plus inline tables / JSON objects ("{")
    "entries": 1_000_000,  # keys ("=" in TOML, ":" in JSON) plus list items (",")
}

_TABLE_HEADER = re.compile(r"^[ \t]*\[", re.MULTILINE)


def _mb(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def check_input_size(text: str | bytes | int, source: str | Path | None = None, *, json_text: bool = False,
                     what: str = "scenario files") -> None:
    """Refuse an input above :data:`INPUT_LIMITS` with one :class:`ScenarioError`.

    ``text`` is the file's text (or bytes), or only its size in bytes (to refuse a large
    file before reading it). The check is linear in the text and builds nothing.
    """
    size = text if isinstance(text, int) else len(text)
    hint = "write many elements with a builder ([dumbbell], [parking_lot], [fat_tree]), [workloads] or [defaults]"
    if size > INPUT_LIMITS["bytes"]:
        raise scenario_error("", f"the file is {_mb(size)}; {what} are limited to {_mb(INPUT_LIMITS['bytes'])} "
                                 f"(docs/scenarios.md, \"Size limits\"): {hint}", source)
    if isinstance(text, int):
        return
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    headers = 0 if json_text else len(_TABLE_HEADER.findall(text))
    counts = {"tables": headers + text.count("{"),
              "entries": text.count(":" if json_text else "=") + text.count(",")}
    for key, label in (("tables", "tables"), ("entries", "keys and list items")):
        if counts[key] > INPUT_LIMITS[key]:
            raise scenario_error("", f"{counts[key]} {label}; {what} are limited to {INPUT_LIMITS[key]} "
                                     f"(docs/scenarios.md, \"Size limits\"): {hint}", source)


def scenario_error(field: str, reason: str, file: str | Path | None = None) -> ScenarioError:
    """Build a :class:`ScenarioError` shaped like the core's.

    ``args`` is ``(message, field, reason)``; ``message`` is ``"file: field: reason"``
    with empty parts left out. The file (if any) is also stored as ``err.file``.
    """
    parts = [str(p) for p in (file, field, reason) if p]
    err = ScenarioError(": ".join(parts), field, reason)
    err.file = str(file) if file is not None else None
    return err


def _toml_syntax_reason(exc: tomllib.TOMLDecodeError) -> str:
    """Turn tomllib's message into ``line L, column C: <what is wrong>``."""
    msg = str(exc)
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)\s*$", msg)
    if m:
        return f"TOML syntax error at line {m.group(1)}, column {m.group(2)}: {msg[: m.start()]}"
    m = re.search(r"\s*\(at end of document\)\s*$", msg)
    if m:
        return f"TOML syntax error at end of document: {msg[: m.start()]}"
    return f"TOML syntax error: {msg}"


def split_key(key: str) -> list[str]:
    """Split a dotted key (TOML key syntax, so ``links."a.b".rate`` works) into parts.

    Raises :class:`ScenarioError` (field = the key) when the key is not a valid TOML key.
    """
    key = key.strip()
    if not key:
        raise scenario_error("--set", "empty key (write KEY=VALUE, e.g. links.up.rate=200kbps)")
    try:
        doc = tomllib.loads(f"{key} = 0")
    except tomllib.TOMLDecodeError:
        raise scenario_error(key, "is not a valid dotted key (e.g. links.up.rate)") from None
    parts: list[str] = []
    node: Any = doc
    while isinstance(node, dict):
        if len(node) != 1:  # cannot happen for a single key = value line
            raise scenario_error(key, "is not a valid dotted key (e.g. links.up.rate)")
        (k, node), = node.items()
        parts.append(k)
    return parts


def _plain(value: Any) -> Any:
    """Dates and times from TOML literals are kept as the text the user wrote."""
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


# Public names of the two helpers above, for the other modules of the package (tcplab.sweeps).
plain_value = _plain
toml_syntax_reason = _toml_syntax_reason


def parse_value(text: str) -> Any:
    """Parse an override value: a TOML literal when it is one, otherwise the raw string.

    ``"5"`` → 5, ``"0.05"`` → 0.05, ``"true"`` → True, ``"[1, 2]"`` → [1, 2],
    ``'{ type = "droptail", limit = 50 }'`` → a dict, ``'"100"'`` → "100",
    ``"200kbps"`` → "200kbps" (not TOML, kept as a string).
    """
    try:
        value = tomllib.loads(f"x = {text}")["x"]
    except tomllib.TOMLDecodeError:
        return text.strip()
    if isinstance(value, (_dt.date, _dt.time)):
        return text.strip()
    return _plain(value)


def parse_override(item: str) -> tuple[str, Any]:
    """Parse one ``KEY=VALUE`` override (the CLI's ``--set``) into ``(key, value)``.

    The value is parsed with :func:`parse_value`. A missing ``=`` or an empty key raises
    :class:`ScenarioError` with field ``"--set"``.
    """
    if "=" not in item:
        raise scenario_error("--set", f"'{item}' is not KEY=VALUE (e.g. --set links.up.rate=200kbps)")
    key, _, value = item.partition("=")
    key = key.strip()
    if not key:
        raise scenario_error("--set", f"'{item}' has an empty key (e.g. --set links.up.rate=200kbps)")
    split_key(key)  # reject bad keys early, naming them
    return key, parse_value(value)


def _json_default(value: Any) -> Any:
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


class Scenario:
    """A scenario: the plain dict of a scenario file, plus where it came from.

    Instances are treated as immutable: :meth:`with_overrides` returns a new scenario and
    :meth:`to_dict` returns a copy.

    >>> sc = Scenario.from_toml("scenarios/kalampoukas97/fig2_3.toml")  # doctest: +SKIP
    >>> short = sc.with_overrides({"duration": "60s", "links.up.rate": "200kbps"})  # doctest: +SKIP
    """

    def __init__(self, data: Mapping[str, Any], source: str | Path | None = None) -> None:
        if not isinstance(data, Mapping):
            raise TypeError(f"a scenario is a mapping, not {type(data).__name__}")
        self.source: str | None = str(source) if source is not None else None
        self._data: dict[str, Any] = copy.deepcopy(_inline_size_files(dict(data), self.source))

    # -- construction -------------------------------------------------------------------

    @classmethod
    def from_toml(cls, path: str | Path) -> Scenario:
        """Read a scenario file: TOML, or JSON when its name ends in ``.json`` (the same
        schema, as :meth:`from_dict` takes it).

        Unreadable files and syntax errors raise :class:`ScenarioError` naming the file
        (and, for syntax errors, the line and column). The content is not validated here;
        call :meth:`validate` or run it.
        """
        path = Path(path)
        try:
            if path.is_file():
                check_input_size(path.stat().st_size, path)  # before reading it
            raw = path.read_bytes()
        except FileNotFoundError:
            raise scenario_error("", "no such file", path) from None
        except IsADirectoryError:
            raise scenario_error("", "is a directory, not a scenario file", path) from None
        except OSError as e:
            raise scenario_error("", f"cannot read: {e.strerror or e}", path) from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise scenario_error("", f"not UTF-8 text (byte {e.start})", path) from None
        if path.suffix.lower() == ".json":
            check_input_size(text, path, json_text=True)
            try:
                data = json.loads(text)
            except json.JSONDecodeError as e:
                raise scenario_error("", f"JSON syntax error at line {e.lineno}, column {e.colno}: {e.msg}",
                                     path) from None
            if not isinstance(data, dict):
                raise scenario_error("", f"a JSON scenario is an object ({{...}}), not a {type(data).__name__}",
                                     path)
            return cls(data, source=path)
        return cls.from_toml_text(text, source=path)

    @classmethod
    def from_toml_text(cls, text: str, source: str | Path | None = None) -> Scenario:
        """Parse scenario TOML given as text (``source`` names it in errors).

        Text above :data:`INPUT_LIMITS` is refused before it is parsed."""
        check_input_size(text, source)
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise scenario_error("", _toml_syntax_reason(e), source) from None
        return cls(data, source=source)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Scenario:
        """Wrap a dict with the structure of a scenario file (it is deep-copied)."""
        return cls(d)

    # -- views ----------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The scenario's ``name``, else the file's stem, else ``"scenario"``."""
        name = self._data.get("name")
        if isinstance(name, str) and name:
            return name
        if self.source:
            return Path(self.source).stem
        return "scenario"

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the scenario data."""
        return copy.deepcopy(self._data)

    def to_json(self) -> str:
        """The JSON text the core parses (keys in file order).

        Non-finite floats (TOML ``inf``, ``nan``) have no JSON form: they raise
        :class:`ScenarioError` naming the field.
        """
        _check_finite(self._data, [], self.source)
        return json.dumps(self._data, default=_json_default, ensure_ascii=False, allow_nan=False)

    def to_toml(self) -> str:
        """TOML text that loads back to an equal scenario.

        TOML has no null: keys whose value is None (possible in dicts, meaning "absent")
        are left out.
        """
        return tomli_w.dumps(_drop_none(self._data))

    def expand(self) -> Scenario:
        """The plain scenario this one expands to, validated.

        Topology builders (``dumbbell``, ``parking_lot``), duplex link entries
        (``duplex = true``) and ``defaults`` are replaced by the nodes, link directions and
        flows they generate (docs/scenarios.md, "Topology builders" and "Defaults"); keys
        are sorted. A plain scenario expands to itself (keys sorted). Expansion happens in
        the core, the same way for runs, sweeps and ``tcplab expand``. Raises
        :class:`ScenarioError` naming the field the user wrote.
        """
        try:
            text = _core.expand_json(self.to_json())
        except ScenarioError as e:
            e.file = self.source
            raise
        return Scenario(json.loads(text), source=self.source)

    def validate(self) -> None:
        """Check the scenario with the core; raises :class:`ScenarioError` naming the field."""
        try:
            _core.validate_json(self.to_json())
        except ScenarioError as e:
            e.file = self.source
            raise

    # -- overrides ------------------------------------------------------------------------

    def with_overrides(self, overrides: Mapping[str, Any] | None = None) -> Scenario:
        """Return a copy with dotted-path overrides applied.

        ``{"links.up.rate": "200kbps", "metrics.trace": "0.1s"}`` sets those fields;
        missing intermediate tables are created. A path that runs through a value that is
        not a table raises :class:`ScenarioError` naming the path. String values are taken
        as given (use :func:`parse_value` to interpret CLI text).
        """
        data = copy.deepcopy(self._data)
        for key, value in (overrides or {}).items():
            parts = split_key(key)
            node: Any = data
            for i, part in enumerate(parts[:-1]):
                nxt = node.get(part)
                if nxt is None:
                    nxt = node[part] = {}
                elif not isinstance(nxt, dict):
                    here = ".".join(parts[: i + 1])
                    raise scenario_error(
                        key,
                        f"'{here}' is {describe_value(nxt)}, not a table, so it has no field '{parts[i + 1]}'",
                        self.source,
                    )
                node = nxt
            node[parts[-1]] = copy.deepcopy(value)
            if parts[-1] == "file" and len(parts) >= 2 and parts[-2] == "sizes":
                node.pop("text", None)  # a new CDF file: read it, not the old one's text
        return Scenario(data, source=self.source)

    # -- dunder ---------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scenario):
            return NotImplemented
        return self._data == other._data

    __hash__ = None  # type: ignore[assignment]  # equality is by content

    def __repr__(self) -> str:
        src = f", source={self.source!r}" if self.source else ""
        return f"Scenario(name={self.name!r}{src})"


#: The largest CDF file ``workloads.NAME.sizes.file`` may name (the core's limit too).
MAX_CDF_FILE_BYTES = 1 << 20


def _inline_size_files(data: dict[str, Any], source: str | None) -> dict[str, Any]:
    """``data`` with every ``workloads.NAME.sizes = { file = ... }`` given its file's text
    (``text``), the path read relative to the scenario file's folder (the current one for a
    scenario from a dict). The scenario then carries its distribution wherever its JSON goes.
    Unreadable or oversized files raise :class:`ScenarioError` naming the field."""
    workloads = data.get("workloads")
    if not isinstance(workloads, Mapping):
        return data
    out = None
    base = Path(source).parent if source else Path.cwd()
    for name, w in workloads.items():
        sizes = w.get("sizes") if isinstance(w, Mapping) else None
        if not (isinstance(sizes, Mapping) and isinstance(sizes.get("file"), str) and "text" not in sizes):
            continue
        field = f"workloads.{name}.sizes.file"
        path = base / sizes["file"]
        try:
            size = path.stat().st_size
            if not path.is_file():
                raise scenario_error(field, f"'{sizes['file']}' is not a file", source)
            if size > MAX_CDF_FILE_BYTES:
                raise scenario_error(field, f"'{sizes['file']}' is {size} bytes; a CDF file is limited to "
                                            f"{MAX_CDF_FILE_BYTES}", source)
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise scenario_error(field, f"no such file '{sizes['file']}' (looked for {path})", source) from None
        except UnicodeDecodeError as e:
            raise scenario_error(field, f"'{sizes['file']}' is not UTF-8 text (byte {e.start})", source) from None
        except OSError as e:
            raise scenario_error(field, f"cannot read '{sizes['file']}': {e.strerror or e}", source) from None
        if out is None:
            out = dict(data)
            out["workloads"] = dict(workloads)
        out["workloads"][name] = {**w, "sizes": {**sizes, "text": text}}
    return data if out is None else out


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value if v is not None]
    return value


def _check_finite(value: Any, path: list[str], source: str | None) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise scenario_error(".".join(path), f"'{value}' is not a finite number", source)
    if isinstance(value, dict):
        for k, v in value.items():
            _check_finite(v, [*path, str(k)], source)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _check_finite(v, [*path, str(i)], source)


def describe_value(value: Any) -> str:
    """How error messages name a TOML value's kind: "a number (3)", "a table", ..."""
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({json.dumps(value, ensure_ascii=False)})"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "a table"
    return f"a {type(value).__name__}"

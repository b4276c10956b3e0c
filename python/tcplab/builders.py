"""Topology builders in Python: the ``[dumbbell]``, ``[parking_lot]`` and ``[fat_tree]`` tables of a
scenario file as keyword arguments.

They return an unexpanded :class:`~tcplab.scenario.Scenario` holding exactly the table a
scenario file would (same keys, same values; see docs/scenarios.md, "Topology builders"),
so ``with_overrides({"dumbbell.bottleneck.rate": "5Mbps"})``, sweeps over builder keys and
``Scenario.expand()`` work as for a file. Nothing is interpreted here: the core expands
and validates.

>>> import tcplab
>>> sc = tcplab.dumbbell(
...     bottleneck={"rate": "10Mbps", "delay": "20ms", "buffer": "1bdp"},
...     access={"rate": "100Mbps", "delay": "1ms"},
...     flows=["newreno", "newreno", "vegas", "highspeed"],
...     duration="30s",
... )
>>> sorted(sc.expand().to_dict()["flows"])
['f1', 'f2', 'f3', 'f4']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tcplab.scenario import Scenario

__all__ = ["dumbbell", "fat_tree", "parking_lot"]


def _scenario(table: str, keys: dict[str, Any], duration: str, defaults: Mapping[str, Any] | None, top: dict[str, Any]) -> Scenario:
    data: dict[str, Any] = {"duration": duration, **top}
    if defaults is not None:
        data["defaults"] = dict(defaults)
    data[table] = {k: v for k, v in keys.items() if v is not None}
    return Scenario(data)


def dumbbell(
    *,
    bottleneck: Mapping[str, Any],
    access: Mapping[str, Any] | None = None,
    left: Mapping[str, Any] | None = None,
    right: Mapping[str, Any] | None = None,
    pairs: int | None = None,
    rtt: str | Sequence[str] | None = None,
    flows: Sequence[str | Mapping[str, Any]] | None = None,
    duration: str = "60s",
    defaults: Mapping[str, Any] | None = None,
    **top: Any,
) -> Scenario:
    """A scenario with a ``[dumbbell]`` table (keys as in the file).

    ``bottleneck`` (link fields plus ``buffer``), ``access`` / ``left`` / ``right`` (link
    fields; a list gives one value per pair), ``pairs``, ``rtt`` (one duration or one per
    pair) and ``flows`` (groups: a congestion-control name or a dict of flow fields plus
    ``count``, ``name``, ``pair``, ``direction``). ``defaults`` becomes ``[defaults]``;
    other keyword arguments are top-level keys (``seed``, ``metrics``, ``name``, ...).
    """
    keys = {"pairs": pairs, "bottleneck": bottleneck, "access": access, "left": left, "right": right, "rtt": rtt, "flows": flows}
    return _scenario("dumbbell", keys, duration, defaults, top)


def parking_lot(
    *,
    hops: int,
    link: Mapping[str, Any],
    access: Mapping[str, Any] | None = None,
    flows: Sequence[str | Mapping[str, Any]] | None = None,
    cross: Sequence[str | Mapping[str, Any]] | None = None,
    duration: str = "60s",
    defaults: Mapping[str, Any] | None = None,
    **top: Any,
) -> Scenario:
    """A scenario with a ``[parking_lot]`` table (keys as in the file).

    ``hops`` bottleneck links ``link`` (link fields plus ``buffer``; a list gives one value
    per hop), ``access`` links, the long ``flows`` (s0 → d0 across every hop) and the
    ``cross`` flow groups repeated on every hop (sI → dI).
    """
    keys = {"hops": hops, "link": link, "access": access, "flows": flows, "cross": cross}
    return _scenario("parking_lot", keys, duration, defaults, top)


def fat_tree(
    *,
    k: int,
    link: Mapping[str, Any] | None = None,
    access: Mapping[str, Any] | None = None,
    aggregation: Mapping[str, Any] | None = None,
    core: Mapping[str, Any] | None = None,
    traffic: str | None = None,
    permutation_seed: int | None = None,
    duration: str = "60s",
    defaults: Mapping[str, Any] | None = None,
    **top: Any,
) -> Scenario:
    """A scenario with a ``[fat_tree]`` table (keys as in the file).

    A k-ary fat-tree (``k`` even: k³/4 hosts ``h…``, (k/2)² core, k²/2 aggregation and k²/2
    edge switches); ``link`` (link fields plus ``buffer`` for every link) under the tiers'
    own ``access`` (host-edge), ``aggregation`` (edge-aggregation) and ``core``
    (aggregation-core) tables; ``traffic`` ``"none"``, ``"permutation"`` (with
    ``permutation_seed``) or ``"all_to_all"``. Routes spread destinations over the core
    switches (``routing.ecmp = "destination"``).
    """
    keys = {
        "k": k,
        "link": link,
        "access": access,
        "aggregation": aggregation,
        "core": core,
        "traffic": traffic,
        "permutation_seed": permutation_seed,
    }
    return _scenario("fat_tree", keys, duration, defaults, top)

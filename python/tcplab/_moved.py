"""Old import paths kept for one release (issue 43's package layout).

Each old top-level module (``tcplab/claims.py``, ...) is a two-line shim that calls
:func:`alias`: the import warns (``DeprecationWarning``, naming the new path) and gives the
new module itself, so every name, private ones included, is the same object."""

from __future__ import annotations

import importlib
import sys
import warnings

#: old path -> new path, every shim of this release.
MOVED = {
    "tcplab.claims": "tcplab.repro.claims",
    "tcplab.metrics": "tcplab.repro.metrics",
    "tcplab.papers": "tcplab.repro.papers",
    "tcplab.reproduce": "tcplab.repro.reproduce",
    "tcplab.plots": "tcplab.reporting.plots",
    "tcplab.report": "tcplab.reporting.report",
}


def alias(old: str) -> None:
    """Replace the shim ``old`` in ``sys.modules`` by its new module, with a warning that
    points at the importing line (stack level 3: here, the shim, then the importer; the
    import machinery's own frames are skipped by :func:`warnings.warn`)."""
    new = MOVED[old]
    warnings.warn(f"{old} is deprecated and will be removed in the next release; import {new} instead",
                  DeprecationWarning, stacklevel=3)
    sys.modules[old] = importlib.import_module(new)

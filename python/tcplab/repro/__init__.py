"""Reproducing the seed papers: ``tcplab reproduce PAPER`` (docs/reproductions.md).

* :mod:`tcplab.repro.reproduce` – a paper's manifest (``reproduce.toml``): its figures,
  their runs, the figures drawn and the report (:func:`tcplab.repro.reproduce.reproduce`);
* :mod:`tcplab.repro.claims` – grid figures and the claims checked on them;
* :mod:`tcplab.repro.metrics` – seed 003's derived metrics (manifests name them as
  ``python:tcplab.repro.metrics.FUNCTION``);
* ``papers/`` – the shipped scenarios and manifests, one folder per paper (``scenarios/``
  in a checkout is a link to it; :data:`PAPERS_DIR`).

This layer sits above the user API (:mod:`tcplab.scenario`, :mod:`tcplab.runner`,
:mod:`tcplab.results`, ...) and :mod:`tcplab.reporting`; it runs ns-2 through
:mod:`tcplab.ns2` (imported where a run needs it). Nothing below imports it.
The package imports none of its modules: ``tcplab list`` loads the manifests only.
"""

from __future__ import annotations

from pathlib import Path

#: The papers' scenarios and manifests ship inside the package (``tcplab/repro/papers/<paper>/``).
PAPERS_DIR = Path(__file__).resolve().parent / "papers"

__all__ = ["PAPERS_DIR"]

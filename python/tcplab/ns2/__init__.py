"""tcplab beside ns-2.35: translate a scenario to OTcl, run both simulators, compare.

Importable without ns-2 installed; only :func:`run_ns2` needs the ``ns`` binary (Debian's
package ``ns2``). docs/crosscheck.md ("ns-2.35") describes what is translated, what is
refused and why, and the metric definitions on both sides.

* :func:`to_otcl` writes the OTcl script for the subset ns-2 expresses: nodes, link
  directions (rate, delay, DropTail, RED or XCP queue, Bernoulli loss after the link, outage
  schedules with tcplab's down periods), TCP
  agents with every tcplab flow key set explicitly to the agent variable of the same
  meaning, sinks, FTP/CBR/exponential on-off sources, start and stop times, and the
  measurement code that writes a JSON file at the end of the run. Anything else raises
  :class:`Ns2Unsupported`, whose message is one line naming the key.
* :func:`run_ns2` and :func:`run_tcplab` return the same metrics (:data:`FLOW_METRICS`,
  :data:`LINK_METRICS`) from each simulator; :func:`compare` puts them side by side.

The scenario is translated as written: a flow without ``profile = "ns2"`` becomes "ns-2 set
to match tcplab" (ns-2's own defaults, where they differ from tcplab's, are overridden in
the script). What ns-2 cannot switch off is listed in :attr:`Ns2Script.notes`.

The package, by concern (each imports only those before it):

* :mod:`tcplab.ns2.common` – errors, metric names, tcplab's flow defaults, units;
* :mod:`tcplab.ns2.agents` – a TCP flow's ns-2 agent, sink and settings;
* :mod:`tcplab.ns2.translate` – scenario -> OTcl (:func:`translate`, :func:`to_otcl`);
* :mod:`tcplab.ns2.run` – running ``ns`` (:func:`run_ns2`, :func:`run_ns2_result`);
* :mod:`tcplab.ns2.compare` – tcplab's side and the comparison (:func:`run_tcplab`,
  :func:`compare`, :func:`run_both`).

The names below are re-exported here, so ``tcplab.ns2.X`` is what it was when this was one
module. ``tcplab.ns2.translate`` and ``tcplab.ns2.compare`` are the functions (this file
imports every submodule first, then binds the names, so importing a submodule later never
replaces them); their modules are ``sys.modules["tcplab.ns2.translate"]`` and
``from tcplab.ns2.translate import ...`` reaches their other names.
"""

from __future__ import annotations

from .common import (
    EXACT_CLOCK_TICK_S,  # noqa: F401 (public, outside __all__ as before)
    FLOW_METRICS,
    LINK_METRICS,
    SAMPLE_PERIOD_S,
    Ns2Error,
    Ns2Unsupported,
    expanded,
)
from .compare import compare, run_both, run_tcplab
from .run import (
    INTERVAL_COLUMNS,  # noqa: F401 (public, outside __all__ as before)
    ns2_available,
    ns2_result,
    run_ns2,
    run_ns2_result,
)
from .translate import Ns2Script, to_otcl, translate

__all__ = [
    "Ns2Unsupported",
    "Ns2Error",
    "Ns2Script",
    "FLOW_METRICS",
    "LINK_METRICS",
    "expanded",
    "translate",
    "to_otcl",
    "run_ns2",
    "run_ns2_result",
    "ns2_result",
    "run_tcplab",
    "compare",
    "run_both",
    "ns2_available",
    "SAMPLE_PERIOD_S",
]

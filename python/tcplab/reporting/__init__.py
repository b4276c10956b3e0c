"""Figures and terminal reports of runs and sweeps.

* :mod:`tcplab.reporting.plots` – matplotlib figures (object API, no pyplot state) of a
  :class:`~tcplab.Result` or a sweep's summary table;
* :mod:`tcplab.reporting.report` – the rich tables ``tcplab run`` prints.

This layer reads what the user API (:mod:`tcplab.results`, :mod:`tcplab.fileio`) gives; the
user API never imports it. The package imports neither module (matplotlib and rich load
only where a figure or a table is made).
"""

"""Deprecated: moved to ``tcplab.reporting.plots``; this alias goes in the next release."""

from tcplab._moved import alias

alias(__name__)

"""Deprecated: moved to ``tcplab.reporting.report``; this alias goes in the next release."""

from tcplab._moved import alias

alias(__name__)

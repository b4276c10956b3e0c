"""Deprecated: moved to ``tcplab.repro.reproduce``; this alias goes in the next release."""

from tcplab._moved import alias

alias(__name__)

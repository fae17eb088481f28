"""Vancetope Desktop: a local-first knowledge workbench with scoped memory."""

__version__ = "0.1.0"

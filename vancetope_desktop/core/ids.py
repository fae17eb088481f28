"""Identifiers: ``doc_…`` for documents, ``ver_…``/``job_…`` for the rest. Random, URL- and path-safe."""

from __future__ import annotations

import secrets


def new_id(prefix: str) -> str:
    """Return ``f"{prefix}_{12 hex digits}"`` (48 random bits; collisions checked by the primary key)."""
    return f"{prefix}_{secrets.token_hex(6)}"


def new_document_id() -> str:
    """Return a fresh document id such as ``doc_3f2a9c01b7de``."""
    return new_id("doc")

"""Scope value objects returned by the services."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from .scopes import ScopeKind


class ScopeInfo(BaseModel):
    """A scope as the services return it: path, kind, id (key), human name, parent path."""

    model_config = ConfigDict(frozen=True)

    path: str
    kind: ScopeKind
    key: str
    name: str
    parent: str | None
    archived: bool = False
    created_at: datetime


class VisibleScope(BaseModel):
    """A scope seen from an acting scope: its distance up the tree and its search weight."""

    model_config = ConfigDict(frozen=True)

    path: str
    distance: int
    weight: float

"""Scope value objects returned by the services."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from .scopes import ScopeKind


class ScopeInfo(BaseModel):
    """A scope as the services return it: path, kind, id (key), human name, parent path.

    ``agent``: the agent scope that runs this session or think process (``services.scopes.set_agent``), if any.
    """

    model_config = ConfigDict(frozen=True)

    path: str
    kind: ScopeKind
    key: str
    name: str
    parent: str | None
    archived: bool = False
    created_at: datetime
    sibling_results_visible: bool = False
    agent: str | None = None


class VisibleScope(BaseModel):
    """A scope seen from an acting scope: its distance up the tree and its search weight.

    ``results_only``: a sibling think process seen through the sibling-results setting; only its
    documents of type ``result`` are visible. ``via_agent``: the agent scope that runs the acting scope
    (or its session), seen through the ``agent`` setting at its parent's distance (1).
    """

    model_config = ConfigDict(frozen=True)

    path: str
    distance: int
    weight: float
    results_only: bool = False
    via_agent: bool = False

"""Value objects of undo: a user action as it is recorded, and a step that undo or redo would take.

A user action (trash, move, tag, rename, edit) is recorded in the audit trail, one entry per document
it changed, all sharing the action's group id and label (``services.audit.record``);
``services.undo`` inverts and reapplies the latest one of a user.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class UserAction(BaseModel):
    """One undoable thing a person did, as the faces (app, CLI) hand it to the services.

    A service given one records what it changed so that ``services.undo`` can invert it; agents' tool
    calls pass none, so their changes are never undone by a person's Ctrl+Z (they make later undos of
    the documents they touched stale instead).

    Attributes:
        label: what the Edit menu says after "Undo": ``Move 3 documents``, ``Trash “Notes”``.
        actor: ``user:<name>`` (``services.identity.current_user``).
        group: the id shared by the audit entries of this action (a fresh uuid by default).
    """

    model_config = ConfigDict(frozen=True)

    label: str
    actor: str
    group: str = Field(default_factory=lambda: uuid.uuid4().hex)

    @classmethod
    def named(cls, verb: str, titles: Sequence[str], actor: str, *, suffix: str = "") -> UserAction:
        """An action labelled ``<verb> “Title”`` for one document, ``<verb> N documents`` for several.

        Args:
            verb: ``Trash``, ``Move``, ``Tag``…; ``suffix``: appended after a space (``to Project X``).
        """
        what = f"“{titles[0]}”" if len(titles) == 1 else f"{len(titles)} documents"
        return cls(label=" ".join(p for p in (verb, what, suffix) if p), actor=actor)


class UndoStep(BaseModel):
    """A recorded action that :func:`services.undo.undo` (or ``redo``) would take next.

    Attributes:
        group: the action's group id. label: its name (``Move 3 documents``).
        kind: the audit action (``trash``, ``untrash``, ``file``, ``promote``, ``demote``, ``tag``,
            ``rename``, ``edit``, ``supersede``, ``relate``, ``unrelate``, ``status``). documents: how many documents it
            changed. at: when it was done (UTC).
        document_ids: the documents an undo or redo just changed (empty in a listing).
    """

    model_config = ConfigDict(frozen=True)

    group: str
    label: str
    kind: str
    documents: int
    at: datetime
    document_ids: list[str] = Field(default_factory=list)

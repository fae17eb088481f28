"""Arguments and results of the atom tools (issue 13): ``atoms_list``, ``plan_update`` and ``plan_happened``
(run by :class:`.tools.MemoryTools` over ``services.atoms``); ``memory_store`` takes the atom types itself."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.atoms import Atom

AtomTypeName = Literal["fact", "event", "plan"]
WHEN_HELP = ("ISO 8601 (2026-12-05, 2026-12-05T14:30, with an offset if you know it) or a plain phrase "
             "('yesterday at 3pm', 'next Friday').")
"""How a tool's date argument may be written (``services.atoms.parse_moment``)."""
PLAN_STATUS_HELP = ("planned, missed or canceled. A plan is never 'completed': when it happened, call "
                    "plan_happened (an event that updates the plan, which is archived).")


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AtomsListInput(_Input):
    """``atoms_list``: the facts, events and plans you can see."""

    type: AtomTypeName | None = Field(default=None, description="Only atoms of this kind.")
    status: str | None = Field(default=None, description="Only plans in this status: " + PLAN_STATUS_HELP)
    source_id: str | None = Field(default=None, description="Only atoms read from this document (doc_…).")
    due_before: str | None = Field(default=None, description="Only plans due before this moment: " + WHEN_HELP)
    text: str | None = Field(default=None, description="Only atoms whose statement holds this text.")
    scope: str | None = Field(default=None, description="One scope you can see (yours, an ancestor, your agent's): "
                              "its atoms and its ancestors'. Default: yours.")
    include_archived: bool = Field(default=False, description="Also plans that happened and superseded atoms.")
    limit: int = Field(default=50, ge=1, le=500, description="At most this many, newest first.")


class AtomList(BaseModel):
    """What ``atoms_list`` returns: the atoms, newest first."""

    atoms: list[Atom]
    count: int = Field(description="How many are listed here.")


class PlanUpdateInput(_Input):
    """``plan_update``: set one of your plans' status."""

    plan_id: str = Field(description="Your plan (doc_…).")
    status: str = Field(description=PLAN_STATUS_HELP)


class PlanHappenedInput(_Input):
    """``plan_happened``: record that one of your plans happened."""

    plan_id: str = Field(description="Your plan (doc_…).")
    when: str = Field(description="When it happened: " + WHEN_HELP)
    text: str | None = Field(default=None, description="What happened, one sentence. Default: the plan's statement.")


class AtomsExtractInput(_Input):
    """``atoms_extract``: read facts, events and plans from documents of yours."""

    ids: list[str] = Field(min_length=1, max_length=100, description="The documents to read (doc_…): yours, or "
                           "your agent's. Reading one again adds only what is new in it.")


class AtomsFilesSettingInput(_Input):
    """``atoms_files_setting``: whether files imported into your scope get their atoms read at import."""

    enabled: bool | None = Field(default=None, description="true or false sets it for your scope (and the scopes "
                                 "below that do not set it); omitted: only tell it.")
    inherit: bool = Field(default=False, description="Forget your scope's own value: your parent's applies.")

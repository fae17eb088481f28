"""Arguments and results of the relation tools (issue 12): ``memory_relate``, ``memory_relations``,
``memory_neighbourhood``, ``memory_restore`` and the ``relates_to`` of ``memory_store`` (run by
:class:`.tools.MemoryTools` over
``services.graph``, ``services.lifecycle`` and ``services.memory_guard``)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from ..core.errors import UnknownRelationType
from ..core.relations import RELATION_GUIDE, RelationType
from ..services.graph import MAX_DEPTH, Edge, RelatedDocument
from .tool_input import ArgumentErrors, ToolInput

RelationTypeName = Literal["updates", "extends", "supports", "contradicts", "relates_to", "derived_from", "cites"]
"""The relation types a tool may write (``links_to`` follows a note's [[links]])."""



class RelatesTo(ToolInput):
    """The seed's ``relatesTo`` of ``memory_store``: an edge from the new memory to an existing document."""

    target_id: str = Field(description="The document the new memory relates to (doc_…), one you can read.")
    type: RelationTypeName = Field(description=RELATION_GUIDE)


class RelateInput(ToolInput):
    """``memory_relate``: a typed edge from one of your documents to a document you can read."""

    ARGUMENT_ERRORS: ClassVar[ArgumentErrors] = {"type": UnknownRelationType}

    source_id: str = Field(description="Your document (doc_…) the edge starts from.")
    target_id: str = Field(description="The document it relates to (doc_…): yours, an ancestor's or shared.")
    type: RelationTypeName = Field(description=RELATION_GUIDE)


class RelateResult(BaseModel):
    """What ``memory_relate`` did: the edge, whether it is new, and what ``updates`` archived."""

    edge: Edge
    created: bool = Field(description="False when the same edge existed already.")
    archived: list[str] = Field(default_factory=list, description="Documents archived by this updates edge.")


class RelationsInput(ToolInput):
    """``memory_relations``: a document's typed relations, both ways."""

    doc_id: str = Field(description="A document you can read (doc_…).")


class RelationsResult(BaseModel):
    """A document's relations the acting scope may see, grouped by type: ``outgoing[t]`` are what it *t*s
    (it updates, supports…), ``incoming[t]`` what *t*s it (updated by, supported by…)."""

    doc_id: str
    outgoing: dict[RelationType, list[RelatedDocument]] = Field(default_factory=dict)
    incoming: dict[RelationType, list[RelatedDocument]] = Field(default_factory=dict)


class NeighbourhoodInput(ToolInput):
    """``memory_neighbourhood``: the documents around one, a few relations away."""

    doc_id: str = Field(description="A document you can read (doc_…), at the centre.")
    depth: int = Field(default=1, ge=1, le=MAX_DEPTH, description="How many relations away to follow (1: its "
                       "direct relations; 2: theirs too, e.g. what the decision an update replaced cited).")


class RestoreInput(ToolInput):
    """``memory_restore``: bring one of your archived documents back to active."""

    doc_id: str = Field(description="Your archived document (doc_…).")

"""Typed relations between two documents (issue 12): what the edge says, and which types are whose.

An edge goes from a *source* to a *target*: "B ``updates`` A" is the edge (source B, target A). Edges live
in the ``relation`` table (``store.tables.RelationRow``) and are written and read only through
``services.relations``.
"""

from __future__ import annotations

from enum import StrEnum

from .errors import UnknownRelationType


class RelationType(StrEnum):
    """What an edge from a source document to a target document says (the seed's memory relations, plus
    the product's own lineage and links).

    * ``updates``: the source replaces the target; the target is archived ("superseded by") when the edge
      is made (``services.supersede``);
    * ``extends``: the source adds to the target, which stays true;
    * ``supports`` / ``contradicts``: the source agrees / disagrees with the target; ``contradicts``
      between two active documents is a conflict to settle (``services.conflicts``);
    * ``relates_to``: a plain "see also";
    * ``derived_from``: the source (a think process result) was made from the target (seed 000 §7.3); a
      change upstream marks it stale;
    * ``cites``: the source (a paper, a note) cites the target (a reference);
    * ``links_to``: the source note's ``[[…]]`` link resolves to the target (kept by
      ``services.notelinks``: derived from the note's text, never written by hand);
    * ``in_topic``: the source atom belongs to the target topic of a topic tree (issue 14, ``core.topics``;
      kept by the topic services and the digest, moved with ``topics move-atom``, not with ``relate``).
    """

    UPDATES = "updates"
    EXTENDS = "extends"
    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"
    RELATES_TO = "relates_to"
    DERIVED_FROM = "derived_from"
    CITES = "cites"
    LINKS_TO = "links_to"
    IN_TOPIC = "in_topic"


RELATION_GUIDE = ("updates: the source replaces the target, which is archived (out of recall unless asked for); "
                  "extends: adds to it, both stay true; supports / contradicts: agrees / disagrees (a contradiction "
                  "between two active memories shows on both as conflicts_with until the user settles it); "
                  "relates_to: see also; derived_from: made from it; cites: cites it.")
"""How to choose a relation type: one text for the tool descriptions, the CLI help and the app."""

DERIVED_TYPES = frozenset({RelationType.LINKS_TO, RelationType.IN_TOPIC})
DERIVED_HOW = {RelationType.LINKS_TO: "links_to edges follow a note's [[links]]: edit the note's text instead",
               RelationType.IN_TOPIC: "in_topic edges are a topic tree's membership: move the atom with `vancetope "
                                      "topics move-atom` (or drag it in the Topics window) instead"}
"""What to do instead of ``relate``/``unrelate`` for each of :data:`DERIVED_TYPES` (the refusal's message)."""
"""Types the product derives from a document's content (re-resolved on every edit): a person or agent
does not write them with ``relate``, since the next edit of the text would silently undo the change."""

INCOMING_LABELS = {
    RelationType.UPDATES: "updated by",
    RelationType.EXTENDS: "extended by",
    RelationType.SUPPORTS: "supported by",
    RelationType.CONTRADICTS: "contradicted by",
    RelationType.RELATES_TO: "related from",
    RelationType.DERIVED_FROM: "source of",
    RelationType.CITES: "cited by",
    RelationType.LINKS_TO: "linked from",
    RelationType.IN_TOPIC: "topic of",
}
"""How an edge reads from its target's side (Details, the CLI): "A is *updated by* B"."""


def parse_relation_type(value: str) -> RelationType:
    """The :class:`RelationType` named by ``value`` (case and ``-``/``_`` ignored: ``relates-to`` works).

    Raises:
        UnknownRelationType: the message lists the known types.
    """
    key = str(value).strip().lower().replace("-", "_")
    try:
        return RelationType(key)
    except ValueError:
        raise UnknownRelationType(f"unknown relation type {value!r} (use {', '.join(RelationType)})") from None

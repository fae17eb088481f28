"""A stale edit met (issue 17): the two sides of an edit conflict, and their three-way merge for text documents.

An edit carries the version it was made on (``documents.update_document(expected_version=)``); when the document
moved on meanwhile, the save is refused with ``EditConflict`` and the person (the app's conflict dialog, the
CLI's ``memory edit --merge``) settles it from what :func:`conflict_sides` gathers: the stored version (theirs,
with who made it and when), the draft (mine), and the version the draft was made on (the base, kept in
``document_version``), merged where that is clean (``core.merge``). Whatever is chosen is saved against the
stored version's number, so a third change made meanwhile is caught in turn, never overwritten.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..core.documents import TEXT_TYPES, DocumentInfo, VersionInfo
from ..core.errors import InvalidInput, MergeConflicts, NotFound
from ..core.merge import MergeResult, has_conflict_markers, merge_texts
from ..core.undo import UserAction
from . import documents
from .library import Library


@dataclass(frozen=True)
class ConflictSides:
    """What a person sees of a stale edit.

    Attributes:
        theirs: The document as stored now (its ``version``, ``updated_by``, ``updated_at`` and ``content``).
        base: The version the draft was made on; None when it is not kept (then there is no merge).
        mine: The draft's text.
        merged: ``mine`` and ``theirs`` merged from ``base`` (None: no base, or a document whose text is not
            kept, such as a file).
    """

    theirs: DocumentInfo
    base: VersionInfo | None
    mine: str
    merged: MergeResult | None


def side_label(doc: DocumentInfo, name_actor: Callable[[str], str] | None = None) -> str:
    """How the stored side is named to a person: ``version 7 by user:ada, 2026-12-03 02:41 UTC``.

    ``name_actor`` names the writer the way the caller names actors elsewhere (the app: ``Ada Tester (you)``);
    None: the actor string as stored.
    """
    by = f" by {name_actor(doc.updated_by) if name_actor else doc.updated_by}" if doc.updated_by else ""
    return f"version {doc.version}{by}, {doc.updated_at:%Y-%m-%d %H:%M} UTC"


def conflict_sides(lib: Library, document_id: str, base_version: int, mine: str, *,
                   name_actor: Callable[[str], str] | None = None) -> ConflictSides:
    """Gather the sides of an edit of ``document_id`` made on ``base_version`` that the document left since.

    ``name_actor``: how the merge's markers name the other writer (:func:`side_label`).

    Raises:
        DocumentNotFound.
    """
    theirs = documents.get_document(lib, document_id)
    try:
        base = documents.read_version(lib, document_id, base_version)
    except NotFound:  # the current version (not stale after all), or a number the document never had
        base = None
    merged = None
    if base is not None and base.content is not None and theirs.content is not None and theirs.type in TEXT_TYPES:
        merged = merge_texts(base.content, mine, theirs.content, mine_label="your draft",
                             theirs_label=side_label(theirs, name_actor))
    return ConflictSides(theirs, base, mine, merged)


def save_resolution(lib: Library, sides: ConflictSides, text: str, *,
                    user_action: UserAction | None = None) -> DocumentInfo:
    """Save ``text`` (the draft kept, or a merge the person settled) as the version after ``sides.theirs``.

    Raises:
        InvalidInput: ``text`` still holds conflict markers, or is blank. EditConflict: the document changed
        again since ``sides`` were gathered (nothing is written: gather them again).
    """
    if has_conflict_markers(text):
        raise InvalidInput("the text still holds conflict markers (<<<<<<< … >>>>>>>): keep one side of each "
                           "conflict and remove the markers, then save")
    return documents.update_document(lib, sides.theirs.id, content=text, expected_version=sides.theirs.version,
                                     user_action=user_action, reason="merged with a change made meanwhile")


def merge_edit(lib: Library, document_id: str, base_version: int, mine: str, *,
               user_action: UserAction | None = None) -> DocumentInfo:
    """Write ``mine``, an edit made on ``base_version``: as it is when the document is still there, else merged
    three ways with what was stored meanwhile, when that merge is clean (the CLI's ``memory edit --merge``).

    Raises:
        DocumentNotFound. InvalidInput: a document whose text is not kept (a file), blank text.
        MergeConflicts: the merge has conflicts, or the base version is not kept (nothing is written; the
        error holds the merged text and where its conflicts start). EditConflict: another change came in while
        merging (nothing is written).
    """
    sides = conflict_sides(lib, document_id, base_version, mine)
    if sides.theirs.type not in TEXT_TYPES:
        raise InvalidInput(f"the content of a {sides.theirs.type.value} cannot be edited")
    if sides.theirs.version == base_version:
        return documents.update_document(lib, document_id, content=mine, expected_version=base_version,
                                         user_action=user_action)
    merged = sides.merged
    if merged is None:
        raise MergeConflicts(f"“{sides.theirs.title}” is at version {sides.theirs.version} and version "
                             f"{base_version}, the one your text was made on, is not kept: nothing to merge from",
                             expected=base_version, current=sides.theirs.version)
    if not merged.clean:
        lines = [hunk.line for hunk in merged.conflicts]
        raise MergeConflicts(
            f"“{sides.theirs.title}” changed since version {base_version} ({side_label(sides.theirs)}) and the "
            f"three-way merge left {len(lines)} conflict{'s' if len(lines) != 1 else ''}, at line"
            f"{'s' if len(lines) != 1 else ''} {', '.join(map(str, lines))} of the merged text: nothing was written",
            expected=base_version, current=sides.theirs.version, merge=merged)
    return save_resolution(lib, sides, merged.text, user_action=user_action)

"""Annotations on PDFs: highlights of text and notes on pages, kept in the library (the PDF is never
written), listed per document, searchable, exported, and kept across versions of the file.

**The model.** Following the rule that everything is a document in a scope, an annotation is a
document of its own, of type :attr:`DocumentType.ANNOTATION`, in the scope of the PDF it annotates
(in no folder). Its text is what a reader would search for: the quoted passage and the comment; it is
chunked, put in the keyword index at once and embedded like a fact, so search finds it by words and
by meaning with no second system, and the ``--type annotation`` filter finds only annotations. Its
metadata (:data:`ANNOTATES` and the keys of :class:`Annotation`) holds where it is: the PDF's id, the
page, one rectangle per line in PDF points (``services.annotation_pdf``), the quote, the comment,
the colour, and the content hash of the PDF it was made on.

A new type rather than a note with a relation: a note's text is the user's to edit in the note
editor (which would lose the quote and place), and an annotation is listed with its PDF rather than
beside it in the folder lists (``services.documents.CONTENT_TYPES`` leaves it out); a type says both
without a convention on metadata that every list and filter would have to know.

Editing an annotation keeps its previous state as a version, like any document; deleting one moves
it to the trash (restorable). Trashing, restoring or moving its PDF to another scope takes it along
(``services.folders.with_contents``).

**Across versions.** A new version of a PDF (the same file imported again, changed) keeps its
document id, so its annotations stay attached. When the file's content hash differs from the one an
annotation was made on, :func:`list_annotations` finds the quoted words again in the current file
(the original page first): found, the annotation is shown there (``anchor`` ``kept`` or ``moved``);
not found, it is flagged ``lost`` and kept with its text and old place, never dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlmodel import select

from ..core.documents import ANNOTATES, DocumentInfo, DocumentStatus, DocumentType
from ..core.errors import DamagedFile, EncryptedPdf, InvalidInput
from ..store import tables
from ..store.atomic import write_text_atomic
from ..store.db import read_session
from . import annotation_pdf, records
from .documents import add_text, get_document, set_status, update_document
from .library import Library
from .scopes import resolve_scope

DEFAULT_COLOR = "#ffd54f"
"""The highlight colour when none is given: a yellow light enough to read black text through."""
COLORS = {"yellow": DEFAULT_COLOR, "green": "#a5d6a7", "blue": "#90caf9", "pink": "#f48fb1", "orange": "#ffb74d"}
"""Colour names the CLI and the app offer; any ``#rrggbb`` is accepted too."""
NOTE_SIZE = 18.0
"""Side of a page note's square on the page, in points (about the size of a PDF reader's note icon)."""
TITLE_WORDS = 60
"""An annotation's title quotes at most this many characters of its text."""

Kind = Literal["highlight", "note"]
Anchor = Literal["kept", "moved", "lost"]


class Annotation(BaseModel):
    """An annotation as the faces show it.

    ``page`` and ``rects`` are where it is in the PDF's current version (see ``anchor``); ``rects`` are
    ``[x0, y0, x1, y1]`` in PDF points, top-left origin, one per line of a highlight, one square for a note.
    """

    id: str
    document_id: str = Field(description="The annotated PDF document.")
    kind: Kind
    page: int = Field(description="1-based page.")
    rects: list[list[float]]
    quote: str = Field(default="", description="The highlighted text (empty for a page note).")
    comment: str = ""
    color: str = DEFAULT_COLOR
    tags: list[str] = Field(default_factory=list)
    created_at: datetime
    updated_at: datetime
    anchor: Anchor = Field(default="kept", description="'kept': where it was made; 'moved': its text is elsewhere "
                           "in this version of the PDF; 'lost': its text is no longer in the PDF.")
    original_page: int = Field(description="The page it was made on.")
    file_hash: str | None = Field(default=None, description="Content hash of the PDF version it was made on.")


def add_highlight(lib: Library, document_id: str, *, page: int, rects: Sequence[Sequence[float]], quote: str,
                  comment: str = "", color: str = DEFAULT_COLOR, tags: Iterable[str] = ()) -> Annotation:
    """Highlight ``quote`` at ``rects`` on ``page`` of the PDF ``document_id``.

    Args:
        page: 1-based.
        rects: one ``[x0, y0, x1, y1]`` per line, PDF points (``annotation_pdf.select_words`` gives them).
        quote: the text highlighted; must not be blank.
        color: a name of :data:`COLORS` or ``#rrggbb``.

    Raises:
        DocumentNotFound. InvalidInput: not a PDF, no such page, no rectangle, a blank quote, a bad colour.
    """
    if not quote.strip():
        raise InvalidInput("a highlight needs the text it covers")
    return _add(lib, document_id, "highlight", page, rects, quote.strip(), comment, color, tags)


def highlight_text(lib: Library, document_id: str, quote: str, *, page: int | None = None, comment: str = "",
                   color: str = DEFAULT_COLOR, tags: Iterable[str] = ()) -> Annotation:
    """Highlight the first place ``quote`` appears (on ``page`` first, then the pages nearest it): the
    face for those who name the text rather than select it (the CLI, agents).

    Raises:
        DocumentNotFound. InvalidInput: not a PDF, or the text is not in it. DamagedFile, EncryptedPdf.
    """
    doc = _pdf(lib, document_id)
    with annotation_pdf.open_pdf(doc.file_path) as pdf:  # type: ignore[arg-type]
        span = annotation_pdf.find_quote(pdf, quote, page=page)
    if span is None:
        raise InvalidInput(f"{quote!r} is not in {doc.title}" + (f" (looked from page {page})" if page else ""))
    return add_highlight(lib, document_id, page=span.page, rects=span.rects, quote=span.text, comment=comment,
                         color=color, tags=tags)


def add_note(lib: Library, document_id: str, *, page: int, comment: str, position: Sequence[float] | None = None,
             color: str = DEFAULT_COLOR, tags: Iterable[str] = ()) -> Annotation:
    """Put a note on ``page`` (1-based) of the PDF ``document_id``, at ``position`` (``[x, y]`` points from
    the page's top left; default: the top left margin).

    Raises:
        DocumentNotFound. InvalidInput: not a PDF, no such page, a blank comment, a bad colour.
    """
    if not comment.strip():
        raise InvalidInput("the note is empty")
    x, y = position if position is not None else (NOTE_SIZE, NOTE_SIZE)
    return _add(lib, document_id, "note", page, [[x, y, x + NOTE_SIZE, y + NOTE_SIZE]], "", comment, color, tags)


def edit_annotation(lib: Library, annotation_id: str, *, comment: str | None = None,
                    color: str | None = None) -> Annotation:
    """Change an annotation's comment or colour (the previous state is kept as a version).

    Raises:
        DocumentNotFound. InvalidInput: not an annotation, a blank note, a bad colour.
    """
    current = _annotation_doc(lib, annotation_id)
    meta = dict(current.metadata)
    if comment is not None:
        if meta["kind"] == "note" and not comment.strip():
            raise InvalidInput("the note is empty")
        meta["comment"] = comment.strip()
    if color is not None:
        meta["color"] = _color(color)
    pdf = get_document(lib, meta[ANNOTATES])
    changed = update_document(lib, annotation_id, content=_content(meta), title=_title(meta, pdf.title),
                              metadata=meta, reason="annotation edited")
    return _from_document(changed)


def delete_annotation(lib: Library, annotation_id: str) -> None:
    """Move an annotation to the trash (restorable like any document).

    Raises:
        DocumentNotFound. InvalidInput: not an annotation.
    """
    _annotation_doc(lib, annotation_id)
    set_status(lib, annotation_id, DocumentStatus.DELETED)


def get_annotation(lib: Library, annotation_id: str) -> Annotation:
    """One annotation, as stored (not re-anchored). Raises DocumentNotFound, InvalidInput (not an annotation)."""
    return _from_document(_annotation_doc(lib, annotation_id))


def list_annotations(lib: Library, document_id: str, *, acting_scope: str | None = None) -> list[Annotation]:
    """The live annotations of the PDF ``document_id``, in reading order (page, then top to bottom), placed
    on its current version (see the module docstring: ``anchor``).

    Args:
        acting_scope: when given, the PDF must be readable from it.

    Raises:
        DocumentNotFound. ScopeNotVisible.
    """
    pdf = get_document(lib, document_id, acting_scope=acting_scope)
    doc = tables.DocumentRow
    with read_session(lib.engine) as session:
        ids = records.annotations_of(session, [document_id], live_only=True)
        rows = session.exec(select(doc).where(doc.id.in_(ids))).all()  # type: ignore[attr-defined]
        tags = records.tags_by_document(session, ids)
        found = [_from_document(records.to_info(lib, r, tags[r.id])) for r in rows]
    found = _placed(pdf, found)
    return sorted(found, key=lambda a: (a.page, a.rects[0][1] if a.rects else 0.0, a.created_at, a.id))


def _placed(pdf: DocumentInfo, found: list[Annotation]) -> list[Annotation]:
    """``found`` placed on the current version of ``pdf``: those made on another version are looked up."""
    elsewhere = {a.id for a in found if a.file_hash != pdf.content_hash}
    if not elsewhere or not pdf.file_path:
        return found
    try:
        opened = annotation_pdf.open_pdf(pdf.file_path)
    except (DamagedFile, EncryptedPdf, OSError):
        return found  # the file cannot be read now: show them where they were rather than flag them all
    placed, words = [], {}
    with opened:
        for item in found:
            if item.id not in elsewhere:
                placed.append(item)
            elif item.kind == "note":
                fits = item.page <= opened.page_count
                placed.append(item if fits else item.model_copy(update={"anchor": "lost"}))
            else:
                near = item.rects[0][1] if item.rects else None
                span = annotation_pdf.find_quote(opened, item.quote, page=item.page, near=near, cache=words)
                if span is None:
                    placed.append(item.model_copy(update={"anchor": "lost"}))
                else:
                    placed.append(item.model_copy(update={
                        "page": span.page, "rects": span.rects,
                        "anchor": "kept" if span.page == item.original_page else "moved"}))
    return placed


def export_markdown(lib: Library, document_id: str, *, acting_scope: str | None = None) -> str:
    """The annotations of a PDF as Markdown: a heading with the document's title, then per page its
    highlights as quotes (with their comments) and its notes; lost ones are marked so.

    Raises:
        DocumentNotFound. ScopeNotVisible.
    """
    pdf = get_document(lib, document_id, acting_scope=acting_scope)
    items = list_annotations(lib, document_id)
    lines = [f"# Annotations: {pdf.title}", ""]
    source = pdf.metadata.get("original_name") or pdf.title
    lines += [f"{len(items)} annotation{'s' if len(items) != 1 else ''} on {source} ({pdf.id}).", ""]
    page = None
    for item in items:
        if item.page != page:
            page = item.page
            lines += [f"## Page {page}", ""]
        if item.anchor == "lost":
            lines += [f"*Not found in the current version of the file (made on page {item.original_page}).*", ""]
        elif item.anchor == "moved":
            lines += [f"*Moved from page {item.original_page} in an earlier version.*", ""]
        if item.kind == "highlight":
            lines += ["> " + line if line else ">" for line in item.quote.splitlines()]
            lines.append("")
            if item.comment:
                lines += [item.comment, ""]
        else:
            lines += [f"**Note:** {item.comment}", ""]
    return "\n".join(lines).rstrip() + "\n"


def export_pdf(lib: Library, document_id: str, target: str | Path, *, acting_scope: str | None = None) -> int:
    """Write a copy of the PDF with its annotations as the PDF's own highlight and text annotations (what
    other readers show); the stored original is never written. Lost annotations are left out.

    Returns:
        How many annotations the copy holds.

    Raises:
        DocumentNotFound. ScopeNotVisible. InvalidInput: not a PDF, or ``target`` is the original.
        DamagedFile, EncryptedPdf. OSError: ``target`` cannot be written.
    """
    pdf = _pdf(lib, document_id, acting_scope=acting_scope)
    marks = [annotation_pdf.PdfMark(kind=a.kind, page=a.page, rects=a.rects, comment=a.comment, color=a.color)
             for a in list_annotations(lib, document_id) if a.anchor != "lost"]
    return annotation_pdf.write_annotated_copy(pdf.file_path, target, marks)  # type: ignore[arg-type]


def export_to_file(lib: Library, document_id: str, target: str | Path, *, as_pdf: bool | None = None,
                   acting_scope: str | None = None) -> int:
    """Write a PDF's annotations to ``target``: an annotated copy of the PDF (:func:`export_pdf`) when
    ``as_pdf``, else Markdown (:func:`export_markdown`, UTF-8, written whole or not at all). ``as_pdf``
    None: by the file's suffix (``.pdf``: a PDF copy), as ``vancetope export`` chooses. What the CLI and
    the window both call.

    Returns:
        How many annotations were written.

    Raises:
        As :func:`export_pdf` / :func:`export_markdown`; OSError: ``target`` cannot be written.
    """
    target = Path(target)
    if as_pdf if as_pdf is not None else target.suffix.lower() == ".pdf":
        return export_pdf(lib, document_id, target, acting_scope=acting_scope)
    markdown = export_markdown(lib, document_id, acting_scope=acting_scope)
    write_text_atomic(target, markdown)
    return len(list_annotations(lib, document_id))


# -- storage ---------------------------------------------------------------------------------------------


def _add(lib: Library, document_id: str, kind: Kind, page: int, rects: Sequence[Sequence[float]], quote: str,
         comment: str, color: str, tags: Iterable[str]) -> Annotation:
    pdf = _pdf(lib, document_id)
    pages = annotation_pdf.page_count(pdf.file_path)  # type: ignore[arg-type]
    if not 1 <= page <= pages:
        raise InvalidInput(f"page {page} is not in {pdf.title} (it has {pages})")
    boxes = [[float(v) for v in r] for r in rects]
    if not boxes or any(len(b) != 4 or b[0] > b[2] or b[1] > b[3] for b in boxes):
        raise InvalidInput("an annotation needs rectangles [x0, y0, x1, y1] with x0 ≤ x1 and y0 ≤ y1")
    meta: dict[str, Any] = {ANNOTATES: pdf.id, "kind": kind, "page": page, "rects": boxes, "quote": quote,
                            "comment": comment.strip(), "color": _color(color), "file_hash": pdf.content_hash}
    doc = add_text(lib, _content(meta), doc_type=DocumentType.ANNOTATION, title=_title(meta, pdf.title),
                   tags=tags, scope=resolve_scope(lib, pdf.scope), metadata=meta)
    return _from_document(doc)


def _pdf(lib: Library, document_id: str, *, acting_scope: str | None = None) -> DocumentInfo:
    doc = get_document(lib, document_id, acting_scope=acting_scope)
    is_pdf = doc.mime_type == "application/pdf" or (doc.file_path or "").lower().endswith(".pdf")
    if doc.type is not DocumentType.FILE or not is_pdf or not doc.file_path:
        raise InvalidInput(f"{document_id} is not a PDF: only PDFs take annotations")
    return doc


def _annotation_doc(lib: Library, annotation_id: str) -> DocumentInfo:
    doc = get_document(lib, annotation_id)
    if doc.type is not DocumentType.ANNOTATION:
        raise InvalidInput(f"{annotation_id} is not an annotation")
    return doc


def _from_document(doc: DocumentInfo) -> Annotation:
    meta = doc.metadata
    page = int(meta.get("page") or 1)
    return Annotation(id=doc.id, document_id=str(meta.get(ANNOTATES, "")), kind=meta.get("kind", "note"), page=page,
                      rects=meta.get("rects") or [], quote=meta.get("quote") or "", comment=meta.get("comment") or "",
                      color=meta.get("color") or DEFAULT_COLOR, tags=doc.tags, created_at=doc.created_at,
                      updated_at=doc.updated_at, original_page=page,
                      file_hash=meta.get("file_hash"))


def _content(meta: dict[str, Any]) -> str:
    """The searchable text: the quote and the comment."""
    return "\n\n".join(part for part in (meta["quote"], meta["comment"]) if part)


def _title(meta: dict[str, Any], pdf_title: str) -> str:
    words = " ".join((meta["quote"] or meta["comment"]).split())
    if len(words) > TITLE_WORDS:
        words = words[: TITLE_WORDS - 1].rstrip() + "…"
    what = f"“{words}”" if meta["kind"] == "highlight" else f"Note: {words}"
    return f"{what} — {pdf_title}, p. {meta['page']}"


def _color(value: str) -> str:
    named = COLORS.get(value.strip().casefold())
    if named:
        return named
    hex_value = value.strip().lower()
    if len(hex_value) == 7 and hex_value[0] == "#" and all(c in "0123456789abcdef" for c in hex_value[1:]):
        return hex_value
    raise InvalidInput(f"unknown colour {value!r}: use {', '.join(COLORS)} or #rrggbb")

"""Citations out: documents as BibTeX, RIS or CSL-JSON, and formatted in a CSL style (APA, Chicago, Nature, IEEE).

What is exported (:func:`select_documents`): chosen documents (a folder among them brings its contents),
a folder with its subfolders, the hits of a search, or every live document a scope sees. Folders and
bibliography *files* (the ``.bib`` itself: its entries are references and are exported as such) are
left out. So are, as Zotero exports items and not their notes, the documents that are not works
(:data:`WORK_TYPES`: notes, facts, results, annotations) when they come in through a search, a folder or a
whole scope: a search for "sepsis" finds the notes and highlights about the papers, and the bibliography
is of the papers. They are counted (:attr:`Export.left_out`, "7 found, 2 exported; 5 notes and annotations
left out"). A note chosen by itself (its id named, or picked in the list) is still exported, as a ``@misc``
entry: the user asked for it.

How a document becomes an entry (:func:`work_of`): a reference's fields are those its import stored
(``ingest.bibentry.BibEntry.metadata``), a PDF's are its document metadata (title, authors, year,
DOI, journal); a note, fact or result is a ``@misc`` / ``GEN`` / ``document`` entry. A document
without a ``year`` has no date (no BibTeX ``year``, RIS ``PY`` or CSL ``issued``: styles print "n.d."):
the day it was imported or written is not when the work was published.

The citation key is the document's stable key (``services.citation_keys``), assigned on
first export. Each format is written by its library: bibtexparser v2 (with its ``AddEnclosingMiddleware``)
for BibTeX, rispy for RIS, ``json`` for CSL-JSON; each reads back through the library's own importers
(``ingest.bibtex``, ``ingest.bibliography``) to the same fields (tests/services/test_citations.py).

Formatted citations (:func:`cite`) use citeproc-py and the CSL styles shipped in ``data/csl``
(official texts of the citation-style-language/styles repository, CC BY-SA 3.0: see the README there),
unedited. Where citeproc-py reads a style otherwise than citeproc-js (Zotero's processor, against which
the styles are written), :func:`load_style` and :func:`format_works` make up for it in our code:

- ``second-field-align`` (IEEE, Nature): citeproc-js puts the first field (the number) in a block of its
  own; citeproc-py glues it to the authors ("[1]A. Vaswani", "1.Vaswani"). A space is appended to that
  field's suffix, as Zotero does in plain text.
- A condition listing several types (``<if type="article-journal periodical" variable="volume">``, CSL
  1.0.2: Chicago) holds when the item is any of them; citeproc-py wanted all of them at once, so
  Chicago dropped every journal article's volume and issue.
- ``is-numeric`` holds for a range or list of numbers ("5998-6008", "2, 3", "2 & 3": CSL 1.0.2's
  definition); citeproc-py accepted one number only, so Chicago dropped the pages.
- Punctuation doubled across markup ("Phys. Lett.</i>." → "Lett.."): citeproc-py merges a doubled mark at
  a seam only when no tag stands between.
- ``punctuation-in-quote`` (en-US: “Title,” not “Title”,) is not implemented by citeproc-py.
- Page ranges written "5998--6008" (BibTeX) reach it as "5998-6008", which it turns into an en dash.
"""

from __future__ import annotations

import html
import json
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import bibtexparser
import rispy
from bibtexparser import middlewares as mw
from bibtexparser.library import Library as BibLibrary
from bibtexparser.middlewares.names import parse_single_name_into_parts
from bibtexparser.model import Entry, Field
from citeproc import VARIABLES, Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
from citeproc.model import If
from citeproc.source.json import CiteProcJSON
from pydantic import BaseModel
from pydantic import Field as ModelField

from ..core.documents import STRUCTURAL_TYPES, DocumentInfo, DocumentStatus, DocumentType
from ..core.errors import InvalidInput
from ..ingest.bibentry import BibEntry, kind_family, normalize_doi
from ..ingest.bibliography import CSL_TYPES
from ..store.atomic import write_text_atomic
from ..store.db import read_session
from . import citation_keys, records
from . import documents as doc_service
from .citation_keys import is_corporate
from .library import Library
from .search import search

ExportFormat = Literal["bibtex", "ris", "csl-json"]
FORMATS: dict[str, tuple[str, str]] = {"bibtex": (".bib", "BibTeX"), "ris": (".ris", "RIS"),
                                       "csl-json": (".json", "CSL-JSON")}
"""Format → (file suffix, name shown); the app chooses the format from the suffix of the file name."""

STYLES: dict[str, tuple[str, str]] = {
    "apa": ("apa.csl", "APA"),
    "chicago": ("chicago-author-date.csl", "Chicago (author-date)"),
    "nature": ("nature.csl", "Nature"),
    "ieee": ("ieee.csl", "IEEE"),
}
"""Style name → (CSL file in ``data/csl``, name shown)."""

WORK_TYPES = frozenset({DocumentType.FILE, DocumentType.REFERENCE, DocumentType.STRUCTURED})
"""The types that are works (a paper, a reference, a data set), exported from a search, folder or scope; the
others (notes, facts, results, annotations) only when chosen by id."""
SEARCH_EXPORT_LIMIT = 500
"""Hits of a search exported at most (the search service's own cap on one page of results)."""

_BIBTEX_TYPES = frozenset({
    "article", "book", "booklet", "conference", "inbook", "incollection", "inproceedings", "manual",
    "mastersthesis", "misc", "phdthesis", "proceedings", "techreport", "unpublished", "online", "report", "thesis",
    "dataset", "software", "patent", "collection", "mvbook", "mvcollection", "mvproceedings", "periodical",
    "reference", "inreference", "suppbook", "suppcollection"
})
"""BibTeX and biblatex entry types, written as stored when an imported entry has one of them."""
_BIBTEX_BY_FAMILY = {"article": "article", "book": "book", "chapter": "incollection",
                     "conference": "inproceedings", "thesis": "phdthesis", "report": "techreport",
                     "patent": "patent", "dataset": "dataset", "software": "software", "webpage": "online"}
_RIS_BY_FAMILY = {"article": "JOUR", "book": "BOOK", "chapter": "CHAP", "conference": "CPAPER", "thesis": "THES",
                  "report": "RPRT", "patent": "PAT", "dataset": "DATA", "software": "COMP", "webpage": "ELEC"}
_CSL_BY_FAMILY = {"article": "article-journal", "book": "book", "chapter": "chapter",
                  "conference": "paper-conference", "thesis": "thesis", "report": "report", "patent": "patent",
                  "dataset": "dataset", "software": "software", "webpage": "webpage"}
_CSL_EXTRA = {"volume": "volume", "issue": "issue", "pages": "page", "url": "URL", "isbn": "ISBN", "issn": "ISSN",
              "edition": "edition", "series": "collection-title", "language": "language"}
_RIS_EXTRA = {"volume": "volume", "issue": "number", "issn": "issn", "language": "language"}
_LATEX_SPECIAL = str.maketrans({"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "%": r"\%", "$": r"\$",
                                "&": r"\&", "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}"})
_PAGE_DASH = re.compile(r"\s*(?:--|[-–—])\s*")
_TAG = re.compile(r"<[^>]+>")
MAX_FORMATTED = 100
"""Documents formatted in a style at most at once: citeproc-py takes 13 ms (IEEE) to 30 ms (APA) an entry,
more as the list grows (100 entries of the corpus's nanowire library: 1.3 s and 2.9 s on this 2-core
machine), so 100 keep a "Copy citation" to seconds; larger sets are exported as BibTeX, RIS or CSL-JSON."""


class Export(BaseModel):
    """An export: its text and what went into it."""

    format: ExportFormat
    text: str = ModelField(description="The file's content (UTF-8).")
    keys: dict[str, str] = ModelField(default_factory=dict, description="Document id → citation key, in order.")
    skipped: list[str] = ModelField(default_factory=list, description="Ids left out: folders, bibliography files.")
    left_out: list[str] = ModelField(default_factory=list, description="Ids found by the search, folder or scope "
                                     "but left out as not works (notes, facts, results, annotations).")
    same_work: dict[str, str] = ModelField(
        default_factory=dict, description="Ids left out as the same work as an entry written (same DOI or citation "
        "key: a PDF and its reference): id → the id whose entry stands for it.")

    @property
    def count(self) -> int:
        """Entries exported."""
        return len(self.keys)

    def summary(self) -> str:
        """One line for a status bar or the terminal: "7 found, 2 exported; 5 notes and annotations left out"
        (with what else was left out: folders, bibliography files, a work's second document)."""
        found = self.count + len(self.left_out) + len(self.skipped) + len(self.same_work)
        parts = [f"{found} found, {self.count} exported"]
        if self.left_out:
            parts.append(f"{len(self.left_out)} notes and annotations left out")
        if self.skipped:
            parts.append(f"{len(self.skipped)} folders or bibliography files left out")
        if self.same_work:
            parts.append(f"{len(self.same_work)} the same work as another, written once")
        return "; ".join(parts)


class Selection(list[DocumentInfo]):
    """The documents :func:`select_documents` chose (a list, in order), with ``left_out``: those it found
    through a search, folder or scope and left out as not works (kept to be counted in the export's message)."""

    def __init__(self, documents: Sequence[DocumentInfo] = (), left_out: Sequence[DocumentInfo] = ()) -> None:
        super().__init__(documents)
        self.left_out = list(left_out)


class FormattedCitation(BaseModel):
    """Documents formatted in one CSL style, one bibliography entry per document, as text and HTML."""

    style: str
    text: str = ModelField(description="Plain text, one entry per line.")
    html: str = ModelField(description="The same as HTML (italics, bold), one <div> per entry, for rich text.")
    keys: dict[str, str] = ModelField(default_factory=dict)


@dataclass(frozen=True)
class Work:
    """One document as a bibliographic entry: its :class:`BibEntry` (the key its stable citation key)
    and the family of work it is (``article``, ``book``…; None for misc and notes)."""

    entry: BibEntry
    family: str | None


# --- what is exported ----------------------------------------------------------------------------------


def is_citable(doc: DocumentInfo) -> bool:
    """False for folders, topics and bibliography files (their entries are exported as references)."""
    return doc.type not in STRUCTURAL_TYPES and "entry_count" not in doc.metadata


def select_documents(lib: Library, *, ids: Sequence[str] = (), folder_id: str | None = None,
                     query: str | None = None, scope: str | None = None, ids_found: bool = False) -> Selection:
    """The documents an export or a citation covers, in a stable order, without duplicates; those that are
    not works (:data:`WORK_TYPES`) only when chosen by id (the others are the selection's ``left_out``).

    Args:
        ids: these documents (a folder brings its live contents, subfolders included), in this order.
        ids_found: ``ids`` are what a search found (the app's "Export Results…"), not documents chosen one by
            one: those that are not works are left out, as for ``query``.
        folder_id: the live documents of this folder and its subfolders, newest first.
        query: the hits of this search (as the search pane shows them, best first; at most
            :data:`SEARCH_EXPORT_LIMIT`), in ``scope``.
        scope: the acting scope (default: the current one); alone, every live document it sees.

    The three sources add up when several are given. Raises DocumentNotFound, InvalidInput (blank query).
    """
    found: list[DocumentInfo] = []
    picked: set[str] = set()  # chosen by id: exported whatever their type
    with read_session(lib.engine) as session:  # one read for a long selection (a get_document each: 3 s for 500)
        rows = records.document_rows(session, ids)
        tags = records.tags_by_document(session, [r.id for r in rows])
        chosen = [records.to_info(lib, row, tags[row.id]) for row in rows]
    for doc in chosen:
        if doc.type is DocumentType.FOLDER:
            found.extend(doc_service.list_documents(lib, scope=doc.scope, include_ancestors=False, folder_id=doc.id,
                                                    recursive=True, types=doc_service.CONTENT_TYPES))
        else:
            found.append(doc)
            if not ids_found:
                picked.add(doc.id)
    if folder_id is not None:
        folder = doc_service.get_document(lib, folder_id)
        if folder.type is not DocumentType.FOLDER:
            raise InvalidInput(f"{folder_id} is not a folder")
        found.extend(doc_service.list_documents(lib, scope=folder.scope, include_ancestors=False, folder_id=folder_id,
                                                recursive=True, types=doc_service.CONTENT_TYPES))
    if query is not None:
        if not query.strip():
            raise InvalidInput("the query is empty: say what to export")
        response = search(lib, query, scope=scope, statuses=(DocumentStatus.ACTIVE,), limit=SEARCH_EXPORT_LIMIT)
        found.extend(hit.document for hit in response.hits)
    if not ids and folder_id is None and query is None:
        found = doc_service.list_documents(lib, scope=scope, types=doc_service.CONTENT_TYPES)
    unique = {doc.id: doc for doc in found}
    kept = {i for i, d in unique.items() if i in picked or d.type in WORK_TYPES}
    return Selection([d for i, d in unique.items() if i in kept], [d for i, d in unique.items() if i not in kept])


# --- documents as works --------------------------------------------------------------------------------


def work_of(doc: DocumentInfo, key: str) -> Work:
    """``doc`` as a bibliographic entry with citation key ``key`` (see the module docstring)."""
    entry = BibEntry.from_metadata(doc.metadata, title=doc.title)
    kind = entry.kind if doc.type in (DocumentType.REFERENCE, DocumentType.FILE) else None
    authors, editors = (tuple(n for n in names if n.strip()) for names in (entry.authors, entry.editors))
    entry = BibEntry(key=key, kind=kind, title=entry.title, authors=authors, editors=editors, year=entry.year,
                     container=entry.container, publisher=entry.publisher, doi=entry.doi, abstract=entry.abstract,
                     keywords=entry.keywords, extra=entry.extra)
    family = kind_family(kind)
    if family is None and doc.type is DocumentType.FILE and entry.container:
        family = "article"  # a PDF with a journal is a journal article
    return Work(entry, family)


def works(lib: Library, docs: Sequence[DocumentInfo]) -> tuple[list[Work], dict[str, str], list[str]]:
    """The citable ``docs`` as works, one per work (:func:`one_per_work`), with their keys (assigned when
    missing), and the ids left out (not citable, or another's work)."""
    citable, same = one_per_work([d for d in docs if is_citable(d)])
    keys = citation_keys.ensure_keys(lib, [d.id for d in citable])
    return [work_of(d, keys[d.id]) for d in citable], {d.id: keys[d.id] for d in citable}, \
        [d.id for d in docs if not is_citable(d) or d.id in same]


def one_per_work(docs: Sequence[DocumentInfo]) -> tuple[list[DocumentInfo], dict[str, str]]:
    """``docs`` with one document per work: those with the same DOI (``normalize_doi``) or the same stored
    citation key are one work (a PDF and its bibliography entry, not merged yet), written once, at the
    first one's place, from the reference among them if there is one (its fields are the work's record),
    else the first.

    Returns:
        (the documents to write, {id left out: id of the document written for it}).
    """
    parent = {d.id: d.id for d in docs}

    def root(i: str) -> str:
        while parent[i] != i:
            i = parent[i]
        return i

    seen: dict[tuple[str, str], str] = {}
    for doc in docs:
        doi, key = doc.metadata.get("doi"), doc.metadata.get(citation_keys.KEY_FIELD)
        for name, value in (("doi", normalize_doi(str(doi)) if doi else None), ("key", key)):
            if isinstance(value, str) and value:
                first = seen.setdefault((name, value.casefold()), doc.id)
                parent[root(doc.id)] = root(first)
    groups: dict[str, list[DocumentInfo]] = {}
    for doc in docs:
        groups.setdefault(root(doc.id), []).append(doc)
    written, same = [], {}
    for members in groups.values():  # in the order of each group's first document
        chosen = next((d for d in members if d.type is DocumentType.REFERENCE), members[0])
        written.append(chosen)
        same |= {d.id: chosen.id for d in members if d is not chosen}
    return written, same


# --- BibTeX --------------------------------------------------------------------------------------------


def latex_escape(value: str) -> str:
    """Characters LaTeX reads as commands written as text (``50% & more`` → ``50\\% \\& more``); other
    Unicode stays as it is (biber and bibtexparser read UTF-8)."""
    return value.translate(_LATEX_SPECIAL)


def bibtex_name(name: str) -> str:
    """A stored name ("First von Last") as BibTeX writes it: ``von Last, First`` for a person,
    ``{Whole Name}`` for a body (:func:`~.citation_keys.is_corporate`), so a reader keeps it in one piece."""
    if is_corporate(name):
        return "{" + latex_escape(name) + "}"
    parts = parse_single_name_into_parts(name, strict=False)
    last = " ".join([*parts.von, *parts.last])
    given = " ".join(parts.first)
    out = ", ".join(p for p in (last, " ".join(parts.jr), given) if p) if parts.jr else \
        (f"{last}, {given}" if given else last)
    return latex_escape(out)


def bibtex_type(work: Work) -> str:
    """The entry type: an imported BibTeX type as it was, else by the family of work, else ``misc``."""
    kind = (work.entry.kind or "").casefold()
    if kind in _BIBTEX_TYPES:
        return kind
    return _BIBTEX_BY_FAMILY.get(work.family or "", "misc")


def to_bibtex(items: Sequence[Work]) -> str:
    """BibTeX entries written by bibtexparser v2 (values in braces, ``AddEnclosingMiddleware``)."""
    blocks = []
    for work in items:
        e = work.entry
        container_field = {"inproceedings": "booktitle", "incollection": "booktitle", "inbook": "booktitle",
                           "conference": "booktitle"}.get(bibtex_type(work), "journal")
        kind = bibtex_type(work)
        publisher_field = {"phdthesis": "school", "mastersthesis": "school", "thesis": "school",
                           "techreport": "institution", "report": "institution"}.get(kind, "publisher")
        extra = dict(e.extra)
        values: list[tuple[str, str | None]] = [
            ("author", " and ".join(bibtex_name(n) for n in e.authors) or None),
            ("editor", " and ".join(bibtex_name(n) for n in e.editors) or None),
            ("title", latex_escape(e.title) if e.title else None),
            (container_field, latex_escape(e.container) if e.container else None),
            (publisher_field, latex_escape(e.publisher) if e.publisher else None),
            ("year", str(e.year) if e.year else None),
            ("volume", extra.get("volume")), ("number", extra.get("issue")),
            ("pages", extra.get("pages")),  # as stored: "101–110" (UTF-8 en dash) reads back the same
            ("edition", extra.get("edition")), ("series", extra.get("series")),
            ("isbn", extra.get("isbn")), ("issn", extra.get("issn")), ("language", extra.get("language")),
            ("doi", e.doi.replace("%", r"\%") if e.doi else None),
            ("url", extra["url"].replace("%", r"\%") if extra.get("url") else None),
            ("keywords", latex_escape(", ".join(e.keywords)) if e.keywords else None),
            ("abstract", latex_escape(e.abstract) if e.abstract else None),
        ]
        fields = [Field(name, value) for name, value in values if value]
        blocks.append(Entry(kind, e.key or "ref", fields))
    library = BibLibrary(blocks)
    # The default unparse stack, in place: the blocks are ours, so no deep copy of a large export.
    enclose = mw.AddEnclosingMiddleware(reuse_previous_enclosing=False, enclose_integers=True,
                                        default_enclosing="{", allow_inplace_modification=True)
    return bibtexparser.write_string(library, unparse_stack=[enclose])


# --- RIS -----------------------------------------------------------------------------------------------


def ris_name(name: str) -> str:
    """``Last, First`` (RIS's form for a person); a body's name as it is."""
    if is_corporate(name):
        return name
    parts = parse_single_name_into_parts(name, strict=False)
    last = " ".join([*parts.von, *parts.last])
    given = " ".join(parts.first)
    return ", ".join(p for p in (last, given, " ".join(parts.jr)) if p)


def to_ris(items: Sequence[Work]) -> str:
    """RIS records written by rispy (``TY`` from the family of work, ``GEN`` for notes and misc)."""
    records = []
    for work in items:
        e = work.entry
        extra = dict(e.extra)
        record: dict[str, Any] = {"type_of_reference": _RIS_BY_FAMILY.get(work.family or "", "GEN"), "id": e.key}
        if e.title:
            record["title"] = e.title
        if e.authors:
            record["authors"] = [ris_name(n) for n in e.authors]
        if e.editors:
            record["secondary_authors"] = [ris_name(n) for n in e.editors]
        if e.year:
            record["year"] = str(e.year)
        for value, field in ((e.container, "secondary_title"), (e.publisher, "publisher"), (e.doi, "doi"),
                             (e.abstract, "abstract")):
            if value:
                record[field] = value
        if e.keywords:
            record["keywords"] = list(e.keywords)
        for name, field in _RIS_EXTRA.items():
            if extra.get(name):
                record[field] = extra[name]
        if extra.get("pages"):
            first, _, last = _PAGE_DASH.sub("\x00", extra["pages"], count=1).partition("\x00")
            record["start_page"] = first
            if last:
                record["end_page"] = last
        if extra.get("url"):
            record["urls"] = [extra["url"]]
        records.append(record)
    return rispy.dumps(records, implementation=_PlainRisWriter)


class _PlainRisWriter(rispy.RisWriter):
    """rispy's RIS writer without the ``1.``, ``2.``… line it puts before each record (not RIS: Zotero and
    EndNote files start each record at its ``TY`` line)."""

    def set_header(self, count: int) -> str:
        return ""


# --- CSL-JSON ------------------------------------------------------------------------------------------


def csl_name(name: str) -> dict[str, str]:
    """A stored name as a CSL name object: ``{"family", "given", "non-dropping-particle", "suffix"}``
    for a person, ``{"literal": …}`` for a body."""
    if is_corporate(name):
        return {"literal": name}
    parts = parse_single_name_into_parts(name, strict=False)
    found = {"family": " ".join(parts.last), "given": " ".join(parts.first),
             "non-dropping-particle": " ".join(parts.von), "suffix": " ".join(parts.jr)}
    return {k: v for k, v in found.items() if v} or {"literal": name}


def csl_type(work: Work) -> str:
    """The CSL item type: an imported CSL type as it was (unless BibTeX has the name too: BibTeX's
    ``article`` is CSL's ``article-journal``), else by the family of work, else ``document``."""
    kind = (work.entry.kind or "").casefold()
    if kind in CSL_TYPES and kind not in _BIBTEX_TYPES:
        return kind
    return _CSL_BY_FAMILY.get(work.family or "", kind if kind in CSL_TYPES else "document")


def csl_item(work: Work) -> dict[str, Any]:
    """One CSL-JSON item (``id`` and ``citation-key`` are the citation key)."""
    e = work.entry
    item: dict[str, Any] = {"id": e.key, "citation-key": e.key, "type": csl_type(work)}
    if e.title:
        item["title"] = e.title
    if e.authors:
        item["author"] = [csl_name(n) for n in e.authors]
    if e.editors:
        item["editor"] = [csl_name(n) for n in e.editors]
    if e.year:
        item["issued"] = {"date-parts": [[e.year]]}
    for value, field in ((e.container, "container-title"), (e.publisher, "publisher"), (e.doi, "DOI"),
                         (e.abstract, "abstract")):
        if value:
            item[field] = value
    if e.keywords:
        item["keyword"] = ", ".join(e.keywords)
    for name, value in e.extra:
        if name in _CSL_EXTRA:
            item[_CSL_EXTRA[name]] = value
    return item


def to_csl_json(items: Sequence[Work]) -> str:
    """A CSL-JSON array, indented, UTF-8 as is."""
    return json.dumps([csl_item(w) for w in items], ensure_ascii=False, indent=2) + "\n"


_WRITERS = {"bibtex": to_bibtex, "ris": to_ris, "csl-json": to_csl_json}


def export_documents(lib: Library, docs: Sequence[DocumentInfo], fmt: str) -> Export:
    """``docs`` (see :func:`select_documents`: a :class:`Selection` brings what it left out, to be counted)
    in format ``fmt``; keys assigned where missing.

    Raises:
        InvalidInput: an unknown format.
    """
    if fmt not in _WRITERS:
        raise InvalidInput(f"unknown export format {fmt!r} (formats: {', '.join(FORMATS)})")
    items, keys, skipped = works(lib, docs)
    _, same = one_per_work([d for d in docs if is_citable(d)])
    left_out = [d.id for d in docs.left_out] if isinstance(docs, Selection) else []
    return Export(format=fmt, text=_WRITERS[fmt](items) if items else "", keys=keys,
                  skipped=[i for i in skipped if i not in same], same_work=same, left_out=left_out)


def save_export(lib: Library, docs: Sequence[DocumentInfo], path: Path, fmt: str | None = None) -> Export:
    """Export ``docs`` to the file ``path`` in ``fmt`` (default: by the file's suffix, :func:`format_for_path`).

    The text goes to a temporary file beside ``path``, then replaces it: a failed write leaves no half
    file and an existing file as it was.

    Raises:
        InvalidInput: an unknown format or suffix, or the file cannot be written (with the reason).
    """
    result = export_documents(lib, docs, fmt or format_for_path(path.name))
    try:
        write_text_atomic(path, result.text)
    except OSError as error:
        raise InvalidInput(f"cannot write {path}: {error.strerror or error}") from None
    return result


def format_for_path(name: str) -> str:
    """The export format a file name asks for by its suffix (``refs.bib`` → ``bibtex``).

    Raises:
        InvalidInput: a suffix that is not one of :data:`FORMATS`'.
    """
    lowered = name.casefold()
    for fmt, (suffix, _label) in FORMATS.items():
        if lowered.endswith(suffix):
            return fmt
    raise InvalidInput(f"say the format by the file's name: {', '.join(s for s, _ in FORMATS.values())}")


# --- formatted citations -------------------------------------------------------------------------------


@lru_cache(maxsize=len(STYLES))
def load_style(name: str) -> CitationStylesStyle:
    """The shipped CSL style ``name`` (a key of :data:`STYLES`), parsed once per process.

    Raises:
        InvalidInput: an unknown style.
    """
    if name not in STYLES:
        raise InvalidInput(f"unknown citation style {name!r} (styles: {', '.join(STYLES)})")
    path = resources.files(__package__) / "data" / "csl" / STYLES[name][0]
    with resources.as_file(path) as file:
        style = CitationStylesStyle(str(file), validate=False)
    bibliography = style.root.bibliography
    if bibliography is not None and bibliography.get("second-field-align"):
        # The first field's own block in citeproc-js; a space here (see the module docstring).
        first = next((e for e in bibliography.layout if isinstance(e.tag, str)), None)  # not a comment
        if first is not None and not first.get("suffix", "").endswith(" "):
            first.set("suffix", first.get("suffix", "") + " ")
    return style


def _type_is_any(condition: If, item: Any) -> list[bool]:
    """A ``type`` test holds when the item is any of the types listed (CSL 1.0.2, citeproc-js); one result,
    so that ``match="all"`` combines it with the element's other tests (citeproc-py's own ``If._type``
    gives one result per type, and "all" then asks an item to be of every type at once)."""
    return [item.reference.type in condition.get("type").lower().split()]


# citeproc-py has no hook for these; see the module docstring.
If._type = _type_is_any
If.re_numeric = re.compile(r"^[a-z]*\d+[a-z]*(?:\s*(?:-|–|--|,|&)\s*[a-z]*\d+[a-z]*)*$", re.IGNORECASE)

_DOUBLED_ACROSS_TAGS = re.compile(r"([.,;:!?])((?:</[a-z]+>)+)\1")
_QUOTE_THEN_MARK = re.compile(r"”([.,])")
_MARK_BEFORE_MARK = re.compile(r"([.?!])[.,]”")


def _mend(entry: str, punctuation_in_quote: bool) -> str:
    """One entry's HTML with the seams citeproc-py leaves (see the module docstring) mended."""
    entry = _DOUBLED_ACROSS_TAGS.sub(r"\1\2", entry)
    if punctuation_in_quote:
        entry = _MARK_BEFORE_MARK.sub(r"\1”", _QUOTE_THEN_MARK.sub(r"\1”", entry))
    return entry


def _citeproc_item(work: Work) -> dict[str, Any]:
    """A CSL item with only the variables citeproc-py knows (it warns about others, e.g. ``citation-key``), its
    page range with a plain hyphen (it makes an en dash of "-" but leaves BibTeX's "--" as it is)."""
    item = {k: v for k, v in csl_item(work).items() if k in ("id", "type") or k.replace("-", "_") in VARIABLES}
    if isinstance(item.get("page"), str):
        item["page"] = _PAGE_DASH.sub("-", item["page"])
    return item


def format_works(items: Sequence[Work], style: str) -> tuple[str, str]:
    """``items`` formatted as bibliography entries in ``style``: (plain text, HTML), one entry per work in
    the style's order. Raises InvalidInput: an unknown style."""
    csl = load_style(style)
    source_items = [_citeproc_item(w) for w in items]
    with warnings.catch_warnings():
        # citeproc-py warns about styles' CSL 1.0.2 attributes it does not implement; the output stands.
        warnings.simplefilter("ignore")
        bibliography = CitationStylesBibliography(csl, CiteProcJSON(source_items), formatter.html)
        for item in source_items:
            bibliography.register(Citation([CitationItem(item["id"])]))
        in_quote = str(csl.root.bibliography.get_locale_option("punctuation-in-quote")).lower() == "true"
        entries = [_mend(str(entry), in_quote) for entry in bibliography.bibliography()]
    # The text is the HTML without its markup: one citeproc pass instead of two (it is the slow part).
    plain = "\n".join(html.unescape(_TAG.sub("", entry)) for entry in entries)
    return plain, "".join(f"<div class=\"csl-entry\">{entry}</div>" for entry in entries)


def cite(lib: Library, docs: Sequence[DocumentInfo], style: str = "apa") -> FormattedCitation:
    """``docs`` formatted in ``style`` (a key of :data:`STYLES`), keys assigned where missing.

    Raises:
        InvalidInput: an unknown style, or nothing citable among ``docs``.
    """
    load_style(style)  # an unknown style is refused before keys are assigned
    if len(docs) > MAX_FORMATTED:
        raise InvalidInput(f"{len(docs)} documents are too many to format at once (at most {MAX_FORMATTED}): "
                           "export them as BibTeX, RIS or CSL-JSON instead")
    items, keys, _skipped = works(lib, docs)
    if not items:
        raise InvalidInput("nothing to cite: folders and bibliography files are not cited themselves")
    plain, html = format_works(items, style)
    return FormattedCitation(style=style, text=plain, html=html, keys=keys)

"""Bibliographies (BibTeX, RIS incl. Web of Science, CSL-JSON): one :class:`BibEntry` per entry.

A bibliography file is not one document: ``services.bibliography`` turns each entry into its own
reference document, and the file itself is kept as a file document holding the original (no chunks:
its entries are indexed once, as themselves). This module only reads: it never touches the library.

BibTeX goes through bibtexparser v2 and its middlewares: ``SeparateCoAuthors`` / ``SplitNameParts``
/ ``MergeNameParts`` for names (a braced corporate author such as ``{National Research Council
Committee on Science, Technology, and Law}`` stays one author) and ``LatexDecodingMiddleware`` for
LaTeX (``{\\"u}`` → ``ü``, ``$\\alpha$`` → ``α``). One middleware of ours, :class:`PrepareFields`,
does what the library has no middleware for: it merges repeated ``keywords`` fields, keeps the
entries bibtexparser sets aside for a duplicated key or field, and parses ``file`` fields before
LaTeX decoding could mangle their paths.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import bibtexparser
import rispy
from bibtexparser import middlewares as mw
from bibtexparser.library import Library
from bibtexparser.middlewares.names import InvalidNameError, NameParts, parse_single_name_into_parts
from bibtexparser.model import (
    Block,
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    Field,
    MiddlewareErrorBlock,
)
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

from ..core.documents import DocumentType
from .base import ChunkDraft, Extraction
from .normalize import normalize_text
from .structured import parse_json

MAX_AUTHORS_SHOWN = 12
"""Authors written into a chunk; long consortium lists add "et al." (they would drown the title)."""

BIBTEX_MIME = "application/x-bibtex"
RIS_MIME = "application/x-research-info-systems"
CSL_JSON_MIME = "application/vnd.citationstyles.csl+json"

# CSL 1.0.2 item types (https://docs.citationstyles.org/en/stable/specification.html#appendix-iii-types).
CSL_TYPES = frozenset(
    {
        "article",
        "article-journal",
        "article-magazine",
        "article-newspaper",
        "bill",
        "book",
        "broadcast",
        "chapter",
        "classic",
        "collection",
        "dataset",
        "document",
        "entry",
        "entry-dictionary",
        "entry-encyclopedia",
        "event",
        "figure",
        "graphic",
        "hearing",
        "interview",
        "legal_case",
        "legislation",
        "manuscript",
        "map",
        "motion_picture",
        "musical_score",
        "pamphlet",
        "paper-conference",
        "patent",
        "performance",
        "periodical",
        "personal_communication",
        "post",
        "post-weblog",
        "regulation",
        "report",
        "review",
        "review-book",
        "software",
        "song",
        "speech",
        "standard",
        "thesis",
        "treaty",
        "webpage",
    }
)
EXTRA_FIELDS = ("volume", "issue", "pages", "url", "isbn", "issn", "edition", "series", "language")
"""Bibliographic fields kept in a reference's metadata besides title, authors, year, DOI, container,
publisher, abstract and keywords (what Zotero shows in its item pane for articles and books)."""

_WOS_START = re.compile(r"\A\s*(FN|VR|PT) ", re.MULTILINE)
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_DOI = re.compile(r"10\.\d{4,9}/\S+", re.IGNORECASE)
_SHORT_DOI = re.compile(r"\A10/[a-z0-9]+\Z", re.IGNORECASE)
_KEYWORD_FIELDS = ("keywords", "keyword", "mendeley-tags")
_CONTAINER_KINDS = frozenset({"book", "proceedings", "collection", "mvbook", "mvproceedings", "mvcollection",
                              "periodical", "journal"})
_FILE_FIELDS = ("file", "pdf")
# Characters that make a value worth handing to the LaTeX decoder; others pass unchanged (the decoder
# costs ~0.4 ms a value: 4 s for the 506-entry nanowire library if every value went through it).
_LATEX_CHARS = re.compile(r"[\\{}$~%]")


@dataclass(frozen=True)
class BibEntry:
    """One bibliography entry, cleaned: LaTeX decoded, names as "First von Last Jr".

    Attributes:
        key: citation key (BibTeX key, RIS ``ID``, CSL ``id`` / ``citation-key``), None when absent.
        kind: entry type as the file names it (``article``, ``JOUR``, ``article-journal``…).
        authors: people and bodies in order; editors stand in when an entry has no author.
        editors: editors when the entry also has authors.
        year: four-digit year of publication, None when the entry gives none.
        container: the journal, proceedings or book the entry is part of.
        doi: lowercase bare DOI (``10.1021/bi049798f``), without ``https://doi.org/``.
        keywords: keywords as written, repeated fields merged, split on ``,`` and ``;``.
        files: attachment paths as the file names them (absolute or relative to the bibliography).
        extra: other fields of :data:`EXTRA_FIELDS` the entry has.
    """

    key: str | None
    kind: str | None
    title: str | None = None
    authors: tuple[str, ...] = ()
    editors: tuple[str, ...] = ()
    year: int | None = None
    container: str | None = None
    publisher: str | None = None
    doi: str | None = None
    abstract: str | None = None
    keywords: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    extra: tuple[tuple[str, str], ...] = ()

    def text(self) -> str:
        """The chunk and content text: "Title. Authors. Year. Container. doi:…" then the abstract, normalised."""
        authors = ", ".join(self.authors[:MAX_AUTHORS_SHOWN])
        if len(self.authors) > MAX_AUTHORS_SHOWN:
            authors += " et al"
        doi = f"doi:{self.doi}" if self.doi else None
        year = str(self.year) if self.year else None
        head = [p.strip().rstrip(".") for p in (self.title, authors, year, self.container or self.publisher, doi) if p]
        parts = [". ".join(p for p in head if p) + "." if head else "", self.abstract or ""]
        return normalize_text("\n\n".join(p for p in parts if p))

    def metadata(self) -> dict[str, Any]:
        """The reference document's metadata: ``authors`` (list), ``year`` (int), ``doi``, ``journal``
        (the container), ``publisher``, ``abstract``, ``keywords`` (list), ``editors``, ``entry_type``,
        ``citation_key`` and the :data:`EXTRA_FIELDS` present; empty values are left out."""
        values: dict[str, Any] = {
            "authors": list(self.authors), "year": self.year, "doi": self.doi, "journal": self.container,
            "publisher": self.publisher, "abstract": self.abstract, "keywords": list(self.keywords),
            "editors": list(self.editors), "entry_type": self.kind, "citation_key": self.key, **dict(self.extra),
        }
        return {k: v for k, v in values.items() if v not in (None, "", [])}

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any], *, title: str | None) -> BibEntry:
        """The entry a reference document's metadata and title describe (the inverse of :meth:`metadata`)."""

        def text(key: str) -> str | None:
            value = metadata.get(key)
            return str(value) if value not in (None, "") else None

        def names(key: str) -> tuple[str, ...]:
            value = metadata.get(key) or []
            return tuple(str(v) for v in value) if isinstance(value, list) else (str(value),)

        year = metadata.get("year")
        return cls(
            key=text("citation_key"), kind=text("entry_type"), title=title, authors=names("authors"),
            editors=names("editors"), year=year if isinstance(year, int) else _year(year), container=text("journal"),
            publisher=text("publisher"), doi=text("doi"), abstract=text("abstract"), keywords=names("keywords"),
            extra=tuple((k, t) for k in EXTRA_FIELDS if (t := text(k))),
        )


@dataclass
class Bibliography:
    """What a bibliography file holds: its entries in file order, its MIME type, and parse warnings."""

    entries: list[BibEntry]
    mime_type: str
    warnings: list[str] = field(default_factory=list)


# --- identity -------------------------------------------------------------------------------------------


def normalize_doi(value: str | None) -> str | None:
    """A DOI as compared and stored: bare, lowercase (DOIs are case-insensitive), no trailing dot.

    ``https://doi.org/10.1021/BI049798F`` and ``doi:10.1021/bi049798f`` → ``10.1021/bi049798f``;
    a shortDOI (``10/fqd6hj``) is kept as it is; a value holding no DOI gives None.
    """
    if not value:
        return None
    text = value.strip()
    if _SHORT_DOI.match(text):
        return text.lower()
    match = _DOI.search(text)
    return match.group(0).rstrip(".,;").lower() if match else None


def title_key(title: str | None) -> str | None:
    """A title as compared for duplicates: accents, case, punctuation and spacing ignored.

    ``"Über {GaN}: a Study."`` and ``"uber GaN - A study"`` both give ``"uber gan a study"``; None
    for a title without letters or digits.
    """
    if not title:
        return None
    decomposed = unicodedata.normalize("NFKD", title)
    plain = "".join(ch if ch.isalnum() else " " for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(plain.casefold().split()) or None


_KIND_FAMILIES = {
    "article": ("article", "article-journal", "article-magazine", "article-newspaper", "jour", "mgzn", "news",
                "ejour", "magazine_article", "newspaper_article", "j"),
    "book": ("book", "mvbook", "booklet", "ebook", "edbook"),
    "chapter": ("incollection", "inbook", "chapter", "chap", "book_section", "bookinbook"),
    "conference": ("inproceedings", "conference", "paper-conference", "conf", "cpaper", "proceedings"),
    "thesis": ("thesis", "phdthesis", "mastersthesis", "thes"),
    "report": ("techreport", "report", "rprt"),
    "patent": ("patent", "pat"),
    "dataset": ("dataset", "data"),
    "software": ("software", "comp"),
    "webpage": ("webpage", "online", "web_page", "elec", "post", "post-weblog"),
}
"""Entry types of BibTeX, biblatex, RIS, WoS (``PT``) and CSL that name the same kind of work; types
not listed (``misc``, ``generic``, ``GEN``…) say nothing and match any kind."""
_FAMILY = {kind: family for family, kinds in _KIND_FAMILIES.items() for kind in kinds}


def kind_family(kind: str | None) -> str | None:
    """The kind of work an entry type names (``"JOUR"`` and ``"article-journal"`` → ``"article"``), None
    when the type says nothing (``misc``)."""
    return _FAMILY.get((kind or "").strip().casefold())


def surname_keys(authors: Iterable[str]) -> frozenset[str]:
    """The last word of each name, compared like titles: ``("Jérôme Müller", "Smith, Jane")`` →
    ``{"muller", "jane"}``. Names are stored "First Last", so the last word is the surname; it is a
    loose key for telling two works with one title apart, never for telling people apart."""
    keys = (title_key(name) for name in authors)
    return frozenset(key.split()[-1] for key in keys if key)


def split_keywords(values: Iterable[str]) -> tuple[str, ...]:
    """Keywords from one or more field values, split on ``,`` and ``;``, stripped, first-seen order kept."""
    found: dict[str, None] = {}
    for value in values:
        for part in re.split(r"[,;]", value):
            part = " ".join(part.split())
            if part:
                found.setdefault(part, None)
    return tuple(found)


def _year(value: Any) -> int | None:
    match = _YEAR.search(str(value)) if value else None
    return int(match.group(1)) if match else None


# --- attachments ----------------------------------------------------------------------------------------


def parse_file_field(value: str) -> tuple[str, ...]:
    """Paths named by a BibTeX ``file`` field, in the forms reference managers write.

    * Zotero / Better BibTeX: ``Full Text PDF:files/12/paper.pdf:application/pdf`` (``;`` between files);
    * JabRef: ``:paper.pdf:PDF``, with ``\\:`` and ``\\\\`` escaping colons and backslashes;
    * Mendeley: ``:C$\\backslash$:/Users/me/paper.pdf:pdf``, underscores as ``{\\_}``;
    * a bare path: ``paper.pdf``.

    Returns:
        The paths as written (not resolved), without empty ones.
    """
    value = value.replace("$\\backslash$", "\\")
    value = re.sub(r"\{\\([_&%#$])\}", r"\1", value).replace("{\\~{}}", "~")
    paths: list[str] = []
    for spec in _split_escaped(value, ";"):
        parts = _split_escaped(spec, ":")
        if len(parts) >= 3:
            path = ":".join(parts[1:-1]) if len(parts) > 3 else parts[1]
        elif len(parts) == 2:
            # "C:/x.pdf" written without escaping is a drive letter, not a description.
            path = ":".join(parts) if len(parts[0]) == 1 and parts[0].isalpha() else parts[1]
        else:
            path = parts[0] if parts else ""
        path = _unescape(path).strip()
        if path:
            paths.append(path)
    return tuple(paths)


def _split_escaped(text: str, separator: str) -> list[str]:
    """Split on ``separator`` where it is not escaped by a backslash; escapes are kept for :func:`_unescape`."""
    parts, current, index = [], [], 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            current.append(text[index : index + 2])
            index += 2
            continue
        if char == separator:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    parts.append("".join(current))
    return parts


def _unescape(text: str) -> str:
    r"""``\:`` → ``:``, ``\\`` → ``\``, ``\;`` → ``;``, LaTeX's ``\_`` → ``_`` (and ``\&``, ``\%``,
    ``\#``, ``\$``); other backslashes (Windows paths) stay."""
    return re.sub(r"\\([\\:;_&%#$])", r"\1", text)


# --- BibTeX ---------------------------------------------------------------------------------------------


class PrepareFields(mw.BlockMiddleware):
    """Our middleware, after the enclosing braces are removed, for what bibtexparser has none for.

    * Repeated fields, compared without case: ``keywords``-like fields are joined with ``;``;
      ``file`` fields are joined; of other fields the first is kept (as BibTeX itself does).
      (bibtexparser's ``NormalizeFieldKeys``, which runs next, would keep the last one only.)
    * ``file`` / ``pdf`` values become a tuple of paths (:func:`parse_file_field`), which the LaTeX
      decoder leaves alone: ``\\:`` in a JabRef path is an escaped colon, not LaTeX.
    """

    def __init__(self) -> None:
        super().__init__(allow_inplace_modification=True, allow_parallel_execution=True)

    def transform_entry(self, entry: Entry, library: Library) -> Entry:
        """Merge repeated fields and parse attachment fields (see the class docstring)."""
        merged: dict[str, Field] = {}
        for item in entry.fields:
            key = item.key.lower()
            if key in _FILE_FIELDS:
                item.value = parse_file_field(str(item.value))
            if key not in merged:
                merged[key] = item
            elif key in _KEYWORD_FIELDS:
                merged[key].value = f"{merged[key].value}; {item.value}"
            elif key in _FILE_FIELDS:
                merged[key].value = (*merged[key].value, *item.value)
        entry.fields = list(merged.values())
        return entry


class LenientNameParts(mw.SplitNameParts):
    """``SplitNameParts`` in bibtexparser's non-strict mode, after undoing a common slip: names
    separated by commas instead of ``and``. A name ending in a comma (``M. Halle, J. Bresnan,``) or
    with four or more comma-separated parts (``Miller, D., Firby, J.``) is such a list (both occur
    in the 1,000-entry AI library); other odd names are worked around by bibtexparser, not lost."""

    def _transform_field_value(self, name: list[str]) -> list[NameParts]:
        if not isinstance(name, list):
            raise InvalidNameError(str(name), "expected a list of names")
        return [parse_single_name_into_parts(n, strict=False) for whole in name for n in _comma_list(whole)]


def _comma_list(name: str) -> list[str]:
    parts = [p.strip() for p in name.strip().rstrip(",").split(",")]
    if len(parts) >= 4:
        return [", ".join(parts[i : i + 2]) for i in range(0, len(parts), 2)]
    if name.strip().endswith(",") and len(parts) > 1 and all(len(p.split()) > 1 for p in parts):
        return parts
    return [name]


class _PlainFastDecoder(LatexNodes2Text):
    """pylatexenc's decoder, skipping values without any LaTeX character (the common case)."""

    def latex_to_text(self, latex: str, **parse_flags: Any) -> str:
        if not _LATEX_CHARS.search(latex):
            return latex
        return super().latex_to_text(latex, **parse_flags)


@lru_cache(maxsize=1)
def _decoder() -> LatexNodes2Text:
    """The decoder ``LatexDecodingMiddleware`` builds by default (``\\url`` kept as its text), with math
    turned into text (``$\\alpha$`` → ``α``) and the plain-value shortcut."""
    context = get_default_latex_context_db()
    url = MacroTextSpec("url", simplify_repl="%s")
    context.add_context_category("bibtexparser-default", prepend=True, macros=[url])
    return _PlainFastDecoder(latex_context=context, math_mode="text")


def _parse_stack() -> list[mw.Middleware]:
    return [
        mw.ResolveStringReferencesMiddleware(),
        mw.RemoveEnclosingMiddleware(),
        PrepareFields(),
        mw.NormalizeFieldKeys(),
        mw.SeparateCoAuthors(),
        LenientNameParts(),
        mw.MergeNameParts(style="first"),
        mw.LatexDecodingMiddleware(decoder=_decoder()),
    ]


def latex_to_unicode(value: str) -> str:
    """``{\\"u}`` → ``ü``, ``{{GaN}}`` → ``GaN``, ``$\\alpha$`` → ``α``, with the decoder the BibTeX
    parse stack uses; a value the decoder cannot read comes back without its braces."""
    try:
        return _decoder().latex_to_text(value)
    except Exception:  # pylatexenc raises assorted errors on malformed LaTeX; keep the raw value
        return value.replace("{", "").replace("}", "")


def _bibtex_entries(text: str) -> tuple[list[Entry], list[str]]:
    stack = _parse_stack()
    library = bibtexparser.parse_string(text, parse_stack=stack)
    entries = list(library.entries)
    warnings = []
    for block in library.failed_blocks:
        inner = block.ignore_error_block
        if isinstance(block, DuplicateFieldKeyBlock | DuplicateBlockKeyBlock) and isinstance(inner, Entry):
            # Set aside by the splitter, so untouched by the stack: a key a user kept twice still names
            # two entries (the duplicate check merges them if they are one), a field given twice is merged.
            block = _through(stack, inner, library)
            inner = block.ignore_error_block if isinstance(block, MiddlewareErrorBlock) else block
        if isinstance(block, MiddlewareErrorBlock) and isinstance(inner, Entry):
            entries.append(inner)  # a field LaTeX could not decode is kept as written
            warnings.append(f"entry {inner.key}: some LaTeX could not be decoded ({block.error})")
        elif isinstance(inner, Entry) and block is inner:
            entries.append(inner)
        else:
            warnings.append(f"a BibTeX block near line {block.start_line + 1} could not be parsed")
    entries.sort(key=lambda e: e.start_line or 0)  # set-aside entries back in their place: file order
    return entries, warnings


def _through(stack: list[mw.Middleware], entry: Entry, library: Library) -> Block:
    """``entry`` through the whole stack, in a library of its own holding the file's ``@string``s."""
    alone = Library(blocks=[*library.strings, entry], fail_on_duplicate_key=False)
    for middleware in stack:
        alone = middleware.transform(alone)
    blocks = [*alone.entries, *alone.failed_blocks]
    return blocks[0] if blocks else MiddlewareErrorBlock(entry, ValueError("the entry was dropped"))


def _names(value: Any) -> tuple[str, ...]:
    """A name field after the stack: a list of merged names ("others", BibTeX's et al., dropped); name
    parts left unmerged by an entry whose LaTeX failed are merged here."""
    items = value if isinstance(value, list) else [value] if value else []
    merged = (v.merge_first_name_first if isinstance(v, NameParts) else str(v) for v in items)
    # LatexDecodingMiddleware leaves lists alone, so names are decoded here, one at a time: decoding
    # the whole field first would drop the braces that keep a corporate author in one piece.
    names = (" ".join(latex_to_unicode(m).split()) for m in merged)
    return tuple(n for n in names if n and n.casefold() != "others")


def _from_bibtex(entry: Entry) -> BibEntry:
    values = {f.key: f.value for f in entry.fields}

    def text(*keys: str) -> str | None:
        for key in keys:
            value = values.get(key)
            if isinstance(value, str) and value.strip():
                return " ".join(value.split())
        return None

    authors, editors = _names(values.get("author")), _names(values.get("editor"))
    files = [p for key in _FILE_FIELDS if isinstance(values.get(key), tuple) for p in values[key]]
    extra = {name: text(*(("number", "issue") if name == "issue" else (name,))) for name in EXTRA_FIELDS}
    return BibEntry(
        key=entry.key or None,
        kind=entry.entry_type.lower(),
        title=text("title"),
        authors=authors or editors,
        editors=editors if authors else (),
        year=_year(text("year") or text("date")),
        container=text("journal", "journaltitle", "booktitle"),
        publisher=text("publisher", "school", "institution", "organization"),
        doi=normalize_doi(text("doi")),
        abstract=(values.get("abstract") or "").strip() or None,
        keywords=split_keywords(str(values[k]) for k in _KEYWORD_FIELDS if values.get(k)),
        files=tuple(files),
        extra=tuple((k, v) for k, v in extra.items() if v),
    )


def _inherit(child: BibEntry, parent: BibEntry | None) -> BibEntry:
    """BibTeX's ``crossref``: fields the entry lacks come from the entry it names. A book or proceedings
    parent gives its title as the container, not as the entry's title."""
    if parent is None:
        return child
    container_parent = (parent.kind or "") in _CONTAINER_KINDS
    taken = {name: getattr(parent, name) for name in ("authors", "editors", "year", "publisher", "doi", "abstract",
                                                      "keywords", "extra", "title", "container")
             if not getattr(child, name) and getattr(parent, name)}
    if container_parent:
        for name in ("title", "doi", "abstract", "authors", "editors"):  # the volume's, not the paper's
            taken.pop(name, None)
        if not child.container and parent.title:
            taken["container"] = parent.title
        volume_names = parent.editors or parent.authors  # editors stand in as authors when alone
        slot = "editors" if child.authors else "authors"
        if volume_names and not getattr(child, slot):
            taken[slot] = volume_names
    return replace(child, **taken)


def parse_bibtex(text: str) -> Bibliography:
    """BibTeX (brace- or parenthesis-delimited entries) via bibtexparser v2 and its middlewares.

    Entries whose key or a field is duplicated are kept (bibtexparser sets them aside as failed
    blocks); truly unparsable blocks become warnings. A ``crossref`` to an entry of the same file
    fills the fields the entry lacks (:func:`_inherit`); one to an entry not in the file is ignored.
    """
    entries, warnings = _bibtex_entries(text)
    read = [(_from_bibtex(e), str(e.fields_dict["crossref"].value) if "crossref" in e.fields_dict else None)
            for e in entries]
    by_key = {entry.key.casefold(): entry for entry, _ in read if entry.key}
    resolved = [_inherit(entry, by_key.get(ref.strip().casefold())) if ref else entry for entry, ref in read]
    return Bibliography(resolved, BIBTEX_MIME, warnings)


# --- RIS ------------------------------------------------------------------------------------------------


def _first(record: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        value = record.get(key)
        if value:
            return value
    return None


def _as_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, list):
        return " ".join(str(v) for v in value) or None
    return " ".join(str(value).split()) or None


def _as_list(value: Any) -> list[str]:
    if not value:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _person_name(name: str) -> str:
    """RIS "Last, First" / "Last, First, Suffix" → "First Last Suffix" (bibtexparser's name rules)."""
    parts = parse_single_name_into_parts(name, strict=False)
    return " ".join(parts.merge_first_name_first.split()) or name.strip()


def _from_ris(record: dict[str, Any], index: int) -> BibEntry:
    authors = _as_list(_first(record, "authors", "first_authors", "author_full_name"))
    editors = _as_list(_first(record, "secondary_authors", "editor"))
    pages = "–".join(p for p in (_as_text(record.get("start_page") or record.get("beginning_page")),
                                 _as_text(record.get("end_page") or record.get("ending_page"))) if p)
    urls = _as_list(record.get("urls"))
    extra = {"volume": _as_text(record.get("volume")), "issue": _as_text(_first(record, "number", "issue")),
             "pages": pages or None, "url": urls[0] if urls else None, "issn": _as_text(record.get("issn")),
             "language": _as_text(record.get("language"))}
    keywords = [*_as_list(record.get("keywords")), *_as_list(record.get("author_keywords")),
                *_as_list(record.get("keywords_plus"))]
    return BibEntry(
        key=_as_text(_first(record, "id", "accession_number")) or f"entry {index + 1}",
        kind=_as_text(_first(record, "type_of_reference", "publication_type")),
        title=_as_text(_first(record, "title", "primary_title", "document_title", "translated_title")),
        authors=tuple(_person_name(a) for a in (authors or editors)),
        editors=tuple(_person_name(a) for a in editors) if authors else (),
        year=_year(_first(record, "year", "publication_year", "date")),
        container=_as_text(_first(record, "secondary_title", "journal_name", "publication_name", "alternate_title3",
                                  "alternate_title1", "alternate_title2")),
        publisher=_as_text(record.get("publisher")),
        doi=normalize_doi(_as_text(_first(record, "doi"))),
        abstract=_as_text(_first(record, "abstract", "notes_abstract")),
        keywords=split_keywords(keywords),
        # L1 is the file attachment (L2 a URL to full text, L4 a figure / local file in EndNote).
        files=tuple(p for key in ("file_attachments1", "figure") for v in _as_list(record.get(key))
                    for p in v.split(";") if p.strip()),
        extra=tuple((k, v) for k, v in extra.items() if v),
    )


def parse_ris(text: str) -> Bibliography:
    """RIS via rispy; Web of Science exports (starting with ``FN``/``VR``/``PT`` tags) use its WoS parser."""
    warnings: list[str] = []
    parser = rispy.WokParser if _WOS_START.match(text) else rispy.RisParser
    try:
        records = rispy.loads(text, implementation=parser)
    except (ValueError, KeyError, IndexError) as exc:
        records = []
        warnings.append(f"the RIS file could not be parsed: {exc}")
    return Bibliography([_from_ris(r, i) for i, r in enumerate(records)], RIS_MIME, warnings)


# --- CSL-JSON -------------------------------------------------------------------------------------------


def _csl_name(person: Any) -> str | None:
    if not isinstance(person, dict):
        return str(person) if person else None
    if person.get("literal"):
        return str(person["literal"])
    keys = ("given", "dropping-particle", "non-dropping-particle", "family", "suffix")
    name = " ".join(str(person[k]) for k in keys if person.get(k))
    return name or None


def _csl_year(issued: Any) -> int | None:
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return _year(parts[0][0])
        return _year(issued.get("raw") or issued.get("literal"))
    return _year(issued)


def _csl_doi(item: dict[str, Any]) -> str | None:
    """The item's DOI; a shortDOI (``10/fqd6hj``, Better CSL JSON) gives way to the full DOI in its URL."""
    doi = normalize_doi(_as_text(item.get("DOI")))
    from_url = normalize_doi(_as_text(item.get("URL")))
    if (doi is None or _SHORT_DOI.match(doi)) and from_url and not _SHORT_DOI.match(from_url):
        return from_url
    return doi


def _from_csl(item: dict[str, Any], index: int) -> BibEntry:
    def people(key: str) -> tuple[str, ...]:
        value = item.get(key)
        return tuple(n for n in map(_csl_name, value if isinstance(value, list) else []) if n)

    authors, editors = people("author"), people("editor")
    extra = {"volume": item.get("volume"), "issue": item.get("issue"), "pages": item.get("page"),
             "url": item.get("URL"), "isbn": item.get("ISBN"), "issn": item.get("ISSN"),
             "edition": item.get("edition"), "series": item.get("collection-title"),
             "language": item.get("language")}
    # CSL-JSON has no attachment variable; a "file" key (some exporters add one) is read like BibTeX's.
    files = parse_file_field(item["file"]) if isinstance(item.get("file"), str) else ()
    return BibEntry(
        key=_as_text(item.get("citation-key") or item.get("id")) or f"entry {index + 1}",
        kind=_as_text(item.get("type")),
        title=_as_text(item.get("title")),
        authors=authors or editors,
        editors=editors if authors else (),
        year=_csl_year(item.get("issued")),
        container=_as_text(item.get("container-title")),
        publisher=_as_text(item.get("publisher")),
        doi=_csl_doi(item),
        abstract=_as_text(item.get("abstract")),
        keywords=split_keywords(_as_list(item.get("keyword"))),
        files=files,
        extra=tuple((k, t) for k, v in extra.items() if (t := _as_text(v))),
    )


def is_csl_json(data: Any) -> bool:
    """True when parsed JSON is a CSL-JSON item list: a non-empty list whose first items (up to 50)
    are mostly mappings with a CSL ``type`` and a title, author or issued date."""
    if not isinstance(data, list) or not data:
        return False
    sample = data[:50]
    good = sum(
        1
        for item in sample
        if isinstance(item, dict)
        and item.get("type") in CSL_TYPES
        and any(k in item for k in ("title", "author", "issued"))
    )
    return good >= 0.8 * len(sample)


def parse_csl_json(data: list[Any]) -> Bibliography:
    """CSL-JSON items (Zotero / Better BibTeX export), already parsed; non-mapping items are skipped."""
    entries = [_from_csl(item, i) for i, item in enumerate(data) if isinstance(item, dict)]
    return Bibliography(entries, CSL_JSON_MIME)


# --- extractions ----------------------------------------------------------------------------------------


def bibliography_extraction(bibliography: Bibliography, *, title: str | None) -> Extraction:
    """The :class:`Extraction` of a bibliography file: a file document (doc_type FILE) with no chunks
    of its own, its entries in ``references`` and metadata ``entry_count`` and ``entry_types``."""
    warnings = list(bibliography.warnings)
    if not bibliography.entries:
        warnings.append("no bibliography entries were found")
    kinds = Counter(entry.kind or "unknown" for entry in bibliography.entries)
    return Extraction(
        doc_type=DocumentType.FILE,
        mime_type=bibliography.mime_type,
        title=title,
        metadata={"entry_count": len(bibliography.entries), "entry_types": dict(kinds.most_common())},
        warnings=warnings,
        references=list(bibliography.entries),
    )


def reference_extraction(entry: BibEntry) -> Extraction:
    """The :class:`Extraction` of one entry as a reference document: one chunk reading like a citation
    followed by the abstract (``section`` = the citation key), its fields as metadata."""
    text = entry.text()
    return Extraction(
        doc_type=DocumentType.REFERENCE,
        mime_type="text/plain",
        title=entry.title or entry.key or "Untitled reference",
        text=text,
        chunks=[ChunkDraft(text, section=entry.key)] if text else [],
        metadata=entry.metadata(),
    )


def parse_reference_text(text: str) -> Bibliography | None:
    """Bibliography entries in typed or pasted text (BibTeX, RIS or CSL-JSON), None when there are none."""
    stripped = text.lstrip()
    bibliography: Bibliography | None = None
    if stripped.startswith("@"):
        bibliography = parse_bibtex(text)
    elif stripped.startswith(("TY  -", "FN ", "PT ")):
        bibliography = parse_ris(text)
    elif stripped.startswith("["):
        try:
            data = parse_json(text)
        except ValueError:
            data = None
        if is_csl_json(data):
            bibliography = parse_csl_json(data)
    return bibliography if bibliography is not None and bibliography.entries else None

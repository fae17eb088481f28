"""Bibliographies (BibTeX, RIS incl. Web of Science, CSL-JSON): one chunk per entry.

Each chunk reads like a citation followed by the abstract — "Title. Authors. Year. Journal. DOI.
Abstract" — so both a search for a paper's topic and for its authors find it. ``ChunkDraft.section``
is the citation key (or "entry N" when there is none).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import bibtexparser
import rispy
from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock, Entry
from pylatexenc.latex2text import LatexNodes2Text

from ..core.documents import DocumentType
from .base import ChunkDraft, Extraction
from .normalize import normalize_text

MAX_AUTHORS_SHOWN = 12
"""Authors written into a chunk; long consortium lists add "et al." (they would drown the title)."""

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
_LATEX_CHARS = re.compile(r"[\\{}$~]")
_WOS_START = re.compile(r"\A\s*(FN|VR|PT) ", re.MULTILINE)


@dataclass
class _Entry:
    key: str | None
    kind: str | None
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: str | None = None
    container: str | None = None
    doi: str | None = None
    abstract: str | None = None

    def text(self) -> str:
        """The chunk text: "Title. Authors. Year. Container. doi:…" then the abstract, normalised."""
        authors = ", ".join(self.authors[:MAX_AUTHORS_SHOWN])
        if len(self.authors) > MAX_AUTHORS_SHOWN:
            authors += " et al"
        doi = f"doi:{self.doi}" if self.doi else None
        head = [p.strip().rstrip(".") for p in (self.title, authors, self.year, self.container, doi) if p]
        parts = [". ".join(p for p in head if p) + "." if head else "", self.abstract or ""]
        return normalize_text("\n\n".join(p for p in parts if p))


@lru_cache(maxsize=1)
def _latex() -> LatexNodes2Text:
    return LatexNodes2Text(math_mode="text")


def latex_to_unicode(value: str) -> str:
    """``{\\"u}`` → ``ü``, ``{{GaN}}`` → ``GaN``, ``$\\alpha$`` → ``α`` (pylatexenc); plain values
    are returned as they are (converting costs ~0.4 ms per value)."""
    if not _LATEX_CHARS.search(value):
        return value
    try:
        return _latex().latex_to_text(value)
    except Exception:  # pylatexenc raises assorted errors on malformed LaTeX; keep the raw value
        return value.replace("{", "").replace("}", "")


def _person_name(name: str) -> str:
    """BibTeX/RIS "Last, First" / "von Last, Jr, First" → "First von Last Jr"; other forms unchanged."""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2:
        return f"{parts[1]} {parts[0]}".strip()
    if len(parts) == 3:
        return f"{parts[2]} {parts[0]} {parts[1]}".strip()
    return name.strip()


def _bibtex_entries(text: str) -> tuple[list[Entry], list[str]]:
    library = bibtexparser.parse_string(text)
    entries = list(library.entries)
    warnings = []
    for block in library.failed_blocks:
        # Duplicate keys/fields are real entries a user kept twice: index them too.
        if isinstance(block, DuplicateBlockKeyBlock | DuplicateFieldKeyBlock) and block.ignore_error_block:
            entries.append(block.ignore_error_block)
        else:
            warnings.append(f"a BibTeX block near line {block.start_line + 1} could not be parsed")
    return entries, warnings


def _from_bibtex(entry: Entry) -> _Entry:
    fields = {f.key.lower(): latex_to_unicode(str(f.value)) for f in entry.fields}
    authors = fields.get("author") or fields.get("editor") or ""
    return _Entry(
        key=entry.key,
        kind=entry.entry_type.lower(),
        title=fields.get("title"),
        authors=[_person_name(a) for a in re.split(r"\s+and\s+", authors) if a.strip()],
        year=fields.get("year") or (fields.get("date") or "")[:4] or None,
        container=fields.get("journal")
        or fields.get("journaltitle")
        or fields.get("booktitle")
        or fields.get("publisher")
        or fields.get("school")
        or fields.get("institution"),
        doi=fields.get("doi"),
        abstract=fields.get("abstract"),
    )


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
    return str(value)


def _from_ris(record: dict[str, Any], index: int) -> _Entry:
    authors = _first(record, "authors", "first_authors", "author_full_name", "editor") or []
    year = _as_text(_first(record, "year", "publication_year", "date"))
    return _Entry(
        key=_as_text(_first(record, "id", "accession_number")) or f"entry {index + 1}",
        kind=_as_text(_first(record, "type_of_reference", "publication_type")),
        title=_as_text(_first(record, "title", "primary_title", "document_title", "translated_title")),
        authors=[_person_name(str(a)) for a in (authors if isinstance(authors, list) else [authors])],
        year=year[:4] if year else None,
        container=_as_text(
            _first(
                record,
                "secondary_title",
                "journal_name",
                "publication_name",
                "alternate_title3",
                "alternate_title1",
                "alternate_title2",
            )
        ),
        doi=_as_text(_first(record, "doi")),
        abstract=_as_text(_first(record, "abstract", "notes_abstract")),
    )


def _csl_name(person: Any) -> str | None:
    if not isinstance(person, dict):
        return str(person) if person else None
    if person.get("literal"):
        return str(person["literal"])
    name = " ".join(str(person[k]) for k in ("given", "non-dropping-particle", "family") if person.get(k))
    return name or None


def _csl_year(issued: Any) -> str | None:
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return str(parts[0][0])
        raw = issued.get("raw") or issued.get("literal")
        match = re.search(r"\d{4}", str(raw or ""))
        return match.group(0) if match else None
    return None


def _from_csl(item: dict[str, Any], index: int) -> _Entry:
    people = item.get("author") or item.get("editor") or []
    return _Entry(
        key=str(item.get("id") or item.get("citation-key") or f"entry {index + 1}"),
        kind=str(item.get("type") or "") or None,
        title=_as_text(item.get("title")),
        authors=[n for n in map(_csl_name, people if isinstance(people, list) else []) if n],
        year=_csl_year(item.get("issued")),
        container=_as_text(item.get("container-title")) or _as_text(item.get("publisher")),
        doi=_as_text(item.get("DOI")),
        abstract=_as_text(item.get("abstract")),
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


def _extraction(entries: Iterable[_Entry], *, title: str | None, mime_type: str, warnings: list[str]) -> Extraction:
    chunks: list[ChunkDraft] = []
    kinds: Counter[str] = Counter()
    count = 0
    for index, entry in enumerate(entries):
        count += 1
        kinds[entry.kind or "unknown"] += 1
        text = entry.text()
        if text:
            chunks.append(ChunkDraft(text, section=entry.key or f"entry {index + 1}"))
    if count == 0:
        warnings.append("no bibliography entries were found")
    return Extraction(
        doc_type=DocumentType.REFERENCE,
        mime_type=mime_type,
        title=title,
        text="\n\n".join(c.text for c in chunks),
        chunks=chunks,
        metadata={"entry_count": count, "entry_types": dict(kinds.most_common())},
        warnings=warnings,
    )


def extract_bibtex(text: str, *, title: str | None) -> Extraction:
    """BibTeX (brace- or parenthesis-delimited entries) via bibtexparser v2; LaTeX to Unicode.

    Entries whose key or a field is duplicated are kept (bibtexparser reports them as failed
    blocks); truly unparsable blocks become warnings.

    Returns:
        An :class:`Extraction` (doc_type REFERENCE, ``application/x-bibtex``) with metadata
        ``entry_count`` and ``entry_types``.
    """
    entries, warnings = _bibtex_entries(text)
    return _extraction(map(_from_bibtex, entries), title=title, mime_type="application/x-bibtex", warnings=warnings)


def extract_ris(text: str, *, title: str | None) -> Extraction:
    """RIS via rispy; Web of Science exports (starting with ``FN``/``VR``/``PT`` tags) use its WoS parser.

    Returns:
        An :class:`Extraction` (doc_type REFERENCE, ``application/x-research-info-systems``).
    """
    warnings: list[str] = []
    parser = rispy.WokParser if _WOS_START.match(text) else rispy.RisParser
    try:
        records = rispy.loads(text, implementation=parser)
    except (ValueError, KeyError, IndexError) as exc:
        records = []
        warnings.append(f"the RIS file could not be parsed: {exc}")
    return _extraction(
        (_from_ris(r, i) for i, r in enumerate(records)),
        title=title,
        mime_type="application/x-research-info-systems",
        warnings=warnings,
    )


def extract_csl_json(data: list[dict[str, Any]], *, title: str | None) -> Extraction:
    """CSL-JSON items (Zotero / Better BibTeX export), already parsed.

    Returns:
        An :class:`Extraction` (doc_type REFERENCE, ``application/vnd.citationstyles.csl+json``).
    """
    items = (_from_csl(item, i) for i, item in enumerate(data) if isinstance(item, dict))
    return _extraction(items, title=title, mime_type="application/vnd.citationstyles.csl+json", warnings=[])

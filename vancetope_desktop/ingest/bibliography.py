"""Bibliographies (BibTeX, RIS incl. Web of Science, CSL-JSON): one :class:`~.bibentry.BibEntry` per entry.

A bibliography file is not one document: ``services.bibliography`` turns each entry into its own
reference document, and the file itself is kept as a file document holding the original (no chunks:
its entries are indexed once, as themselves). BibTeX is read in ``bibtex`` (bibtexparser and its
middlewares); RIS (rispy) and CSL-JSON here. Nothing here touches the library.
"""

from __future__ import annotations

import re
from typing import Any

import rispy
from bibtexparser.middlewares.names import parse_single_name_into_parts

from .bibentry import (
    CSL_JSON_MIME,
    RIS_MIME,
    BibEntry,
    Bibliography,
    is_short_doi,
    normalize_doi,
    split_keywords,
    year_of,
)
from .bibtex import parse_bibtex, parse_file_field
from .structured import parse_json

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
_WOS_START = re.compile(r"\A\s*(FN|VR|PT) ", re.MULTILINE)


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
        year=year_of(_first(record, "year", "publication_year", "date")),
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


def _cslyear_of(issued: Any) -> int | None:
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return year_of(parts[0][0])
        return year_of(issued.get("raw") or issued.get("literal"))
    return year_of(issued)


def _csl_doi(item: dict[str, Any]) -> str | None:
    """The item's DOI; a shortDOI (``10/fqd6hj``, Better CSL JSON) gives way to the full DOI in its URL."""
    doi = normalize_doi(_as_text(item.get("DOI")))
    from_url = normalize_doi(_as_text(item.get("URL")))
    if (doi is None or is_short_doi(doi)) and from_url and not is_short_doi(from_url):
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
        year=_cslyear_of(item.get("issued")),
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

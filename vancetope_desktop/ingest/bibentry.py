"""A bibliography entry, cleaned (:class:`BibEntry`), and what decides that two entries are one work.

The readers (``bibtex`` for BibTeX, ``bibliography`` for RIS and CSL-JSON) produce entries; the
services store each as a reference document (``services.bibliography``) and compare them with
:func:`normalize_doi`, :func:`title_key`, :func:`surname_keys` and :func:`kind_family`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .normalize import normalize_text

MAX_AUTHORS_SHOWN = 12
"""Authors written into a chunk; long consortium lists add "et al." (they would drown the title)."""

BIBTEX_MIME = "application/x-bibtex"
RIS_MIME = "application/x-research-info-systems"
CSL_JSON_MIME = "application/vnd.citationstyles.csl+json"
EXTRA_FIELDS = ("volume", "issue", "pages", "url", "isbn", "issn", "edition", "series", "language")
"""Bibliographic fields kept in a reference's metadata besides title, authors, year, DOI, container,
publisher, abstract and keywords (what Zotero shows in its item pane for articles and books)."""
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_DOI = re.compile(r"10\.\d{4,9}/\S+", re.IGNORECASE)
_SHORT_DOI = re.compile(r"\A10/[a-z0-9]+\Z", re.IGNORECASE)
_NOT_ALNUM = re.compile(r"[\W_]+")
"""Runs of characters that are not ``str.isalnum``: ``\\w`` is exactly the alphanumerics and the underscore."""


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
            editors=names("editors"), year=year if isinstance(year, int) else year_of(year), container=text("journal"),
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


def is_short_doi(doi: str) -> bool:
    """True for a shortDOI (``10/fqd6hj``, https://shortdoi.org), which cannot be resolved offline."""
    return bool(_SHORT_DOI.match(doi))


def title_key(title: str | None) -> str | None:
    """A title as compared for duplicates: accents, case, punctuation and spacing ignored.

    ``"Über {GaN}: a Study."`` and ``"uber GaN - A study"`` both give ``"uber gan a study"``; None
    for a title without letters or digits.
    """
    if not title:
        return None
    decomposed = unicodedata.normalize("NFKD", title)
    if not decomposed.isascii():  # an accent decomposes into its letter and a combining mark, dropped here
        decomposed = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_NOT_ALNUM.sub(" ", decomposed).casefold().split()) or None


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


def different_works(doi: str | None, other_doi: str | None, surnames: frozenset[str], other_surnames: frozenset[str],
                    family: str | None, other_family: str | None) -> bool:
    """Whether two records with one title and one year are still two works, as Zotero decides: two DOIs
    that differ, authors on both sides without a surname in common (a book and a review of it), or two
    kinds of work (a report and the article it became). Missing values on either side say nothing.

    Args: normalised DOIs (:func:`normalize_doi`), :func:`surname_keys`, :func:`kind_family` of each side.
    """
    return bool((doi and other_doi and doi != other_doi)
                or (surnames and other_surnames and not surnames & other_surnames)
                or (family and other_family and family != other_family))


def split_keywords(values: Iterable[str]) -> tuple[str, ...]:
    """Keywords from one or more field values, split on ``,`` and ``;``, stripped, first-seen order kept."""
    found: dict[str, None] = {}
    for value in values:
        for part in re.split(r"[,;]", value):
            part = " ".join(part.split())
            if part:
                found.setdefault(part, None)
    return tuple(found)


def year_of(value: Any) -> int | None:
    """The first plausible four-digit year (1500–2099) in a value ("2017-05", "in press 2020"), or None."""
    match = _YEAR.search(str(value)) if value else None
    return int(match.group(1)) if match else None

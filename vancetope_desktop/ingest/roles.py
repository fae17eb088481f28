"""Which paragraphs of a paper are its reference list, its author and affiliation lists, its acknowledgements.

Such text matches many queries by meaning without being about anything (a reference list on
dementia cites fifty titles with "dementia" in them; a collaboration's author pages are thousands of
names and institutes), and it was about a third of the papers' embedding work. Their chunks get a
:class:`~..core.documents.ChunkRole` other than ``body``: they stay keyword-searchable but get no
vectors.

A page is read paragraph by paragraph, in reading order, carrying the section it ends in to the next
page (:func:`page_roles`). Sections are opened by their headings ("References", "Bibliography",
"Acknowledgements", "Funding", "Competing interests", "Author details"…), standing alone or leading
a paragraph, and closed by the next heading. Each paragraph is still checked against what its
section should look like, so that body text set among the references (a box of key messages, an
appendix after the bibliography) stays body:

* references: entries are dense in citation marks — years, DOIs and URLs, "Surname, I." or
  "I. Surname" names, venues ("Proc.", "J.", "pp."), page ranges, "[12]" or "12." at the start;
  line fragments of an entry between two entries count with them;
* authors: lists of names with affiliation marks ("G. Aad85, B. Abbott113", "Anna Sundström,1"),
  affiliations (departments, universities, institutes, countries, e-mail addresses), found on the
  first pages or anywhere as long lists (a collaboration's author pages), without a heading;
* acknowledgements: thanks, grants, agencies, contributions — any paragraph under its heading,
  except figure and table captions.

The thresholds were set on the 18 papers of ``../shared/corpus/papers`` (see
``tests/ingest/test_roles.py``): every reference list and collaboration list found, no abstract,
conclusion or appendix paragraph lost.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby

from ..core.documents import ChunkRole

_NUMBERING = r"(?:(?:\d{1,2}(?:\.\d{1,2})*|[IVX]{1,5}|[A-H])[.)]?\s+)?"
_SECTION_NAMES: dict[ChunkRole, str] = {
    ChunkRole.REFERENCES: r"references?(?:\s+and\s+notes)?|bibliography|literature\s+cited|works\s+cited"
                          r"|cited\s+literature|reference\s+list",
    ChunkRole.ACKNOWLEDGEMENTS: r"acknowledge?ments?|funding(?:\s+information)?|financial\s+support"
                                r"|conflicts?\s+of\s+interests?|competing\s+(?:financial\s+)?interests?"
                                r"|declarations?\s+of\s+(?:competing\s+)?interests?"
                                r"|authors?['’´`]?s?['’´`]?\s+contributions?|contributions?\s+of\s+authors"
                                r"|description\s+of\s+authors?['’´`]?s?['’´`]?\s+roles|patient\s+consent"
                                r"|provenance\s+and\s+peer\s+review",
    ChunkRole.AUTHORS: r"author\s+details|authors?['’´`]?\s+information|affiliations?|author\s+list"
                       r"|(?:the\s+)?[A-Z]{2,}\s+collaboration",
}
# A heading alone: "References", "7. REFERENCES", "Acknowledgments:", "A The ATLAS Collaboration".
_ALONE = {role: re.compile(rf"^[*∗†‡\s]*{_NUMBERING}(?:{names})\s*[.:]?$", re.IGNORECASE)
          for role, names in _SECTION_NAMES.items()}
# A heading leading its paragraph: "Funding This work…", "References 1. Ovretveit J…" (the next word
# starts a sentence, so "Funding agencies require…" and "References to tables…" are not headings, and
# a page number is not a sentence: "References 14" is a line of a table of contents).
_LEADING = {role: re.compile(rf"^[*∗†‡\s]*{_NUMBERING}(?:{names})\s*[.:]?\s+(?!\d+\s*$)(?-i:(?=[A-Z0-9•(\[\"“]))",
                             re.IGNORECASE)
            for role, names in _SECTION_NAMES.items()}
# Parts that are body again after the back matter, whatever they look like.
_BODY_PART = re.compile(rf"^\s*{_NUMBERING}(?:appendi(?:x|ces)|supplementa(?:ry|l)\s+(?:material|information|data)"
                        r"|supporting\s+information)\b", re.IGNORECASE)
_CORRESPONDENCE = re.compile(r"^[*∗†‡\s]*(?:correspondence\s*(?::|(?:should\s+be\s+)?(?:addressed\s+)?to\b)"
                             r"|corresponding\s+authors?\b|e-?mail\s*:)", re.IGNORECASE)
_CAPTION = re.compile(r"^(?:fig\.|figure|table|scheme)\s*[A-Z]?\d", re.IGNORECASE)
_WORD = re.compile(r"\w+")

# Citation marks (see the module docstring); each match counts once. Runs are bounded ({1,6}, {1,40})
# and start after a boundary, so that a hostile page (100,000 digits in a row) costs linear time.
_CITATION = re.compile(
    r"(?<![\d.])(?:1[6-9]|20)\d\d[a-z]?(?![\d])"  # a year
    r"|(?i:\bdoi\b|arxiv|https?://|www\.|\bisbn\b|\bpmid\b|\[spires\]"
    r"|\bet\s+al\b|\bpp?\.\s*\d|\bvol\.|\bno\.\s*\d|\beds?\.|\bin:|\bproc\.|\bproceedings\b|\bconf(?:\.|erence)"
    r"|\bj\.\s|\bjournal\b|\brev\.|\blett\.|\bphys\.|\btrans\.|\bpress\b|\bworkshop\b|\bsymposium\b)"
    r"|(?<!\d)\d{1,6}\s*[–-]\s*\d{1,6}|(?<!\d)\d{1,6}\s*\(\d{1,6}\)|(?<!\d)\d{1,6}:\d{1,6}"  # pages, vol(no):pp
    r"|\b[A-Z][\w'’-]{1,40},\s+(?:[A-Z]\.[\s-]?){1,3}"  # Surname, I. J.
    r"|\b(?:[A-Z]\.[\s-]?){1,3}[A-Z][\w'’-]{2,40}"  # I. J. Surname
    r"|\b[A-Z][a-z'’-]{1,40}\s[A-Z]{1,3}[,.;:]"  # Surname IJ,  (Vancouver style)
    r"|\b[A-Z][a-z'’-]{1,40}(?:\s[A-Z][a-z'’-]{1,40}|\s[A-Z]\.){1,2},"  # Firstname Surname,  (ACL style)
    r"|\band\s[A-Z][a-z'’-]{1,40}(?:\s[A-Z][\w'’.-]{1,40}){1,2}\.",  # and Firstname Surname.
)
_ENTRY_START = re.compile(r"^\s*(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}\.\s)")
_NUMBERED = re.compile(rf"^\s*{_NUMBERING}")
# A name followed by affiliation marks: "G. Aad85,", "Anna Sundström,1", "Kyle Lo†∗", "D. White∗,‡".
_MARKED_NAME = re.compile(
    r"(?<![\w'’.-])(?:[A-Z][\w'’.-]{0,40}\s){0,3}[A-Z][\w'’-]{1,40},?\s?(?:\d{1,3}(?!\d)[a-z]{0,2}|[*∗†‡§¶♦♣♠#$+])"
    r"(?:\s?,\s?(?:\d{1,3}(?!\d)[a-z]{0,2}|[*∗†‡§¶♦♣♠#$+]))*"
)
_AFFILIATION = re.compile(
    r"(?<![^\W\d_])(?:universit\w*|universidad|universidade|università|institut\w*|department|dept\.|departamento"
    r"|dipartimento|laborator\w+|faculty|facult\w+|school\s+of|college|hospital|cent(?:er|re)\b|academy"
    r"|observatory|corporation|inc\.|ltd\.|gmbh|infn|cnrs|cern|sezione|division|clinic|foundation"
    r"|usa|united\s+states|united\s+kingdom|uk|china|japan|germany|france|italy|spain|russia|canada"
    r"|australia|switzerland|netherlands|sweden|korea|india|brazil|poland|israel|austria|belgium"
    r"|denmark|finland|norway|portugal|greece|turkey|mexico|argentina|chile|taiwan|singapore)\b"
    r"|(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{1,63}|\{[\w\s,.-]{1,300}\}@",
    re.IGNORECASE,
)
_ABSTRACT = re.compile(r"\babstract\b", re.IGNORECASE)
# Words of running text that affiliations and name lists do without.
_PROSE = re.compile(r"\b(?:is|are|was|were|we|our|has|have|had|which|this|these|that|been|it)\b", re.IGNORECASE)
_ACKNOWLEDGING = re.compile(
    r"\b(?:thank\w*|grateful\w*|acknowledge?\w*|support\w*|grants?|fund\w*|fellowship|award\w*|council"
    r"|agenc\w+|ministr\w+|programm?e?s?|contract|sponsor\w*|foundation|declare|competing|conflicts?"
    r"|contribut\w+|conceived|designed|performed|wrote|drafted|analy[sz]ed|approved|reviewed)\b",
    re.IGNORECASE,
)

REFERENCE_DENSITY = 1.2
"""Citation marks per 10 words from which a paragraph reads as a reference entry (under a references
heading). Entries of the corpus score 1.2–6, body paragraphs with author–year citations mostly below 1."""

STRONG_REFERENCE_DENSITY = 2.5
"""Citation marks per 10 words from which a paragraph of eight words or more is an entry even
without a heading above it (the densest body paragraph of the corpus, a related-work paragraph
made of author–year citations, scores 2.4)."""

AUTHOR_COVERAGE = 0.6
"""Share of a paragraph's characters in marked names from which it is an author list."""

AFFILIATION_DENSITY = 1.0
"""Affiliation words (departments, institutes, countries, e-mails) per 10 words from which a
paragraph is an affiliation list; running text stays below 0.5."""

FRONT_PAGES = 2
"""Author lines and affiliations without a heading are looked for on this many first pages."""


@dataclass(frozen=True)
class Section:
    """Where reading stands at the end of a page: the section's role and whether references began."""

    role: ChunkRole = ChunkRole.BODY
    references_seen: bool = False


def page_roles(paragraphs: Sequence[str], *, page: int, section: Section = Section()) -> tuple[list[ChunkRole],
                                                                                              Section]:
    """The role of each paragraph of one page, and the section the page ends in.

    Args:
        paragraphs: the page's paragraphs in reading order (running headers and footers removed).
        page: the page's 1-based number (author lines are looked for on the first pages only).
        section: what the previous page ended in (``Section()`` for the first page).

    Returns:
        One role per paragraph, and the section to pass with the next page.
    """
    roles: list[ChunkRole] = []
    entries, listed = _entries(paragraphs), _listed_entries(paragraphs)
    for index, text in enumerate(paragraphs):
        heading = _heading(text)
        if heading is ChunkRole.REFERENCES and not (_ALONE[heading].match(text) or entries[index]):
            heading = None  # "References to tables…": a sentence, not the heading it starts like
        if heading is not None:
            role, section = heading, Section(heading, section.references_seen or heading is ChunkRole.REFERENCES)
        elif _BODY_PART.match(text):
            role, section = ChunkRole.BODY, Section(ChunkRole.BODY, section.references_seen)
        elif _is_author_list(text, page):
            role = ChunkRole.AUTHORS
        elif section.role is ChunkRole.REFERENCES:
            role = ChunkRole.REFERENCES if entries[index] else ChunkRole.BODY
            following = entries[index + 1] if index + 1 < len(paragraphs) else False
            if role is ChunkRole.BODY and _looks_like_heading(text) and not following:
                section = Section(ChunkRole.BODY, True)  # "Appendix A", a box's title: the list has ended
        elif page > 1 and (listed[index] or (section.references_seen and _is_strong_entry(text))):
            role, section = ChunkRole.REFERENCES, Section(ChunkRole.REFERENCES, True)  # a list without heading
        elif section.role is ChunkRole.ACKNOWLEDGEMENTS:
            role = ChunkRole.BODY if _CAPTION.match(text) else ChunkRole.ACKNOWLEDGEMENTS
            if role is ChunkRole.ACKNOWLEDGEMENTS and not _ACKNOWLEDGING.search(text) and _looks_like_heading(text):
                role, section = ChunkRole.BODY, Section(ChunkRole.BODY, section.references_seen)
        elif section.role is ChunkRole.AUTHORS:
            role = ChunkRole.AUTHORS if _affiliation_density(text) >= AFFILIATION_DENSITY else ChunkRole.BODY
            if role is ChunkRole.BODY:
                section = Section(ChunkRole.BODY, section.references_seen)
        else:
            role = ChunkRole.BODY
        roles.append(role)
    return roles, section


def role_runs(paragraphs: Sequence[str], roles: Sequence[ChunkRole]) -> Iterator[tuple[ChunkRole, list[str]]]:
    """Consecutive paragraphs of one role, in order: each run is packed into chunks of its own."""
    for role, run in groupby(zip(paragraphs, roles, strict=True), key=lambda pair: pair[1]):
        yield role, [text for text, _ in run]


def _heading(text: str) -> ChunkRole | None:
    """The section a heading opens ("References", "Funding This work…"), else None."""
    if _CORRESPONDENCE.match(text):
        return ChunkRole.AUTHORS
    for role in _SECTION_NAMES:
        if _ALONE[role].match(text) or _LEADING[role].match(text):
            return role
    return None


@lru_cache(maxsize=4096)
def _words(text: str) -> int:
    return len(_WORD.findall(text))


@lru_cache(maxsize=4096)  # a paragraph is weighed as an entry, a strong entry and a listed one: counted once
def _citation_density(text: str) -> float:
    """Citation marks per 10 words; an entry number at the start counts as one mark. One mark is
    enough in a line of a dozen words ("Alzheimer's Disease International. (2009). World"), not more."""
    marks = len(_CITATION.findall(text)) + (1 if _ENTRY_START.match(text) else 0)
    words = max(_words(text), 1)
    return 10 * marks / words if marks >= 2 or (marks and words <= 12) else 0.0


def _affiliation_density(text: str) -> float:
    """Affiliation words per 10 words (zero for a paragraph that mentions its abstract)."""
    if _ABSTRACT.search(text):
        return 0.0
    return 10 * len(_AFFILIATION.findall(text)) / max(_words(text), 1)


def _is_author_list(text: str, page: int) -> bool:
    """Names with affiliation marks, or affiliations: anywhere when long (a collaboration's pages),
    on the first pages when short (a paper's author lines). Never a paragraph holding the abstract."""
    if _ABSTRACT.search(text):
        return False
    words = _words(text)
    covered = sum(len(m.group()) for m in _MARKED_NAME.finditer(text)) / max(len(text), 1)
    names = covered >= AUTHOR_COVERAGE and len(_MARKED_NAME.findall(text)) >= 2
    affiliations = _affiliation_density(text) >= AFFILIATION_DENSITY and len(_AFFILIATION.findall(text)) >= 2
    if page <= FRONT_PAGES and words <= 80:
        return (names or affiliations) and not _PROSE.search(text)
    return words >= 40 and (names or _affiliation_density(text) >= 2 * AFFILIATION_DENSITY)


def _entries(paragraphs: Sequence[str]) -> list[bool]:
    """Which paragraphs read as reference entries if they stand in a reference list: dense in
    citation marks, or numbered ("[12] CMS Collaboration, …"), or a short line of an entry cut into
    lines, between entries (two passes, for an entry cut into three lines)."""
    flags = [_citation_density(p) >= REFERENCE_DENSITY or _numbered_entry(p)
             or bool(_ALONE[ChunkRole.REFERENCES].match(p)) for p in paragraphs]  # the heading: next to entries
    for _ in range(2):
        flags = [flag or (_words(text) <= 60 and not _CAPTION.match(text)
                          and (any(flags[max(0, i - 2) : i]) or i == 0)
                          and (any(flags[i + 1 : i + 3]) or i == len(flags) - 1))
                 for i, (text, flag) in enumerate(zip(paragraphs, flags, strict=True))]
    return flags


def _numbered_entry(text: str) -> bool:
    """Starts like a numbered entry: "[12] …" or "(12) …", or "12. …" with a citation mark after it
    (not "2. The Buchert scheme", a numbered section heading)."""
    start = _ENTRY_START.match(text)
    return start is not None and (start.group().strip()[0] in "[(" or bool(_CITATION.search(text, start.end())))


def _is_strong_entry(text: str) -> bool:
    """Dense enough in citation marks to be a reference entry wherever it stands."""
    if _words(text) < 8:  # "ELMO (Peters et al., 2018a)" in a table
        return False
    return _citation_density(text) >= STRONG_REFERENCE_DENSITY or (
        _numbered_entry(text) and _citation_density(text) >= REFERENCE_DENSITY)


def _listed_entries(paragraphs: Sequence[str]) -> list[bool]:
    """Strong entries with two more among the two paragraphs either side: a reference list that has
    no heading (Physical Review letters print none)."""
    strong = [_is_strong_entry(p) for p in paragraphs]
    return [flag and sum(strong[max(0, i - 2) : i + 3]) >= 3 for i, flag in enumerate(strong)]


def _looks_like_heading(text: str) -> bool:
    """A short line that opens a new part: "Appendix", "A Multi-LexSum release", "Main messages" (not
    a line of names cut short: "Kimitaka Asatani, Junichiro Mori, Masanao Ochi, and")."""
    stripped = _NUMBERED.sub("", text.strip(), count=1)  # "2. The Buchert scheme", "B PDF filters"
    return (0 < _words(stripped) <= 8 and stripped[:1].isupper() and "," not in stripped
            and not stripped.endswith((".", ";", ":", "-", " and", " of", " the", " in", " for", " &"))
            and _citation_density(stripped) == 0.0)

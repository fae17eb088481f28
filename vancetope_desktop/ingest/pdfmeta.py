"""Bibliographic facts of a PDF: title, authors, year, DOI — from its metadata when sane, else its first page.

PDF metadata is often wrong: Word exports put the file name in /Title ("Microsoft Word - 02. 206.doc"),
typesetters put job ids ("6489122611071476 1..10", "ipg1300180a"), and /Author may be a publisher, a
Perl stringification ("ARRAY(0x2c7cf020)") or a placeholder ("xyz"). Each value is checked before it is
trusted; the title falls back to the largest text near the top of the first page, the authors to the
names printed below it, the way a reader finds them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from .mupdf import pymupdf
from .normalize import normalize_text
from .quality import strip_junk, strip_ornaments

# Words that mark a masthead or banner, not a title ("Journal of Statistical Software" is printed
# larger than the paper's title on JSS first pages; BMC prints "RESEARCH ARTICLE Open Access").
_MASTHEAD = re.compile(
    r"\b(journal of|working papers?|proceedings of|transactions on|research article|open access|"
    r"original article|review article|arxiv|doi|issn|copyright|all rights reserved|vol\.|volume \d)\b"
    r"|https?://|www\.|©",
    re.IGNORECASE,
)
# A file name or export banner stored as /Title ("Loeb_Sing.docx", "Microsoft Word - 02. 206.doc").
_FILE_NAME = re.compile(r"\.(docx?|pdf|tex|dvi|ps|rtf|odt|indd|qxd)\s*$|^microsoft (word|powerpoint)\b", re.I)
_WORD = re.compile(r"[^\W\d_]{2,}")
# Crossref's recommended DOI pattern (10.prefix/suffix), stopping at spaces, quotes and brackets.
_DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"<>{}]+")
# arXiv ids carry the submission year: 2206.10883 (since 2007), hep-th/9901001 (before).
_ARXIV_NEW = re.compile(r"arXiv:\s?(\d{2})(\d{2})\.\d{4,5}", re.IGNORECASE)
_ARXIV_OLD = re.compile(r"arXiv:\s?[a-z\-]+(?:\.[A-Z]{2})?/(\d{2})(\d{2})\d{3}", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_PDF_DATE = re.compile(r"^(?:D:)?(\d{4})")
# /Author values that are not people: publishers, account names, stringified objects.
_NOT_A_PERSON = re.compile(
    r"[\d()@<>{}\[\]=]|\b(journals?|press|publish\w*|elsevier|springer|wiley|ieee|acm|"
    r"administrator|admin|user|owner|unknown|author|anonymous)\b",
    re.IGNORECASE,
)
# Footnote marks after author names: digits, *, daggers, section signs, and letters like "a,b".
_AUTHOR_MARKS = re.compile(r"[\d*∗†‡§¶#$+‖]+|\s+\b[a-z]\b(?=\s*(,|$))")
_NAME_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*|\s{2,}")
# Words of affiliations and section headings: a row holding one is not an author list.
_AFFILIATION = re.compile(
    r"\b(universit\w*|institut\w*|department|dept|school|college|laborator\w*|cent(er|re)|hospital|"
    r"faculty|academy|inc|ltd|corporation|company|gmbh|foundation|division|technology|research|"
    r"sciences?|physics|engineering|collaborations?|abstract|introduction)\b",
    re.IGNORECASE,
)

TITLE_REGION = 0.55
"""Only lines starting in the top 55 % of the first page can be the title."""
MAX_TITLE_LINES = 6
"""A same-size run longer than this is a paragraph of body text (a page without a distinct title)."""
MAX_TITLE_CHARS = 300
"""Longer "titles" are body text; the longest real title in the corpus (BMC) has 197 characters."""


@dataclass
class _Line:
    text: str
    size: float
    top: float
    bottom: float
    left: float
    baseline: float  # tall glyphs (a radical sign) stretch the box, not the baseline


@dataclass
class PdfFacts:
    """What :func:`read_facts` found; None/empty when unknown."""

    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    doi: str | None = None

    def as_metadata(self) -> dict[str, Any]:
        """Only the known facts, as JSON-able metadata entries."""
        out: dict[str, Any] = {}
        if self.title:
            out["title"] = self.title
        if self.authors:
            out["authors"] = self.authors
        if self.year:
            out["year"] = self.year
        if self.doi:
            out["doi"] = self.doi
        return out


def sane_title(value: str | None, page_text: str = "") -> str | None:
    """Return the cleaned metadata title if it looks like a real title, else None.

    A sane title has two or more words of letters, is mostly letters, is not a file name or a
    Word export banner, and — when the first pages have text — at least half of its words occur
    there (catches template titles such as "Slide 1" or another document's title).
    """
    if not value:
        return None
    title = normalize_text(" ".join(value.split()))
    words = _WORD.findall(title)
    non_space = [ch for ch in title if not ch.isspace()]
    if len(words) < 2 or _FILE_NAME.search(title) or not non_space:
        return None
    if sum(ch.isalpha() for ch in non_space) / len(non_space) < 0.6:
        return None
    if page_text.strip():
        haystack = normalize_text(page_text).casefold()
        found = sum(1 for w in words if w.casefold() in haystack)
        if found / len(words) < 0.5:
            return None
    return title


def split_authors(value: str | None) -> list[str]:
    """Split a metadata author string into names, dropping values that are not people.

    ``"Kyle Lo ; Lucy Lu Wang"`` → two names; ``"A. Smith, B. Jones and C. Li"`` → three;
    ``"ATLAS and CMS Collaborations"`` stays one name (a part of one word means it was not a list).
    A name without a capitalised word (or one in a script without case) is a placeholder or an account
    name (``"xyz"``, ``"cheng"``) and is dropped.
    """
    if not value or not value.strip():
        return []
    value = " ".join(value.split())
    if _NOT_A_PERSON.search(value):
        return []
    parts = re.split(r"\s*;\s*", value) if ";" in value else re.split(r"\s*,\s*|\s+and\s+|\s*&\s*", value)
    parts = [p.strip() for p in parts if p.strip()]
    if len(parts) > 1 and any(len(p.split()) < 2 for p in parts):
        parts = [value]
    return [p for p in parts if any(w[0].isalpha() and not w[0].islower() for w in p.split())]


def authors_on_pages(names: list[str], page_text: str) -> bool:
    """Whether metadata names are printed on the first pages, as a title must be (see :func:`sane_title`):
    at least half of them have a word of two or more letters in ``page_text``. True when the pages have
    no text to check against (a scan)."""
    if not page_text.strip():
        return True
    haystack = normalize_text(page_text).casefold()
    found = sum(any(w.casefold() in haystack for w in _WORD.findall(name)) for name in names)
    return found >= len(names) / 2


def _lines_of(page: pymupdf.Page) -> list[_Line]:
    """Horizontal text lines of a page with their dominant font size, top to bottom."""
    # flags=TEXT_MEDIABOX_CLIP only: no images are decoded (TEXT_PRESERVE_IMAGES would decode them,
    # which a decompression bomb turns into gigabytes).
    data = page.get_text("dict", flags=pymupdf.TEXT_MEDIABOX_CLIP)
    lines: list[_Line] = []
    for block in data.get("blocks", []):
        for line in block.get("lines", []):
            if abs(line["dir"][1]) > 0.1:  # vertical text: arXiv stamps, side banners
                continue
            spans = [s for s in line["spans"] if s["text"].strip()]
            if not spans:
                continue
            weights: dict[float, int] = {}
            for s in spans:
                size = round(s["size"], 1)
                weights[size] = weights.get(size, 0) + len(s["text"].strip())
            x0, y0, _, y1 = line["bbox"]
            text = strip_junk(strip_ornaments("".join(s["text"] for s in line["spans"]))).strip()
            if not text:
                continue
            baseline = max(s["origin"][1] for s in spans)
            lines.append(_Line(text, max(weights, key=weights.__getitem__), y0, y1, x0, baseline))
    lines.sort(key=lambda ln: (round(ln.baseline), ln.left))
    return lines


def _rows(lines: list[_Line]) -> list[_Line]:
    """Merge lines that share a baseline band (a title or author list split into pieces by the PDF)
    into rows, each read left to right."""
    groups: list[list[_Line]] = []
    for line in lines:
        head = groups[-1][0] if groups else None
        same_band = head and abs(line.baseline - head.baseline) < 0.5 * max(line.size, 1)
        if same_band and abs(line.size - head.size) <= 1:
            groups[-1].append(line)
        else:
            groups.append([line])
    rows = []
    for group in groups:
        group.sort(key=lambda ln: ln.left)
        rows.append(
            _Line(
                "  ".join(ln.text for ln in group),  # two spaces: separate columns split author names
                group[0].size,
                min(ln.top for ln in group),
                max(ln.bottom for ln in group),
                group[0].left,
                group[0].baseline,
            )
        )
    return rows


def _could_be_title(line: _Line, page_height: float) -> bool:
    letters = sum(ch.isalpha() for ch in line.text)
    return (
        line.top < TITLE_REGION * page_height
        and letters >= 4
        and len(_WORD.findall(line.text)) >= 2
        and not _MASTHEAD.search(line.text)
    )


def title_from_layout(page: pymupdf.Page) -> tuple[str | None, list[_Line]]:
    """Title by typography: the largest-font row in the top part of the page, plus the rows right
    below it in the same size (a title wrapped over several lines).

    Returns:
        ``(title or None, rows after the title)`` — the rows feed the author heuristic.
    """
    rows = _rows(_lines_of(page))
    candidates = [r for r in rows if _could_be_title(r, page.rect.height)]
    if not candidates:
        return None, []
    biggest = max(r.size for r in candidates)
    seed = next(r for r in candidates if r.size >= biggest - 0.5)
    start = rows.index(seed)
    parts = [seed]
    for row in rows[start + 1 :]:
        previous = parts[-1]
        if abs(row.size - seed.size) > 1 or row.top - previous.bottom > 1.2 * seed.size:
            break
        parts.append(row)
    end = start + len(parts)
    title = normalize_text("\n".join(p.text for p in parts)).replace("\n", " ")
    if len(parts) > MAX_TITLE_LINES or len(title) > MAX_TITLE_CHARS:  # body text, not a title
        return None, rows[end:]
    return (title or None), rows[end:]


def _is_name_word(word: str) -> bool:
    """Capitalised ("Rönnlund", "O’Connell", "A.N."), or a short particle ("van", "de", "da")."""
    if word[0].isupper():
        return all(ch.isalpha() or ch in "'’-." for ch in word)
    return word.isalpha() and word.islower() and len(word) <= 3


def _looks_like_name(part: str) -> bool:
    """2–5 name words, none of them an affiliation word."""
    words = part.split()
    return 2 <= len(words) <= 5 and all(map(_is_name_word, words)) and not _AFFILIATION.search(part)


def authors_from_layout(rows_after_title: list[_Line]) -> list[str]:
    """Author names from the rows just below the title.

    Footnote marks are stripped ("Xiaolu Huang,1,2" → "Xiaolu Huang"); names are split at commas,
    "and" and "&". Reading stops at the first part that is not name-like (an affiliation, a
    subtitle, the abstract): authors come first on a title page, and no authors is better than
    wrong ones.
    """
    rows = [r for r in rows_after_title if sum(ch.isalpha() for ch in r.text) >= 2]  # skip rules
    if not rows:
        return []
    size = rows[0].size
    names: list[str] = []
    for row in rows[:4]:
        if abs(row.size - size) > 0.5:
            break
        row_names = []
        for part in _NAME_SPLIT.split(_AUTHOR_MARKS.sub(" ", row.text)):
            part = " ".join(part.split()).strip(" .,;")
            if not part:
                continue
            if not _looks_like_name(part):
                # Names then affiliations on one row (posters) keep the names; a lone "name" before
                # the failure was probably not one ("The ATLAS and CMS Collaborations").
                return names + row_names if len(row_names) >= 2 else names
            row_names.append(part)
        names.extend(row_names)
    return names


def _year_from(pdf_date: str | None) -> int | None:
    match = _PDF_DATE.match(pdf_date or "")
    if match and 1950 <= int(match.group(1)) <= date.today().year + 1:
        return int(match.group(1))
    return None


def find_year(first_page_text: str, creation_date: str | None) -> int | None:
    """Year: an arXiv id on the first page (exact), else the PDF creation date when plausible,
    else the first 1950–20xx number in the top part of the first page."""
    for pattern in (_ARXIV_NEW, _ARXIV_OLD):
        match = pattern.search(first_page_text)
        if match:
            yy = int(match.group(1))
            return (1900 if yy >= 91 else 2000) + yy
    year = _year_from(creation_date)
    if year:
        return year
    head = first_page_text[:1500]
    for match in _YEAR.finditer(head):
        candidate = int(match.group(1))
        if candidate <= date.today().year + 1:
            return candidate
    return None


def find_doi(*texts: str) -> str | None:
    """First DOI (``10.NNNN/…``) in the given texts, trailing punctuation removed."""
    for text in texts:
        match = _DOI.search(text or "")
        if match:
            return match.group(0).rstrip(".,;:)]}'’\"")
    return None


def read_facts(doc: pymupdf.Document, first_pages_text: list[str], first_text_page: int | None) -> PdfFacts:
    """Collect title, authors, year and DOI of an open, authenticated document.

    Args:
        doc: the document (only its metadata and one page are read).
        first_pages_text: raw text of the first two pages (may be empty strings).
        first_text_page: 0-based index of the first page with usable text, or None.

    Returns:
        A :class:`PdfFacts`; fields stay None/empty when nothing trustworthy was found.
    """
    meta = doc.metadata or {}
    joined = "\n".join(first_pages_text)
    facts = PdfFacts()
    facts.title = sane_title(meta.get("title"), joined)
    listed = split_authors(meta.get("author"))
    # Names absent from the first pages give way to the names printed there, if any.
    facts.authors = listed if authors_on_pages(listed, joined) else []
    rows_after: list[_Line] = []
    if first_text_page is not None:
        layout_title, rows_after = title_from_layout(doc[first_text_page])
        if not facts.title:
            facts.title = layout_title
    if not facts.authors:
        facts.authors = authors_from_layout(rows_after) or listed
    facts.year = find_year(first_pages_text[0] if first_pages_text else "", meta.get("creationDate"))
    facts.doi = find_doi(*(str(v) for v in meta.values() if v), *first_pages_text)
    return facts

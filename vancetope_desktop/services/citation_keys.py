"""Stable citation keys, Better BibTeX style: ``mullerFolding`` → ``muller2021folding``, unique, kept.

A key is the first author's family name, the year and the first significant title word, lowercased and
folded to ASCII (``Müller`` → ``muller``), made unique within the library by a suffix (``a``, ``b``, …
``z``, ``aa``…), as Better BibTeX's default ``auth.lower + year + shorttitle(1,0).lower`` formula does.
It lives in the document's metadata (``citation_key``, the field a bibliography import fills with the
key the file gave), so no schema change.

*Kept*: a key is assigned once (:func:`ensure_keys`, called before anything is exported or cited) and
never changes afterwards, whatever documents come and go, because conflicts are always settled in
favour of the document created first: a later document whose stored key is already another's gets a
suffixed one, never the other way round. A key from an imported ``.bib`` (or RIS ``ID``, CSL ``id``)
is kept as the document's key when it is a valid BibTeX key and no earlier document holds it; RIS
entries without an ``ID`` are stored with a placeholder (``entry 3``), which is not a key and is
replaced. Re-importing a file never overwrites a stored key (``services.bibliography``).

*Editable*: :func:`set_citation_key` (the CLI's ``vancetope cite --set-key``, the Details panel
through ``documents.update_document``, which calls :func:`check_key`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from bibtexparser.middlewares.names import parse_single_name_into_parts
from sqlalchemy import text
from sqlmodel import Session

from ..core.errors import InvalidInput
from ..ingest.bibentry import year_of
from ..store import tables
from ..store.db import write_session
from ..store.dialect_sql import SqlForms
from . import records
from .library import Library

KEY_FIELD = "citation_key"
"""The metadata field holding a document's citation key."""

_BAD_KEY_CHARS = re.compile(r"[\s,{}()\"#%'=~\\]")
"""Characters BibTeX and biber refuse in a key (whitespace, the entry's delimiters, comments, quotes)."""

# Function words a key skips in a title, after Better BibTeX's default "skipWords" preference.
SKIP_WORDS = frozenset({
    "a", "ab", "aboard", "about", "above", "across", "after", "against", "al", "along", "amid", "among", "an",
    "and", "anti", "around", "as", "at", "before", "behind", "below", "beneath", "beside", "besides", "between",
    "beyond", "but", "by", "d", "da", "das", "de", "del", "dell", "dello", "dei", "degli", "della", "dem", "den",
    "der", "des", "despite", "die", "do", "down", "du", "during", "ein", "eine", "einem", "einen", "einer", "eines",
    "el", "en", "et", "except", "for", "from", "gli", "i", "il", "in", "inside", "into", "is", "l", "la", "las",
    "le", "les", "like", "lo", "los", "near", "nor", "of", "off", "on", "onto", "or", "over", "past", "per", "plus",
    "round", "save", "since", "so", "some", "sur", "than", "the", "through", "to", "toward", "towards", "un", "una",
    "unas", "under", "underneath", "une", "unlike", "uno", "unos", "until", "up", "upon", "versus", "via", "von",
    "while", "with", "within", "without", "yet", "zu", "zum"
})

_CORPORATE_WORDS = frozenset({
    "academy", "agency", "association", "board", "bureau", "centre", "center", "collaboration", "commission",
    "committee", "consortium", "corporation", "council", "department", "federation", "foundation", "group", "inc",
    "initiative", "institute", "institution", "laboratory", "league", "ltd", "ministry", "network", "office",
    "organisation", "organization", "panel", "programme", "program", "project", "service", "society", "team",
    "union", "university", "working"
})
"""Words that mark a name as a body rather than a person (a braced ``{…}`` author in BibTeX)."""

_FOLDED = str.maketrans({"ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ł": "l",
                         "Ł": "L", "đ": "d", "Đ": "D", "þ": "th", "Þ": "TH", "ð": "d", "ı": "i"})


def ascii_fold(value: str) -> str:
    """``"Müller-Łukasz Ørsted"`` → ``"Muller-Lukasz Orsted"``: accents dropped (NFKD), a few letters
    without a decomposition spelt out (``ß`` → ``ss``, ``ø`` → ``o``…); other non-ASCII characters dropped."""
    decomposed = unicodedata.normalize("NFKD", value.translate(_FOLDED))
    return "".join(ch for ch in decomposed if ord(ch) < 128)


def is_corporate(name: str) -> bool:
    """True for a body (``National Research Council``, ``The Royal Society``), False for a person.

    Names are stored "First von Last" (``ingest.bibtex``): a comma, a leading "The", or a word such as
    Council, Committee, Consortium or University (:data:`_CORPORATE_WORDS`) in a name of two words or
    more marks a body. It decides how a name is written out (braced in BibTeX, ``literal`` in CSL-JSON).
    """
    words = name.split()
    if len(words) < 2:
        return False
    if "," in name or words[0].casefold() == "the":
        return True
    return any(w.strip(".&").casefold() in _CORPORATE_WORDS for w in words)


def family_name(name: str) -> str:
    """The part of a stored name a key and a sort use: a person's last name without particles
    (``"Ludwig van Beethoven"`` → ``"Beethoven"``), a body's whole name."""
    if is_corporate(name):
        return name
    parts = parse_single_name_into_parts(name, strict=False)
    return " ".join(parts.last) or name


def _word(value: str) -> str:
    return re.sub(r"[^a-z0-9]", "", ascii_fold(value).casefold())


def base_key(authors: Sequence[str], year: int | None, title: str | None) -> str:
    """The key before it is made unique: family name + year + first significant title word.

    A body contributes its first three significant words (``nationalresearchcouncil``); with no author,
    the title word leads (``meeting2024``). Never empty: ``ref`` when nothing is left.
    """
    words = [w for w in (_word(t) for t in re.split(r"[\s\-–—/:]+", title or "")) if w and w not in SKIP_WORDS]
    head = ""
    if authors:
        first = authors[0]
        if is_corporate(first):
            head = "".join([w for w in (_word(t) for t in first.split()) if w and w not in SKIP_WORDS][:3])
        else:
            head = _word(family_name(first))
    if not head:
        return f"{words[0] if words else 'ref'}{year or ''}"
    return f"{head}{year or ''}{words[0] if words else ''}"


def is_valid_key(key: str) -> bool:
    """True for a key BibTeX and biber accept: not empty, without whitespace, commas, braces, quotes,
    ``#``, ``%``, ``=``, ``~`` or backslashes."""
    return bool(key) and not _BAD_KEY_CHARS.search(key)


def _suffixes() -> Iterable[str]:
    """``""``, then ``a`` … ``z``, ``aa`` … ``zz`` (Better BibTeX's disambiguation)."""
    yield ""
    letters = "abcdefghijklmnopqrstuvwxyz"
    yield from letters
    yield from (a + b for a in letters for b in letters)


def _unique(base: str, taken: set[str]) -> str:
    for suffix in _suffixes():
        if (base + suffix).casefold() not in taken:
            return base + suffix
    raise InvalidInput(f"no free citation key is left for {base!r}")


def document_year(row: tables.DocumentRow) -> int | None:
    """The year a document is cited with: its ``year`` field; None without one (a note is cited "n.d.", and
    its key has no year, as Better BibTeX keys an undated item: the day it was imported or written here is
    not when the work was published)."""
    year = row.meta.get("year")
    return year if isinstance(year, int) else year_of(year)


def _authors(row: tables.DocumentRow) -> list[str]:
    value = row.meta.get("authors") or row.meta.get("editors") or []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _stored_keys(session: Session) -> dict[str, tuple[Any, str]]:
    """Every valid stored key (casefolded) → (created_at, id) of the earliest document holding it."""
    forms = SqlForms.of(session)
    rows = session.exec(text(
        f"SELECT id, created_at, {forms.value('metadata', 'citation_key')} FROM document "
        f"WHERE {forms.text('metadata', 'citation_key')} IS NOT NULL ORDER BY created_at, id")).all()
    holders: dict[str, tuple[Any, str]] = {}
    for doc_id, created, key in rows:
        if isinstance(key, str) and is_valid_key(key):
            holders.setdefault(key.casefold(), (created, doc_id))
    return holders


def assign_keys(session: Session, rows: Sequence[tables.DocumentRow]) -> dict[str, str]:
    """Give every row of ``rows`` a unique key if it has none yet (in the caller's transaction).

    A row keeps a valid stored key that no earlier-created document holds; one whose key an earlier
    document holds gets that key with a suffix; one without a valid key gets :func:`base_key`, made unique.

    Returns:
        document id → key, for every row.
    """
    holders = _stored_keys(session)
    taken = set(holders)
    keys: dict[str, str] = {}
    for row in sorted(rows, key=lambda r: (r.created_at, r.id)):
        stored = row.meta.get(KEY_FIELD)
        valid = isinstance(stored, str) and is_valid_key(stored)
        if valid and holders.get(stored.casefold(), (None, row.id))[1] == row.id:
            keys[row.id] = stored
            continue
        base = stored if valid else base_key(_authors(row), document_year(row), row.title)
        key = _unique(base, taken)
        taken.add(key.casefold())
        holders[key.casefold()] = (row.created_at, row.id)
        row.meta = {**row.meta, KEY_FIELD: key}
        session.add(row)
        keys[row.id] = key
    return keys


def ensure_keys(lib: Library, document_ids: Sequence[str]) -> dict[str, str]:
    """The citation keys of ``document_ids``, assigning (and storing) the missing ones in one transaction.

    Returns:
        document id → key. Raises DocumentNotFound for an unknown id.
    """
    if not document_ids:
        return {}
    with write_session(lib.engine) as session:
        rows = records.document_rows(session, document_ids)
        before = {r.id: r.meta.get(KEY_FIELD) for r in rows}
        keys = assign_keys(session, rows)
        if any(before[i] != k for i, k in keys.items()):
            records.bump_change_counter(session)
        return keys


def check_key(session: Session, document_id: str, key: Any) -> str | None:
    """A key about to be stored on ``document_id``, checked: stripped, valid, not another document's.

    Returns:
        The key, or None for a blank one (the document then gets a new key when next cited).

    Raises:
        InvalidInput: a key BibTeX refuses (:func:`is_valid_key`), or one another document holds.
    """
    if key is None or not str(key).strip():
        return None
    key = str(key).strip()
    if not is_valid_key(key):
        raise InvalidInput(f"{key!r} cannot be a citation key: use letters, digits and -_:./+ without spaces, "
                           "commas, braces, quotes, #, %, = or ~")
    holder = _stored_keys(session).get(key.casefold())
    if holder is not None and holder[1] != document_id:
        other = session.get(tables.DocumentRow, holder[1])
        raise InvalidInput(f"the citation key {key!r} is already the key of {holder[1]}"
                           + (f" ({other.title})" if other is not None else ""))
    return key


def set_citation_key(lib: Library, document_id: str, key: str) -> str:
    """Set a document's citation key by hand (the previous state is kept as a version).

    Returns:
        The key stored. Raises InvalidInput (see :func:`check_key`; a blank key too), DocumentNotFound.
    """
    with write_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        checked = check_key(session, document_id, key)
        if checked is None:
            raise InvalidInput("the citation key is empty")
        if row.meta.get(KEY_FIELD) != checked:
            records.snapshot_version(session, row, "citation key changed")
            row.meta = {**row.meta, KEY_FIELD: checked}
            session.add(row)
            records.bump_change_counter(session)
        return checked

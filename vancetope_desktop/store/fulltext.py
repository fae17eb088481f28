"""The lexical index: an SQLite FTS5 table over chunks, with text analysis that works for CJK.

FTS5's ``unicode61`` tokenizer (with ``remove_diacritics 2``, so "Müller" matches "Muller") splits on
spaces and punctuation, which leaves Chinese or Japanese sentences as one giant token. Before
indexing and querying, runs of CJK characters are rewritten as overlapping character bigrams, the
scheme of Lucene's CJKAnalyzer, so "日本語" is found inside "日本語の文章".
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from sqlalchemy import text
from sqlmodel import Session

from ..core.rtl import fold_for_matching

_CJK = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\U00020000-\U0002a6df"
)
_CJK_RUN = re.compile(f"[{_CJK}]+")
CJK_RUN = _CJK_RUN
"""A run of CJK characters (they are indexed as overlapping bigrams, see :func:`analyze`)."""
_WORD = re.compile(r"\w+")
STOP_WORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
    "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
    "will", "with", "how", "what", "which", "who", "why", "when", "where", "do", "does", "did", "i", "we",
    "you", "my", "our", "can",
})
"""Lucene's English stop set plus question words: dropped from queries (not from the index) because in a
small library BM25's IDF cannot tell that "how" or "the" carry no meaning. A query made only of stop
words keeps them (``"to be or not to be"``)."""
MAX_QUERY_TERMS = 64
"""Terms beyond this are ignored: a pasted paragraph must not turn into a slow 500-term OR query."""


def _bigrams(match: re.Match[str]) -> str:
    run = match.group(0)
    if len(run) == 1:
        return f" {run} "
    return " " + " ".join(run[i : i + 2] for i in range(len(run) - 1)) + " "


def analyze(value: str) -> str:
    """Rewrite text for FTS5: Arabic and Hebrew folded for matching (presentation forms to letters, vowel
    marks and tatweel removed: :func:`~vancetope_desktop.core.rtl.fold_for_matching`), then CJK runs
    become space-separated bigrams; everything else is unchanged."""
    return _CJK_RUN.sub(_bigrams, fold_for_matching(value))


@dataclass(frozen=True)
class ParsedQuery:
    """A query split the way the keyword search reads it (see :func:`parse_query`).

    Attributes:
        words: the distinct lower-cased free terms, analysed like the index (CJK bigrams), stop words
            dropped unless nothing else is left, at most :data:`MAX_QUERY_TERMS`.
        phrases: each quoted phrase as its analysed terms in order (two or more), stop words kept:
            the words must appear next to each other.
        exact: single quoted words (``"cells"``): matched as written, without stemming.
    """

    words: tuple[str, ...] = ()
    phrases: tuple[tuple[str, ...], ...] = ()
    exact: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.words or self.phrases or self.exact)


_QUOTES = str.maketrans(dict.fromkeys("“”„«»", '"'))


def _terms(text: str) -> list[str]:
    return [term.lower() for term in _WORD.findall(analyze(text))]


def parse_query(query: str) -> ParsedQuery:
    """Split any user string into free words, quoted phrases and quoted single words; never raises.

    Text between a pair of double quotes (straight, or typographic “” „ «») is a phrase; an
    unpaired quote is ignored (its text stays free words). Everything is reduced to word characters,
    so FTS5 syntax in the query (``AND``, ``*``, ``col:``, ``^``, parentheses) is inert. At most
    :data:`MAX_QUERY_TERMS` units are kept (phrases first, then quoted words, then free words), and a
    phrase is cut at :data:`MAX_QUERY_TERMS` words.
    """
    pieces = query.translate(_QUOTES).split('"')
    if len(pieces) % 2 == 0:  # an odd number of quotes: the last one has no partner
        pieces[-2:] = [pieces[-2] + " " + pieces[-1]]
    free: dict[str, None] = {}
    phrases: dict[tuple[str, ...], None] = {}
    exact: dict[str, None] = {}
    for index, piece in enumerate(pieces):
        terms = _terms(piece)
        if index % 2 == 0:
            free.update(dict.fromkeys(terms))
        elif len(terms) == 1:
            exact.setdefault(terms[0], None)
        elif terms:
            phrases.setdefault(tuple(terms[:MAX_QUERY_TERMS]), None)
    quoted = bool(phrases or exact)
    words = [t for t in free if t not in STOP_WORDS and t not in exact] or ([] if quoted else list(free))
    kept_phrases = list(phrases)[:MAX_QUERY_TERMS]
    kept_exact = list(exact)[: MAX_QUERY_TERMS - len(kept_phrases)]
    kept_words = words[: MAX_QUERY_TERMS - len(kept_phrases) - len(kept_exact)]
    return ParsedQuery(words=tuple(kept_words), phrases=tuple(kept_phrases), exact=tuple(kept_exact))


def query_terms(query: str) -> list[str]:
    """Every distinct term of :func:`parse_query` (free words, quoted words, then phrase words), in order."""
    parsed = parse_query(query)
    terms = dict.fromkeys([*parsed.words, *parsed.exact, *(t for p in parsed.phrases for t in p)])
    return list(terms)


_TOKEN = re.compile(r"[^\W_]+")


def fold(term: str) -> str:
    """A term as the index compares it: lower-cased, diacritics removed (``"Müller"`` → ``"muller"``)."""
    if term.isascii():
        return term.lower()
    decomposed = unicodedata.normalize("NFKD", term.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


class _FoldTable(dict):
    """``str.translate`` table folding a character to its base letter when that is one character."""

    def __missing__(self, char: int) -> int:
        base = "".join(ch for ch in unicodedata.normalize("NFKD", chr(char)) if not unicodedata.combining(ch))
        self[char] = ord(base) if len(base) == 1 else char
        return self[char]


_FOLD = _FoldTable()


def fold_in_place(value: str) -> str | None:
    """``value`` folded like :func:`fold` character by character, keeping every offset (so a match in
    the result is a match at the same place in ``value``); None when folding would change the length
    (a ligature, a capital İ), for the caller to fall back to :func:`text_tokens`."""
    lowered = value.lower()
    if len(lowered) != len(value):
        return None
    folded = lowered if lowered.isascii() else lowered.translate(_FOLD)
    return folded if len(folded) == len(value) else None


def text_tokens(value: str) -> list[tuple[str, int, int]]:
    """The tokens the index holds for ``value``, folded, with their character spans in ``value``.

    Mirrors :func:`analyze` and FTS5's ``unicode61`` tokenizer (letters and digits; ``_`` and
    punctuation separate), so a query can be matched against a passage in Python the way FTS5 matched
    it, to show which words matched and where. Pass NFC text: a decomposed accent would split a word.

    Returns:
        ``(token, start, end)`` in text order; a CJK run gives its overlapping bigrams.
    """
    tokens: list[tuple[str, int, int]] = []
    for match in _TOKEN.finditer(value):
        piece, base, pos = match.group(), match.start(), 0
        if piece.isascii():  # most words: no CJK, no accents
            tokens.append((piece.lower(), base, match.end()))
            continue
        for run in _CJK_RUN.finditer(piece):
            if run.start() > pos:
                tokens.append((fold(analyze(piece[pos:run.start()])), base + pos, base + run.start()))
            chars, at = run.group(), base + run.start()
            if len(chars) == 1:
                tokens.append((chars, at, at + 1))
            tokens.extend((chars[i : i + 2], at + i, at + i + 2) for i in range(len(chars) - 1))
            pos = run.end()
        if pos < len(piece):
            tokens.append((fold(analyze(piece[pos:])), base + pos, match.end()))
    return tokens


def index_chunks(session: Session, chunks: list[tuple[int, str, str]]) -> None:
    """Add many chunks to the lexical index in one batch: ``(chunk id, title, body)`` each."""
    if chunks:
        session.execute(
            text("INSERT INTO chunk_fts(rowid, title, body) VALUES (:id, :title, :body)"),
            [{"id": chunk_id, "title": analyze(title), "body": analyze(body)} for chunk_id, title, body in chunks],
        )


def unindex_document(session: Session, document_id: str) -> None:
    """Remove every chunk of a document from the lexical index (call before deleting the chunks)."""
    session.exec(
        text("DELETE FROM chunk_fts WHERE rowid IN (SELECT id FROM chunk WHERE document_id = :doc)"),
        params={"doc": document_id},
    )


def retitle_document(session: Session, document_id: str, title: str) -> None:
    """Update the title column of a document's chunks after a rename."""
    session.exec(
        text("UPDATE chunk_fts SET title = :title WHERE rowid IN (SELECT id FROM chunk WHERE document_id = :doc)"),
        params={"doc": document_id, "title": analyze(title)},
    )

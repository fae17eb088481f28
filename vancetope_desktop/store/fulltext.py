"""The lexical index: an SQLite FTS5 table over chunks, with text analysis that works for CJK.

FTS5's ``unicode61`` tokenizer (with ``remove_diacritics 2``, so "Müller" matches "Muller") splits on
spaces and punctuation, which leaves Chinese or Japanese sentences as one giant token. Before
indexing and querying, runs of CJK characters are rewritten as overlapping character bigrams, the
scheme of Lucene's CJKAnalyzer, so "日本語" is found inside "日本語の文章".
"""

from __future__ import annotations

import re

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


def query_terms(query: str) -> list[str]:
    """The distinct lower-cased terms of a query, analysed like the index, stop words dropped (see
    :data:`STOP_WORDS`), at most :data:`MAX_QUERY_TERMS`."""
    terms: dict[str, None] = {}
    for term in _WORD.findall(analyze(query)):
        terms.setdefault(term.lower(), None)
    content = [t for t in terms if t not in STOP_WORDS] or list(terms)
    return content[:MAX_QUERY_TERMS]


def terms_expression(terms: list[str]) -> str | None:
    """An FTS5 MATCH expression that is the OR of ``terms``, each quoted; None for no terms."""
    return " OR ".join(f'"{term}"' for term in terms) if terms else None


def match_expression(query: str) -> str | None:
    """Turn any user string into a safe FTS5 MATCH expression (an OR of quoted terms), or None.

    Quoting every term makes FTS5 syntax characters inert: ``SARS-CoV-2``, ``C++``, ``"unbalanced``,
    ``Smith's`` and ``AND`` all become plain terms. Returns None when no word character is left.
    """
    return terms_expression(query_terms(query))


def create_fulltext_table(session: Session) -> None:
    """Create ``chunk_fts(title, body)`` if missing; its rowid is ``chunk.id``."""
    session.exec(
        text(
            "CREATE VIRTUAL TABLE IF NOT EXISTS chunk_fts USING fts5("
            "title, body, tokenize = 'unicode61 remove_diacritics 2')"
        )
    )


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

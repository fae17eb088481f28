"""The lexical (keyword) index of the session's database: FTS5 on SQLite, the postings tables on PostgreSQL (issue 17).

The one place that chooses between ``store/fulltext`` + ``index/lexical`` (SQLite's FTS5 table ``chunk_fts``) and
``store/pg_fulltext`` + ``index/pg_lexical`` (``chunk_lexical`` and ``chunk_term``, made by schema 9): both pairs
take the same arguments and give the same results, so callers import this module and never ask which database
they are on. The PostgreSQL modules are imported only by a session on PostgreSQL: the embedded library's start
loads nothing more.
"""

from __future__ import annotations

from types import ModuleType

from sqlmodel import Session

from ..store import fulltext
from ..store.dialect_sql import SqlForms
from ..store.filters import SqlFilter
from ..store.fulltext import ParsedQuery
from . import lexical
from .lexical import LexicalHit


def _writer(session: Session) -> ModuleType:
    """The module writing the index of ``session``'s database (``store/fulltext`` or ``store/pg_fulltext``)."""
    if SqlForms.of(session).sqlite:
        return fulltext
    from ..store import pg_fulltext

    return pg_fulltext


def _reader(session: Session) -> ModuleType:
    """The module searching the index of ``session``'s database (``index/lexical`` or ``index/pg_lexical``)."""
    if SqlForms.of(session).sqlite:
        return lexical
    from . import pg_lexical

    return pg_lexical


def index_chunks(session: Session, chunks: list[tuple[int, str, str]]) -> None:
    """Add chunks to the index in one batch: ``(chunk id, document title, chunk text)`` each."""
    _writer(session).index_chunks(session, chunks)


def unindex_document(session: Session, document_id: str) -> None:
    """Remove every chunk of a document from the index (before its chunks are deleted)."""
    _writer(session).unindex_document(session, document_id)


def retitle_document(session: Session, document_id: str, title: str) -> None:
    """Index a document's chunks again under its new ``title``."""
    _writer(session).retitle_document(session, document_id, title)


def search_chunks(session: Session, query: str | ParsedQuery, document_filter: SqlFilter, limit: int,
                  **options) -> list[LexicalHit]:
    """The best chunks for ``query`` among the documents of ``document_filter``: ``index/lexical.search_chunks``
    (its keyword ``options`` too) on the session's database."""
    return _reader(session).search_chunks(session, query, document_filter, limit, **options)


def documents_with_quoted(session: Session, query: ParsedQuery) -> set[str] | None:
    """The documents holding every quoted phrase and word of ``query``, None when it quotes nothing
    (``index/lexical.documents_with_quoted``)."""
    return _reader(session).documents_with_quoted(session, query)


def body_phrase(session: Session, phrase: str) -> tuple[str, str, dict[str, str]]:
    """How to find the chunks whose text (not title) holds ``phrase`` (words as the index holds them, analysed):
    ``(FROM source joining chunk c, WHERE condition, parameters)``, the condition's parameter named ``phrase``."""
    if SqlForms.of(session).sqlite:
        return ("chunk_fts JOIN chunk c ON c.id = chunk_fts.rowid", "chunk_fts MATCH :phrase",
                {"phrase": 'body : "' + phrase.replace('"', '""') + '"'})
    from ..store.pg_fulltext import lexeme, tokens

    words = tokens(phrase)
    # Body positions carry no weight label, i.e. weight D (store/pg_fulltext._vector: the title's are A).
    condition = "l.tsv @@ CAST(:phrase AS tsquery)" if words else "FALSE"
    return ("chunk_lexical l JOIN chunk c ON c.id = l.chunk_id", condition,
            {"phrase": " <-> ".join(f"{lexeme(word)}:D" for word in words)})

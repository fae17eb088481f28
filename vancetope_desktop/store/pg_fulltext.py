"""The lexical index on PostgreSQL (issue 17): the same analysed tokens as FTS5's, in a tsvector and a postings table.

Tokens. FTS5's ``unicode61`` tokenizer (``remove_diacritics 2``) splits at every character that is not a letter or a
digit; PostgreSQL's parser does not: ``to_tsvector('simple', unaccent('covid-19 3.5 a/b.txt v1.2.3'))`` gives
``covid``, ``-19``, ``3.5``, ``a/b.txt``, ``v1.2.3`` where FTS5 indexes covid, 19, 3, 5, a, b, txt, v1, 2, 3 (checked
on PostgreSQL 15, 3 December 2026), and its letter classes follow the server's locale. So the tokens are made here, by
:func:`~vancetope_desktop.store.fulltext.text_tokens` over :func:`~vancetope_desktop.store.fulltext.analyze`'s text
(RTL folding, CJK bigrams, lower case, diacritics removed: "Müller" → ``muller``, as FTS5 and ``unaccent`` both give),
and handed to PostgreSQL as lexemes: no text search configuration, no ``unaccent``, no server locale in the way.

Two structures, from the same tokens:

* ``chunk_lexical``: per chunk, a ``tsvector`` (title positions weight A, body positions weight B after a gap so a
  phrase never runs from the title into the body) under a GIN index, for phrases (``<->``) and quoted words; and the
  title's and body's token counts (BM25's lengths).
* ``chunk_term``: the postings, one row per (term, chunk) with the term's count in the title and in the body and
  the chunk's length (kept here too: BM25 needs it for every posting, and a join to ``chunk_lexical`` per posting
  cost a third of a search), under the primary key (term, chunk) in byte order (``COLLATE "C"``), which includes
  the counts (index-only scans once vacuumed): a stem prefix is a range of it.

Why a postings table beside the tsvector: PostgreSQL's ``ts_rank`` and ``ts_rank_cd`` are not BM25 (no idf, another
length normalisation), and reading a term's count out of tsvectors means unnesting every matching chunk's whole
vector; a B-tree of postings gives FTS5's BM25 exactly, from the same counts (``index/pg_lexical``), so the keyword
scores keep the scale the fusion was tuned on. Word matching (stem prefixes included) reads the postings; the GIN
index serves phrases and quoted words, which need positions.

The functions take the same arguments as ``store/fulltext``'s.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlmodel import Session

from .fulltext import analyze, text_tokens

MAX_POSITION = 16_383
"""PostgreSQL's largest tsvector position (``MAXENTRYPOS - 1``): later words share it (phrases there are lost)."""
MAX_POSITIONS = 256
"""PostgreSQL keeps at most this many positions of one lexeme in a tsvector (``MAXNUMPOS``); the counts in
``chunk_term`` are exact."""
MAX_LEXEME_BYTES = 2_046
"""A tsvector lexeme is under 2 KB (``MAXSTRLEN``): a longer "word" (a pasted base64 blob) is not indexed, as no query
could name it usefully."""

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS chunk_lexical (chunk_id bigint PRIMARY KEY REFERENCES chunk(id) ON DELETE CASCADE, "
    "title_tokens integer NOT NULL, body_tokens integer NOT NULL, tsv tsvector NOT NULL)",
    "CREATE INDEX IF NOT EXISTS ix_chunk_lexical_tsv ON chunk_lexical USING gin (tsv)",
    "CREATE TABLE IF NOT EXISTS chunk_term (term text COLLATE \"C\" NOT NULL, chunk_id bigint NOT NULL "
    "REFERENCES chunk(id) ON DELETE CASCADE, title_tf integer NOT NULL, body_tf integer NOT NULL, "
    "length integer NOT NULL, "
    "PRIMARY KEY (term, chunk_id) INCLUDE (title_tf, body_tf, length))",
    "CREATE INDEX IF NOT EXISTS ix_chunk_term_chunk ON chunk_term (chunk_id)",
)
"""The statements that create the PostgreSQL lexical tables (after ``chunk``); idempotent."""


def create_tables(session: Session) -> None:
    """Create ``chunk_lexical`` and ``chunk_term`` with their indexes if missing (the ``chunk`` table must exist)."""
    for statement in SCHEMA:
        session.exec(text(statement))


def tokens(value: str) -> list[str]:
    """The index's tokens of ``value`` in order, as FTS5 holds them (see the module docstring), too-long ones left
    out (:data:`MAX_LEXEME_BYTES`)."""
    return [token for token, _start, _end in text_tokens(analyze(value))
            if len(token.encode()) <= MAX_LEXEME_BYTES]


def lexeme(term: str) -> str:
    """``term`` quoted for a tsvector or tsquery literal (``'it''s'``): the input is never parsed as syntax."""
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def _vector(title: list[str], body: list[str]) -> str:
    """A tsvector literal: title tokens at positions 1… weight A, body tokens after a gap of one, weight B."""
    positions: dict[str, list[str]] = {}
    for start, words, weight in ((1, title, "A"), (len(title) + 2, body, "")):
        for offset, word in enumerate(words):
            held = positions.setdefault(word, [])
            if len(held) < MAX_POSITIONS:
                held.append(f"{min(start + offset, MAX_POSITION)}{weight}")
    return " ".join(f"{lexeme(word)}:{','.join(at)}" for word, at in positions.items())


def index_chunks(session: Session, chunks: list[tuple[int, str, str]]) -> None:
    """Add many chunks to the lexical index in one batch: ``(chunk id, title, body)`` each."""
    if not chunks:
        return
    rows, postings = [], []
    for chunk_id, title, body in chunks:
        title_tokens, body_tokens = tokens(title), tokens(body)
        rows.append({"id": chunk_id, "nt": len(title_tokens), "nb": len(body_tokens),
                     "tsv": _vector(title_tokens, body_tokens)})
        counts: dict[str, list[int]] = {}
        for column, words in ((0, title_tokens), (1, body_tokens)):
            for word in words:
                counts.setdefault(word, [0, 0])[column] += 1
        length = len(title_tokens) + len(body_tokens)
        postings += [{"term": term, "id": chunk_id, "t": t, "b": b, "n": length} for term, (t, b) in counts.items()]
    session.execute(text("INSERT INTO chunk_lexical (chunk_id, title_tokens, body_tokens, tsv) "
                         "VALUES (:id, :nt, :nb, CAST(:tsv AS tsvector))"), rows)
    if postings:
        session.execute(text("INSERT INTO chunk_term (term, chunk_id, title_tf, body_tf, length) "
                                 "VALUES (:term, :id, :t, :b, :n)"),
                        postings)


def unindex_document(session: Session, document_id: str) -> None:
    """Remove every chunk of a document from the lexical index (call before deleting the chunks)."""
    for table in ("chunk_term", "chunk_lexical"):
        session.exec(text(f"DELETE FROM {table} WHERE chunk_id IN (SELECT id FROM chunk WHERE document_id = :doc)"),
                     params={"doc": document_id})


def retitle_document(session: Session, document_id: str, title: str) -> None:
    """Index a document's chunks again under a new title (a rename: the title's postings change with it)."""
    chunks = session.exec(text("SELECT id, text FROM chunk WHERE document_id = :doc ORDER BY ordinal"),
                          params={"doc": document_id}).all()
    unindex_document(session, document_id)
    index_chunks(session, [(chunk_id, title, body) for chunk_id, body in chunks])
